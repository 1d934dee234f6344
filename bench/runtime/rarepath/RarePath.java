/**
 * What a rarely taken path costs HotSpot's C2 once it is compiled in, by what the path does when
 * it joins the hot code again: the measurement behind duplex's exit checks
 * (docs/design/runtime-contract.md, "Exit checks") and its per-class counters.
 *
 * <p>A loop of 12 rounds calls a small method 8 times per round; C2 inlines it. Every variant
 * decrements a static counter at the method's entry and, when it runs out (every 1000th time),
 * takes a rare path, which then joins the method's code again:
 *
 * <ul>
 *   <li>{@code plain}: no counter at all (the reference);
 *   <li>{@code tick}: the rare path only resets the counter (a static field of its own);
 *   <li>{@code store}: it also increments two slots of a long[] (the same array type the
 *       method works on);
 *   <li>{@code call}: it calls a method C2 does not inline (a sample's twin).
 * </ul>
 *
 * <p>Usage: {@code java RarePath VARIANT}; prints the best time of a batch after warm-up. Run by
 * rarepath.sh, which interleaves the variants.
 */
public final class RarePath {
  static int counter = 1000;
  static long[] counts = new long[64];
  long[] st = new long[16];
  long acc;

  static void twin(RarePath m, long a, long b, int i, int j) { // big enough not to be inlined
    counter = 1000;
    for (int k = 0; k < 3; k++) {
      m.st[(i + k) & 15] += a ^ b;
      m.acc += m.st[j & 15] * 31 + k;
      m.st[j & 15] ^= m.acc >>> 7;
    }
    m.st[i & 15] = m.st[i & 15] + m.st[j & 15] + a;
    m.st[j & 15] = Long.rotateRight(m.st[j & 15] ^ m.st[i & 15], 32);
  }

  void body(long a, long b, int i, int j) {
    st[i] = st[i] + st[j] + a;
    st[j] = Long.rotateRight(st[j] ^ st[i], 32);
    st[i] = st[i] + st[j] + b;
    st[j] = Long.rotateRight(st[j] ^ st[i], 24);
  }

  void plain(long a, long b, int i, int j) { body(a, b, i, j); }

  void tick(long a, long b, int i, int j) {
    if (--counter <= 0) counter = 1000;
    body(a, b, i, j);
  }

  void store(long a, long b, int i, int j) {
    if (--counter <= 0) {
      counter = 1000;
      counts[3]++;
      counts[7]++;
    }
    body(a, b, i, j);
  }

  void call(long a, long b, int i, int j) {
    if (--counter <= 0) {
      twin(this, a, b, i, j);
      return;
    }
    body(a, b, i, j);
  }

  void rounds(long[] m, int variant) {
    for (int r = 0; r < 12; r++) {
      for (int k = 0; k < 8; k++) {
        long a = m[k];
        long b = m[k + 8];
        int i = k;
        int j = (k + 5) & 15;
        switch (variant) {
          case 0: plain(a, b, i, j); break;
          case 1: tick(a, b, i, j); break;
          case 2: store(a, b, i, j); break;
          default: call(a, b, i, j); break;
        }
      }
    }
  }

  public static void main(String[] args) {
    String[] names = {"plain", "tick", "store", "call"};
    int variant = java.util.Arrays.asList(names).indexOf(args[0]);
    if (variant < 0) throw new IllegalArgumentException("variant: plain, tick, store or call");
    RarePath p = new RarePath();
    long[] m = new long[16];
    for (int i = 0; i < 16; i++) m[i] = i * 0x9E3779B97F4A7C15L;
    long best = Long.MAX_VALUE;
    for (int rep = 0; rep < 40; rep++) {
      long t0 = System.nanoTime();
      for (int n = 0; n < 100_000; n++) p.rounds(m, variant);
      long t = System.nanoTime() - t0;
      if (rep >= 20) best = Math.min(best, t);
    }
    System.out.printf("%s %.3f ms (check %d)%n", names[variant], best / 1e6, p.st[3] ^ counts[3]);
  }
}
