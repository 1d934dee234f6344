// Tight loops that call nothing, the case loop budgets are for (bench/runtime/loopbudget.sh):
// an int-array sum that C2 unrolls and vectorizes when the loop holds no store to memory, and a
// byte-array checksum. Each method reads a static field once, before its loop, so that it has
// an instrumentation site and is rewritten. Prints the best time of the measured rounds, in ms.
public final class LoopSum {
  static int[] ints;
  static byte[] bytes;

  static int sum() {
    int[] a = ints;
    int s = 0;
    for (int i = 0; i < a.length; i++) s += a[i];
    return s;
  }

  static int checksum() {
    byte[] b = bytes;
    int h = 1;
    for (int i = 0; i < b.length; i++) h = 31 * h + b[i];
    return h;
  }

  public static void main(String[] args) {
    int[] a = ints = new int[4096];
    byte[] b = bytes = new byte[4096];
    for (int i = 0; i < a.length; i++) {
      a[i] = i * 7;
      b[i] = (byte) i;
    }
    long best = Long.MAX_VALUE;
    int sink = 0;
    for (int round = 0; round < 30; round++) {
      long t0 = System.nanoTime();
      for (int k = 0; k < 20000; k++) sink += sum() + checksum();
      long t = System.nanoTime() - t0;
      if (round >= 10) best = Math.min(best, t);
    }
    System.out.println((best / 1e6) + " " + sink);
  }
}
