import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodHandles.Lookup;
import java.lang.invoke.MethodType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

// Can duplicated code live in a class of its own, defined only when a method is first sampled?
// (docs/design/lazy-twins.md). A twin class is defined as a hidden nestmate of the host class
// (Lookup.defineHiddenClass with NESTMATE), which gives it the host's private members whatever
// the host's class-file version.
//
//   java HiddenTwin access TWIN.class        which host members a hidden twin can use
//   java HiddenTwin cost BIG.class ROUNDS    time to define a twin class: hidden nestmate
//                                            against an ordinary class in a fresh loader
public final class HiddenTwin {
  public static void main(String[] args) throws Throwable {
    byte[] twin = Files.readAllBytes(Path.of(args[1]));
    if (args[0].equals("access")) {
      access(twin);
    } else {
      cost(twin, Integer.parseInt(args[2]));
    }
  }

  static int hostVersion() throws Exception {
    try (var in = q.Host.class.getResourceAsStream("Host.class")) {
      byte[] head = in.readNBytes(8);
      return ((head[6] & 0xff) << 8) | (head[7] & 0xff);
    }
  }

  static void access(byte[] twin) throws Throwable {
    Lookup t = q.Host.duplexLookup().defineHiddenClass(twin, true, Lookup.ClassOption.NESTMATE);
    System.out.println("host class-file version " + hostVersion());
    MethodType type = MethodType.methodType(int.class, q.Host.class);
    for (String name : new String[] {"privateField", "privateStatic", "privateVirtual",
        "protectedInherited", "frames"}) {
      q.Host h = new q.Host();
      String outcome;
      try {
        outcome = "ok " + (int) t.findStatic(t.lookupClass(), name, type).invokeExact(h);
      } catch (Throwable e) {
        outcome = "refused: " + e.getClass().getName();
      }
      System.out.println(name + " " + outcome);
    }
    String through;
    try {
      MethodHandle twinMethod = t.findStatic(t.lookupClass(), "privateStatic", type);
      through = "ok " + new q.Host().callThrough(twinMethod);
    } catch (Throwable e) {
      through = "refused: " + e;
    }
    System.out.println("invokeExact from the host " + through);
  }

  static final class Loader extends ClassLoader {
    Loader() {
      super(HiddenTwin.class.getClassLoader());
    }

    Class<?> define(byte[] b) {
      return defineClass(null, b, 0, b.length);
    }
  }

  static void cost(byte[] big, int rounds) throws Throwable {
    Lookup host = q.Host.duplexLookup();
    MethodType type = MethodType.methodType(int.class, q.Host.class, int.class);
    long[] hidden = new long[rounds];
    long[] plain = new long[rounds];
    int sink = 0;
    for (int r = 0; r < rounds; r++) {
      long t0 = System.nanoTime();
      Lookup t = host.defineHiddenClass(big, true, Lookup.ClassOption.NESTMATE);
      MethodHandle m = t.findStatic(t.lookupClass(), "m0", type);
      sink += (int) m.invokeExact(new q.Host(), 3);
      long t1 = System.nanoTime();
      // The same bytes as an ordinary class: parsed, verified and initialised, as the twins of
      // every loaded class are today.
      Class<?> c = new Loader().define(big);
      Class.forName(c.getName(), true, c.getClassLoader());
      long t2 = System.nanoTime();
      hidden[r] = t1 - t0;
      plain[r] = t2 - t1;
    }
    System.out.printf("bytes %d sink %d%n", big.length, sink);
    System.out.printf(
        "hidden nestmate, define + link + first call: first %.1f us, median %.1f us%n",
        hidden[0] / 1e3, median(hidden) / 1e3);
    System.out.printf("ordinary class, define + link: first %.1f us, median %.1f us%n",
        plain[0] / 1e3, median(plain) / 1e3);
  }

  static double median(long[] v) {
    long[] s = Arrays.copyOfRange(v, 1, v.length);
    Arrays.sort(s);
    return s[s.length / 2];
  }
}
