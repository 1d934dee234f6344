package q;

// What a twin's frame looks like to the runtime's caller search (duplex.runtime.CallerFinder
// walks with StackWalker) and in the program's stack traces, once the twin is a hidden class.
public final class Probe {
  private Probe() {}

  // 1 if a frame of the class `twinClass` (a hidden class's name starts with it) shows in a
  // StackWalker walk without SHOW_HIDDEN_FRAMES, 2 if it shows with it, 4 if it shows in a
  // Throwable's stack trace.
  public static int frames(String twinClass) {
    int seen = 0;
    if (StackWalker.getInstance()
        .walk(s -> s.anyMatch(f -> f.getClassName().startsWith(twinClass)))) {
      seen |= 1;
    }
    if (StackWalker.getInstance(StackWalker.Option.SHOW_HIDDEN_FRAMES)
        .walk(s -> s.anyMatch(f -> f.getClassName().startsWith(twinClass)))) {
      seen |= 2;
    }
    for (StackTraceElement e : new Throwable().getStackTrace()) {
      if (e.getClassName().startsWith(twinClass)) {
        System.out.println("  stack trace line: " + e);
        seen |= 4;
      }
    }
    return seen;
  }
}
