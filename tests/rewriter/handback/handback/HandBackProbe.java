package handback;

import java.util.ArrayList;
import java.util.List;

/**
 * Loops whose samples must end at the next back edge (rewriter/hand_back.h). Every loop
 * iteration asks whether it runs in an outlined twin (a caller frame named {@code *$duplex}).
 * The results go to stdout and must match the original program's; the twin count goes to
 * stderr as {@code in-twin N of M}.
 *
 * <p>The loops keep locals of every kind live across their back edges (int, long, float,
 * double, references of several classes, an array, a local that is still null), return each
 * kind of value, nest, and run on two threads at once, so that the hand-back buffer's every
 * path is taken.
 */
public final class HandBackProbe {
  private static int inTwin;
  private static int iterations;

  private HandBackProbe() {}

  /** Counts one iteration, and whether the code that called it runs in a twin. */
  static void mark() {
    boolean twin =
        StackWalker.getInstance()
            .walk(
                s ->
                    s.map(StackWalker.StackFrame::getMethodName)
                        .filter(n -> !n.startsWith("mark"))
                        .findFirst()
                        .orElse("")
                        .endsWith("$duplex"));
    synchronized (HandBackProbe.class) {
      iterations++;
      if (twin) inTwin++;
    }
  }

  static long longLoop(int n, String tag) {
    long acc = 1;
    double d = 0.5;
    float f = 1.5f;
    String late = null;
    Object o = tag;
    int[] arr = {1, 2, 3};
    for (int i = 0; i < n; i++) {
      acc = acc * 31 + i + arr[i % 3];
      d += i * 0.25;
      f += 0.5f;
      if ((i & 255) == 0) late = tag + i;
      mark();
    }
    return acc + (long) d + (long) f + (late == null ? 0 : late.length()) + o.toString().length();
  }

  static double doubleLoop(int n) {
    double d = 1;
    for (int i = 0; i < n; i++) {
      d = d * 1.0001 + inner(i & 7);
      mark();
    }
    return d;
  }

  /** Nested: an outlined loop inside an outlined loop's iteration. */
  static int inner(int k) {
    int s = 0;
    for (int j = 0; j < k; j++) s += j * j;
    return s;
  }

  static String objectLoop(int n) {
    StringBuilder sb = new StringBuilder();
    List<Integer> seen = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (i % 97 == 0) {
        sb.append(i).append(',');
        seen.add(i);
      }
      mark();
    }
    return sb.length() + ":" + seen.size();
  }

  static void voidLoop(int n, long[] out) {
    long x = 7;
    int i = 0;
    while (i < n) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      i++;
      mark();
    }
    out[0] = x;
  }

  static String run(int n) {
    long[] out = new long[1];
    voidLoop(n, out);
    return longLoop(n, "tag") + " " + doubleLoop(n) + " " + objectLoop(n) + " " + out[0];
  }

  public static void main(String[] args) throws InterruptedException {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    System.out.println("main " + run(n));
    String[] results = new String[2];
    Thread[] threads = new Thread[2];
    for (int t = 0; t < 2; t++) {
      final int id = t;
      threads[t] = new Thread(() -> results[id] = run(n / 2 + id));
      threads[t].start();
    }
    for (Thread t : threads) t.join();
    System.out.println("thread0 " + results[0]);
    System.out.println("thread1 " + results[1]);
    System.err.println("in-twin " + inTwin + " of " + iterations);
  }
}
