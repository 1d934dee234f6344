package duplex.runtime;

import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Properties;

/**
 * The runtime's settings: parsing and validation of {@code duplex.<option>} system properties and
 * of {@code key=value,key=value} strings passed to {@link Duplex#configure(String)}.
 *
 * <p>An Options object is a plain value; {@link Duplex} copies the startup values into static
 * fields. A wrong value is never ignored: parsing throws IllegalArgumentException whose message is
 * the one line printed to the user, e.g. {@code duplex: bad value for duplex.interval: "abc"}.
 */
final class Options implements Cloneable {
  static final String PREFIX = "duplex.";

  /** Every option the runtime knows, in the order the documentation lists them. */
  static final String[] NAMES = {
      "interval",
      "jitter",
      "burst",
      "seed",
      "trigger",
      "timerMs",
      "counter",
      "out",
      "dumpMs",
      "countChecks",
      "mode",
      "profile",
      "log",
      "warmupMs",
      "warmupInterval",
  };

  static final long DEFAULT_SEED = 0x2545F4914F6CDD1DL;

  /** A burst longer than this would be a second sampling interval, not a burst. */
  static final int MAX_BURST = 1000000;

  int interval = 1000;
  double jitter = 0.1;  // breaks aliasing with periodic programs (see docs/profile-format.md)
  int burst = 1;  // consecutive checks each sample takes (docs/profile-format.md)
  long seed = DEFAULT_SEED;
  boolean seedSet = false;
  boolean timerTrigger = false;
  int timerMs = 10;
  boolean striped = true;
  String out = "duplex-profile.xml";
  long dumpMs = 0;
  boolean countChecks = false;
  String mode = "";
  String profile = "";
  int log = Log.QUIET;
  long warmupMs = 0;  // 0: no warm-up (Warmup.java)
  int warmupInterval = 10;

  /** Options from the system properties; throws IllegalArgumentException on any bad entry. */
  static Options fromSystemProperties() {
    Options o = new Options();
    Properties props = System.getProperties();
    List<String> names = new ArrayList<String>();
    for (Enumeration<?> e = props.propertyNames(); e.hasMoreElements();) {
      Object k = e.nextElement();
      if (k instanceof String && ((String) k).startsWith(PREFIX)) names.add((String) k);
    }
    java.util.Collections.sort(names); // deterministic: the first bad option is always the same
    for (String name : names) {
      String key = name.substring(PREFIX.length());
      if (!isKnown(key)) {
        throw new IllegalArgumentException("duplex: unknown option " + quote(name));
      }
      o.set(key, props.getProperty(name));
    }
    return o;
  }

  static boolean isKnown(String key) {
    for (String n : NAMES) {
      if (n.equals(key)) return true;
    }
    return false;
  }

  /** Parses {@code key=value,key=value} into (key, value) pairs; keys are checked, not values. */
  static List<String[]> parseList(String text) {
    List<String[]> pairs = new ArrayList<String[]>();
    if (text == null) return pairs;
    for (String part : text.split(",")) {
      String item = part.trim();
      if (item.isEmpty()) continue;
      int eq = item.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(
            "duplex: bad option " + quote(item) + " (expected key=value)");
      }
      String key = item.substring(0, eq).trim();
      if (!isKnown(key)) throw new IllegalArgumentException("duplex: unknown option " + quote(key));
      pairs.add(new String[] {key, item.substring(eq + 1).trim()});
    }
    return pairs;
  }

  /** Sets one option from its text form; throws IllegalArgumentException naming it if bad. */
  void set(String key, String value) {
    if (value == null) throw bad(key, "null");
    try {
      setTrimmed(key, value.trim());
    } catch (BadValue e) {
      throw bad(key, value); // name the value exactly as the user wrote it
    }
  }

  /** Thrown by the parsers below; {@link #set} turns it into the user-facing message. */
  private static final class BadValue extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadValue() { super(null, null, false, false); }
  }

  private void setTrimmed(String key, String v) {
    if (key.equals("interval")) {
      interval = (int) parseLong(key, v, 0, Integer.MAX_VALUE - 1);
    } else if (key.equals("jitter")) {
      jitter = parseFraction(key, v);
    } else if (key.equals("burst")) {
      burst = (int) parseLong(key, v, 1, MAX_BURST);
    } else if (key.equals("seed")) {
      seed = parseLong(key, v, Long.MIN_VALUE, Long.MAX_VALUE);
      seedSet = true;
    } else if (key.equals("trigger")) {
      timerTrigger = choice(key, v, "counter", "timer");
    } else if (key.equals("timerMs")) {
      timerMs = (int) parseLong(key, v, 1, Integer.MAX_VALUE);
    } else if (key.equals("counter")) {
      striped = choice(key, v, "global", "striped");
    } else if (key.equals("out")) {
      if (v.isEmpty()) throw new BadValue();
      out = v;
    } else if (key.equals("dumpMs")) {
      dumpMs = parseLong(key, v, 0, Long.MAX_VALUE);
    } else if (key.equals("countChecks")) {
      countChecks = choice(key, v, "false", "true");
    } else if (key.equals("mode")) {
      mode = v;
    } else if (key.equals("profile")) {
      profile = v;
    } else if (key.equals("warmupMs")) {
      warmupMs = parseLong(key, v, 0, Long.MAX_VALUE);
    } else if (key.equals("warmupInterval")) {
      warmupInterval = (int) parseLong(key, v, 1, Integer.MAX_VALUE - 1);
    } else if (key.equals("log")) {
      if (v.equals("quiet")) {
        log = Log.QUIET;
      } else if (v.equals("info")) {
        log = Log.INFO;
      } else if (v.equals("debug")) {
        log = Log.DEBUG;
      } else {
        throw new BadValue();
      }
    } else {
      throw new IllegalArgumentException("duplex: unknown option " + quote(key));
    }
  }

  /** The current value of an option in the text form {@link #set} accepts. */
  String get(String key) {
    if (key.equals("interval")) return Integer.toString(interval);
    if (key.equals("jitter")) return Double.toString(jitter);
    if (key.equals("burst")) return Integer.toString(burst);
    if (key.equals("seed")) return Long.toString(seed);
    if (key.equals("trigger")) return timerTrigger ? "timer" : "counter";
    if (key.equals("timerMs")) return Integer.toString(timerMs);
    if (key.equals("counter")) return striped ? "striped" : "global";
    if (key.equals("out")) return out;
    if (key.equals("dumpMs")) return Long.toString(dumpMs);
    if (key.equals("countChecks")) return Boolean.toString(countChecks);
    if (key.equals("mode")) return mode;
    if (key.equals("profile")) return profile;
    if (key.equals("log")) return Log.name(log);
    if (key.equals("warmupMs")) return Long.toString(warmupMs);
    if (key.equals("warmupInterval")) return Integer.toString(warmupInterval);
    throw new IllegalArgumentException("duplex: unknown option " + quote(key));
  }

  @Override
  public Options clone() {
    try {
      return (Options) super.clone();
    } catch (CloneNotSupportedException e) {
      throw new AssertionError(e);
    }
  }

  private static long parseLong(String key, String v, long min, long max) {
    long n;
    try {
      n = Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new BadValue();
    }
    if (n < min || n > max) throw new BadValue();
    return n;
  }

  private static double parseFraction(String key, String v) {
    double d;
    try {
      d = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new BadValue();
    }
    if (!(d >= 0.0 && d <= 1.0)) throw new BadValue(); // also rejects NaN
    return d;
  }

  /** Returns false for {@code no}, true for {@code yes}, throws for anything else. */
  private static boolean choice(String key, String v, String no, String yes) {
    if (v.equals(no)) return false;
    if (v.equals(yes)) return true;
    throw new BadValue();
  }

  static IllegalArgumentException bad(String key, String value) {
    return new IllegalArgumentException(
        "duplex: bad value for " + PREFIX + key + ": " + quote(value));
  }

  static String quote(String s) { return "\"" + s + "\""; }
}
