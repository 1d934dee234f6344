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
  /**
   * One class's counters, with the table that names its slots. The rewritten class sees only
   * the AtomicLongArray; the runtime casts it back to find a virtual call site's entry.
   */
  static final class Counts extends AtomicLongArray {
    private static final long serialVersionUID = 1L;
    final char[] kinds;
    final String[] keys;
    /** Virtual call sites' entries in {@link Duplex#CALL_SITES}, by slot, found on first use. */
    final CallSites.Site[] sites;

    Counts(char[] kinds, String[] keys) {
      super(keys.length);
      this.kinds = kinds;
      this.keys = keys;
      this.sites = new CallSites.Site[keys.length];
    }
  }

  private static final Object LOCK = new Object();
  private static Counts[] blocks = new Counts[64]; // guarded by LOCK
  private static int size; // guarded by LOCK

  private ClassCounts() {}

  /**
   * A new array for the slots of {@code table} (docs/design/runtime-contract.md, "Per-class
   * counters"): lines "duplex-counters 2" and "class NAME", then one line per slot, "KIND KEY"
   * (r: field read, w: field write, S: static or special call site, V: virtual call site), or for
   * a call site of the class "s REST" / "v REST", whose key is NAME, TAB, the text of the latest
   * "m METHOD TAB DESCRIPTOR" line, TAB, REST. Version 1 tables have no "m" lines and give
   * call sites whole as "s KEY". Never null; a line it does not understand still gets its slot,
   * counted under no key.
   */
  static AtomicLongArray register(String table) {
    int slots = 0;
    for (int at = 0; at < table.length();) {
      int end = lineEnd(table, at);
      if (isSlot(table, at, end)) slots++;
      at = end + 1;
    }
    boolean compact = table.startsWith("duplex-counters 2");
    String className = "";
    String context = "";
    char[] kinds = new char[slots];
    String[] keys = new String[slots];
    int s = 0;
    for (int at = 0; at < table.length();) {
      int end = lineEnd(table, at);
      if (table.startsWith("class ", at)) {
        className = table.substring(at + 6, end);
      } else if (table.startsWith("m ", at)) {
        context = table.substring(at + 2, end);
      } else if (isSlot(table, at, end)) {
        boolean ok = end - at >= 2 && table.charAt(at + 1) == ' ';
        char kind = ok ? table.charAt(at) : '?';
        String rest = ok ? table.substring(at + 2, end) : "";
        if (compact && (kind == 's' || kind == 'v')) {
          rest = className + '\t' + context + '\t' + rest;
        } else if (kind == 'S' || kind == 'V') {
          kind = Character.toLowerCase(kind);
        }
        kinds[s] = kind;
        keys[s] = rest;
        s++;
      }
      at = end + 1;
    }
    Counts b = new Counts(kinds, keys);
    synchronized (LOCK) {
      if (size == blocks.length) {
        Counts[] bigger = new Counts[size * 2];
        System.arraycopy(blocks, 0, bigger, 0, size);
        blocks = bigger;
      }
      blocks[size++] = b;
    }
    return b;
  }

  private static int lineEnd(String table, int at) {
    int nl = table.indexOf('\n', at);
    return nl < 0 ? table.length() : nl;
  }

  private static boolean isSlot(String t, int from, int end) {
    if (end <= from) return false;
    return !t.startsWith("duplex-counters ", from) && !t.startsWith("class ", from)
        && !t.startsWith("m ", from);
  }

  /** The entry kept beside a virtual call site's slot, or null (none yet, or no such slot). */
  static CallSites.Site site(AtomicLongArray counts, int slot) {
    if (!(counts instanceof Counts)) return null;
    CallSites.Site[] sites = ((Counts) counts).sites;
    return slot >= 0 && slot < sites.length ? sites[slot] : null;
  }

  /** Keeps {@code s} beside its slot; only for a slot {@link #virtualSiteKey} named. */
  static void remember(AtomicLongArray counts, int slot, CallSites.Site s) {
    ((Counts) counts).sites[slot] = s;
  }

  /**
   * The key of a virtual call site's slot in {@code counts}, or null when {@code counts} is not
   * an array this registry made or the slot is not a virtual call site.
   */
  static String virtualSiteKey(AtomicLongArray counts, int slot) {
    if (!(counts instanceof Counts)) return null;
    Counts c = (Counts) counts;
    if (slot < 0 || slot >= c.keys.length || c.kinds[slot] != 'v') return null;
    return c.keys[slot];
  }

  /** Zeroes every counter (increments racing with it may survive). */
  static void clear() {
    for (Counts b : snapshot()) {
      for (int i = 0; i < b.keys.length; i++) {
        b.set(i, 0L);
        b.sites[i] = null; // the call-site table was cleared too: find the entries again
      }
    }
  }

  /** Adds every non-zero count of slots of {@code kind} to {@code out}, by key. */
  static void sums(char kind, Map<String, Long> out) {
    for (Counts b : snapshot()) {
      for (int i = 0; i < b.keys.length; i++) {
        long n = b.get(i);
        if (n == 0 || b.kinds[i] != kind) continue;
        Long old = out.get(b.keys[i]);
        out.put(b.keys[i], old == null ? n : old + n);
      }
    }
  }

  private static Counts[] snapshot() {
    synchronized (LOCK) {
      Counts[] copy = new Counts[size];
      System.arraycopy(blocks, 0, copy, 0, size);
      return copy;
    }
  }
}
