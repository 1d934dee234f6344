package duplex.runtime;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Iterator;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Finds the frame that called the method which called {@link Duplex#callEdge}: the caller of a
 * call edge, as its canonical {@link CallerSite}.
 *
 * <p>The jar is compiled for Java 8 but java.lang.StackWalker is Java 9+, so it is reached through
 * method handles looked up once (static finals, so the JIT can inline them). On Java 9+ the frame
 * has the class, method name and bci; the descriptor needs Java 10+ (empty on Java 9). Those are
 * the key of the caller site, found without allocating; the frame's line (costly: it builds a
 * StackTraceElement) is only asked for when the site is new. On Java 8 the fallback is a
 * Throwable stack trace: no bci (reported as -1) and no descriptor. Under the duplex agent
 * (nativeStack, the default) the agent finds the site with JVMTI GetStackTrace instead.
 *
 * <p>Frames skipped (docs/design/runtime-contract.md): the runtime's own, then the callee (the
 * first other frame), and, if the callee is an outlined method (name ending in {@code $duplex}),
 * the frame below it too: its checking twin, the original method that called it. Bridges (lazy
 * twins: {@link #BRIDGE_PREFIX}) are skipped where the caller is looked for.
 */
final class CallerFinder {
  /** The suffix of an outlined method's name (the rewriter's duplicated code moved out). */
  static final String OUTLINED_SUFFIX = "$duplex";

  /**
   * The prefix of a bridge's name: a method of a class rewritten with lazy twins that runs one
   * instruction of a twin class's code in the class itself. A bridge is never a caller: the
   * call it runs is its twin's, whose frame is below it with the bci of that call.
   */
  static final String BRIDGE_PREFIX = "duplex$bridge$";

  private static final String PACKAGE = "duplex.runtime";
  private static final String PACKAGE_PREFIX = PACKAGE + ".";
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
   * Set by the duplex agent (option nativeStack, on by default) after it registered the native
   * Duplex.callerSite0, which Duplex.callEdge then calls instead of {@link #callerSite}: the
   * same frames skipped, the same site, found with JVMTI GetStackTrace.
   */
  static volatile boolean nativeStack;

  /**
   * Called by the agent for a caller frame it has no site for yet: the canonical site (the
   * agent keeps a weak reference to it).
   */
  static CallerSite site(
      Class<?> type, String className, String method, String descriptor, int bci, int line) {
    return SiteTables.callerSite(type, className, method, descriptor, bci, line);
  }

  /** The caller of the first non-runtime frame on this thread's stack, or null. */
  static CallerSite callerSite() {
    if (WALKER == null) return fromStackTrace();
    try {
      return (CallerSite) WALK.invoke(WALKER, PICK);
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
        int skip = -1; // frames still to skip after the callee; -1: callee not seen yet
        while (it.hasNext()) {
          Object f = it.next();
          Class<?> type = (Class<?>) GET_CLASS.invoke(f);
          if (isRuntime(type)) continue;
          if (skip < 0) { // the method whose entry called callEdge
            skip = ((String) GET_NAME.invoke(f)).endsWith(OUTLINED_SUFFIX) ? 1 : 0;
            continue;
          }
          if (skip > 0) { // the outlined callee's checking twin
            skip--;
            continue;
          }
          String name = (String) GET_NAME.invoke(f);
          if (name.startsWith(BRIDGE_PREFIX)) continue;
          String desc = GET_DESCRIPTOR != null ? (String) GET_DESCRIPTOR.invoke(f) : "";
          int bci = (int) GET_BCI.invoke(f);
          CallerSite s = SiteTables.callerSites(type).find(name, desc, bci);
          if (s != null) return s;
          return SiteTables.callerSite(type, internalName(type.getName()), name, desc, bci,
              (int) GET_LINE.invoke(f));
        }
        return null;
      } catch (Throwable t) {
        throw new IllegalStateException(t);
      }
    }
  };

  private static CallerSite fromStackTrace() {
    StackTraceElement[] trace = new Throwable().getStackTrace();
    int skip = -1;
    for (StackTraceElement e : trace) {
      if (packageOf(e.getClassName()).equals(PACKAGE)) continue;
      if (skip < 0) {
        skip = e.getMethodName().endsWith(OUTLINED_SUFFIX) ? 1 : 0;
        continue;
      }
      if (skip > 0) {
        skip--;
        continue;
      }
      if (e.getMethodName().startsWith(BRIDGE_PREFIX)) continue;
      int line = e.getLineNumber() >= 0 ? e.getLineNumber() : -1;
      return CallerSite.withoutClass(internalName(e.getClassName()), e.getMethodName(), line);
    }
    return null;
  }

  private static boolean isRuntime(Class<?> type) {
    if (type == CallerFinder.class || type == CallEdges.class || type == Duplex.class) return true;
    if (type.getClassLoader() != OWN_LOADER) return false;
    String name = type.getName();
    return name.startsWith(PACKAGE_PREFIX) && name.indexOf('.', PACKAGE_PREFIX.length()) < 0;
  }

  private static String packageOf(String binaryName) {
    int dot = binaryName.lastIndexOf('.');
    return dot < 0 ? "" : binaryName.substring(0, dot);
  }

  static String internalName(String binaryName) { return binaryName.replace('.', '/'); }
}
