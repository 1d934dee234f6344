package duplex.runtime;

/**
 * The cold half of sampling: the jitter PRNG and the exact counts of samples taken and (in test
 * mode) of checks, method entries and back edges.
 *
 * <p>Everything here runs from {@link Duplex#check()}'s slow path or from test-only entry points,
 * so it calls no JDK method at all: a rewritten JDK class could otherwise call back into check()
 * from inside check(). Counts are kept exact with a monitor, which costs a few nanoseconds per
 * sample (per check only when countChecks=true, a test setting).
 */
final class Sampler {
  private static final Object LOCK = new Object();

  // All guarded by LOCK.
  private static long rng = mix(Options.DEFAULT_SEED);
  private static int burstTaken; // samples taken of the current burst
  private static long samples;
  private static long checks;
  private static long entries;
  private static long backedges;

  private Sampler() {}

  static void seed(long seed) {
    long s = mix(seed);
    synchronized (LOCK) {
      rng = s != 0 ? s : mix(Options.DEFAULT_SEED); // xorshift state must not be 0
    }
  }

  /** SplitMix64's finalizer: spreads small or similar seeds over the whole state. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /**
   * Counts one sample and returns the next counter value for a sampling interval {@code interval}
   * (> 0): 1 while the current burst has samples to take (the next check samples too), else the
   * interval plus a uniform random offset in [-jitter, +jitter] * interval, truncated toward zero
   * so its mean stays the interval, never below 1.
   */
  static int sample(int interval, double jitter, int burst) {
    synchronized (LOCK) {
      if (countInBurst(burst)) return 1;
      if (jitter == 0.0) return interval;
      rng = xorshift(rng);
      return jittered(rng, interval, jitter);
    }
  }

  /**
   * The striped counter's form of {@link #sample}: the stripe's own PRNG and sample count, no
   * lock (threads on different stripes never share a line). Called by a thread of the stripe.
   */
  static int sample(Stripe s, int interval, double jitter, int burst) {
    if (countInBurst(s, burst)) return 1;
    if (jitter == 0.0) return interval;
    s.rng = xorshift(s.rng);
    return jittered(s.rng, interval, jitter);
  }

  /** A uniform draw in [1, interval]: a method counter's first phase (Duplex.rearm). */
  static int phase(int interval) {
    synchronized (LOCK) {
      rng = xorshift(rng);
      return draw(rng, interval);
    }
  }

  /** The striped counter's form of {@link #phase(int)}: the stripe's own PRNG, no lock. */
  static int phase(Stripe s, int interval) {
    s.rng = xorshift(s.rng);
    return draw(s.rng, interval);
  }

  private static int draw(long x, int interval) {
    return 1 + (int) (unit(x) * interval);
  }

  /** A PRNG state as a uniform double in [0, 1). */
  private static double unit(long x) {
    return (x >>> 11) * 0x1.0p-53;
  }

  /** Seeds stripe number {@code index} from the run's seed (reproducible per stripe). */
  static void seed(Stripe s, long seed, int index) {
    long x = mix(seed + 0x9E3779B97F4A7C15L * (index + 1));
    s.rng = x != 0 ? x : 1;
  }

  static long xorshift(long x) {
    x ^= x << 13;
    x ^= x >>> 7;
    x ^= x << 17;
    return x;
  }

  /** The interval plus a uniform offset in [-jitter, +jitter] * interval, at least 1. */
  private static int jittered(long x, int interval, double jitter) {
    long next = interval + (long) ((2.0 * unit(x) - 1.0) * jitter * interval);
    if (next < 1) return 1;
    if (next >= Integer.MAX_VALUE) return Integer.MAX_VALUE - 1;
    return (int) next;
  }

  /**
   * Counts one sample of the timer trigger; true while the current burst has samples to take
   * (the next check samples too), false once it is complete (wait for the next tick).
   */
  static boolean timerSample(int burst) {
    synchronized (LOCK) {
      return countInBurst(burst);
    }
  }

  /** Counts one sample; true while its burst has samples left to take. Called holding LOCK. */
  private static boolean countInBurst(int burst) {
    samples++;
    if (++burstTaken < burst) return true;
    burstTaken = 0;
    return false;
  }

  /**
   * The striped counter's form of {@link #countInBurst(int)}, for both triggers: counts one
   * sample on the stripe; true while its burst has samples left to take. No lock.
   */
  static boolean countInBurst(Stripe s, int burst) {
    s.samples++;
    if (++s.burstTaken < burst) return true;
    s.burstTaken = 0;
    return false;
  }

  /** Forgets a burst in progress (the counters start afresh). */
  static void endBurst() {
    synchronized (LOCK) {
      burstTaken = 0;
    }
  }

  /** True between the first and the last sample of a burst (global counter). */
  static boolean inBurst() {
    synchronized (LOCK) {
      return burstTaken > 0;
    }
  }

  static void countCheck() {
    synchronized (LOCK) {
      checks++;
    }
  }

  static void countChecks(int n) {
    synchronized (LOCK) {
      checks += n;
    }
  }

  static void countEntry() {
    synchronized (LOCK) {
      entries++;
    }
  }

  static void countBackedge() {
    synchronized (LOCK) {
      backedges++;
    }
  }

  static void clearCounts() {
    synchronized (LOCK) {
      samples = 0;
      checks = 0;
      entries = 0;
      backedges = 0;
    }
  }

  /** {samples, checks, entries, backedges}, read together. */
  static long[] counts() {
    synchronized (LOCK) {
      return new long[] {samples, checks, entries, backedges};
    }
  }
}
