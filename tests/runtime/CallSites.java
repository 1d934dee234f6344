package duplextest;

import duplex.runtime.Duplex;

/**
 * Callers and a callee for the call-edge tests. The callee calls Duplex.callEdge the way rewritten
 * code does at method entry, then records what it sees of its caller through independent means
 * (a Throwable's stack trace for the line, StackWalker for the bci), for the test to compare.
 */
final class CallSites {
  static final String CALLEE_KEY = "duplextest/CallSites.callee()V";

  static volatile String lastCallerMethod;
  static volatile int lastCallerLine;
  static volatile int lastCallerBci;

  private CallSites() {}

  static void callee() {
    Duplex.callEdge(CALLEE_KEY);
    StackTraceElement caller = new Throwable().getStackTrace()[1];
    lastCallerMethod = caller.getMethodName();
    lastCallerLine = caller.getLineNumber();
    lastCallerBci =
        StackWalker.getInstance().walk(s -> s.skip(1).findFirst().get().getByteCodeIndex());
  }

  static void callerA() {
    int unused = 0;
    unused++;
    callee();
  }

  static String callerB(String s, long x) {
    callee();
    return s + x;
  }

  /** Gets a site table through register(Class, String) once the test knows the bci. */
  static final class Mapped {
    private Mapped() {}

    static void caller() { CallSites.callee(); }

    static void notInTable() { CallSites.callee(); }
  }

  /** Gets a site table through registerByName (line -1: the frame's line is kept). */
  static final class MappedByName {
    private MappedByName() {}

    static void caller(int x) {
      if (x > 0) CallSites.callee();
    }
  }

  /** Gets a site table that lists the method but not the bci of its call. */
  static final class Unmapped {
    private Unmapped() {}

    static void caller() { CallSites.callee(); }
  }
}
