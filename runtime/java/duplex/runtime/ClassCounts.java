package duplex.runtime;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The per-class event counters of rewritten classes (rewriter/class_counters.h): a class's
 * field reads, field writes and static or special call sites count into a long[] of its own,
 * incremented in place by the rewritten code (an AtomicLongArray: counts stay exact under any
 * number of threads), with no call into the runtime and no lookup, which had cost a quarter of
 * xalan's CPU time at interval 1000. This registry keeps every such array with the table that
 * names its slots, so the profile can add them up.
 *
 * <p>{@link #register} runs inside the program's threads the first time a class counts, so it
 * calls nothing the agent may have rewritten (java.lang only, and its own arrays): a rewritten
 * JDK class counting during the registration would otherwise register itself recursively.
 */
final class ClassCounts {
  private static final class Block {
    final char[] kinds;
    final String[] keys;
    final AtomicLongArray counts;

    Block(char[] kinds, String[] keys) {
      this.kinds = kinds;
      this.keys = keys;
      this.counts = new AtomicLongArray(keys.length);
    }
  }

  private static final Object LOCK = new Object();
  private static Block[] blocks = new Block[64]; // guarded by LOCK
  private static int size; // guarded by LOCK

  private ClassCounts() {}

  /**
   * A new array for the slots of {@code table}: lines "duplex-counters 1" and "class NAME", then
   * one line per slot, "KIND KEY" (r: field read, w: field write, s: call site). Never null; a
   * line it does not understand still gets its slot, counted under no key.
   */
  static AtomicLongArray register(String table) {
    int slots = 0;
    for (int at = 0; at < table.length();) {
      int nl = table.indexOf('\n', at);
      int end = nl < 0 ? table.length() : nl;
      if (isSlot(table, at, end)) slots++;
      at = end + 1;
    }
    char[] kinds = new char[slots];
    String[] keys = new String[slots];
    int s = 0;
    for (int at = 0; at < table.length();) {
      int nl = table.indexOf('\n', at);
      int end = nl < 0 ? table.length() : nl;
      if (isSlot(table, at, end)) {
        boolean ok = end - at >= 2 && table.charAt(at + 1) == ' ';
        kinds[s] = ok ? table.charAt(at) : '?';
        keys[s] = ok ? table.substring(at + 2, end) : "";
        s++;
      }
      at = end + 1;
    }
    Block b = new Block(kinds, keys);
    synchronized (LOCK) {
      if (size == blocks.length) {
        Block[] bigger = new Block[size * 2];
        System.arraycopy(blocks, 0, bigger, 0, size);
        blocks = bigger;
      }
      blocks[size++] = b;
    }
    return b.counts;
  }

  private static boolean isSlot(String t, int from, int end) {
    if (end <= from) return false;
    return !t.startsWith("duplex-counters ", from) && !t.startsWith("class ", from);
  }

  /** Zeroes every counter (increments racing with it may survive). */
  static void clear() {
    for (Block b : snapshot()) {
      for (int i = 0; i < b.keys.length; i++) b.counts.set(i, 0L);
    }
  }

  /** Adds every non-zero count of slots of {@code kind} to {@code out}, by key. */
  static void sums(char kind, Map<String, Long> out) {
    for (Block b : snapshot()) {
      for (int i = 0; i < b.keys.length; i++) {
        long n = b.counts.get(i);
        if (n == 0 || b.kinds[i] != kind) continue;
        Long old = out.get(b.keys[i]);
        out.put(b.keys[i], old == null ? n : old + n);
      }
    }
  }

  private static Block[] snapshot() {
    synchronized (LOCK) {
      Block[] copy = new Block[size];
      System.arraycopy(blocks, 0, copy, 0, size);
      return copy;
    }
  }
}
