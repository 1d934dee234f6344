package notinlined;

/**
 * A hot call of a small method with a loop, for tests/rewriter/twins_not_inlined.sh: sampled at
 * interval 1, every call of sum() leaves for its twin, so the twin's call site is as hot as a call
 * site gets, and sum$duplex is small enough for C2 to inline it were its signature all loaded.
 */
public final class HotSample {
  private static int calls;

  private HotSample() {}

  static int sum(int[] values) {
    calls++;
    int s = 0;
    for (int v : values) s += v;
    return s;
  }

  public static void main(String[] args) {
    int[] values = {1, 2, 3, 4};
    long total = 0;
    for (int i = 0; i < 300_000; i++) total += sum(values);
    System.out.println(total + " " + calls);
  }
}
