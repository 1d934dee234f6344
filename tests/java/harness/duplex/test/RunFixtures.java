package duplex.test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Runs the fixtures found in a classpath directory (or jar) and prints deterministic output, so
 * the output for original classes can be diffed against the output for rewritten ones.
 *
 * <pre>
 * java -XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal -Xverify:all \
 *      -cp HARNESS duplex.test.RunFixtures CLASSPATH_DIR [fixtures.Class ...]
 * </pre>
 *
 * Without class names, every top-level class of package "fixtures" in CLASSPATH_DIR is run, in
 * name order. For each class: "== name", then the output of its public static main(String[])
 * if it has one, else "m() = value" for each public static no-argument non-void method m, in
 * name order. A throwable escaping a fixture prints "!! name threw <throwable>" and makes the
 * exit status 1. Classes are loaded from CLASSPATH_DIR only (parent: platform loader).
 */
public final class RunFixtures {
    private RunFixtures() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: RunFixtures CLASSPATH_DIR [fixtures.Class ...]");
            System.exit(2);
        }
        Path cp = Path.of(args[0]);
        List<String> names = new ArrayList<>(Arrays.asList(args).subList(1, args.length));
        if (names.isEmpty()) {
            for (String n : ClassSource.read(cp).classes.keySet()) {
                if (n.startsWith("fixtures.") && n.indexOf('.', 9) < 0 && n.indexOf('$') < 0) {
                    names.add(n);
                }
            }
        }
        ClassLoader loader = new URLClassLoader("fixtures", new URL[] {cp.toUri().toURL()},
                ClassLoader.getPlatformClassLoader());
        PrintStream out = System.out;
        boolean threw = false;
        for (String name : names) {
            threw |= runClass(loader, name, out);
        }
        out.flush();
        System.exit(threw ? 1 : 0);
    }

    /** Returns true if something threw. */
    static boolean runClass(ClassLoader loader, String name, PrintStream out) {
        Class<?> c;
        List<Method> entries;
        try {
            c = Class.forName(name, false, loader);
            entries = entryPoints(c);
        } catch (ClassNotFoundException | LinkageError e) {
            out.println("== " + name);
            out.println("!! " + name + " threw " + e);
            return true;
        }
        if (entries.isEmpty()) {
            return false;
        }
        out.println("== " + name);
        boolean threw = false;
        for (Method m : entries) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            String result = null;
            Throwable error = null;
            System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
            try {
                Object r = m.getName().equals("main") ? m.invoke(null, (Object) new String[0]) : m.invoke(null);
                result = m.getName().equals("main") ? null : show(r);
            } catch (InvocationTargetException e) {
                error = e.getCause();
            } catch (ReflectiveOperationException | LinkageError e) {
                error = e;
            } finally {
                System.out.flush();
                System.setOut(out);
            }
            out.print(buf.toString(StandardCharsets.UTF_8));
            if (result != null) {
                out.println(m.getName() + "() = " + result);
            }
            if (error != null) {
                out.println("!! " + name + "." + m.getName() + " threw " + error);
                threw = true;
            }
        }
        return threw;
    }

    static List<Method> entryPoints(Class<?> c) {
        List<Method> statics = new ArrayList<>();
        for (Method m : c.getDeclaredMethods()) {
            int mod = m.getModifiers();
            if (!Modifier.isPublic(mod) || !Modifier.isStatic(mod) || !Modifier.isPublic(c.getModifiers())) {
                continue;
            }
            if (m.getName().equals("main") && Arrays.equals(m.getParameterTypes(), new Class<?>[] {String[].class})) {
                return List.of(m);
            }
            if (m.getParameterCount() == 0 && m.getReturnType() != void.class) {
                statics.add(m);
            }
        }
        statics.sort(Comparator.comparing(Method::getName));
        return statics;
    }

    static String show(Object r) {
        if (r instanceof Object[]) {
            return Arrays.deepToString((Object[]) r);
        }
        if (r != null && r.getClass().isArray()) {
            return Arrays.deepToString(new Object[] {r}).replaceAll("^\\[|\\]$", "");
        }
        return String.valueOf(r);
    }
}
