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

  /** Called from several threads while its class's table is registered again and again. */
  static final class Concurrent {
    private Concurrent() {}

    static void caller() { CallSites.callee(); }
  }

  /** A callee reached through reflection: Constructor.newInstance and its helpers are hidden. */
  static final class Reflected {
    static final String KEY = "duplextest/CallSites$Reflected.<init>()V";

    Reflected() { Duplex.callEdge(KEY); }
  }

  static void viaReflection() throws ReflectiveOperationException {
    Reflected.class.getDeclaredConstructor().newInstance();
  }

  /**
   * A callee called by AccessController.doPrivileged through its @Hidden executePrivileged
   * (JDK 17): the caller is doPrivileged.
   */
  static final class Privileged implements java.security.PrivilegedAction<Object> {
    static final String KEY = "duplextest/CallSites$Privileged.run()Ljava/lang/Object;";

    @Override
    public Object run() {
      Duplex.callEdge(KEY);
      return null;
    }
  }

  @SuppressWarnings("removal")
  static void viaPrivileged() {
    java.security.AccessController.doPrivileged(new Privileged());
  }
}
