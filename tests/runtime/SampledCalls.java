package duplextest;

import static duplextest.RuntimeTest.expect;
import static duplextest.RuntimeTest.expectEq;

import duplex.runtime.Duplex;
import java.lang.invoke.CallSite;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The bootstrap of sampled calls, Duplex.sampledCall (runtime contract, "Sampled calls"), called
 * directly with handles on classes whose {@code m$sampled} twins are written by hand the way the
 * rewriter emits them (static; the receiver first, as an Object; boolean, byte, short and char as int; a
 * trailing int entry id). Every body records in {@link #ran} which of them ran, so each check
 * tells the twin from the plain method, and which class's.
 */
final class SampledCalls {
  /** The body that ran last: "Class.method" for a plain method, "Class.method$sampled" a twin. */
  static String ran;

  private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();

  private SampledCalls() {}

  // ---------------------------------------------------------------------------------------------
  // Classes with hand-written twins.

  static final class Statics {
    private Statics() {}

    static int twice(int x) {
      ran = "Statics.twice";
      return 2 * x;
    }

    // Records the entry id: the bootstrap must pass 0.
    private static int twice$sampled(int x, int entry) {
      ran = "Statics.twice$sampled entry " + entry;
      return 2 * x;
    }

    static int alone(int x) {
      ran = "Statics.alone";
      return x + 1;
    }

    static String mix(boolean z, char c, byte b, short s, long j, String t) {
      ran = "Statics.mix";
      return z + "," + c + "," + b + "," + s + "," + j + "," + t;
    }

    // The small types arrive as int: true is 1, 'A' is 65.
    private static String mix$sampled(int z, int c, int b, int s, long j, String t, int entry) {
      ran = "Statics.mix$sampled";
      return z + "," + c + "," + b + "," + s + "," + j + "," + t;
    }

    // Twins of the wrong type, all ignored.
    static int wrongReturn(int x) {
      ran = "Statics.wrongReturn";
      return x;
    }

    private static long wrongReturn$sampled(int x, int entry) {
      ran = "Statics.wrongReturn$sampled";
      return x;
    }

    static int noEntry(int x) {
      ran = "Statics.noEntry";
      return x;
    }

    private static int noEntry$sampled(int x) {
      ran = "Statics.noEntry$sampled";
      return x;
    }

    static boolean notWidened(boolean z) {
      ran = "Statics.notWidened";
      return !z;
    }

    private static boolean notWidened$sampled(boolean z, int entry) {
      ran = "Statics.notWidened$sampled";
      return !z;
    }

    static int notStatic(int x) {
      ran = "Statics.notStatic";
      return x;
    }

    int notStatic$sampled(int x, int entry) {
      ran = "Statics.notStatic$sampled";
      return x;
    }
  }

  static class Base {
    public int get(int x) {
      ran = "Base.get";
      return x;
    }

    private static int get$sampled(Object self, int x, int entry) {
      ran = "Base.get$sampled";
      return x;
    }

    // A boolean parameter and result through an instance twin.
    public boolean flip(boolean z) {
      ran = "Base.flip";
      return !z;
    }

    private static boolean flip$sampled(Object self, int z, int entry) {
      ran = "Base.flip$sampled " + z;
      return z == 0;
    }
  }

  /** Overrides with a twin of its own. */
  static class Sub extends Base {
    @Override
    public int get(int x) {
      ran = "Sub.get";
      return x + 10;
    }

    private static int get$sampled(Object self, int x, int entry) {
      ran = "Sub.get$sampled";
      return x + 10;
    }
  }

  /** Inherits get and its twin from Base. */
  static class Inherits extends Base {}

  /** Has a twin of get but inherits get itself: Base's twin runs. */
  static final class TwinOnly extends Base {
    private static int get$sampled(Object self, int x, int entry) {
      ran = "TwinOnly.get$sampled";
      return x;
    }
  }

  /** Overrides get without a twin: Base's twin must not run for it. */
  static class Mid extends Base {
    @Override
    public int get(int x) {
      ran = "Mid.get";
      return x + 20;
    }
  }

  /** Inherits Mid's get (no twin) below Base's (with one). */
  static final class Leaf extends Mid {}

  /** Overrides get; its "twin" takes a Base, not the Object twins declare receivers as: ignored. */
  static final class WrongSelf extends Base {
    @Override
    public int get(int x) {
      ran = "WrongSelf.get";
      return x + 30;
    }

    static int get$sampled(Base self, int x, int entry) {
      ran = "WrongSelf.get$sampled";
      return x + 30;
    }
  }

  interface Shape {
    default String area() {
      ran = "Shape.area";
      return "shape";
    }

    // Never the method a virtual call selects (the default method has no twin of its own here):
    // a bootstrap that used the resolved method's twin would run this.
    static String area$sampled(Object self, int entry) {
      ran = "Shape.area$sampled";
      return "shape";
    }
  }

  static class Square implements Shape {
    @Override
    public String area() {
      ran = "Square.area";
      return "square";
    }

    private static String area$sampled(Object self, int entry) {
      ran = "Square.area$sampled";
      return "square";
    }
  }

  /** Inherits Shape's default method. */
  static final class Blob implements Shape {}

  /** Has area() and its twin but is no Shape. */
  static final class NotAShape {
    public String area() {
      ran = "NotAShape.area";
      return "none";
    }

    private static String area$sampled(Object self, int entry) {
      ran = "NotAShape.area$sampled";
      return "none";
    }
  }

  static class Animal {
    public Object name() {
      ran = "Animal.name";
      return "animal";
    }

    private static Object name$sampled(Object self, int entry) {
      ran = "Animal.name$sampled";
      return "animal";
    }
  }

  /**
   * A covariant override: javac adds a bridge {@code Object name()} that calls
   * {@code String name()}. A call of Animal.name()Object on a Dog runs the bridge, which has no
   * twin; the twin below is String name()'s.
   */
  static final class Dog extends Animal {
    @Override
    public String name() {
      ran = "Dog.name";
      return "dog";
    }

    private static String name$sampled(Object self, int entry) {
      ran = "Dog.name$sampled";
      return "dog";
    }
  }

  /** A package-private method, overridden in its own package. */
  static class PkgBase {
    int size() {
      ran = "PkgBase.size";
      return 1;
    }

    private static int size$sampled(Object self, int entry) {
      ran = "PkgBase.size$sampled";
      return 1;
    }
  }

  static final class PkgSub extends PkgBase {
    @Override
    int size() {
      ran = "PkgSub.size";
      return 2;
    }

    private static int size$sampled(Object self, int entry) {
      ran = "PkgSub.size$sampled";
      return 2;
    }
  }

  /** A final method: every receiver runs it, whatever its class. */
  static class Fixed {
    public final int id() {
      ran = "Fixed.id";
      return 5;
    }

    private static int id$sampled(Object self, int entry) {
      ran = "Fixed.id$sampled";
      return 5;
    }
  }

  static final class FixedSub extends Fixed {}

  /** A private method, reached by findSpecial (and findVirtual) from its own class's lookup. */
  static final class Private {
    private String secret(int x) {
      ran = "Private.secret";
      return "s" + x;
    }

    private static String secret$sampled(Object self, int x, int entry) {
      ran = "Private.secret$sampled";
      return "s" + x;
    }

    // Not private: invokespecial of the caller's own method still runs this one.
    String open(int x) {
      ran = "Private.open";
      return "o" + x;
    }

    private static String open$sampled(Object self, int x, int entry) {
      ran = "Private.open$sampled";
      return "o" + x;
    }

    static MethodHandles.Lookup lookup() { return MethodHandles.lookup(); }
  }

  /** Makes super calls: invokespecial Base.get from here selects Mid.get (no twin). */
  static final class SuperCaller extends Mid {
    static MethodHandles.Lookup lookup() { return MethodHandles.lookup(); }
  }

  /**
   * Makes super calls: invokespecial Base.get from here selects Base.get (Inherits does not
   * override it), whose twin runs; never this class's own override.
   */
  static final class SuperCaller2 extends Inherits {
    @Override
    public int get(int x) {
      ran = "SuperCaller2.get";
      return x + 40;
    }

    static MethodHandles.Lookup lookup() { return MethodHandles.lookup(); }
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers.

  static MethodType mt(Class<?> ret, Class<?>... params) {
    return MethodType.methodType(ret, params);
  }

  /** Links a site as the JVM would and checks that its type is the call's. */
  static CallSite link(MethodHandles.Lookup lookup, String name, MethodType type,
      MethodHandle callee) {
    CallSite s = Duplex.sampledCall(lookup, name, type, callee);
    expectEq(type, s.type(), name + ": call site type");
    return s;
  }

  static Object call(CallSite s, Object... args) throws Exception {
    return invoke(s.dynamicInvoker(), args);
  }

  static Object invoke(MethodHandle h, Object... args) throws Exception {
    try {
      return h.invokeWithArguments(args);
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /** Calls the site and expects that body {@code body} ran and returned {@code result}. */
  static void expectRan(String body, Object result, CallSite s, Object... args) throws Exception {
    ran = null;
    Object got = call(s, args);
    expectEq(body, ran, "body run for " + s.type());
    expectEq(result, got, "result of " + body);
  }

  static Throwable thrown(MethodHandle h, Object... args) {
    try {
      h.invokeWithArguments(args);
      return null;
    } catch (Throwable t) {
      return t;
    }
  }

  /** A null receiver throws what the plain call throws (a NullPointerException), running nothing. */
  static void expectNpe(CallSite s, MethodHandle callee) {
    Object[] args = new Object[s.type().parameterCount()];
    for (int i = 1; i < args.length; i++) {
      Class<?> p = s.type().parameterType(i);
      args[i] = p == int.class ? (Object) 0 : p == boolean.class ? (Object) false : null;
    }
    ran = null;
    Throwable plain = thrown(callee, args);
    ran = null;
    Throwable got = thrown(s.dynamicInvoker(), args);
    expect(plain instanceof NullPointerException, "plain call on null: " + plain);
    expect(got instanceof NullPointerException, "site on null: " + got);
    expectEq(null, ran, "body run on null");
  }

  // ---------------------------------------------------------------------------------------------
  // The tests.

  static void statics() throws Exception {
    MethodType ii = mt(int.class, int.class);
    CallSite twice = link(LOOKUP, "twice", ii, LOOKUP.findStatic(Statics.class, "twice", ii));
    expectRan("Statics.twice$sampled entry 0", 8, twice, 4);
    CallSite alone = link(LOOKUP, "alone", ii, LOOKUP.findStatic(Statics.class, "alone", ii));
    expectRan("Statics.alone", 5, alone, 4);

    MethodType mix = mt(String.class, boolean.class, char.class, byte.class, short.class,
        long.class, String.class);
    CallSite m = link(LOOKUP, "mix", mix, LOOKUP.findStatic(Statics.class, "mix", mix));
    expectRan("Statics.mix$sampled", "1,65,-3,7,5,t", m, true, 'A', (byte) -3, (short) 7, 5L, "t");
    expectRan("Statics.mix$sampled", "0,65535,127,-32768,-1,null", m, false, '\uffff',
        (byte) 127, Short.MIN_VALUE, -1L, null);
  }

  static void wrongTwins() throws Exception {
    MethodType ii = mt(int.class, int.class);
    for (String name : new String[] {"wrongReturn", "noEntry", "notStatic"}) {
      CallSite s = link(LOOKUP, name, ii, LOOKUP.findStatic(Statics.class, name, ii));
      expectRan("Statics." + name, 3, s, 3);
    }
    MethodType zz = mt(boolean.class, boolean.class);
    CallSite z = link(LOOKUP, "notWidened", zz,
        LOOKUP.findStatic(Statics.class, "notWidened", zz));
    expectRan("Statics.notWidened", false, z, true);
    // A subclass whose twin's receiver is not its own class.
    MethodType ii1 = mt(int.class, Base.class, int.class);
    CallSite s = link(LOOKUP, "get", ii1, LOOKUP.findVirtual(Base.class, "get", ii));
    expectRan("WrongSelf.get", 31, s, new WrongSelf(), 1);
  }

  static void virtuals() throws Exception {
    MethodType ii = mt(int.class, int.class);
    MethodHandle get = LOOKUP.findVirtual(Base.class, "get", ii);
    CallSite s = link(LOOKUP, "get", mt(int.class, Base.class, int.class), get);
    // One site, receivers of several classes in turn (one cached handle per class).
    for (int round = 0; round < 2; round++) {
      expectRan("Sub.get$sampled", 11, s, new Sub(), 1);
      expectRan("Base.get$sampled", 1, s, new Base(), 1);
      expectRan("Base.get$sampled", 2, s, new Inherits(), 2);
      expectRan("Mid.get", 21, s, new Mid(), 1);
      expectRan("Mid.get", 22, s, new Leaf(), 2);
      expectRan("Base.get$sampled", 3, s, new TwinOnly(), 3);
    }
    // The call names Sub.get: the same selection.
    CallSite sub = link(LOOKUP, "get", mt(int.class, Sub.class, int.class),
        LOOKUP.findVirtual(Sub.class, "get", ii));
    expectRan("Sub.get$sampled", 13, sub, new Sub(), 3);

    // A boolean through an instance twin (the twin sees 1 for true).
    MethodType zz = mt(boolean.class, boolean.class);
    CallSite flip = link(LOOKUP, "flip", mt(boolean.class, Base.class, boolean.class),
        LOOKUP.findVirtual(Base.class, "flip", zz));
    expectRan("Base.flip$sampled 1", false, flip, new Sub(), true);
    expectRan("Base.flip$sampled 0", true, flip, new Base(), false);

    // A final method: a subclass receiver runs Fixed's twin.
    CallSite id = link(LOOKUP, "id", mt(int.class, Fixed.class),
        LOOKUP.findVirtual(Fixed.class, "id", mt(int.class)));
    expectRan("Fixed.id$sampled", 5, id, new FixedSub());
    expectRan("Fixed.id$sampled", 5, id, new Fixed());

    // A package-private method: overridden within its package, so each class's own twin.
    MethodHandle size = LOOKUP.findVirtual(PkgBase.class, "size", mt(int.class));
    CallSite sz = link(LOOKUP, "size", mt(int.class, PkgBase.class), size);
    expectRan("PkgBase.size$sampled", 1, sz, new PkgBase());
    expectRan("PkgSub.size$sampled", 2, sz, new PkgSub());

    expectNpe(s, get);
    expectNpe(id, LOOKUP.findVirtual(Fixed.class, "id", mt(int.class)));
  }

  static void interfaces() throws Exception {
    MethodHandle area = LOOKUP.findVirtual(Shape.class, "area", mt(String.class));
    CallSite s = link(LOOKUP, "area", mt(String.class, Shape.class), area);
    expectRan("Square.area$sampled", "square", s, new Square());
    expectRan("Shape.area", "shape", s, new Blob()); // the default method: plain
    expectRan("Square.area$sampled", "square", s, new Square() {}); // inherited from Square
    expectNpe(s, area);
    // The verifier treats interfaces as Object, so an invokeinterface can meet a receiver that
    // is not a Shape (explicitCastArguments passes one in without a cast): the plain call's
    // exception, not the receiver's twin.
    MethodType loose = mt(String.class, Object.class);
    Throwable plain = thrown(MethodHandles.explicitCastArguments(area, loose), new NotAShape());
    ran = null;
    Throwable got =
        thrown(MethodHandles.explicitCastArguments(s.dynamicInvoker(), loose), new NotAShape());
    expect(plain != null, "plain call on a NotAShape throws");
    expectEq(plain.getClass(), got == null ? null : got.getClass(), "site on a NotAShape");
    expectEq(null, ran, "body run on a NotAShape");
  }

  static void bridges() throws Exception {
    CallSite viaAnimal = link(LOOKUP, "name", mt(Object.class, Animal.class),
        LOOKUP.findVirtual(Animal.class, "name", mt(Object.class)));
    expectRan("Animal.name$sampled", "animal", viaAnimal, new Animal());
    // Dog's bridge Object name() is selected; it has no twin, so the call is plain (which runs
    // String name() through the bridge): neither Dog's twin (String name()'s) nor Animal's.
    expectRan("Dog.name", "dog", viaAnimal, new Dog());
    CallSite viaDog = link(LOOKUP, "name", mt(String.class, Dog.class),
        LOOKUP.findVirtual(Dog.class, "name", mt(String.class)));
    expectRan("Dog.name$sampled", "dog", viaDog, new Dog());
  }

  static void privates() throws Exception {
    MethodHandles.Lookup own = Private.lookup();
    MethodType si = mt(String.class, int.class);
    MethodType type = mt(String.class, Private.class, int.class);
    MethodHandle special = own.findSpecial(Private.class, "secret", si, Private.class);
    CallSite s = link(own, "secret", type, special);
    expectRan("Private.secret$sampled", "s4", s, new Private(), 4);
    expectNpe(s, special);
    MethodHandle virtual = own.findVirtual(Private.class, "secret", si);
    CallSite v = link(own, "secret", type, virtual);
    expectRan("Private.secret$sampled", "s5", v, new Private(), 5);
    expectNpe(v, virtual);
    MethodHandle open = own.findSpecial(Private.class, "open", si, Private.class);
    CallSite o = link(own, "open", type, open);
    expectRan("Private.open$sampled", "o6", o, new Private(), 6);
    expectNpe(o, open);

    // Super calls naming Base.get. From SuperCaller, Mid's get is selected (the handle and the
    // instruction alike): it has no twin. From SuperCaller2, Base's, never the receiver's own.
    MethodType ii = mt(int.class, int.class);
    MethodHandles.Lookup sup = SuperCaller.lookup();
    MethodHandle superGet = sup.findSpecial(Base.class, "get", ii, SuperCaller.class);
    CallSite sg = link(sup, "get", mt(int.class, SuperCaller.class, int.class), superGet);
    expectRan("Mid.get", 21, sg, new SuperCaller(), 1);
    MethodHandles.Lookup sup2 = SuperCaller2.lookup();
    MethodHandle superGet2 = sup2.findSpecial(Base.class, "get", ii, SuperCaller2.class);
    CallSite sg2 = link(sup2, "get", mt(int.class, SuperCaller2.class, int.class), superGet2);
    expectRan("Base.get$sampled", 1, sg2, new SuperCaller2(), 1);
    expectNpe(sg2, superGet2);
  }

  /** Handles that are not calls the rewriter replaces: the site is the handle itself. */
  static void notCalls() throws Exception {
    CallSite c = link(LOOKUP, "x", mt(int.class), MethodHandles.constant(int.class, 7));
    expectRan(null, 7, c);
    CallSite ctor = link(LOOKUP, "<init>", mt(Square.class),
        LOOKUP.findConstructor(Square.class, mt(void.class)));
    expect(call(ctor) instanceof Square, "constructor site makes a Square");
  }
}
