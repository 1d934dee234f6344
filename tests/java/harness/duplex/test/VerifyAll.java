package duplex.test;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.module.ModuleFinder;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Makes HotSpot load and link (and so verify) every class of a directory or jar, without
 * running any static initializer.
 *
 * <pre>
 * java -XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal -Xverify:all \
 *      -cp HARNESS duplex.test.VerifyAll [--verbose] [--cp DEPS] [--no-link] (DIR|JAR)
 * java ...same flags... duplex.test.VerifyAll --jdk [--verbose] DIR
 * </pre>
 *
 * --strict-v50 also checks major-50 classes without HotSpot's fallback to the old verifier
 * (see strictCopy). --no-link only loads (a diagnostic: it shows that loading does not verify).
 *
 * Output: "FAIL class: error" per failure, "SKIP class: missing dependency X" per class that
 * could not be verified because a class it needs is absent, "OK class" with --verbose, then
 * "verified N classes, F failed, S skipped (missing dependency)" where N counts the classes that
 * were verified, failures included. Exit status 0 if F == 0, 1 otherwise, 2 on a usage error.
 *
 * How linking is forced: Class.forName(name, false, loader) / loadClass only load a class;
 * ClassLoader.resolveClass is a no-op since JDK 9. The reflection natives behind
 * Class.getDeclaredFields/Constructors/Methods call InstanceKlass::link_class (verification
 * included) before they build any reflection object, and never initialize. They then resolve
 * the member signatures' types, which can raise NoClassDefFoundError after linking succeeded,
 * so all three are tried: the first that succeeds proves the class linked. A class whose three
 * calls all end in NoClassDefFoundError is counted as skipped (missing dependency).
 *
 * Application mode defines the classes, and those of --cp DEPS, with one private class loader
 * (the input first; parent: the platform loader), so the verifier's own loads for assignability
 * checks are served from the input too. --jdk mode is for JDK classes, which no custom loader may define: DIR holds one
 * directory per module (the layout of `jimage extract`), and a child JVM is started with
 * --patch-module MODULE=DIR/MODULE for each, where the classes are loaded by the built-in loaders.
 * Boot classes are verified only because of -XX:+BytecodeVerificationLocal; HotSpot never
 * verifies java.lang.Object, Class, String and Throwable.
 */
public final class VerifyAll {
    static final String[] VERIFY_FLAGS = {
        "-XX:+UnlockDiagnosticVMOptions", "-XX:+BytecodeVerificationLocal", "-Xverify:all",
    };

    private boolean verbose;
    private boolean link = true;
    private boolean strictV50;
    private int ok;
    private int failed;
    private int skipped;

    public static void main(String[] args) throws Exception {
        System.exit(run(args));
    }

    static int run(String[] args) throws Exception {
        VerifyAll v = new VerifyAll();
        String deps = null;
        String mode = "app";
        String input = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--verbose": v.verbose = true; break;
                case "--no-link": v.link = false; break;
                case "--strict-v50": v.strictV50 = true; break;
                case "--jdk": mode = "jdk"; break;
                case "--boot-child": mode = "boot-child"; break;
                case "--cp":
                    if (++i == args.length) {
                        return usage("--cp needs a path");
                    }
                    deps = args[i];
                    break;
                default:
                    if (args[i].startsWith("-") || input != null) {
                        return usage("unexpected argument " + args[i]);
                    }
                    input = args[i];
            }
        }
        if (input == null) {
            return usage("no input");
        }
        String missing = missingVerificationFlags();
        if (missing != null) {
            System.err.println("VerifyAll: this JVM does not verify every class (" + missing
                    + "); run it with " + String.join(" ", VERIFY_FLAGS));
            return 2;
        }
        Path in = Path.of(input);
        if (!Files.exists(in)) {
            return usage("no such file: " + input);
        }
        switch (mode) {
            case "jdk": return v.spawnBootChild(in, args);
            case "boot-child": return v.verifyBoot(in);
            default: return v.verifyApp(in, deps);
        }
    }

    static int usage(String why) {
        System.err.println("VerifyAll: " + why);
        System.err.println("usage: VerifyAll [--verbose] [--no-link] [--strict-v50] [--cp DEPS] (DIR|JAR)");
        System.err.println("       VerifyAll --jdk [--verbose] DIR   (DIR/<module>/<pkg>/<Class>.class)");
        return 2;
    }

    /** Null if both local (boot) and remote verification are on, else which one is off. */
    static String missingVerificationFlags() {
        HotSpotDiagnosticMXBean hs = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        for (String flag : new String[] {"BytecodeVerificationLocal", "BytecodeVerificationRemote"}) {
            try {
                if (!"true".equals(hs.getVMOption(flag).getValue())) {
                    return flag + " is off";
                }
            } catch (IllegalArgumentException e) { // diagnostic flags are invisible unless unlocked
                return "diagnostic VM options are locked";
            }
        }
        return null;
    }

    // ---------------------------------------------------------------------------------------

    /**
     * Defines the input's classes and its dependencies' (--cp) on demand, as one class path
     * with the input first; the platform's classes come from the platform loader. The input
     * comes before the platform and the dependencies (java.* aside, which only the JDK may
     * define): a dependency holding a class of the same name (another version, a bundled copy)
     * must not shadow the class under test, which would then pass without being verified.
     *
     * One loader for both, not the dependencies as a parent: a runtime package is a package
     * and a loader, and a package split across jars (lucene-misc's org.apache.lucene.document
     * beside lucene-core's) would become two, so the input's package-private access to the
     * other jar's half failed with IllegalAccessError, and a class the verifier loads for an
     * assignability check must be the same one the dependencies' classes link against.
     */
    static final class InputLoader extends ClassLoader {
        private final Map<String, byte[]> classes;
        private final URLClassLoader dependencies;  // only searched for bytes, never defines

        InputLoader(Map<String, byte[]> classes, URLClassLoader dependencies) {
            super("duplex-verify", ClassLoader.getPlatformClassLoader());
            this.classes = classes;
            this.dependencies = dependencies;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("java.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c != null) {
                    return c;
                }
                byte[] b = classes.get(name);
                if (b == null) {
                    try {
                        return getParent().loadClass(name);
                    } catch (ClassNotFoundException notPlatform) {
                        b = dependencyBytes(name);
                    }
                }
                return defineClass(name, b, 0, b.length);
            }
        }

        /** Reached for java.* names the platform lacks: defining them fails, and says why. */
        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] b = classes.get(name);
            if (b == null) {
                throw new ClassNotFoundException(name);
            }
            return defineClass(name, b, 0, b.length);
        }

        private byte[] dependencyBytes(String name) throws ClassNotFoundException {
            URL url = dependencies == null ? null
                    : dependencies.findResource(name.replace('.', '/') + ".class");
            if (url == null) {
                throw new ClassNotFoundException(name);
            }
            try (InputStream in = url.openStream()) {
                return in.readAllBytes();
            } catch (IOException e) {
                throw new ClassNotFoundException(name, e);
            }
        }
    }

    int verifyApp(Path input, String deps) throws IOException {
        ClassSource src = ClassSource.read(input);
        URLClassLoader dependencies = null;
        if (deps != null) {
            List<URL> urls = new ArrayList<>();
            for (String p : deps.split(File.pathSeparator)) {
                if (!p.isEmpty()) {
                    urls.add(Path.of(p).toUri().toURL());
                }
            }
            dependencies = new URLClassLoader("duplex-deps", urls.toArray(new URL[0]),
                    ClassLoader.getPlatformClassLoader());
        }
        InputLoader loader = new InputLoader(src.classes, dependencies);
        reportProblems(src);
        for (Map.Entry<String, byte[]> e : src.classes.entrySet()) {
            String name = e.getKey();
            if (strictV50 && link && majorVersion(e.getValue()) == 50) {
                check(name, () -> {
                    Class<?> c = loader.loadClass(name);
                    Throwable t = forceLink(c);
                    return t != null ? c : strictCopy(name, e.getValue(), loader);
                });
            } else {
                check(name, () -> loader.loadClass(name));
            }
        }
        return finish();
    }

    static int majorVersion(byte[] b) {
        return b.length < 8 ? -1 : ((b[6] & 0xff) << 8) | (b[7] & 0xff);
    }

    /**
     * --strict-v50: HotSpot verifies a major-50 class whose StackMapTable the type checker
     * rejects again with the old inference verifier, so bad frames pass unnoticed. This defines
     * a copy relabelled major 51 (no fallback) in a throwaway child loader, which check() then
     * links. Caveats: jsr/ret are illegal in 51, and the copy sits in its own runtime package,
     * so package-private/protected access to the input's classes can fail spuriously.
     */
    static Class<?> strictCopy(String name, byte[] bytes, ClassLoader parent)
            throws ClassNotFoundException {
        byte[] copy = bytes.clone();
        copy[7] = 51;
        return new ClassLoader("duplex-strict-v50", parent) {
            @Override
            protected Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
                if (!n.equals(name)) {
                    return super.loadClass(n, resolve);
                }
                synchronized (getClassLoadingLock(n)) {
                    Class<?> c = findLoadedClass(n);
                    return c != null ? c : defineClass(n, copy, 0, copy.length);
                }
            }
        }.loadClass(name);
    }

    /** The child side of --jdk: classes come from the patched modules via built-in loaders. */
    int verifyBoot(Path root) throws IOException {
        ClassLoader system = ClassLoader.getSystemClassLoader();
        for (Path moduleDir : moduleDirs(root)) {
            String module = moduleDir.getFileName().toString();
            ClassSource src = ClassSource.read(moduleDir);
            reportProblems(src);
            for (String name : src.classes.keySet()) {
                check(name, () -> {
                    Class<?> c = Class.forName(name, false, system);
                    if (!module.equals(c.getModule().getName())) {
                        throw new LinkageError("loaded from module " + c.getModule().getName()
                                + ", not from the patched module " + module);
                    }
                    return c;
                });
            }
        }
        return finish();
    }

    int spawnBootChild(Path root, String[] args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(VERIFY_FLAGS));
        cmd.add("-Xshare:off"); // archived (CDS) classes are pre-rewritten and never verified
        // Extra options for the child (e.g. the duplex runtime on the boot class path, which
        // rewritten JDK classes call as soon as the JVM starts).
        String extra = System.getenv("DUPLEX_VERIFY_CHILD_OPTS");
        if (extra != null && !extra.isBlank()) cmd.addAll(List.of(extra.trim().split("\\s+")));
        List<String> modules = new ArrayList<>();
        for (Path moduleDir : moduleDirs(root)) {
            String module = moduleDir.getFileName().toString();
            if (ModuleFinder.ofSystem().find(module).isEmpty()) {
                System.err.println("VerifyAll: " + moduleDir + " is not named after a JDK module");
                return 2;
            }
            modules.add(module);
            cmd.add("--patch-module");
            cmd.add(module + "=" + moduleDir.toAbsolutePath());
        }
        if (modules.isEmpty()) {
            System.err.println("VerifyAll: no module directories in " + root);
            return 2;
        }
        cmd.add("--add-modules");
        cmd.add(String.join(",", modules));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(VerifyAll.class.getName());
        cmd.add("--boot-child");
        if (verbose) {
            cmd.add("--verbose");
        }
        if (!link) {
            cmd.add("--no-link");
        }
        cmd.add(root.toAbsolutePath().toString());
        System.err.println("VerifyAll: " + String.join(" ", cmd));
        Process p = new ProcessBuilder(cmd).inheritIO().start();
        return p.waitFor();
    }

    static List<Path> moduleDirs(Path root) throws IOException {
        try (Stream<Path> s = Files.list(root)) {
            return s.filter(Files::isDirectory).sorted().toList();
        }
    }

    // ---------------------------------------------------------------------------------------

    interface Loading {
        Class<?> load() throws ClassNotFoundException;
    }

    private void reportProblems(ClassSource src) {
        for (String p : src.problems) {
            System.out.println("FAIL " + p);
            failed++;
        }
    }

    /** Loads one class (no initialization), links it, and records the outcome. */
    void check(String name, Loading loading) {
        Throwable error;
        try {
            Class<?> c = loading.load();
            error = link ? forceLink(c) : null;
        } catch (LinkageError | ClassNotFoundException | SecurityException e) {
            error = e;
        }
        if (error == null) {
            ok++;
            if (verbose) {
                System.out.println("OK " + name);
            }
        } else if (isMissingDependency(error)) {
            skipped++;
            System.out.println("SKIP " + name + ": missing dependency "
                    + String.valueOf(error.getMessage()).replace('/', '.'));
        } else {
            failed++;
            System.out.println("FAIL " + name + ": " + describe(error));
        }
    }

    /**
     * Links c (verifying it) without initializing it. Returns null once any reflection call has
     * succeeded, since each of them links first; otherwise the error of the last attempt.
     */
    static Throwable forceLink(Class<?> c) {
        NoClassDefFoundError last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                switch (attempt) {
                    case 0: c.getDeclaredFields(); break;
                    case 1: c.getDeclaredConstructors(); break;
                    default: c.getDeclaredMethods();
                }
                return null;
            } catch (NoClassDefFoundError e) {
                last = e; // missing signature type, or the verifier could not load a class
            } catch (LinkageError e) {
                return e;
            }
        }
        return last;
    }

    static boolean isMissingDependency(Throwable e) {
        if (e instanceof ClassNotFoundException) {
            return true;
        }
        return e instanceof NoClassDefFoundError && e.getMessage() != null
                && !e.getMessage().contains("wrong name") && !e.getMessage().contains("ACC_MODULE");
    }

    static String describe(Throwable e) {
        String s = e.toString().replaceAll("\\s+", " ").trim();
        if (e instanceof SecurityException && s.contains("Prohibited package")) {
            s += " (JDK classes need --jdk)";
        }
        return s;
    }

    private int finish() {
        System.out.println("verified " + (ok + failed) + " classes, " + failed + " failed, " + skipped
                + " skipped (missing dependency)");
        return failed == 0 ? 0 : 1;
    }
}
