package duplex.runtime;

/**
 * The warm-up (options {@code warmupMs} and {@code warmupInterval}, counter trigger only): for
 * the first warmupMs of the run, sampling takes place every warmupInterval checks instead of
 * every interval, so that the sample paths of most methods are taken before HotSpot's C2 first
 * compiles them. C2 compiles a branch side it has never seen taken as an uncommon trap; at a large
 * interval most check sites are first sampled after their method was compiled, and each such
 * first sample deoptimises the method and every method it was inlined into, which are then
 * compiled again (docs/design/hotspot-costs.md, sections 10 and 18). A program with thousands of
 * methods each sampled rarely keeps compiling for that reason long after it would have settled.
 *
 * <p>Nothing is lost from the profile: when the warm-up ends, every count it took is scaled by
 * warmupInterval / interval ({@link CountScale}), which makes it what sampling at the interval
 * would have counted on average, only from more samples. It ends after warmupMs, or earlier when
 * a profile is taken (a dump, the exit dump, {@link Duplex#profileXml}) or the interval is
 * changed, so that a profile never holds unscaled counts.
 */
final class Warmup {
  private Warmup() {}

  /** Whether options {@code o} ask for a warm-up that changes anything. */
  static boolean wanted(Options o) {
    return o.warmupMs > 0 && o.interval > o.warmupInterval;
  }

  /** Ends the warm-up after {@code ms}, unless something ended it before. */
  static final class Ender implements Runnable {
    private final long ms;

    Ender(long ms) { this.ms = ms; }

    @Override
    public void run() {
      Guard.enter(); // nothing this thread runs is profiled
      try {
        Thread.sleep(ms);
      } catch (InterruptedException e) {
        // end it now
      }
      Duplex.endWarmup("after " + ms + " ms");
    }
  }
}
