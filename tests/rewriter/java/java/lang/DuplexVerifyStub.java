package java.lang;

/**
 * A stand-in for the duplex runtime, patched into java.base only to verify rewritten JDK
 * classes: java.base cannot read the runtime's own module, and the JVM runs java.base code
 * while it starts. Sampling is off: check() never fires, events are ignored.
 */
public final class DuplexVerifyStub {
  private DuplexVerifyStub() {}

  public static int counter = Integer.MAX_VALUE;  // the inline check (--check inline)

  public static boolean check() { return false; }
  public static Thread sampling;  // flag checks of small loop-free methods
  public static boolean samplingHere() { return false; }
  public static boolean checkEntry() { return false; }
  public static int tick() { return Integer.MAX_VALUE; }
  public static int tickEntry() { return Integer.MAX_VALUE; }
  // The stripe in a local (--stripe-in-local): no stripe, and the counter never runs out.
  public static Object here() { return null; }
  public static int tickAt(Object here) { return Integer.MAX_VALUE; }
  public static boolean expired() { return false; }
  // --method-counters: the counter never runs out.
  public static int tickOf(Object counter) { return Integer.MAX_VALUE; }
  public static int tickEntryOf(Object counter) { return Integer.MAX_VALUE; }
  public static Object methodCounter(Object counter) { return counter != null ? counter : new int[1]; }
  public static boolean rearm(Object counter) { return false; }
  public static boolean fire() {
    counter = Integer.MAX_VALUE;
    return false;
  }
  public static void callSite(String key) {}
  public static void callSiteVirtual(Object receiver, String key) {}
  public static void sampledCallSite(String key) {}
  public static void sampledCallSiteVirtual(Object receiver, String key) {}
  public static void sampledCallSiteInto(String key) {}
  public static void sampledCallSiteVirtualInto(Object receiver, String key) {}
  public static void endSample() {}

  public static void callEdge(String key) {}
  public static void fieldRead(String key) {}
  public static void fieldWrite(String key) {}
  public static void sampledCallEdge(String key) {}
  public static void sampledFieldRead(String key) {}
  public static void sampledFieldWrite(String key) {}
  public static void event(String key) {}
  public static java.util.concurrent.atomic.AtomicLongArray counters(String table) {
    return new java.util.concurrent.atomic.AtomicLongArray(1 << 16);
  }
  public static void register(Class<?> c, String table) {}
  public static void registerByName(String table) {}
  public static void countEntry() {}
  public static void countBackedge() {}
  public static long[] handBack(int entry, int slots) { return new long[slots]; }
  public static Object[] handBackRefs() { return new Object[0]; }
  public static int resumeEntry() { return -1; }
  public static long[] resumePrims() { return new long[0]; }
  public static Object[] resumeRefs() { return new Object[0]; }
  public static void resumed() {}
}
