import java.lang.invoke.CallSite;
import java.lang.invoke.ConstantCallSite;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The bootstrap an agent's lazy twins would use (docs/design/lazy-twins.md, "The agent"): at a
 * sample stub's first call, define the host's twin class from bytes held aside (the agent would
 * hold them in native memory) with the host's own full-privilege lookup, as an ordinary
 * nestmate class of the host's loader and package, and bind the call site to the twin.
 */
public final class TwinLinker {
  /** Twin class bytes by binary name, waiting for their host's first sample. */
  static final ConcurrentHashMap<String, byte[]> PENDING = new ConcurrentHashMap<>();

  public static CallSite link(MethodHandles.Lookup host, String name, MethodType type)
      throws ReflectiveOperationException {
    Class<?> lookupClass = host.lookupClass();
    String twinName = lookupClass.getName() + "$DuplexTwins";
    Class<?> twin;
    synchronized (lookupClass) { // two first samples at once: one defines, the other finds it
      byte[] bytes = PENDING.remove(twinName);
      twin = bytes != null
          ? host.defineClass(bytes)
          : Class.forName(twinName, false, lookupClass.getClassLoader());
    }
    return new ConstantCallSite(host.findStatic(twin, name, type));
  }
}
