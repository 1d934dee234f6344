package duplex.runtime;

/**
 * One-line diagnostics on stderr, prefixed {@code duplex: }. Errors are always printed; info and
 * debug lines only at the level chosen by the {@code log} option.
 */
final class Log {
  static final int QUIET = 0;
  static final int INFO = 1;
  static final int DEBUG = 2;

  static volatile int level = QUIET;

  private Log() {}

  static String name(int lvl) { return lvl == DEBUG ? "debug" : lvl == INFO ? "info" : "quiet"; }

  static boolean debugOn() { return level >= DEBUG; }

  static void error(String msg) { System.err.println("duplex: " + msg); }

  static void info(String msg) {
    if (level >= INFO) System.err.println("duplex: " + msg);
  }

  static void debug(String msg) {
    if (level >= DEBUG) System.err.println("duplex: " + msg);
  }
}
