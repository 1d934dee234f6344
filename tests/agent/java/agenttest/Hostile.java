package agenttest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Hostile class bytes: truncated, garbage, huge counts, bad constant-pool references and random
 * byte flips, all generated here from valid fixture classes. Each is defined through a fresh
 * class loader and linked (which verifies it); one line per case says what happened, so a run
 * under the agent can be compared with a plain run line by line.
 *
 * <pre>java agenttest.Hostile FIXTURES_DIR [--messages]</pre>
 *
 * Only the throwable's class is printed by default (a rewritten class that fails verification
 * has different bcis in its message); --messages prints the messages too, for diagnosis. Each
 * case's name also goes to stderr ("hostile case: NAME") just before the case loads, so that
 * an agent's log lines can be matched to the case.
 */
public final class Hostile {
  static final class OneShotLoader extends ClassLoader {
    OneShotLoader() { super("hostile", ClassLoader.getPlatformClassLoader()); }

    Class<?> define(String name, byte[] b) { return defineClass(name, b, 0, b.length); }
  }

  /** Offsets of the interesting fields of a well-formed class file. */
  static final class Layout {
    int cpCount;           // value
    int[] cpOffsets;       // offset of entry i (tag byte), 0 for unused slots
    int[] cpTags;
    int afterPool;         // access_flags
    int interfacesCount;   // offset of interfaces_count
    int fieldsCount;       // offset of fields_count
    int methodsCount;      // offset of methods_count
    int firstCodeAttr = -1;  // offset of the first Code attribute's attribute_length
    int firstMethodAttrsCount = -1;
  }

  static int u2(byte[] b, int i) { return ((b[i] & 0xff) << 8) | (b[i + 1] & 0xff); }

  static int u4(byte[] b, int i) { return (u2(b, i) << 16) | u2(b, i + 2); }

  static void put2(byte[] b, int i, int v) {
    b[i] = (byte) (v >> 8);
    b[i + 1] = (byte) v;
  }

  static void put4(byte[] b, int i, int v) {
    put2(b, i, v >>> 16);
    put2(b, i + 2, v);
  }

  static Layout layout(byte[] b) {
    Layout l = new Layout();
    l.cpCount = u2(b, 8);
    l.cpOffsets = new int[l.cpCount];
    l.cpTags = new int[l.cpCount];
    int p = 10;
    for (int i = 1; i < l.cpCount; i++) {
      int tag = b[p] & 0xff;
      l.cpOffsets[i] = p;
      l.cpTags[i] = tag;
      switch (tag) {
        case 1: p += 3 + u2(b, p + 1); break;
        case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18: p += 5; break;
        case 5: case 6: p += 9; i++; break;
        case 7: case 8: case 16: case 19: case 20: p += 3; break;
        case 15: p += 4; break;
        default: throw new IllegalStateException("tag " + tag);
      }
    }
    l.afterPool = p;
    p += 6;
    l.interfacesCount = p;
    p += 2 + 2 * u2(b, p);
    l.fieldsCount = p;
    int n = u2(b, p);
    p += 2;
    for (int i = 0; i < n; i++) p = skipMember(b, p, null, l);
    l.methodsCount = p;
    n = u2(b, p);
    p += 2;
    for (int i = 0; i < n; i++) p = skipMember(b, p, "Code", l);
    return l;
  }

  static int skipMember(byte[] b, int p, String want, Layout l) {
    p += 6;
    if (want != null && l.firstMethodAttrsCount < 0) l.firstMethodAttrsCount = p;
    int attrs = u2(b, p);
    p += 2;
    for (int j = 0; j < attrs; j++) {
      int nameIdx = u2(b, p);
      if (want != null && l.firstCodeAttr < 0 && isUtf8(b, l, nameIdx, want)) l.firstCodeAttr = p + 2;
      p += 6 + u4(b, p + 2);
    }
    return p;
  }

  static boolean isUtf8(byte[] b, Layout l, int idx, String s) {
    if (idx <= 0 || idx >= l.cpCount || l.cpTags[idx] != 1) return false;
    int off = l.cpOffsets[idx];
    int len = u2(b, off + 1);
    return new String(b, off + 3, len, java.nio.charset.StandardCharsets.ISO_8859_1).equals(s);
  }

  static final class Case {
    final String label;
    final String name; // null: the JVM takes the name from the bytes
    final byte[] bytes;

    Case(String label, String name, byte[] bytes) {
      this.label = label;
      this.name = name;
      this.bytes = bytes;
    }
  }

  static List<Case> cases(String name, byte[] good, Random rnd) {
    List<Case> out = new ArrayList<>();
    Layout l = layout(good);
    out.add(new Case("original", name, good));
    out.add(new Case("original-unnamed", null, good));
    int[] cuts = {0, 1, 4, 8, 9, 10, 11, l.afterPool - 1, l.afterPool, l.afterPool + 3,
                  l.methodsCount, l.methodsCount + 1, good.length / 2, good.length - 1};
    for (int c : cuts) {
      if (c >= 0 && c < good.length) out.add(new Case("truncated@" + c, name, Arrays.copyOf(good, c)));
    }
    for (int i = 0; i < 8; i++) {
      int c = 10 + rnd.nextInt(good.length - 10);
      out.add(new Case("truncated@" + c, name, Arrays.copyOf(good, c)));
    }
    for (int len : new int[] {16, 100, 5000}) {
      byte[] g = new byte[len];
      rnd.nextBytes(g);
      out.add(new Case("garbage" + len, name, g.clone()));
      put4(g, 0, 0xCAFEBABE);
      put2(g, 6, 52);
      out.add(new Case("garbage-magic" + len, name, g));
    }
    out.add(new Case("extra-bytes", name, Arrays.copyOf(good, good.length + 7)));
    out.add(mutate("cp-count-ffff", name, good, b -> put2(b, 8, 0xFFFF)));
    out.add(mutate("cp-count-0", name, good, b -> put2(b, 8, 0)));
    out.add(mutate("cp-count-1", name, good, b -> put2(b, 8, 1)));
    out.add(mutate("interfaces-ffff", name, good, b -> put2(b, l.interfacesCount, 0xFFFF)));
    out.add(mutate("fields-ffff", name, good, b -> put2(b, l.fieldsCount, 0xFFFF)));
    out.add(mutate("methods-ffff", name, good, b -> put2(b, l.methodsCount, 0xFFFF)));
    out.add(mutate("methods-0", name, good, b -> put2(b, l.methodsCount, 0)));
    out.add(mutate("version-99", name, good, b -> put2(b, 6, 99)));
    out.add(mutate("version-44", name, good, b -> put2(b, 6, 44)));
    out.add(mutate("this-class-0", name, good, b -> put2(b, l.afterPool + 2, 0)));
    out.add(mutate("this-class-out", name, good, b -> put2(b, l.afterPool + 2, l.cpCount + 5)));
    out.add(mutate("super-class-out", name, good, b -> put2(b, l.afterPool + 4, 0xFFF0)));
    int utf8 = firstWithTag(l, 1);
    out.add(mutate("this-class-utf8", name, good, b -> put2(b, l.afterPool + 2, utf8)));
    if (l.firstMethodAttrsCount > 0) {
      out.add(mutate("method-attrs-ffff", name, good, b -> put2(b, l.firstMethodAttrsCount, 0xFFFF)));
    }
    if (l.firstCodeAttr > 0) {
      int ca = l.firstCodeAttr;
      out.add(mutate("code-attr-len-huge", name, good, b -> put4(b, ca, 0x7FFFFFFF)));
      out.add(mutate("code-attr-len-0", name, good, b -> put4(b, ca, 0)));
      out.add(mutate("max-stack-0", name, good, b -> put2(b, ca + 4, 0)));
      out.add(mutate("max-locals-0", name, good, b -> put2(b, ca + 6, 0)));
      out.add(mutate("code-length-huge", name, good, b -> put4(b, ca + 8, 0x7FFFFFF0)));
      out.add(mutate("code-length-0", name, good, b -> put4(b, ca + 8, 0)));
      out.add(mutate("code-length-1", name, good, b -> put4(b, ca + 8, 1)));
      out.add(mutate("code-byte-ff", name, good, b -> b[ca + 12] = (byte) 0xff));
    }
    // Every reference inside the pool pointed out of range, one kind at a time.
    for (int tag : new int[] {7, 8, 9, 10, 11, 12, 15, 16, 18}) {
      int i = firstWithTag(l, tag);
      if (i <= 0) continue;
      int off = l.cpOffsets[i];
      int field = tag == 15 ? off + 2 : off + 1;
      out.add(mutate("pool-ref-out-tag" + tag, name, good, b -> put2(b, field, 0xFFFE)));
      out.add(mutate("pool-ref-self-tag" + tag, name, good, b -> put2(b, field, i)));
      out.add(mutate("pool-ref-zero-tag" + tag, name, good, b -> put2(b, field, 0)));
    }
    int tagBytes = firstWithTag(l, 10);
    if (tagBytes > 0) {
      out.add(mutate("pool-bad-tag", name, good, b -> b[l.cpOffsets[tagBytes]] = 2));
    }
    for (int i = 0; i < 60; i++) {
      byte[] b = good.clone();
      int flips = 1 + rnd.nextInt(3);
      StringBuilder label = new StringBuilder("flip");
      for (int f = 0; f < flips; f++) {
        int at = 10 + rnd.nextInt(b.length - 10);
        b[at] = (byte) rnd.nextInt(256);
        label.append('@').append(at);
      }
      out.add(new Case(label.toString(), name, b));
    }
    return out;
  }

  interface Edit {
    void apply(byte[] b);
  }

  static Case mutate(String label, String name, byte[] good, Edit e) {
    byte[] b = good.clone();
    e.apply(b);
    return new Case(label, name, b);
  }

  static int firstWithTag(Layout l, int tag) {
    for (int i = 1; i < l.cpCount; i++) {
      if (l.cpTags[i] == tag) return i;
    }
    return -1;
  }

  static String outcome(Case c, boolean messages) {
    OneShotLoader loader = new OneShotLoader();
    Class<?> k;
    try {
      k = loader.define(c.name, c.bytes);
    } catch (Throwable t) {
      return "define: " + describe(t, messages);
    }
    try {
      // Links (verifies) the class. Synthetic methods are not counted: the agent adds outlined
      // twins (private static synthetic), as compilers add bridges and lambda bodies.
      int n = 0;
      for (java.lang.reflect.Method m : k.getDeclaredMethods()) {
        if (!m.isSynthetic()) n++;
      }
      return "linked, " + n + " methods";
    } catch (Throwable t) {
      return "defined, link: " + describe(t, messages);
    }
  }

  static String describe(Throwable t, boolean messages) {
    return messages ? t.toString() : t.getClass().getName();
  }

  public static void main(String[] args) throws Exception {
    Path dir = Paths.get(args[0]);
    boolean messages = args.length > 1 && args[1].equals("--messages");
    String[] bases = {"Loops", "Fields", "Constructors", "Switches", "Lambdas", "OldJsr"};
    Random rnd = new Random(20011);
    int total = 0;
    for (String base : bases) {
      String name = "fixtures." + base;
      byte[] good = Files.readAllBytes(dir.resolve("fixtures").resolve(base + ".class"));
      for (Case c : cases(name, good, rnd)) {
        // On stderr too, where it precedes what an agent logs while the case loads.
        System.err.println("hostile case: " + base + " " + c.label);
        System.out.println(base + " " + c.label + ": " + outcome(c, messages));
        total++;
      }
    }
    System.out.println(total + " cases");
  }
}
