package duplex.runtime;

import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Caller-side call edges (the {@code call-edge} instrumentation): rewritten code calls {@link
 * Duplex#callSite} or {@link Duplex#callSiteVirtual} just before an invoke, with a key made when
 * the class was rewritten (docs/design/runtime-contract.md):
 *
 * <pre>caller-class TAB caller-method TAB caller-descriptor TAB offset TAB line TAB owner.name(desc)</pre>
 *
 * Nothing is looked up on the stack: counting is a hash lookup of the key (an interned constant,
 * so its hash is cached and equality is identity) and an add. Virtual and interface calls also
 * pass the receiver; its class decides the callee, which is resolved only when the profile is
 * written.
 */
final class CallSites implements CountStore {
  /**
   * The count of one receiver class at one site. The class is held weakly: a count must not keep
   * a class from being unloaded, and with it its loader and every class that loader defined (a
   * server that redeploys an application kept every old deployment's classes while they were
   * held strongly here). A class unloaded before the profile is written keeps its count, under
   * the site's declared callee (what it resolved to cannot be looked up any more).
   */
  static final class Receiver extends WeakReference<Class<?>> {
    final LongAdder count = new LongAdder();

    Receiver(Class<?> type) { super(type); }
  }

  /** The counts of one call site. */
  static final class Site extends KeyTable.Entry {
    final LongAdder direct = new LongAdder(); // static and special calls, and null receivers
    // The last receiver seen, as an inline cache; a class's receiver is found through the
    // ClassValue (kept with the class, so it holds nothing of it), and listed for the profile.
    private volatile Receiver last;
    private final List<Receiver> receivers = new ArrayList<Receiver>(4); // guarded by itself
    private final ClassValue<Receiver> byClass =
        new ClassValue<Receiver>() {
          @Override
          protected Receiver computeValue(Class<?> type) {
            // A race may compute two for one class: the loser stays listed, at 0.
            Receiver r = new Receiver(type);
            synchronized (receivers) {
              receivers.add(r);
            }
            return r;
          }
        };

    Site(String key, int hash) { super(key, hash); }

    void countReceiver(Class<?> type) {
      Receiver r = last;
      if (r == null || r.get() != type) {
        r = byClass.get(type);
        last = r;
      }
      r.count.increment();
    }

    /** The receivers counted so far (a copy). */
    List<Receiver> receivers() {
      synchronized (receivers) {
        return new ArrayList<Receiver>(receivers);
      }
    }
  }

  private final KeyTable<Site> sites =
      new KeyTable<Site>() {
        @Override
        Site create(String key, int hash) { return new Site(key, hash); }
      };

  /** The site's entry, or null: lock-free (the caller adds a missing one with {@link #add}). */
  Site find(String key) { return sites.find(key); }

  Site add(String key) { return sites.insert(key); }

  static void count(Site s) { s.direct.increment(); }

  static void countVirtual(Site s, Object receiver) {
    if (receiver == null) {
      s.direct.increment(); // the invoke throws NullPointerException; the call was attempted
    } else {
      s.countReceiver(receiver.getClass());
    }
  }

  @Override
  public void clear() { sites.clear(); }

  @Override
  public void scale(CountScale s) {
    for (Site site : sites.all()) {
      s.apply(site.direct);
      for (Receiver r : site.receivers()) s.apply(r.count);
    }
  }

  /** [CallEdges.Edge, Long count] pairs, the callee of each virtual call resolved. */
  List<Object[]> snapshot() {
    List<Object[]> out = new ArrayList<Object[]>();
    Map<String, String> resolved = new HashMap<String, String>();
    for (Site s : sites.all()) {
      String[] f = split(s.key);
      if (f == null) {
        Log.error("malformed call-site key ignored: " + s.key);
        continue;
      }
      long direct = s.direct.sum();
      if (direct != 0) out.add(new Object[] {edge(f, f[5]), direct});
      for (Receiver r : s.receivers()) {
        long n = r.count.sum();
        if (n == 0) continue;
        Class<?> type = r.get();
        String callee = type != null ? resolve(type, f[5], resolved) : f[5]; // unloaded
        out.add(new Object[] {edge(f, callee), n});
      }
    }
    return merge(out);
  }

  /** [CallEdges.Edge, Long count] pairs for static and special calls counted by site key. */
  static List<Object[]> direct(Map<String, Long> counts) {
    List<Object[]> out = new ArrayList<Object[]>();
    for (Map.Entry<String, Long> e : counts.entrySet()) {
      String[] f = split(e.getKey());
      if (f == null) {
        Log.error("malformed call-site key ignored: " + e.getKey());
        continue;
      }
      out.add(new Object[] {edge(f, f[5]), e.getValue()});
    }
    return out;
  }

  private static CallEdges.Edge edge(String[] f, String callee) {
    return new CallEdges.Edge(f[0], f[1], f[2], parseInt(f[3]), parseInt(f[4]), callee);
  }

  /** Receiver classes that resolve to the same callee are one edge. */
  static List<Object[]> merge(List<Object[]> pairs) {
    Map<CallEdges.Edge, Long> sums = new HashMap<CallEdges.Edge, Long>();
    for (Object[] p : pairs) {
      CallEdges.Edge e = (CallEdges.Edge) p[0];
      Long old = sums.get(e);
      sums.put(e, (old == null ? 0L : old) + (Long) p[1]);
    }
    List<Object[]> out = new ArrayList<Object[]>();
    for (Map.Entry<CallEdges.Edge, Long> e : sums.entrySet()) {
      out.add(new Object[] {e.getKey(), e.getValue()});
    }
    return out;
  }

  private static String[] split(String key) {
    String[] f = new String[6];
    int from = 0;
    for (int i = 0; i < 5; i++) {
      int tab = key.indexOf('\t', from);
      if (tab < 0) return null;
      f[i] = key.substring(from, tab);
      from = tab + 1;
    }
    f[5] = key.substring(from);
    return f;
  }

  private static int parseInt(String s) {
    try {
      return Integer.parseInt(s);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  // ---- callee resolution ------------------------------------------------------------------

  /**
   * The method a virtual call on a {@code receiver} runs, as "owner.name(desc)": the first
   * concrete declaration up the superclass chain, else a default method of an interface, else
   * the declared target. Lambda and other hidden classes are named without their per-run suffix
   * ({@code Foo$$Lambda}), so that profiles of different runs compare.
   */
  private static String resolve(Class<?> receiver, String declared, Map<String, String> cache) {
    String cacheKey = receiver.getName() + " " + declared;
    String hit = cache.get(cacheKey);
    if (hit != null) return hit;
    String result = declared;
    // "owner.name(desc)", names as keys write them (KeyText): a class name holds no '.', a
    // method name may hold '(' and ')'.
    int dot = declared.indexOf('.');
    int paren = dot > 0 ? KeyText.descriptorStart(declared, dot + 2) : -1;
    if (paren > dot + 1) {
      String name = declared.substring(dot + 1, paren);
      String desc = declared.substring(paren);
      Class<?> owner = implementor(receiver, KeyText.unescape(name), KeyText.unescape(desc));
      if (owner != null) result = KeyText.escape(stableName(owner)) + "." + name + desc;
    }
    cache.put(cacheKey, result);
    return result;
  }

  private static Class<?> implementor(Class<?> receiver, String name, String desc) {
    try {
      for (Class<?> c = receiver; c != null; c = c.getSuperclass()) {
        if (declaresConcrete(c, name, desc)) return c;
      }
      ArrayDeque<Class<?>> todo = new ArrayDeque<Class<?>>();
      for (Class<?> c = receiver; c != null; c = c.getSuperclass()) {
        for (Class<?> i : c.getInterfaces()) todo.add(i);
      }
      while (!todo.isEmpty()) {
        Class<?> i = todo.poll();
        if (declaresConcrete(i, name, desc)) return i;
        for (Class<?> j : i.getInterfaces()) todo.add(j);
      }
    } catch (Throwable t) { // a class whose methods cannot be listed (missing types)
      Log.debug("cannot resolve " + name + desc + " on " + receiver.getName() + ": " + t);
    }
    return null;
  }

  private static boolean declaresConcrete(Class<?> c, String name, String desc) {
    for (Method m : c.getDeclaredMethods()) {
      if (!m.getName().equals(name) || Modifier.isAbstract(m.getModifiers())) continue;
      if (Modifier.isStatic(m.getModifiers())) continue;
      if (descriptor(m).equals(desc)) return true;
    }
    return false;
  }

  static String descriptor(Method m) {
    StringBuilder sb = new StringBuilder("(");
    for (Class<?> p : m.getParameterTypes()) sb.append(typeDescriptor(p));
    return sb.append(')').append(typeDescriptor(m.getReturnType())).toString();
  }

  private static String typeDescriptor(Class<?> c) {
    if (c.isArray()) return c.getName().replace('.', '/');
    if (!c.isPrimitive()) return "L" + c.getName().replace('.', '/') + ";";
    if (c == int.class) return "I";
    if (c == long.class) return "J";
    if (c == boolean.class) return "Z";
    if (c == byte.class) return "B";
    if (c == char.class) return "C";
    if (c == short.class) return "S";
    if (c == float.class) return "F";
    if (c == double.class) return "D";
    return "V";
  }

  /**
   * Internal name; a hidden class (name/0x...) or numbered lambda class loses its run suffix, and
   * a lambda spun in a twin class ({@code Foo$DuplexTwins$$Lambda}, lazy twins) is named as one
   * spun in its host ({@code Foo$$Lambda}), as the twin would have been without lazy twins.
   */
  static String stableName(Class<?> c) {
    String n = c.getName();
    int slash = n.indexOf('/');
    if (slash >= 0) n = n.substring(0, slash);
    int lambda = n.indexOf("$$Lambda$");
    if (lambda >= 0) {
      String spunIn = n.substring(0, lambda);
      if (spunIn.endsWith(SiteTables.TWIN_CLASS_SUFFIX)) {
        spunIn = spunIn.substring(0, spunIn.length() - SiteTables.TWIN_CLASS_SUFFIX.length());
      }
      n = spunIn + "$$Lambda";
    }
    return n.replace('.', '/');
  }
}
