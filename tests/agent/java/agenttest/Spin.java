package agenttest;

/** Runs rewritten code until killed; prints "ready" once it has. For the SIGTERM test. */
public final class Spin {
  private Spin() {}

  static int work(int i) {
    return StopWork.leaf(i) + 1;
  }

  public static void main(String[] args) throws Exception {
    long sum = 0;
    for (int i = 0; i < 200_000; i++) sum += work(i);
    System.out.println("ready " + (sum != 0));
    System.out.flush();
    while (true) {
      for (int i = 0; i < 10_000; i++) sum += work(i);
      Thread.sleep(1);
    }
  }
}
