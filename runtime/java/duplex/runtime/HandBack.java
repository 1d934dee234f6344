package duplex.runtime;

/**
 * One thread's hand-back buffer: where an outlined twin leaves the live locals of the point at
 * which its sample ended, for its checking method to pick up (rewriter/hand_back.h,
 * docs/design/runtime-contract.md). A twin fills it just before it returns and the checking
 * method empties it just after, so one buffer per thread serves any depth of nested samples.
 */
final class HandBack {
  private static final ThreadLocal<HandBack> CURRENT =
      new ThreadLocal<HandBack>() {
        @Override
        protected HandBack initialValue() {
          return new HandBack(Thread.currentThread().getId());
        }
      };

  /**
   * The buffer looked up last. A sample hands back and resumes with five lookups, and most come
   * from the thread that made the one before: comparing the owner is cheaper than a ThreadLocal
   * (JFR put ThreadLocalMap.getEntry at 4% of H2's samples). Racy but safe: {@code owner} is
   * final, and a stale or foreign value only sends the lookup to the ThreadLocal.
   */
  private static HandBack last;

  /**
   * The owning thread's id (ids are never reused), not the thread: {@code last} outlives its
   * thread, and a Thread would keep its context class loader, and with it an unloaded
   * application's classes, alive.
   */
  private final long owner;

  /** The layout entry to resume at; -1 when the twin returned normally. */
  int entry = -1;

  /** Primitive locals by slot: ints widened, floats and doubles by their raw bits. */
  long[] prims = new long[16];

  /** Reference locals by slot; cleared as soon as they are restored. */
  Object[] refs = new Object[16];

  /** Slots of refs that may hold a reference. */
  int refSlots;

  private HandBack(long owner) {
    this.owner = owner;
  }

  static HandBack current() {
    HandBack b = last;
    if (b != null && b.owner == Thread.currentThread().getId()) return b;
    b = CURRENT.get();
    last = b;
    return b;
  }

  /** Names the entry and makes room for a frame of {@code slots} local slots. */
  void start(int entry, int slots) {
    this.entry = entry;
    if (prims.length < slots) {
      prims = new long[Math.max(slots, prims.length * 2)];
    }
    if (refs.length < slots) {
      refs = new Object[Math.max(slots, refs.length * 2)];
    }
    refSlots = Math.max(refSlots, slots);
  }

  /** The entry handed back to, or -1; either way the buffer no longer names one. */
  int takeEntry() {
    int e = entry;
    entry = -1;
    return e;
  }

  /** Drops the references, so that the buffer keeps nothing alive. */
  void clearRefs() {
    java.util.Arrays.fill(refs, 0, Math.min(refSlots, refs.length), null);
    refSlots = 0;
  }
}
