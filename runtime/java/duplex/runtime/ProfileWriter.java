package duplex.runtime;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.Charset;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the XML profile (docs/profile-format.md) and writes it atomically: the text goes to a
 * temporary file in the target's directory, which is then renamed over the target, so a reader
 * sees either the previous profile or the new one, never a partial file.
 */
final class ProfileWriter {
  static final int FORMAT_VERSION = 1;

  private static final Object DUMP_LOCK = new Object();
  private static long tempCounter; // guarded by DUMP_LOCK

  private ProfileWriter() {}

  /** Writes the profile to the current out file; reports failures on stderr and returns false. */
  static boolean dump(String reason) {
    synchronized (DUMP_LOCK) {
      String path = Duplex.out;
      try {
        String xml = xml(reason);
        write(Paths.get(path).toAbsolutePath(), xml.getBytes(Charset.forName("UTF-8")));
        Log.info("wrote profile " + path + " (" + reason + ")");
        return true;
      } catch (IOException | RuntimeException e) {
        Log.error("cannot write profile " + path + ": " + e);
        return false;
      }
    }
  }

  private static void write(Path target, byte[] bytes) throws IOException {
    Path dir = target.getParent();
    Path tmp = null;
    for (int attempt = 0; tmp == null; attempt++) {
      Path candidate = dir.resolve(
          "." + target.getFileName() + "." + System.nanoTime() + "-" + (tempCounter++) + ".tmp");
      try (OutputStream os = Files.newOutputStream(
               candidate, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        tmp = candidate;
        os.write(bytes);
      } catch (FileAlreadyExistsException e) {
        if (attempt > 100) throw e;
      } catch (IOException | RuntimeException e) {
        if (tmp != null) Files.deleteIfExists(tmp);
        throw e;
      }
    }
    try {
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
  }

  /** The profile as of now; counting may continue while it is built. */
  static String xml(String reason) {
    Duplex.endWarmup("a profile was taken"); // a profile never holds unscaled counts
    long end = System.currentTimeMillis();
    Options o = Duplex.optionsSnapshot();
    long[] c = Duplex.counts();
    StringBuilder sb = new StringBuilder(4096);
    sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sb.append("<duplex-profile version=\"").append(FORMAT_VERSION).append("\">\n");
    sb.append("  <run");
    attr(sb, "mode", o.mode);
    attr(sb, "profile", o.profile);
    attr(sb, "interval", Integer.toString(Duplex.interval));
    attr(sb, "jitter", Double.toString(o.jitter));
    attr(sb, "burst", Integer.toString(o.burst));
    attr(sb, "seed", Long.toString(o.seed));
    attr(sb, "trigger", Duplex.timerTrigger() ? "timer" : "counter");
    if (Duplex.timerTrigger()) attr(sb, "timer-ms", Integer.toString(o.timerMs));
    attr(sb, "counter", Duplex.striped() ? "striped" : "global");
    if (o.warmupMs > 0) {
      attr(sb, "warmup-ms", Long.toString(o.warmupMs));
      attr(sb, "warmup-interval", Integer.toString(o.warmupInterval));
    }
    attr(sb, "samples", Long.toString(c[0]));
    if (Duplex.countsChecks()) attr(sb, "checks", Long.toString(c[1]));
    if (Duplex.countsChecks() || c[2] != 0 || c[3] != 0) {
      attr(sb, "entries", Long.toString(c[2]));
      attr(sb, "backedges", Long.toString(c[3]));
    }
    attr(sb, "jvm-name", System.getProperty("java.vm.name", ""));
    attr(sb, "jvm-version", System.getProperty("java.vm.version", ""));
    attr(sb, "start", iso(Duplex.START_MILLIS));
    attr(sb, "end", iso(end));
    attr(sb, "duration-ms", Long.toString(end - Duplex.START_MILLIS));
    attr(sb, "counts-since", iso(Duplex.countsSinceMillis));
    attr(sb, "reason", reason);
    if (Duplex.agentPresent) agentAttributes(sb);
    sb.append("/>\n");
    callEdges(sb);
    fields(sb);
    events(sb);
    sb.append("</duplex-profile>\n");
    return sb.toString();
  }

  /** The agent's statistics (class transform times and counts) as attributes of run. */
  private static void agentAttributes(StringBuilder sb) {
    String[] kv;
    try {
      kv = Duplex.agentStats0();
    } catch (LinkageError e) {
      return; // natives not registered
    }
    if (kv == null) return;
    for (int i = 0; i + 1 < kv.length; i += 2) {
      if (kv[i] != null && kv[i + 1] != null) attr(sb, kv[i], kv[i + 1]);
    }
  }

  private static void callEdges(StringBuilder sb) {
    // Stack-found edges (call-edge-stack) and caller-side ones (call-edge).
    List<Object[]> edges = Duplex.CALL_EDGES.snapshot();
    edges.addAll(Duplex.CALL_SITES.snapshot());
    Map<String, Long> counted = new HashMap<String, Long>();
    ClassCounts.sums('s', counted);
    edges.addAll(CallSites.direct(counted));
    edges = CallSites.merge(edges);
    Collections.sort(edges, new Comparator<Object[]>() {
      @Override
      public int compare(Object[] a, Object[] b) {
        int c = Long.compare((Long) b[1], (Long) a[1]);
        return c != 0 ? c : ((CallEdges.Edge) a[0]).compareTo((CallEdges.Edge) b[0]);
      }
    });
    long total = 0;
    for (Object[] e : edges) total += (Long) e[1];
    sb.append("  <call-edges");
    attr(sb, "distinct", Integer.toString(edges.size()));
    attr(sb, "total", Long.toString(total));
    sb.append(">\n");
    for (Object[] pair : edges) {
      CallEdges.Edge e = (CallEdges.Edge) pair[0];
      sb.append("    <edge");
      attr(sb, "caller-class", e.callerClass);
      attr(sb, "caller-method", e.callerMethod);
      attr(sb, "caller-descriptor", e.callerDescriptor);
      attr(sb, "offset", Integer.toString(e.offset));
      attr(sb, "line", Integer.toString(e.line));
      attr(sb, "callee", e.callee);
      attr(sb, "count", Long.toString((Long) pair[1]));
      sb.append("/>\n");
    }
    sb.append("  </call-edges>\n");
  }

  /** One row of the field section: reads and writes of one key. */
  private static final class FieldRow {
    final String key;
    long reads;
    long writes;

    FieldRow(String key) { this.key = key; }
  }

  private static void fields(StringBuilder sb) {
    Map<String, FieldRow> rows = new HashMap<String, FieldRow>();
    for (KeyCounts.Counter e : Duplex.FIELD_READS.entries()) row(rows, e.key).reads += e.count.sum();
    for (KeyCounts.Counter e : Duplex.FIELD_WRITES.entries()) {
      row(rows, e.key).writes += e.count.sum();
    }
    Map<String, Long> counted = new HashMap<String, Long>();
    ClassCounts.sums('r', counted);
    for (Map.Entry<String, Long> e : counted.entrySet()) row(rows, e.getKey()).reads += e.getValue();
    counted.clear();
    ClassCounts.sums('w', counted);
    for (Map.Entry<String, Long> e : counted.entrySet()) {
      row(rows, e.getKey()).writes += e.getValue();
    }
    List<FieldRow> list = new ArrayList<FieldRow>(rows.values());
    Collections.sort(list, new Comparator<FieldRow>() {
      @Override
      public int compare(FieldRow a, FieldRow b) {
        int c = Long.compare(b.reads + b.writes, a.reads + a.writes);
        return c != 0 ? c : a.key.compareTo(b.key);
      }
    });
    long reads = 0;
    long writes = 0;
    for (FieldRow r : list) {
      reads += r.reads;
      writes += r.writes;
    }
    sb.append("  <field-accesses");
    attr(sb, "distinct", Integer.toString(list.size()));
    attr(sb, "reads", Long.toString(reads));
    attr(sb, "writes", Long.toString(writes));
    sb.append(">\n");
    for (FieldRow r : list) {
      String[] parts = splitFieldKey(r.key);
      sb.append("    <field");
      attr(sb, "key", r.key);
      attr(sb, "owner", parts[0]);
      attr(sb, "name", parts[1]);
      attr(sb, "descriptor", parts[2]);
      attr(sb, "reads", Long.toString(r.reads));
      attr(sb, "writes", Long.toString(r.writes));
      sb.append("/>\n");
    }
    sb.append("  </field-accesses>\n");
  }

  private static FieldRow row(Map<String, FieldRow> rows, String key) {
    FieldRow r = rows.get(key);
    if (r == null) {
      r = new FieldRow(key);
      rows.put(key, r);
    }
    return r;
  }

  /**
   * Splits {@code owner.name:desc}. Internal class names contain no '.', so the first '.' ends
   * the owner; the name ends at the first ':' after which one whole field type ends the key (a
   * field name may hold ':'). A key that does not fit gives ("", key, "").
   */
  static String[] splitFieldKey(String key) {
    int dot = key.indexOf('.');
    int colon = dot < 0 ? -1 : KeyText.fieldTypeAfterColon(key, dot + 2);
    if (dot <= 0 || colon < 0) return new String[] {"", key, ""};
    return new String[] {
        key.substring(0, dot), key.substring(dot + 1, colon), key.substring(colon + 1)};
  }

  private static void events(StringBuilder sb) {
    List<KeyCounts.Counter> list = Duplex.EVENTS.entries();
    final Map<KeyCounts.Counter, Long> counts = new HashMap<KeyCounts.Counter, Long>();
    long total = 0;
    for (KeyCounts.Counter e : list) {
      long n = e.count.sum(); // read once, so sorting and output agree
      counts.put(e, n);
      total += n;
    }
    Collections.sort(list, new Comparator<KeyCounts.Counter>() {
      @Override
      public int compare(KeyCounts.Counter a, KeyCounts.Counter b) {
        int c = Long.compare(counts.get(b), counts.get(a));
        return c != 0 ? c : a.key.compareTo(b.key);
      }
    });
    sb.append("  <events");
    attr(sb, "distinct", Integer.toString(list.size()));
    attr(sb, "total", Long.toString(total));
    sb.append(">\n");
    for (KeyCounts.Counter e : list) {
      sb.append("    <event");
      attr(sb, "key", e.key);
      attr(sb, "count", Long.toString(counts.get(e)));
      sb.append("/>\n");
    }
    sb.append("  </events>\n");
  }

  private static String iso(long millis) {
    return java.time.Instant.ofEpochMilli(millis).toString();
  }

  private static void attr(StringBuilder sb, String name, String value) {
    sb.append(' ').append(name).append("=\"");
    escape(sb, value);
    sb.append('"');
  }

  /**
   * Appends {@code s} escaped for an XML 1.0 attribute value. Tab, newline and carriage return
   * become character references (so attribute normalization keeps them); characters XML 1.0
   * cannot represent at all (other controls, unpaired surrogates, U+FFFE/U+FFFF) become U+FFFD.
   */
  static void escape(StringBuilder sb, String s) {
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      switch (ch) {
        case '&':
          sb.append("&amp;");
          break;
        case '<':
          sb.append("&lt;");
          break;
        case '>':
          sb.append("&gt;");
          break;
        case '"':
          sb.append("&quot;");
          break;
        case '\'':
          sb.append("&apos;");
          break;
        case '\t':
          sb.append("&#9;");
          break;
        case '\n':
          sb.append("&#10;");
          break;
        case '\r':
          sb.append("&#13;");
          break;
        default:
          if (ch < 0x20 || ch == 0xFFFE || ch == 0xFFFF) {
            sb.append('\uFFFD');
          } else if (Character.isHighSurrogate(ch) && i + 1 < s.length()
              && Character.isLowSurrogate(s.charAt(i + 1))) {
            sb.append(ch).append(s.charAt(++i));
          } else if (Character.isSurrogate(ch)) {
            sb.append('\uFFFD');
          } else {
            sb.append(ch);
          }
      }
    }
  }
}
