package duplex.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Call-edge counts. An edge is (caller class, caller method, caller descriptor, original call-site
 * offset, line, callee key). Recording happens only in sampled code and already pays for a stack
 * walk, so a ConcurrentHashMap of exact LongAdder counters is cheap enough.
 */
final class CallEdges {
  static final class Edge implements Comparable<Edge> {
    final String callerClass;
    final String callerMethod;
    final String callerDescriptor;
    final int offset;
    final int line;
    final String callee;
    private final int hash;

    Edge(String cls, String method, String desc, int offset, int line, String callee) {
      this.callerClass = cls;
      this.callerMethod = method;
      this.callerDescriptor = desc;
      this.offset = offset;
      this.line = line;
      this.callee = callee;
      int h = cls.hashCode();
      h = h * 31 + method.hashCode();
      h = h * 31 + desc.hashCode();
      h = h * 31 + offset;
      h = h * 31 + line;
      this.hash = h * 31 + callee.hashCode();
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof Edge)) return false;
      Edge e = (Edge) o;
      return hash == e.hash && offset == e.offset && line == e.line
          && callerClass.equals(e.callerClass) && callerMethod.equals(e.callerMethod)
          && callerDescriptor.equals(e.callerDescriptor) && callee.equals(e.callee);
    }

    /** The deterministic tie-break order of the profile: by every field, in key order. */
    @Override
    public int compareTo(Edge o) {
      int c = callerClass.compareTo(o.callerClass);
      if (c == 0) c = callerMethod.compareTo(o.callerMethod);
      if (c == 0) c = callerDescriptor.compareTo(o.callerDescriptor);
      if (c == 0) c = Integer.compare(offset, o.offset);
      if (c == 0) c = Integer.compare(line, o.line);
      if (c == 0) c = callee.compareTo(o.callee);
      return c;
    }
  }

  private final ConcurrentHashMap<Edge, LongAdder> counts =
      new ConcurrentHashMap<Edge, LongAdder>();

  /** Records one call of {@code callee} from the caller of the current callee frame. */
  void record(String callee) {
    CallerFinder.Frame f = CallerFinder.callerOfCallee();
    if (f == null) {
      Log.debug("call edge to " + callee + " has no caller frame; dropped");
      return;
    }
    int offset = f.bci;
    int line = f.line;
    if (f.bci >= 0) {
      SiteTables.Site site = SiteTables.lookup(f.type, f.className, f.method + f.descriptor, f.bci);
      if (site == SiteTables.UNKNOWN) {
        Log.debug("bci " + f.bci + " of " + f.className + "." + f.method + f.descriptor
            + " is not in its site table");
        offset = -1;
      } else if (site != null) {
        offset = site.offset;
        if (site.line >= 0) line = site.line;
      }
    }
    add(new Edge(f.className, f.method, f.descriptor, offset, line, callee));
  }

  void add(Edge e) {
    LongAdder a = counts.get(e);
    if (a == null) {
      LongAdder fresh = new LongAdder();
      a = counts.putIfAbsent(e, fresh);
      if (a == null) a = fresh;
    }
    a.increment();
  }

  void clear() { counts.clear(); }

  /** (edge, count) pairs with a non-zero count; not atomic with respect to concurrent counting. */
  List<Object[]> snapshot() {
    List<Object[]> list = new ArrayList<Object[]>();
    for (Map.Entry<Edge, LongAdder> e : counts.entrySet()) {
      long n = e.getValue().sum();
      if (n != 0) list.add(new Object[] {e.getKey(), n});
    }
    return list;
  }
}
