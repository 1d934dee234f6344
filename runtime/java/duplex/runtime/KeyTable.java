package duplex.runtime;

import java.util.ArrayList;
import java.util.List;

/**
 * An open-addressing table from String keys to entries, built for the runtime's event path.
 *
 * <p>Keys come from {@code ldc} of interned constants, so the same key is nearly always the same
 * object: lookup compares references first and only falls back to {@code equals} when the cached
 * String hash matches but the reference does not (a caller passing a non-interned copy still lands
 * on the same entry).
 *
 * <p>{@link #find} takes no lock and calls nothing but {@code String.hashCode} (cached in the
 * String), so a sampled event that hits an existing key costs a probe, with no ThreadLocal or
 * hash-map machinery: that is most of what a sample costs. Inserting a key (once per key) or
 * growing the table takes this object's monitor. A reader that misses a key inserted concurrently
 * finds it under the monitor in {@link #insert}; entries have only final fields, so a reader that
 * sees an entry sees it fully built.
 */
abstract class KeyTable<E extends KeyTable.Entry> {
  static class Entry {
    final String key;
    final int hash;

    Entry(String key, int hash) {
      this.key = key;
      this.hash = hash;
    }
  }

  private static final int INITIAL = 64;

  private volatile Entry[] table = new Entry[INITIAL];
  private int size; // guarded by this

  /** A new entry for a key seen for the first time. */
  abstract E create(String key, int hash);

  /** The key's entry, or null if it has none yet. Lock-free. */
  @SuppressWarnings("unchecked")
  final E find(String key) {
    int h = key.hashCode();
    Entry[] t = table;
    int mask = t.length - 1;
    for (int i = spread(h) & mask;; i = (i + 1) & mask) {
      Entry e = t[i];
      if (e == null) return null;
      if (e.key == key || (e.hash == h && e.key.equals(key))) return (E) e;
    }
  }

  /** The key's entry, added if missing: the slow path, once per key. */
  @SuppressWarnings("unchecked")
  final synchronized E insert(String key) {
    int h = key.hashCode();
    Entry[] t = table;
    int mask = t.length - 1;
    int i = spread(h) & mask;
    for (Entry e; (e = t[i]) != null; i = (i + 1) & mask) {
      if (e.key == key || (e.hash == h && e.key.equals(key))) return (E) e;
    }
    E fresh = create(key, h);
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

  /** Drops every key. Events racing with the reset may land on the old entries and be lost. */
  public final synchronized void clear() {
    table = new Entry[INITIAL];
    size = 0;
  }

  /** Every entry (a snapshot of the table, not atomic with respect to concurrent inserts). */
  @SuppressWarnings("unchecked")
  final List<E> all() {
    Entry[] t;
    synchronized (this) {
      t = table;
    }
    List<E> list = new ArrayList<E>();
    for (Entry e : t) {
      if (e != null) list.add((E) e);
    }
    return list;
  }
}
