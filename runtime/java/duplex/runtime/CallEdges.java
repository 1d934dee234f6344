package duplex.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Call-edge counts. An edge is (caller class, caller method, caller descriptor, original call-site
 * offset, line, callee key), counted in exact LongAdders. The hot path does not build an Edge:
 * the caller's {@link CallerSite} caches the counter of each callee (see CallerSite); the map
 * below is only reached the first time a site sees a callee, and after a new epoch.
 */
final class CallEdges implements CountStore {
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

  /** The counters, by edge; replaced (not cleared) by {@link #clear}. */
  private static volatile ConcurrentHashMap<Edge, LongAdder> counts =
      new ConcurrentHashMap<Edge, LongAdder>();

  /**
   * Moves whenever a cached {@link CallerSite} mapping may be stale: a site table registered for
   * a class that already has caller sites, or {@link #clear}.
   */
  private static volatile int epoch;

  static int epoch() { return epoch; }

  static void newEpoch() {
    synchronized (CallEdges.class) {
      epoch++;
    }
  }

  /** The counter of edge {@code e} (the slow path of {@link CallerSite#count}). */
  static LongAdder counter(Edge e) {
    ConcurrentHashMap<Edge, LongAdder> map = counts;
    LongAdder a = map.get(e);
    if (a == null) {
      LongAdder fresh = new LongAdder();
      a = map.putIfAbsent(e, fresh);
      if (a == null) a = fresh;
    }
    return a;
  }

  /**
   * Drops every count. Cached caller sites notice the new epoch and fetch fresh counters; an
   * increment racing with the reset may land in the old counters (lost, as a count racing with
   * a reset would be anyway).
   */
  @Override
  public void clear() {
    synchronized (CallEdges.class) {
      counts = new ConcurrentHashMap<Edge, LongAdder>();
      epoch++;
    }
  }

  @Override
  public void scale(CountScale s) {
    for (LongAdder n : counts.values()) s.apply(n);
  }

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
