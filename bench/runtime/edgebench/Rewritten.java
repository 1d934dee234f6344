package edgebench;

/** Rewritten by the agent in the edge benchmark: every call of work records an edge. */
public final class Rewritten {
  private Rewritten() {}

  static int work(int x) {
    return x * 31 + 7;
  }

  static int loop(int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s += work(i);
    return s;
  }
}
