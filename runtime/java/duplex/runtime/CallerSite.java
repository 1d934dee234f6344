package duplex.runtime;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * One place a call edge can come from: a bci in a caller method, as the stack shows it (before
 * the site table maps it). There is one canonical CallerSite per (class, method, descriptor,
 * bci), found by {@link Table#find} without allocating; it caches what the slow path computes
 * once: the frame's line, the site-table mapping (reported method, original offset and line)
 * and the counter of every callee seen from it. Recording an edge from a known site is then a
 * field read, an epoch compare, a short array scan and a LongAdder increment.
 *
 * <p>The cached mapping is tagged with {@link CallEdges#epoch()}; it is recomputed when the
 * epoch moves (a site table registered for a class that already has caller sites, or a reset
 * that replaced the counters).
 */
final class CallerSite {
  final Class<?> type; // null on the Java 8 fallback (no class from a stack trace)
  final String className; // internal form, a/b/C
  final String method;
  final String descriptor; // "" when the JVM cannot tell
  final int bci; // -1 when the JVM cannot tell
  final int frameLine; // the line of the frame itself, -1 when unknown
  final int hash;

  private volatile Mapped mapped;

  CallerSite(Class<?> type, String className, String method, String descriptor, int bci,
      int frameLine) {
    this.type = type;
    this.className = className;
    this.method = method;
    this.descriptor = descriptor;
    this.bci = bci;
    this.frameLine = frameLine;
    this.hash = hash(method, descriptor, bci);
  }

  static int hash(String method, String descriptor, int bci) {
    int h = method.hashCode() * 31 + descriptor.hashCode();
    h = h * 31 + bci;
    return h ^ (h >>> 16);
  }

  boolean matches(String m, String d, int b) {
    return bci == b && (method == m || method.equals(m))
        && (descriptor == d || descriptor.equals(d));
  }

  /** Counts one call of {@code callee} from this site. */
  void count(String callee) {
    Mapped m = mapped;
    if (m == null || m.epoch != CallEdges.epoch()) m = remap();
    m.counter(callee).increment();
  }

  /** The mapping of this site through its class's site table, for the current epoch. */
  private Mapped remap() {
    int epoch = CallEdges.epoch(); // read before the table and the counters it maps to
    // Reported as keys write names (KeyText), as the rewriter's call-edge keys do.
    String reportMethod = KeyText.escape(method);
    String reportDescriptor = KeyText.escape(descriptor);
    int offset = bci;
    int line = frameLine;
    SiteTables.MethodSites ms = SiteTables.methodSites(type, className, method + descriptor);
    if (ms != null) {
      if (ms.asMethod != null) { // an outlined method reports as its original (contract rule b)
        reportMethod = ms.asMethod;
        reportDescriptor = ms.asDescriptor;
      }
      if (bci >= 0) {
        int i = ms.indexOf(bci);
        if (i < 0) {
          Log.debug("bci " + bci + " of " + className + "." + method + descriptor
              + " is not in its site table");
          offset = -1;
        } else {
          offset = ms.offsets[i];
          if (ms.lines[i] >= 0) line = ms.lines[i];
        }
      }
    }
    Mapped m = new Mapped(
        epoch, KeyText.escape(className), reportMethod, reportDescriptor, offset, line);
    mapped = m;
    return m;
  }

  /** A site's mapping and its callee counters, valid for one epoch. */
  private static final class Mapped {
    final int epoch;
    final String className;
    final String method;
    final String descriptor;
    final int offset;
    final int line;
    /** Pairs (callee key, LongAdder); replaced, never changed in place, when one is added. */
    private volatile Object[] callees = new Object[0];

    Mapped(int epoch, String className, String method, String descriptor, int offset, int line) {
      this.epoch = epoch;
      this.className = className;
      this.method = method;
      this.descriptor = descriptor;
      this.offset = offset;
      this.line = line;
    }

    LongAdder counter(String callee) {
      Object[] c = callees;
      for (int i = 0; i < c.length; i += 2) {
        if (c[i] == callee) return (LongAdder) c[i + 1]; // ldc constants: usually identical
      }
      for (int i = 0; i < c.length; i += 2) {
        if (c[i].equals(callee)) return (LongAdder) c[i + 1];
      }
      return addCounter(callee);
    }

    private synchronized LongAdder addCounter(String callee) {
      Object[] c = callees;
      for (int i = 0; i < c.length; i += 2) {
        if (c[i].equals(callee)) return (LongAdder) c[i + 1];
      }
      LongAdder a = CallEdges.counter(
          new CallEdges.Edge(className, method, descriptor, offset, line, callee));
      Object[] next = new Object[c.length + 2];
      System.arraycopy(c, 0, next, 0, c.length);
      next[c.length] = callee;
      next[c.length + 1] = a;
      callees = next;
      return a;
    }
  }

  /**
   * The caller sites of one class: an open-addressing hash table read without locks (sites are
   * immutable in their key fields, so a racing reader sees null or a whole site) and written
   * under its lock.
   */
  static final class Table {
    private volatile CallerSite[] slots = new CallerSite[16];
    private int size; // guarded by this

    /** The site, or null if it was never added. */
    CallerSite find(String method, String descriptor, int bci) {
      CallerSite[] t = slots;
      int mask = t.length - 1;
      for (int i = hash(method, descriptor, bci) & mask;; i = (i + 1) & mask) {
        CallerSite s = t[i];
        if (s == null) return null;
        if (s.matches(method, descriptor, bci)) return s;
      }
    }

    /** The canonical site equal to {@code s}: an existing one, or {@code s} once added. */
    synchronized CallerSite add(CallerSite s) {
      CallerSite old = find(s.method, s.descriptor, s.bci);
      if (old != null) return old;
      CallerSite[] t = slots;
      if ((size + 1) * 2 > t.length) {
        CallerSite[] bigger = new CallerSite[t.length * 2];
        for (CallerSite e : t) {
          if (e != null) insert(bigger, e);
        }
        insert(bigger, s);
        slots = bigger;
      } else {
        insert(t, s);
      }
      size++;
      return s;
    }

    private static void insert(CallerSite[] t, CallerSite s) {
      int mask = t.length - 1;
      int i = s.hash & mask;
      while (t[i] != null) i = (i + 1) & mask;
      t[i] = s;
    }
  }

  /** Sites of the Java 8 fallback, which has no Class (keyed by class, method, line). */
  private static final ConcurrentHashMap<String, CallerSite> BY_NAME =
      new ConcurrentHashMap<String, CallerSite>();

  static CallerSite withoutClass(String className, String method, int line) {
    String key = className + ' ' + method + ' ' + line;
    CallerSite s = BY_NAME.get(key);
    if (s == null) {
      SiteTables.noteCallerName(className);
      CallerSite fresh = new CallerSite(null, className, method, "", -1, line);
      s = BY_NAME.putIfAbsent(key, fresh);
      if (s == null) s = fresh;
    }
    return s;
  }
}
