package duplex.lazy;

import java.io.InputStream;
import java.lang.invoke.CallSite;
import java.lang.invoke.ConstantCallSite;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ConcurrentHashMap;

// The bootstrap of bench/lazy_prototype.py's forwarders (its `indy` form) (docs/design/lazy-twins.md, section 3):
// at a host's first sample, defines its twin class (the resource HOST.duplextwins next to the
// host's class file) as a hidden nestmate of the host, once per host, and links the forwarder's
// call site to the twin. A prototype for measurements, not duplex's runtime: it has no
// fall-back when the twin class cannot be defined.
public final class Twins {
  private static final ConcurrentHashMap<Class<?>, MethodHandles.Lookup> TWIN_CLASSES =
      new ConcurrentHashMap<>();

  private Twins() {}

  public static CallSite twin(MethodHandles.Lookup host, String name, MethodType type)
      throws ReflectiveOperationException {
    MethodHandles.Lookup twins =
        TWIN_CLASSES.computeIfAbsent(host.lookupClass(), c -> define(host));
    return new ConstantCallSite(twins.findStatic(twins.lookupClass(), name, type));
  }

  private static MethodHandles.Lookup define(MethodHandles.Lookup host) {
    Class<?> c = host.lookupClass();
    String resource = c.getName().replace('.', '/') + ".duplextwins";
    ClassLoader loader = c.getClassLoader();
    try (InputStream in = loader == null ? ClassLoader.getSystemResourceAsStream(resource)
                                         : loader.getResourceAsStream(resource)) {
      if (in == null) throw new IllegalStateException("no " + resource);
      return host.defineHiddenClass(
          in.readAllBytes(), true, MethodHandles.Lookup.ClassOption.NESTMATE);
    } catch (Exception e) {
      throw new IllegalStateException("twin class of " + c.getName() + ": " + e, e);
    }
  }
}
