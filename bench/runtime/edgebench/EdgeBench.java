package edgebench;

import duplex.runtime.Duplex;

/**
 * The cost of one recorded call edge, run by bench/runtime/edge_bench.sh under the duplex agent
 * (old and new builds, nativeStack=true and false).
 *
 * <pre>java -agentpath:libduplexagent.so=include=edgebench.Rewritten,mode=exhaustive,\
 *     profile=call-edge -cp CLASSES edgebench.EdgeBench SCENARIO CALLS</pre>
 *
 * Scenarios:
 * <ul>
 *   <li>{@code direct}: a callee whose first statement is Duplex.callEdge, as sampled code does
 *       (this class is not rewritten): one caller site, one callee.
 *   <li>{@code sites}: the same callee reached from 8 caller sites and a second callee, round
 *       robin (16 edges).
 *   <li>{@code rewritten}: {@link Rewritten}, instrumented by the agent (exhaustive mode: every
 *       call records its edge): a loop calling a small method. Includes the rewritten code's own
 *       cost, which is small next to the edge.
 * </ul>
 * Prints the best of 5 timed rounds (after 5 warm-up rounds), in ns per recorded edge, and the
 * number of edges in the profile (a check that they were counted).
 */
public final class EdgeBench {
  private EdgeBench() {}

  static int sink;

  static void callee() {
    Duplex.callEdge("edgebench/EdgeBench.callee()V");
    sink++;
  }

  static void other() {
    Duplex.callEdge("edgebench/EdgeBench.other()V");
    sink--;
  }

  static void direct(int n) {
    for (int i = 0; i < n; i++) callee();
  }

  static void sites(int n) {
    for (int i = 0; i < n; i += 16) {
      callee(); other(); callee(); other(); callee(); other(); callee(); other();
      callee(); other(); callee(); other(); callee(); other(); callee(); other();
    }
  }

  static long round(String scenario, int n) {
    long t0 = System.nanoTime();
    switch (scenario) {
      case "direct":
        direct(n);
        break;
      case "sites":
        sites(n);
        break;
      case "rewritten":
        sink += Rewritten.loop(n);
        break;
      default:
        throw new IllegalArgumentException("unknown scenario " + scenario);
    }
    return System.nanoTime() - t0;
  }

  public static void main(String[] args) {
    String scenario = args[0];
    int n = Integer.parseInt(args[1]) / 16 * 16;
    for (int i = 0; i < 5; i++) round(scenario, n / 5 / 16 * 16); // warm up (JIT)
    long best = Long.MAX_VALUE;
    for (int r = 0; r < 5; r++) best = Math.min(best, round(scenario, n));
    String xml = Duplex.profileXml();
    int edges = xml.split("<edge ", -1).length - 1;
    System.out.printf("%.1f ns/edge, %d edges in the profile%n", (double) best / n, edges);
  }
}
