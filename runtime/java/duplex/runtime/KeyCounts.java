package duplex.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Exact per-key event counts for String keys.
 *
 * <p>Keys come from {@code ldc} of interned constants, so the same key is nearly always the same
 * object: lookup compares references first and only falls back to {@code equals} when the cached
 * String hash matches but the reference does not (a caller passing a non-interned copy still lands
 * on the same counter).
 *
 * <p>Open addressing with linear probing. Counting a key that is already present takes no lock:
 * a read of the volatile table, a probe, and {@code LongAdder.increment()} on a counter created
 * once per key, so counts are exact under any number of threads. Inserting a new key (once per
 * key) or growing the table takes this object's monitor. A reader that misses a key inserted
 * concurrently simply retries under the monitor; entries have only final fields, so a reader that
 * sees an entry sees it fully built.
 */
final class KeyCounts {
  static final class Entry {
    final String key;
    final int hash;
    final LongAdder count = new LongAdder();

    Entry(String key, int hash) {
      this.key = key;
      this.hash = hash;
    }
  }

  private static final int INITIAL = 64;

  private volatile Entry[] table = new Entry[INITIAL];
  private int size; // guarded by this

  void increment(String key) { entry(key).count.increment(); }

  Entry entry(String key) {
    int h = key.hashCode();
    Entry[] t = table;
    int mask = t.length - 1;
    for (int i = spread(h) & mask;; i = (i + 1) & mask) {
      Entry e = t[i];
      if (e == null) return insert(key, h);
      if (e.key == key || (e.hash == h && e.key.equals(key))) return e;
    }
  }

  /** Slow path, once per key: finds or adds the key in the current table. */
  private synchronized Entry insert(String key, int h) {
    Entry[] t = table;
    int mask = t.length - 1;
    int i = spread(h) & mask;
    for (Entry e; (e = t[i]) != null; i = (i + 1) & mask) {
      if (e.key == key || (e.hash == h && e.key.equals(key))) return e;
    }
    Entry fresh = new Entry(key, h);
    if ((size + 1) * 2 > t.length) { // keep the load factor under 1/2
      Entry[] bigger = new Entry[t.length * 2];
      for (Entry e : t) {
        if (e != null) place(bigger, e);
      }
      place(bigger, fresh);
      table = bigger; // publishes every entry copied above
    } else {
      t[i] = fresh;
    }
    size++;
    return fresh;
  }

  private static void place(Entry[] t, Entry e) {
    int mask = t.length - 1;
    int i = spread(e.hash) & mask;
    while (t[i] != null) i = (i + 1) & mask;
    t[i] = e;
  }

  private static int spread(int h) { return h ^ (h >>> 16); }

  /** Drops every key. Increments racing with the reset may land on the old entries and be lost. */
  synchronized void clear() {
    table = new Entry[INITIAL];
    size = 0;
  }

  /**
   * A snapshot of the entries with a non-zero count; not atomic with respect to concurrent
   * counting.
   */
  List<Entry> entries() {
    Entry[] t;
    synchronized (this) {
      t = table;
    }
    List<Entry> list = new ArrayList<Entry>();
    for (Entry e : t) {
      if (e != null && e.count.sum() != 0) list.add(e);
    }
    return list;
  }
}
