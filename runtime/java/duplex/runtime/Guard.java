package duplex.runtime;

/**
 * The recursion guard. While a thread runs runtime code that records or dumps, any event raised by
 * code the runtime calls (JDK classes the agent may have rewritten) is dropped, so the runtime
 * never profiles itself and never recurses.
 *
 * <p>Only the recording paths use it; {@link Duplex#check()} never does. Usage:
 *
 * <pre>
 *   int[] g = Guard.enter();
 *   if (g == null) return;      // already inside the runtime on this thread
 *   try { ... } finally { g[0] = 0; }
 * </pre>
 *
 * The guard itself uses ThreadLocal; that is why the agent must not rewrite java.lang classes (see
 * docs/profile-format.md, "Runtime requirements").
 */
final class Guard {
  private static final ThreadLocal<int[]> DEPTH = new ThreadLocal<int[]>() {
    @Override
    protected int[] initialValue() {
      return new int[1];
    }
  };

  private Guard() {}

  /** Marks this thread as inside the runtime; null if it already was. */
  static int[] enter() {
    int[] d = DEPTH.get();
    if (d[0] != 0) return null;
    d[0] = 1;
    return d;
  }
}
