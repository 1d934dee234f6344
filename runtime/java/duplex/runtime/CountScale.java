package duplex.runtime;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Multiplies counts by {@code num / den} (at most 1) in place, rounding each up or down at random
 * in proportion to the fraction dropped, so that a scaled count is on average the exact product:
 * the counts a warm-up took at a small interval become what the run's interval would have taken
 * ({@link Warmup}). Increments racing with the scaling are kept (the difference is subtracted).
 * The rounding is seeded from the run's seed.
 */
final class CountScale {
  private final long num;
  private final long den;
  private long rng;

  CountScale(long num, long den, long seed) {
    this.num = num;
    this.den = den;
    long s = seed * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
    this.rng = s != 0 ? s : 1;
  }

  /** {@code c * num / den}, the remainder's share of the time rounded up. */
  long of(long c) {
    if (c <= 0) return c;
    long whole = c / den * num; // c = q * den + r: q * num exactly, then r * num / den
    long r = c % den * num;
    long scaled = whole + r / den;
    long rest = r % den;
    if (rest != 0 && Long.remainderUnsigned(next(), den) < rest) scaled++;
    return scaled;
  }

  void apply(LongAdder a) {
    long c = a.sum();
    long s = of(c);
    if (s != c) a.add(s - c);
  }

  void apply(AtomicLongArray a, int i) {
    long c = a.get(i);
    long s = of(c);
    if (s != c) a.addAndGet(i, s - c);
  }

  private long next() { // xorshift64
    long x = rng;
    x ^= x << 13;
    x ^= x >>> 7;
    x ^= x << 17;
    rng = x;
    return x;
  }
}
