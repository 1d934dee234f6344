package agenttest;

import duplex.runtime.Duplex;

/**
 * Shows that stop returns the agent's classes to their original bytes, through the JVM: with
 * countChecks=true and countEdges=true every check, method entry and back edge executed by
 * rewritten code is counted; after stop the same code executes none. Run with
 * exclude=agenttest.StopMain (this driver stays unrewritten; its frames are on the stack when
 * stop runs and would keep their old code).
 *
 * <pre>java agenttest.StopMain api|timer</pre>
 * "api" calls Duplex.stop(); "timer" waits for the agent's stop=DURATION to fire.
 */
public final class StopMain {
  private StopMain() {}

  public static void main(String[] args) throws Exception {
    boolean api = args[0].equals("api");
    long before = StopWork.run(1000);
    long checks = Duplex.checksExecuted();
    long entries = Duplex.entriesExecuted();
    System.out.println("before stop: checks>0 " + (checks > 0) + ", entries>0 " + (entries > 0)
        + ", result " + before);
    if (api) {
      System.out.println("stop() = " + Duplex.stop());
    } else {
      long deadline = System.currentTimeMillis() + 30_000;
      while (!Duplex.profileXml().contains("agent-classes-restored=")) {
        if (System.currentTimeMillis() > deadline) {
          System.out.println("stop did not fire");
          System.exit(1);
        }
        StopWork.run(100);
        Thread.sleep(20);
      }
      System.out.println("stopped by the timer");
    }
    String xml = Duplex.profileXml();
    System.out.println("interval " + Duplex.getInterval() + ", restored>0 "
        + xml.matches("(?s).*agent-classes-restored=\"[1-9].*"));
    Duplex.reset();
    // Original StopWork: same result, and neither checks nor entries nor back edges counted.
    StopWork.field = 0;
    long after = StopWork.run(1000);
    System.out.println("after stop: checks " + Duplex.checksExecuted() + ", entries "
        + Duplex.entriesExecuted() + ", backedges " + Duplex.backedgesExecuted() + ", samples "
        + Duplex.samplesTaken() + ", same result " + (after == before));
    // A second stop changes nothing.
    if (api) System.out.println("stop() again = " + Duplex.stop());
  }
}
