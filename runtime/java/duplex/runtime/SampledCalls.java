package duplex.runtime;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandleInfo;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Objects;

/**
 * Links sampled calls ({@link Duplex#sampledCall}; rewriter/sampled_calls.h). A small loop-free
 * method {@code m} has no check of its own; its instrumented copy is a static twin
 * {@code m$sampled} in the same class (the receiver first for an instance method, then m's
 * parameters with boolean, byte, short and char widened to int, then an int entry id; m's return
 * type; the class's own type, the receiver's included, declared as Object). In sampled code every call becomes an invokedynamic that must do exactly what the
 * original call does, except that when the method it would run has a twin, the twin runs.
 *
 * <p>Whenever anything is uncertain the site gets the plain call (the original call as a method
 * handle): always correct, the callee is only not sampled through that site.
 *
 * <p>Twins are found by reflection and called through {@code setAccessible}: the runtime is Java 8
 * code (no {@code privateLookupIn}), and a twin is normally private to its class.
 */
final class SampledCalls {
  static final String SUFFIX = "$sampled";

  private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
  private static final MethodHandle IS_NULL;
  private static final MethodHandle SELECT;
  /**
   * Each class's declared methods, read once: every call site linked and every receiver class
   * dispatched walks them, and getDeclaredMethods copies the whole array on each call. A class
   * whose signatures name a missing class throws here each time (nothing is cached), and that
   * site or receiver class takes the plain call.
   */
  private static final ClassValue<Method[]> DECLARED =
      new ClassValue<Method[]>() {
        @Override
        protected Method[] computeValue(Class<?> c) {
          return c.getDeclaredMethods();
        }
      };

  static {
    try {
      IS_NULL = LOOKUP.findStatic(Objects.class, "isNull",
          MethodType.methodType(boolean.class, Object.class));
      SELECT = LOOKUP.findStatic(SampledCalls.class, "select",
          MethodType.methodType(MethodHandle.class, Dispatch.class, Object.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private SampledCalls() {}

  /**
   * The target of the call site of type {@code type} that replaces the call {@code callee}
   * (a direct handle: REF_invokeVirtual, REF_invokeInterface, REF_invokeStatic or
   * REF_invokeSpecial). Throws when the callee cannot be cracked; the caller then links the plain
   * call.
   */
  static MethodHandle target(MethodHandles.Lookup caller, MethodType type, MethodHandle callee)
      throws ReflectiveOperationException {
    MethodHandle plain = callee.asType(type);
    MethodHandleInfo info = caller.revealDirect(callee);
    Class<?> d = info.getDeclaringClass();
    int kind = info.getReferenceKind();
    int mods = info.getModifiers();
    boolean virtual = kind == MethodHandleInfo.REF_invokeVirtual
        || kind == MethodHandleInfo.REF_invokeInterface;
    // A special handle runs d's method itself: for a super call, findSpecial and the constant
    // pool's handles already resolve from the caller's direct superclass up (JVMS 6.5
    // invokespecial), so d is the class whose method the instruction selects.
    if (kind == MethodHandleInfo.REF_invokeStatic || kind == MethodHandleInfo.REF_invokeSpecial) {
      return direct(d, info, type, plain);
    }
    if (!virtual) return plain; // REF_newInvokeSpecial and field handles: not rewritten calls
    if (Modifier.isPrivate(mods)) {
      return direct(d, info, type, plain); // private methods are never overridden
    }
    if (!d.isInterface() && (Modifier.isFinal(mods) || Modifier.isFinal(d.getModifiers()))) {
      return direct(d, info, type, plain); // nothing can override it: no per-class dispatch
    }
    // Dispatch on the receiver's class: select(site, receiver) picks the handle for its class,
    // which exactInvoker then calls with all the arguments; a ClassValue lookup and an
    // invokeExact per call.
    Dispatch site = new Dispatch(d, info.getName(), info.getMethodType(), mods, type, plain);
    MethodHandle selector = SELECT.bindTo(site)
        .asType(MethodType.methodType(MethodHandle.class, type.parameterType(0)));
    selector = MethodHandles.dropArguments(selector, 1,
        type.parameterList().subList(1, type.parameterCount()));
    return MethodHandles.foldArguments(MethodHandles.exactInvoker(type), selector);
  }

  /** The call always runs d's own method: d's twin if it has one, else the plain call. */
  private static MethodHandle direct(Class<?> d, MethodHandleInfo info, MethodType type,
      MethodHandle plain) throws ReflectiveOperationException {
    boolean receiver = info.getReferenceKind() != MethodHandleInfo.REF_invokeStatic;
    Method twin = twin(d, DECLARED.get(d), info.getName(), info.getMethodType(), receiver);
    if (twin == null) return plain;
    MethodHandle h = adapt(twin, type);
    if (!receiver) return h;
    // The twin is static and would run with a null receiver: null takes the plain call, so the
    // NullPointerException is the JVM's own.
    MethodHandle isNull =
        IS_NULL.asType(MethodType.methodType(boolean.class, type.parameterType(0)));
    return MethodHandles.guardWithTest(isNull, plain, h);
  }

  /** One virtual or interface call site: the handle each receiver class runs. */
  private static final class Dispatch extends ClassValue<MethodHandle> {
    private final Class<?> declaring; // of the resolved method
    private final String name;
    private final MethodType method; // the resolved method's type, without the receiver
    private final String descriptor;
    private final int modifiers;
    private final MethodType type; // the call site's
    private final MethodHandle plain;

    Dispatch(Class<?> declaring, String name, MethodType method, int modifiers, MethodType type,
        MethodHandle plain) {
      this.declaring = declaring;
      this.name = name;
      this.method = method;
      this.descriptor = method.toMethodDescriptorString();
      this.modifiers = modifiers;
      this.type = type;
      this.plain = plain;
    }

    @Override
    protected MethodHandle computeValue(Class<?> k) {
      try {
        return forClass(k);
      } catch (Throwable t) {
        // Reflection failed (a class missing from a signature, a module not open to us, a
        // security manager): this class is not sampled through this site.
        Log.debug("sampled call " + declaring.getName() + "." + name + " on " + k.getName()
            + ": plain call (" + t + ")");
        return plain;
      }
    }

    /**
     * The method invokevirtual/invokeinterface selects for receivers of class k (JVMS 5.4.6),
     * where that is simple: the first non-private declaration up k's superclasses.
     */
    private MethodHandle forClass(Class<?> k) throws ReflectiveOperationException {
      // Interfaces are Object to the verifier: a receiver that is not one takes the plain call,
      // which throws what the original call would.
      if (!declaring.isAssignableFrom(k)) return plain;
      for (Class<?> c = k; c != null; c = c.getSuperclass()) {
        Method[] ms = DECLARED.get(c);
        Method m = null;
        for (Method x : ms) {
          // Compared by descriptor: a bridge method has the same name and parameters but
          // another return type, and is the one selected when the call names its descriptor.
          if (x.getName().equals(name) && !Modifier.isPrivate(x.getModifiers())
              && typeOf(x).toMethodDescriptorString().equals(descriptor)) {
            m = x;
            break;
          }
        }
        if (m == null) continue;
        int mod = m.getModifiers();
        // The same descriptor naming other classes (another loader's), a static or abstract
        // method: the JVM's rules are not simple there.
        if (!typeOf(m).equals(method) || Modifier.isStatic(mod) || Modifier.isAbstract(mod)) {
          return plain;
        }
        if (c != declaring && !overrides(c, mod)) return plain;
        Method twin = twin(c, ms, name, method, true);
        return twin == null ? plain : adapt(twin, type);
      }
      return plain; // an interface's default method (or no method at all: the plain call throws)
    }

    /**
     * Whether the first declaration found up the receiver's classes, in class c below the
     * declaring one with modifiers mod, surely overrides the resolved method. A package-private
     * method is overridden by a declaration in its own runtime package (the common case: a
     * class hierarchy inside one package); across packages the rules turn transitive and
     * subtle, so that is left to the plain call. invokeinterface throws IllegalAccessError
     * when it selects a method that is not public.
     */
    private boolean overrides(Class<?> c, int mod) {
      if (!Modifier.isPublic(modifiers) && !Modifier.isProtected(modifiers)) {
        return c.getClassLoader() == declaring.getClassLoader()
            && packageOf(c).equals(packageOf(declaring));
      }
      return Modifier.isPublic(mod) || (Modifier.isProtected(mod) && !declaring.isInterface());
    }
  }

  /** The package name of c ("" for the unnamed package); Class.getPackageName is Java 9. */
  private static String packageOf(Class<?> c) {
    String n = c.getName();
    int dot = n.lastIndexOf('.');
    return dot < 0 ? "" : n.substring(0, dot);
  }

  /** The handle for receiver (the receiver's class's handle; null: the plain call's NPE). */
  private static MethodHandle select(Dispatch site, Object receiver) {
    return receiver == null ? site.plain : site.get(receiver.getClass());
  }

  /**
   * The twin of method {@code name} (of type {@code method}, without the receiver) among c's
   * declared methods {@code ms}, or null: a static method {@code name$sampled} of exactly the
   * twin's type.
   */
  private static Method twin(Class<?> c, Method[] ms, String name, MethodType method,
      boolean receiver) {
    MethodType want = widen(method).appendParameterTypes(int.class);
    if (receiver) want = want.insertParameterTypes(0, c);
    // A twin declares the parameters of its class's own type as Object (reflective runtimes
    // such as Groovy's recurse on a class's methods that take the class itself).
    for (int i = 0; i < want.parameterCount(); i++) {
      if (want.parameterType(i) == c) want = want.changeParameterType(i, Object.class);
    }
    String twinName = name + SUFFIX;
    for (Method m : ms) {
      if (m.getName().equals(twinName) && Modifier.isStatic(m.getModifiers())
          && typeOf(m).equals(want)) {
        return m;
      }
    }
    return null;
  }

  /** The twin as a handle of the call site's type, with entry id 0. */
  private static MethodHandle adapt(Method twin, MethodType type)
      throws ReflectiveOperationException {
    twin.setAccessible(true); // twins are private; also throws for a module not open to us
    MethodHandle h = LOOKUP.unreflect(twin);
    h = MethodHandles.insertArguments(h, h.type().parameterCount() - 1, 0);
    // asType casts the receiver to the twin's class; it does not convert boolean to int, which
    // explicitCastArguments does (true is 1, as the JVM passes it). Only the widened
    // parameters differ between the two types, so explicitCastArguments converts nothing else.
    MethodType wide = widen(type);
    return MethodHandles.explicitCastArguments(h.asType(wide), type);
  }

  /** t with its boolean, byte, short and char parameters as int (not its return type). */
  private static MethodType widen(MethodType t) {
    for (int i = 0; i < t.parameterCount(); i++) {
      Class<?> p = t.parameterType(i);
      if (p == boolean.class || p == byte.class || p == short.class || p == char.class) {
        t = t.changeParameterType(i, int.class);
      }
    }
    return t;
  }

  private static MethodType typeOf(Method m) {
    return MethodType.methodType(m.getReturnType(), m.getParameterTypes());
  }
}
