package agenttest;

import duplex.runtime.Duplex;

/**
 * The cost of one recorded call edge: Duplex.callEdge (the runtime's path: find the caller
 * frame, map its bci, count the edge) called from a callee's entry, as sampled code does.
 * Run under the agent with nativeStack=false (java.lang.StackWalker) and nativeStack=true
 * (JVMTI GetStackTrace), and exclude=agenttest.* so this class is not rewritten.
 *
 * <pre>java agenttest.EdgeBench [CALLS] [EXTRA_STACK_DEPTH]</pre>
 */
public final class EdgeBench {
  private EdgeBench() {}

  static void callee() {
    Duplex.callEdge("agenttest/EdgeBench.callee()V");
  }

  static void caller(int n) {
    for (int i = 0; i < n; i++) callee();
  }

  static long timed(int n, int depth) {
    if (depth > 0) return timed(n, depth - 1);
    long t0 = System.nanoTime();
    caller(n);
    return System.nanoTime() - t0;
  }

  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int depth = args.length > 1 ? Integer.parseInt(args[1]) : 0;
    for (int i = 0; i < 5; i++) timed(n / 5, depth); // warm up (JIT)
    long best = Long.MAX_VALUE;
    for (int round = 0; round < 5; round++) best = Math.min(best, timed(n, depth));
    String xml = Duplex.profileXml();
    boolean counted = xml.contains("caller-method=\"caller\"");
    System.out.printf("call edge: %.1f ns per call (best of 5 x %d calls, stack depth +%d), "
        + "edge recorded %s%n", (double) best / n, n, depth, counted);
  }
}
