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
    long s = Sampler.mix(seed + 0x632BE59BD9B4E019L); // a stream apart from the sampler's
    this.rng = s != 0 ? s : 1; // xorshift state must not be 0
  }

  /** {@code c * num / den}, the remainder's share of the time rounded up. */
  long of(long c) {
    if (c <= 0) return c;
    long whole = c / den * num; // c = q * den + r: q * num exactly, then r * num / den
    long r = c % den * num;
    long scaled = whole + r / den;
    long rest = r % den;
    if (rest == 0) return scaled;
    rng = Sampler.xorshift(rng);
    return Long.remainderUnsigned(rng, den) < rest ? scaled + 1 : scaled;
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
}
