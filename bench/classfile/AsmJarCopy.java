import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;

/**
 * The ASM side of the jar-to-jar benchmark (bench/classfile/jar_bench.sh): what
 * `duplex instrument in.jar -o out.jar` does end to end, with ASM's
 * ClassReader -> ClassWriter(COMPUTE_FRAMES) copy in place of the rewriter. Every class is read
 * from the jar, copied (frames skipped on reading and computed again, getCommonSuperClass
 * answering java/lang/Object so nothing is loaded) and deflated into a new jar (level 6, as
 * ZipOutputStream's default); other entries are copied (inflated and deflated again).
 *
 * <pre>java -cp asm.jar:DIR AsmJarCopy IN.jar OUT.jar [PASSES]</pre>
 *
 * One thread. Prints one line per pass: "PASS n classes wall-seconds cpu-seconds" (the pass's
 * wall time and the thread's CPU time);
 * the first pass is the cold one a command-line tool would see, later ones are warm.
 */
public final class AsmJarCopy {

    static byte[] copy(byte[] in) {
        ClassReader reader = new ClassReader(in);
        ClassWriter writer = new NoLoadWriter(ClassWriter.COMPUTE_FRAMES);
        reader.accept(writer, ClassReader.SKIP_FRAMES);
        return writer.toByteArray();
    }

    static int pass(Path in, Path out) throws IOException {
        int classes = 0;
        try (ZipFile zip = new ZipFile(in.toFile());
                OutputStream file = new BufferedOutputStream(Files.newOutputStream(out), 1 << 16);
                ZipOutputStream zout = new ZipOutputStream(file)) {
            List<? extends ZipEntry> entries = new ArrayList<>(java.util.Collections.list(zip.entries()));
            for (ZipEntry e : entries) {
                byte[] data;
                try (InputStream s = zip.getInputStream(e)) {
                    data = s.readAllBytes();
                }
                if (!e.isDirectory() && e.getName().endsWith(".class")) {
                    data = copy(data);
                    ++classes;
                }
                ZipEntry o = new ZipEntry(e.getName());
                o.setTime(e.getTime());
                zout.putNextEntry(o);
                zout.write(data);
                zout.closeEntry();
            }
        }
        return classes;
    }

    public static void main(String[] args) throws IOException {
        Path in = Path.of(args[0]);
        Path out = Path.of(args[1]);
        int passes = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (int p = 1; p <= passes; ++p) {
            long c0 = mx.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            int n = pass(in, out);
            double s = (System.nanoTime() - t0) / 1e9;
            double c = (mx.getCurrentThreadCpuTime() - c0) / 1e9;
            System.out.printf("PASS %d %d %.6f %.6f%n", p, n, s, c);
        }
    }
}
