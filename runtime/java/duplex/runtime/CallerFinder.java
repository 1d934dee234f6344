package duplex.runtime;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Iterator;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Finds the frame that called the method which called {@link Duplex#callEdge}: the caller of a
 * call edge.
 *
 * <p>The jar is compiled for Java 8 but java.lang.StackWalker is Java 9+, so it is reached through
 * method handles looked up once (static finals, so the JIT can inline them). On Java 9+ the frame
 * has the class, method name, bci and line; the descriptor needs Java 10+ (empty on Java 9). On
 * Java 8 the fallback is a Throwable stack trace: no bci (reported as -1) and no descriptor.
 */
final class CallerFinder {
  /** What is known about the caller frame. */
  static final class Frame {
    final Class<?> type; // null on the Java 8 fallback
    final String className; // internal form, a/b/C
    final String method;
    final String descriptor; // "" when the JVM cannot tell
    final int bci; // -1 when the JVM cannot tell
    final int line; // -1 when unknown

    Frame(Class<?> type, String className, String method, String descriptor, int bci, int line) {
      this.type = type;
      this.className = className;
      this.method = method;
      this.descriptor = descriptor;
      this.bci = bci;
      this.line = line;
    }
  }

  private static final String PACKAGE = "duplex.runtime";
  private static final ClassLoader OWN_LOADER = CallerFinder.class.getClassLoader();

  private static final Object WALKER;
  private static final MethodHandle WALK;
  private static final MethodHandle GET_CLASS;
  private static final MethodHandle GET_NAME;
  private static final MethodHandle GET_DESCRIPTOR; // null before Java 10
  private static final MethodHandle GET_BCI;
  private static final MethodHandle GET_LINE;

  static {
    Object walker = null;
    MethodHandle walk = null;
    MethodHandle getClass = null;
    MethodHandle getName = null;
    MethodHandle getDescriptor = null;
    MethodHandle getBci = null;
    MethodHandle getLine = null;
    try {
      Class<?> sw = Class.forName("java.lang.StackWalker");
      Class<?> option = Class.forName("java.lang.StackWalker$Option");
      Class<?> frame = Class.forName("java.lang.StackWalker$StackFrame");
      // A full-privilege lookup: StackWalker.getInstance is caller-sensitive.
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      MethodHandle getInstance =
          lookup.findStatic(sw, "getInstance", MethodType.methodType(sw, option));
      walker = getInstance.invoke(enumConstant(option, "RETAIN_CLASS_REFERENCE"));
      walk = lookup.findVirtual(sw, "walk", MethodType.methodType(Object.class, Function.class));
      getClass = lookup.findVirtual(frame, "getDeclaringClass", MethodType.methodType(Class.class));
      getName = lookup.findVirtual(frame, "getMethodName", MethodType.methodType(String.class));
      getBci = lookup.findVirtual(frame, "getByteCodeIndex", MethodType.methodType(int.class));
      getLine = lookup.findVirtual(frame, "getLineNumber", MethodType.methodType(int.class));
      try {
        getDescriptor =
            lookup.findVirtual(frame, "getDescriptor", MethodType.methodType(String.class));
      } catch (NoSuchMethodException e) {
        getDescriptor = null; // Java 9
      }
    } catch (Throwable t) {
      walker = null; // Java 8 (or a JVM without StackWalker): use the fallback
      Log.debug("StackWalker unavailable, call edges have no bci: " + t);
    }
    WALKER = walker;
    WALK = walk;
    GET_CLASS = getClass;
    GET_NAME = getName;
    GET_DESCRIPTOR = getDescriptor;
    GET_BCI = getBci;
    GET_LINE = getLine;
  }

  private CallerFinder() {}

  private static Object enumConstant(Class<?> type, String name) {
    for (Object c : type.getEnumConstants()) {
      if (((Enum<?>) c).name().equals(name)) return c;
    }
    throw new IllegalStateException(name);
  }

  /**
   * Set by the duplex agent (option nativeStack, on by default) after it registered
   * {@link #nativeCallerOfCallee}: the caller then comes from JVMTI GetStackTrace.
   */
  static volatile boolean nativeStack;

  /** The agent's version of callerOfCallee (same frames skipped, same result). */
  private static native Frame nativeCallerOfCallee();

  /** The caller of the first non-runtime frame on this thread's stack, or null. */
  static Frame callerOfCallee() {
    if (nativeStack) return nativeCallerOfCallee();
    if (WALKER == null) return fromStackTrace();
    try {
      return (Frame) WALK.invoke(WALKER, PICK);
    } catch (Throwable t) {
      Log.debug("stack walk failed: " + t);
      return null;
    }
  }

  private static final Function<Object, Object> PICK = new Function<Object, Object>() {
    @Override
    public Object apply(Object frames) {
      try {
        Iterator<?> it = ((Stream<?>) frames).iterator();
        boolean calleeSeen = false;
        while (it.hasNext()) {
          Object f = it.next();
          Class<?> type = (Class<?>) GET_CLASS.invoke(f);
          if (isRuntime(type)) continue;
          if (!calleeSeen) { // the method whose entry called callEdge
            calleeSeen = true;
            continue;
          }
          String desc = GET_DESCRIPTOR != null ? (String) GET_DESCRIPTOR.invoke(f) : "";
          return new Frame(type, internalName(type.getName()), (String) GET_NAME.invoke(f), desc,
              (int) GET_BCI.invoke(f), (int) GET_LINE.invoke(f));
        }
        return null;
      } catch (Throwable t) {
        throw new IllegalStateException(t);
      }
    }
  };

  private static Frame fromStackTrace() {
    StackTraceElement[] trace = new Throwable().getStackTrace();
    boolean calleeSeen = false;
    for (StackTraceElement e : trace) {
      if (packageOf(e.getClassName()).equals(PACKAGE)) continue;
      if (!calleeSeen) {
        calleeSeen = true;
        continue;
      }
      int line = e.getLineNumber() >= 0 ? e.getLineNumber() : -1;
      return new Frame(null, internalName(e.getClassName()), e.getMethodName(), "", -1, line);
    }
    return null;
  }

  private static boolean isRuntime(Class<?> type) {
    return type.getClassLoader() == OWN_LOADER && packageOf(type.getName()).equals(PACKAGE);
  }

  private static String packageOf(String binaryName) {
    int dot = binaryName.lastIndexOf('.');
    return dot < 0 ? "" : binaryName.substring(0, dot);
  }

  static String internalName(String binaryName) { return binaryName.replace('.', '/'); }
}
