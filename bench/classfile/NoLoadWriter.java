import org.objectweb.asm.ClassWriter;

/**
 * A ClassWriter that never loads classes: COMPUTE_FRAMES asks for the common superclass of two
 * types, and the benchmarks answer java/lang/Object instead of loading the jar's classes. Used
 * by AsmBench and AsmJarCopy (compile it with them).
 */
final class NoLoadWriter extends ClassWriter {
    NoLoadWriter(int flags) {
        super(flags);
    }

    @Override
    protected String getCommonSuperClass(String a, String b) {
        return "java/lang/Object";
    }
}
