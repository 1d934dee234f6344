package agenttest;

/** The code the stop tests run: rewritten by the agent until stop restores it. */
public final class StopWork {
  static int field;

  private StopWork() {}

  static int leaf(int i) {
    field += i;
    return i * 3 + 1;
  }

  public static long run(int n) {
    long sum = 0;
    for (int i = 0; i < n; i++) {
      sum += leaf(i) ^ field;
    }
    return sum;
  }
}
