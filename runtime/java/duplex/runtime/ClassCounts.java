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
   * the AtomicLongArray; the runtime casts it back to find a virtual call site's entry. Keys
   * are made from the table when first asked for (most slots of a sampled run never count).
   */
  static final class Counts extends AtomicLongArray {
    private static final long serialVersionUID = 1L;
    private final String table;
    private final String className;
    final char[] kinds;
    // The slot's text in the table, [start, end), and where the text of its context ("m" line)
    // starts, or -1 when the text is the whole key.
    private final int[] starts;
    private final int[] ends;
    private final int[] contexts;
    private final String[] keys; // made on first use (racy: any thread may make the same key)
    /** Virtual call sites' entries in {@link Duplex#CALL_SITES}, by slot, found on first use. */
    final CallSites.Site[] sites;

    Counts(String table, String className, int slots) {
      super(slots);
      this.table = table;
      this.className = className;
      this.kinds = new char[slots];
      this.starts = new int[slots];
      this.ends = new int[slots];
      this.contexts = new int[slots];
      this.keys = new String[slots];
      this.sites = new CallSites.Site[slots];
    }

    String key(int slot) {
      String k = keys[slot];
      if (k != null) return k;
      k = table.substring(starts[slot], ends[slot]);
      int context = contexts[slot];
      if (context >= 0) {
        k = className + '\t' + table.substring(context, lineEnd(table, context)) + '\t' + k;
      }
      keys[slot] = k;
      return k;
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
    String className = "";
    for (int at = 0; at < table.length();) {
      int end = lineEnd(table, at);
      if (isSlot(table, at, end)) slots++;
      if (table.startsWith("class ", at)) className = table.substring(at + 6, end);
      at = end + 1;
    }
    boolean compact = table.startsWith("duplex-counters 2\n");
    // A table this runtime cannot read (a class rewritten by a newer duplex) would count under
    // the wrong keys: count it under none, and say so once for the class.
    boolean known = compact || table.startsWith("duplex-counters 1\n");
    if (!known) {
      Log.error("class " + className + ": its counters table is of a version this runtime does not "
          + "read (" + table.substring(0, lineEnd(table, 0)) + "); its events are not counted. "
          + "Run it with the duplex runtime of the build that rewrote it.");
    }
    Counts b = new Counts(table, className, slots);
    int context = -1;
    int s = 0;
    for (int at = 0; at < table.length();) {
      int end = lineEnd(table, at);
      if (table.startsWith("m ", at)) {
        context = at + 2;
      } else if (isSlot(table, at, end)) {
        boolean ok = end - at >= 2 && table.charAt(at + 1) == ' ';
        char kind = ok ? table.charAt(at) : '?';
        b.starts[s] = ok ? at + 2 : end;
        b.ends[s] = end;
        b.contexts[s] = compact && context >= 0 && (kind == 's' || kind == 'v') ? context : -1;
        b.kinds[s] = !known ? '?' : kind == 'S' || kind == 'V' ? Character.toLowerCase(kind) : kind;
        s++;
      }
      at = end + 1;
    }
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
    if (slot < 0 || slot >= c.kinds.length || c.kinds[slot] != 'v') return null;
    return c.key(slot);
  }

  /** Zeroes every counter (increments racing with it may survive). */
  static void clear() {
    for (Counts b : snapshot()) {
      for (int i = 0; i < b.kinds.length; i++) {
        b.set(i, 0L);
        b.sites[i] = null; // the call-site table was cleared too: find the entries again
      }
    }
  }

  /** Scales every counter in place (the end of a warm-up). */
  static void scale(CountScale s) {
    for (Counts b : snapshot()) {
      for (int i = 0; i < b.kinds.length; i++) s.apply(b, i);
    }
  }

  /** Adds every non-zero count of slots of {@code kind} to {@code out}, by key. */
  static void sums(char kind, Map<String, Long> out) {
    for (Counts b : snapshot()) {
      for (int i = 0; i < b.kinds.length; i++) {
        long n = b.get(i);
        if (n == 0 || b.kinds[i] != kind) continue;
        String key = b.key(i);
        Long old = out.get(key);
        out.put(key, old == null ? n : old + n);
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
