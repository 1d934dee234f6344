import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.ClassNode;

/**
 * The ASM side of bench/classfile: warm, single-threaded ClassReader -> ClassWriter copies of
 * the same classes duplex-classfile-bench reads, in the same output format.
 *
 * <pre>java -cp asm.jar:DIR AsmBench [--label L] [--min-passes N] [--max-seconds S] INPUT...</pre>
 *
 * Modes: asm-decode (accept into visitors that take every instruction and write nothing),
 * asm-copy (new ClassWriter(0), not given the reader, so every method is decoded and encoded
 * again; frames are copied), asm-copy-frames (COMPUTE_FRAMES, frames skipped on reading, a
 * getCommonSuperClass that answers java/lang/Object for unknown types, so nothing is loaded),
 * asm-tree (ASM's own IR round trip: ClassReader into a tree-API ClassNode, written with
 * COMPUTE_MAXS; needs asm-tree.jar on the class path).
 */
public final class AsmBench {
    interface Pass {
        long run(byte[] b);
    }


    static final class DecodeAll extends ClassVisitor {
        static final MethodVisitor METHOD = new MethodVisitor(Opcodes.ASM9) {};

        DecodeAll() {
            super(Opcodes.ASM9);
        }

        @Override
        public MethodVisitor visitMethod(int a, String n, String d, String s, String[] e) {
            return METHOD;
        }
    }

    static long decode(byte[] b) {
        ClassReader r = new ClassReader(b);
        r.accept(new DecodeAll(), 0);
        return r.getItemCount();
    }

    static long copy(byte[] b) {
        ClassWriter w = new ClassWriter(0);
        new ClassReader(b).accept(w, 0);
        return w.toByteArray().length;
    }

    static long copyFrames(byte[] b) {
        ClassWriter w = new NoLoadWriter(ClassWriter.COMPUTE_FRAMES);
        new ClassReader(b).accept(w, ClassReader.SKIP_FRAMES);
        return w.toByteArray().length;
    }

    /**
     * ASM's own IR round trip, the like-for-like of duplex's ir-full: the tree API's ClassNode
     * (an object per instruction, label, frame, try/catch block, line and local variable), then
     * written with max_stack and max_locals recomputed (COMPUTE_MAXS) and the frames re-encoded
     * from the nodes, not computed.
     */
    static long tree(byte[] b) {
        ClassNode n = new ClassNode();
        new ClassReader(b).accept(n, 0);
        ClassWriter w = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        n.accept(w);
        return w.toByteArray().length;
    }

    static boolean isClass(String name) {
        return name.endsWith(".class");
    }

    /** Every class of a jar, a jmod (its classes/ entries) or a directory. */
    static void load(Path p, List<byte[]> out) throws IOException {
        if (Files.isDirectory(p)) {
            try (Stream<Path> walk = Files.walk(p)) {
                for (Path f : (Iterable<Path>) walk.sorted()::iterator) {
                    if (Files.isRegularFile(f) && isClass(f.toString())) out.add(Files.readAllBytes(f));
                }
            }
            return;
        }
        byte[] all = Files.readAllBytes(p);
        boolean jmod = p.toString().endsWith(".jmod");
        int skip = jmod ? 4 : 0; // a jmod is a zip behind a 4-byte header
        try (ZipInputStream z = new ZipInputStream(new ByteArrayInputStream(all, skip, all.length - skip))) {
            for (ZipEntry e; (e = z.getNextEntry()) != null; ) {
                String n = e.getName();
                if (e.isDirectory() || !isClass(n) || (jmod && !n.startsWith("classes/"))) continue;
                out.add(z.readAllBytes());
            }
        }
    }

    public static void main(String[] args) throws IOException {
        String label = "corpus";
        int minPasses = 5;
        double maxSeconds = 60;
        List<byte[]> classes = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--label": label = args[++i]; break;
                case "--min-passes": minPasses = Math.max(3, Integer.parseInt(args[++i])); break;
                case "--max-seconds": maxSeconds = Double.parseDouble(args[++i]); break;
                default: load(Path.of(args[i]), classes);
            }
        }
        byte[][] cs = classes.toArray(new byte[0][]);
        long bytes = 0;
        for (byte[] c : cs) bytes += c.length;
        System.out.printf("# %s: %d classes, %.1f MB, ASM %s, %s %s%n", label, cs.length, bytes / 1e6,
                ClassReader.class.getPackage().getImplementationVersion(),
                System.getProperty("java.vm.name"), System.getProperty("java.vm.version"));
        String[] names = {"asm-decode", "asm-copy", "asm-copy-frames", "asm-tree"};
        Pass[] passes = {AsmBench::decode, AsmBench::copy, AsmBench::copyFrames, AsmBench::tree};
        for (int m = 0; m < names.length; m++) {
            measure(label, names[m], passes[m], cs, bytes, minPasses, maxSeconds);
        }
    }

    static volatile long sink;

    /** Whole passes until the last three agree within 2% (wall time); reports the best. */
    static void measure(String label, String mode, Pass pass, byte[][] cs, long bytes, int minPasses,
                        double maxSeconds) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        List<Double> wall = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        int failures = 0;
        long start = System.nanoTime();
        for (;;) {
            long t0 = System.nanoTime();
            long c0 = mx.getCurrentThreadCpuTime();
            long sum = 0;
            failures = 0;
            for (byte[] c : cs) {
                try {
                    sum += pass.run(c);
                } catch (RuntimeException e) { // e.g. COMPUTE_FRAMES on jsr/ret code
                    failures++;
                }
            }
            sink += sum;
            cpu.add((mx.getCurrentThreadCpuTime() - c0) / 1e9);
            wall.add((System.nanoTime() - t0) / 1e9);
            int n = wall.size();
            if (n >= minPasses) {
                double[] last = {wall.get(n - 1), wall.get(n - 2), wall.get(n - 3)};
                Arrays.sort(last);
                if (last[2] <= last[0] * 1.02 || (System.nanoTime() - start) / 1e9 > maxSeconds) break;
            }
        }
        double best = wall.stream().min(Double::compare).get();
        double bestCpu = cpu.stream().min(Double::compare).get();
        System.out.printf("RESULT %s %s %d %d %.6f %.0f %.1f %.6f  (best of %d passes%s)%n", label, mode,
                cs.length, bytes, best, cs.length / best, bytes / 1e6 / best, bestCpu, wall.size(),
                failures > 0 ? ", " + failures + " classes threw" : "");
    }
}
