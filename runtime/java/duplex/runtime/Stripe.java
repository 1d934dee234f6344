package duplex.runtime;

/**
 * One slot of the striped sample counter (counter=striped): the counter and the sampling state of
 * the threads whose id falls on it, alone on its cache lines, so threads never write a line
 * another thread reads.
 *
 * <p>An object rather than a slot of an int[]: a store into an int[] could alias every int[] the
 * program reads, and a check inlined into a loop over an int[] would then make the JIT reload
 * that array each iteration. A field of this class aliases nothing of the program's.
 *
 * <p>The padding is in superclasses because the JVM lays out a class's own fields by size
 * (longs first), which would put all the padding on one side; superclass fields come first.
 */
final class Stripe extends StripeFields {
  long q0, q1, q2, q3, q4, q5, q6, q7; // padding after the fields
}

class StripePad {
  long p0, p1, p2, p3, p4, p5, p6, p7; // padding before the fields
}

class StripeFields extends StripePad {
  /** Checks left before the next sample (the threads on this stripe decrement it). */
  int counter;
  /** Timer trigger: the last tick this stripe sampled. */
  int tickSeen;
  /** Jitter PRNG state (xorshift64, never 0). */
  long rng;
  /** Samples taken on this stripe (written by its threads only; racy if two share it). */
  long samples;
  /** Samples taken of the stripe's current burst (the burst option). */
  int burstTaken;
}
