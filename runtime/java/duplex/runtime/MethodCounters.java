package duplex.runtime;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Every method counter made so far (Duplex.methodCounter), so that a change of the interval
 * reaches them: with sampling off a cell parks as far away as the shared counter does, and only
 * a restart brings it back. Weakly held: a counter lives in a static field of its class and goes
 * when the class is unloaded.
 */
final class MethodCounters {
  /** Cells per method counter: threads whose ids agree in these bits share a cell. */
  static final int CELL_MASK = 15;

  private static final List<WeakReference<MethodCell[]>> ALL = new ArrayList<>();
  /** ALL's size after its last sweep: it is swept again once it has doubled. */
  private static int sweptSize = 1024;

  private MethodCounters() {}

  /** A new method counter, with no cells yet (a thread stripe's first check makes its own). */
  static MethodCell[] make() {
    MethodCell[] cells = new MethodCell[CELL_MASK + 1];
    synchronized (ALL) {
      // A program that keeps loading and unloading classes would otherwise grow the list by a
      // cleared reference per method for as long as the interval stays the same.
      if (ALL.size() >= 2 * sweptSize) {
        for (Iterator<WeakReference<MethodCell[]>> it = ALL.iterator(); it.hasNext(); ) {
          if (it.next().get() == null) it.remove(); // no lambda: nothing to link inside a sample
        }
        sweptSize = Math.max(1024, ALL.size());
      }
      ALL.add(new WeakReference<>(cells));
    }
    return cells;
  }

  /**
   * Starts every cell afresh under the current interval (Duplex.cellStart): a new phase, or parked
   * when sampling is now off. Written in place, so that no thread leaves for a twin only to learn
   * the new setting.
   */
  static void restartAll() {
    synchronized (ALL) {
      for (Iterator<WeakReference<MethodCell[]>> it = ALL.iterator(); it.hasNext(); ) {
        MethodCell[] cells = it.next().get();
        if (cells == null) {
          it.remove();
          continue;
        }
        for (MethodCell c : cells) {
          if (c == null) continue;
          c.count = Duplex.cellStart(null);
          c.burstLeft = 0; // a burst in progress is forgotten, as the shared counter's is
        }
      }
    }
  }
}
