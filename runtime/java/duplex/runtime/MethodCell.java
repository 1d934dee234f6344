package duplex.runtime;

/**
 * One thread stripe's count of a method counter (Duplex.tickOf): checks left before the method's
 * next expiry. An object rather than a slot of an int[], for the reason given in {@link Stripe}:
 * a store into an int[] could alias every int[] the program reads.
 *
 * <p>Padded on both sides, as {@link Stripe} is: a thread makes its cells in its own allocation
 * buffer, but the garbage collector copies the cells one counter's array refers to next to each
 * other, and two threads' counts on one cache line cost as much as a shared int (sunflow's two
 * render threads: +103% checks-only in steady state with 16-byte cells, against +8% with the
 * shared striped counter). The padding makes a cell 136 bytes; a program has one per counting
 * method and thread stripe that ran it.
 */
final class MethodCell extends MethodCellCount {
  long q0, q1, q2, q3, q4, q5, q6; // padding after the count
}

class MethodCellPad {
  long p0, p1, p2, p3, p4, p5, p6; // padding before the count
}

class MethodCellCount extends MethodCellPad {
  /** Checks left before the method's next expiry (the stripe's threads decrement it). */
  int count;

  /** Samples left to take of the cell's current burst (Duplex.rearm; 0: none in progress). */
  int burstLeft;
}
