package duplex.runtime;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Site tables registered by rewritten classes (docs/design/runtime-contract.md): they map the bci
 * of an invoke in a rewritten method back to its offset (and line) in the original method.
 *
 * <p>Registration runs in every rewritten class's {@code <clinit>}, so it only stores the text;
 * a table is parsed the first time a call edge needs it, and the result is cached.
 */
final class SiteTables {
  private static final String HEADER = "duplex-sites 2";
  /** Version 1 (before 2026-11-28): names unescaped, " as " before an original's name. */
  private static final String HEADER_1 = "duplex-sites 1";

  /** Tables registered with a Class (class files of version 49 and later). */
  private static final ClassValue<Table> BY_CLASS = new ClassValue<Table>() {
    @Override
    protected Table computeValue(Class<?> type) {
      return new Table();
    }
  };

  /**
   * The name suffix of a twin class: the class {@code HOST$DuplexTwins} that holds the twins of
   * a class rewritten with lazy twins (rewriter/twin_nest.h), its nestmate from version 55 on.
   * Its frames report as the host's: the host registered the site tables of the twins' methods.
   */
  static final String TWIN_CLASS_SUFFIX = "$DuplexTwins";

  /** Class.getNestHost (Java 11+), or null before Java 11. */
  private static final MethodHandle GET_NEST_HOST = nestHostGetter();

  /** A class's host when it is a twin class, else the class itself. */
  private static final ClassValue<Class<?>> HOST = new ClassValue<Class<?>>() {
    @Override
    protected Class<?> computeValue(Class<?> type) {
      String name = type.getName();
      // A twin class is synthetic: a class of the program that happens to bear the name (a
      // nested class called DuplexTwins, whose host then keeps its twins) reports itself.
      if (!name.endsWith(TWIN_CLASS_SUFFIX) || !type.isSynthetic()) return type;
      Class<?> host = nestHost(type);
      if (host != type) return host;
      // A twin class outside a nest (its host kept a version before 55): the host by name, from
      // the twin class's loader, which loaded both from the same place.
      try {
        return Class.forName(name.substring(0, name.length() - TWIN_CLASS_SUFFIX.length()), false,
            type.getClassLoader());
      } catch (Throwable t) {
        Log.debug("no host class for " + name + ": " + t);
        return type;
      }
    }
  };

  /** type's nest host, or type itself (no nest, Java 8-10, or a NestHost the JVM refused). */
  private static Class<?> nestHost(Class<?> type) {
    if (GET_NEST_HOST == null) return type;
    try {
      return (Class<?>) GET_NEST_HOST.invoke(type);
    } catch (Throwable t) { // a NestHost the JVM could not validate: the class reports itself
      Log.debug("no nest host for " + type.getName() + ": " + t);
      return type;
    }
  }

  private static MethodHandle nestHostGetter() {
    try {
      // A full-privilege lookup: getNestHost is caller-sensitive.
      return MethodHandles.lookup()
          .findVirtual(Class.class, "getNestHost", MethodType.methodType(Class.class));
    } catch (ReflectiveOperationException e) {
      return null; // Java 8-10: no nests (twin classes find their hosts by name)
    }
  }

  /** The class whose site tables describe {@code type}'s frames: its host for a twin class. */
  static Class<?> hostOf(Class<?> type) { return HOST.get(type); }

  /** Internal names of the classes that have caller sites (see registerByName). */
  private static final ConcurrentHashMap<String, Boolean> CALLER_NAMES =
      new ConcurrentHashMap<String, Boolean>();

  /** Tables registered by internal class name (older class files). */
  private static final ConcurrentHashMap<String, Table> BY_NAME =
      new ConcurrentHashMap<String, Table>();

  private SiteTables() {}

  static void register(Class<?> owner, String text) {
    Table t = BY_CLASS.get(owner);
    t.add(text);
    // Usually registered in <clinit>, before any method of the class ran: no cached caller
    // site can be stale then. Otherwise (a late registration) every cached mapping is redone.
    if (t.hasCallers) CallEdges.newEpoch();
  }

  /** The caller sites of {@code type} (see CallerSite), cached with its site table. */
  static CallerSite.Table callerSites(Class<?> type) {
    return BY_CLASS.get(hostOf(type)).callers;
  }

  /** The canonical caller site for these values, added to its class's sites if new. */
  static CallerSite callerSite(
      Class<?> type, String className, String method, String descriptor, int bci, int line) {
    Class<?> host = hostOf(type);
    if (host != type) { // a twin class's frame: its host's site, in the host's table
      type = host;
      className = CallerFinder.internalName(host.getName());
      descriptor = descriptorInHost(descriptor);
    }
    Table t = BY_CLASS.get(type);
    CallerSite s = t.callers.find(method, descriptor, bci);
    if (s != null) return s;
    t.hasCallers = true; // before the site's mapping reads the table (see register)
    noteCallerName(className);
    return t.callers.add(new CallerSite(type, className, method, descriptor, bci, line));
  }

  private static final String NOT_INLINED = "Lduplex/runtime/NotInlined;)";
  private static final String COLD_PARAM = "Ljava/lang/Object;)";

  /**
   * A twin's descriptor as the host's site table names it: a twin moved to a twin class has its
   * last parameter, the cold one, typed as a class that never exists (so that C2 does not inline
   * it), where the table written with the host names the Object it was declared as.
   */
  static String descriptorInHost(String descriptor) {
    return descriptor != null && descriptor.contains(NOT_INLINED)
        ? descriptor.replace(NOT_INLINED, COLD_PARAM)
        : descriptor;
  }

  /** Called before a new caller site of the class is mapped (see registerByName). */
  static void noteCallerName(String className) {
    if (!CALLER_NAMES.containsKey(className)) CALLER_NAMES.put(className, Boolean.TRUE);
  }

  static void registerByName(String text) {
    String name = className(text);
    if (name != null) name = KeyText.unescape(name); // kept by the name the JVM gives
    if (name == null) {
      Log.error("registerByName: site table without a 'class' line ignored");
      return;
    }
    Table t = BY_NAME.get(name);
    if (t == null) {
      Table fresh = new Table();
      t = BY_NAME.putIfAbsent(name, fresh);
      if (t == null) t = fresh;
    }
    t.add(text);
    if (CALLER_NAMES.containsKey(name)) CallEdges.newEpoch(); // as in register
  }

  /**
   * The call sites of {@code method} (name + descriptor; the descriptor may be empty when the JVM
   * cannot tell it) of the given class. Null when the class or method has no table: the method
   * was not rewritten and its bcis are already original offsets.
   */
  static MethodSites methodSites(Class<?> owner, String internalName, String method) {
    Table t = owner != null ? BY_CLASS.get(owner) : null;
    if (t == null || t.isEmpty()) t = BY_NAME.get(internalName);
    if (t == null || t.isEmpty()) return null;
    return t.methodSites(method);
  }

  /**
   * Every method's call sites, sorted by rewritten bci. An outlined method's line may name the
   * method its edges are reported under: {@code method run$duplex(I)V TAB run()V}.
   */
  static final class MethodSites {
    /**
     * The original method of an outlined one (after the tab on its method line), else null; as
     * keys write it (KeyText), since it goes to the profile.
     */
    String asMethod;
    String asDescriptor;
    int[] bcis = new int[4];
    int[] offsets = new int[4];
    int[] lines = new int[4];
    int n;

    void add(int bci, int offset, int line) {
      if (n == bcis.length) {
        bcis = Arrays.copyOf(bcis, n * 2);
        offsets = Arrays.copyOf(offsets, n * 2);
        lines = Arrays.copyOf(lines, n * 2);
      }
      bcis[n] = bci;
      offsets[n] = offset;
      lines[n] = line;
      n++;
    }

    void sort() {
      Integer[] order = new Integer[n];
      for (int i = 0; i < n; i++) order[i] = i;
      Arrays.sort(order, new java.util.Comparator<Integer>() {
        @Override
        public int compare(Integer a, Integer b) {
          return Integer.compare(bcis[a], bcis[b]);
        }
      });
      int[] b = new int[n];
      int[] o = new int[n];
      int[] l = new int[n];
      for (int i = 0; i < n; i++) {
        b[i] = bcis[order[i]];
        o[i] = offsets[order[i]];
        l[i] = lines[order[i]];
      }
      bcis = b;
      offsets = o;
      lines = l;
    }

    /** The index of {@code bci} in offsets and lines, or -1 if it has no call line. */
    int indexOf(int bci) {
      int i = Arrays.binarySearch(bcis, 0, n, bci);
      return i >= 0 ? i : -1;
    }
  }

  /** The parts registered for one class, and their parsed form once needed. */
  private static final class Table {
    private final List<String> parts = new ArrayList<String>();
    private volatile Map<String, MethodSites> parsed;
    /** The class's caller sites (only for tables kept by Class). */
    final CallerSite.Table callers = new CallerSite.Table();
    /** Set once a caller site of the class exists (see register). */
    volatile boolean hasCallers;

    synchronized void add(String text) {
      parts.add(text);
      parsed = null;
    }

    synchronized boolean isEmpty() { return parts.isEmpty(); }

    MethodSites methodSites(String method) {
      Map<String, MethodSites> m = parsed;
      if (m == null) m = parse();
      MethodSites s = m.get(method);
      if (s == null && method.indexOf('(') < 0) {
        s = byNameOnly(m, method); // no descriptor available (Java 8 and 9)
      }
      return s;
    }

    private static MethodSites byNameOnly(Map<String, MethodSites> m, String name) {
      MethodSites found = null;
      for (Map.Entry<String, MethodSites> e : m.entrySet()) {
        String k = e.getKey();
        if (k.startsWith(name) && k.length() > name.length() && k.charAt(name.length()) == '(') {
          if (found != null) return null; // overloaded: ambiguous
          found = e.getValue();
        }
      }
      return found;
    }

    private synchronized Map<String, MethodSites> parse() {
      if (parsed != null) return parsed;
      Map<String, MethodSites> m = new HashMap<String, MethodSites>();
      MethodSites current = null; // a part may continue the previous part's last method
      for (String part : parts) {
        current = parsePart(part, m, current);
      }
      for (MethodSites s : m.values()) s.sort();
      parsed = m;
      return m;
    }

    private static MethodSites parsePart(String text, Map<String, MethodSites> m, MethodSites cur) {
      String[] lines = text.split("\n");
      String header = lines.length == 0 ? "" : lines[0].trim();
      boolean version1 = header.equals(HEADER_1);
      if (!version1 && !header.equals(HEADER)) {
        Log.error(
            "site table with unsupported header ignored: " + (lines.length > 0 ? lines[0] : ""));
        return cur;
      }
      for (int i = 1; i < lines.length; i++) {
        String line = lines[i];
        if (line.isEmpty() || line.startsWith("class ")) continue;
        if (line.startsWith("method ")) {
          // "method NAME+DESC", or "method TWIN+DESC TAB ORIGINAL+DESC" for an outlined twin;
          // names as keys write them (KeyText), kept by the names the JVM gives.
          String key = line.substring("method ".length());
          String as = null;
          String separator = version1 ? " as " : "\t";
          int split = key.indexOf(separator);
          int asStart = -1;
          if (split >= 0) {
            as = key.substring(split + separator.length());
            key = key.substring(0, split);
            asStart = KeyText.descriptorStart(as, 1);
            if (asStart <= 0) {
              Log.error("bad site table line ignored: " + line);
              cur = null;
              continue;
            }
          }
          if (!version1) key = KeyText.unescape(key);
          cur = m.get(key);
          if (cur == null) {
            cur = new MethodSites();
            m.put(key, cur);
          }
          if (as != null) {
            cur.asMethod = as.substring(0, asStart); // as keys write it: it goes to the profile
            cur.asDescriptor = as.substring(asStart);
          }
        } else if (line.startsWith("call ") && cur != null) {
          String[] f = line.split(" ");
          try {
            cur.add(Integer.parseInt(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]));
          } catch (RuntimeException e) {
            Log.error("bad site table line ignored: " + line);
          }
        } else {
          Log.error("bad site table line ignored: " + line);
        }
      }
      return cur;
    }
  }

  /** The internal name on the table's {@code class} line, or null. */
  private static String className(String text) {
    for (String line : text.split("\n")) {
      if (line.startsWith("class ")) return line.substring("class ".length());
    }
    return null;
  }
}
