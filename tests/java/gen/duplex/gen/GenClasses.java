package duplex.gen;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.commons.ClassRemapper;
import org.objectweb.asm.commons.SimpleRemapper;

/**
 * Build-time generator for class files javac cannot produce.
 *
 * <pre>
 *   GenClasses oldjsr   OUTDIR   fixtures/OldJsr.class (major 49) and fixtures/OldJsr46.class (46),
 *                                fixtures/ScalaModule.class (52: a final field set in <init>);
 *                                and renames javac's fixtures/OddV and OddJ (see parenNames())
 *   GenClasses selftest OUTDIR   inputs that prove the verification harness works (see selftest())
 * </pre>
 *
 * Methods are written instruction by instruction with ClassWriter flags 0, so ASM emits exactly
 * these bytes: no computed frames, no computed maxima, jsr/ret kept as is.
 */
public final class GenClasses implements Opcodes {
    private GenClasses() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: GenClasses (oldjsr|selftest) OUTDIR");
            System.exit(2);
        }
        Path out = Path.of(args[1]);
        switch (args[0]) {
            case "oldjsr":
                write(out, "fixtures/OldJsr", oldJsr("fixtures/OldJsr", V1_5));
                write(out, "fixtures/OldJsr46", oldJsr("fixtures/OldJsr46", V1_2));
                write(out, "fixtures/ScalaModule", scalaModule("fixtures/ScalaModule"));
                parenNames(out);
                break;
            case "selftest":
                selftest(out);
                break;
            default:
                System.err.println("unknown mode " + args[0]);
                System.exit(2);
        }
    }

    static void write(Path root, String internalName, byte[] bytes) throws IOException {
        Path p = root.resolve(internalName + ".class");
        Files.createDirectories(p.getParent());
        Files.write(p, bytes);
    }

    // ---------------------------------------------------------------------------------------
    // ScalaModule: a Scala 2.11 `object` as scalac compiles it. Its static final MODULE$ is set
    // by the constructor, which class files before version 53 allow and later ones do not (an
    // IllegalAccessError when the class initialises): such a class must keep its version. Its
    // static final TOTAL is set in a loop by a helper that <clinit> calls, as Clojure's `__init`
    // classes set their constants: only the class itself may write it, so a twin of the helper
    // in a twin class must write it through a bridge.

    /**
     * Renames classes, methods and a field javac compiled for fixtures.ParenNames to names it
     * cannot write (legal since version 49, JVMS 4.2.2, and accepted by HotSpot), with every
     * reference to them: class names holding ')', method names holding spaces, " as ",
     * parentheses, a tab and a line feed, a field name holding ':' (see ParenNames.java).
     */
    static void parenNames(Path root) throws IOException {
        String odd = "Lfixtures/OddV;";
        Map<String, String> names = Map.of(
                "fixtures/OddV", "fixtures/Odd)V",
                "fixtures/OddJ", "fixtures/Odd)J",
                "fixtures/ParenNames.oddName1(I)I", "should work as expected (edge case)",
                "fixtures/ParenNames.oddName2(" + odd + ")" + odd, "tab\there\nand a new line",
                "fixtures/ParenNames.oddName3(J)J", "odd)V(name",
                "fixtures/OddJ.count", "co:unt",
                "fixtures/OddV.oddName4()J", "weird (name)",
                "fixtures/OddW.oddName4()J", "weird (name)");
        SimpleRemapper remapper = new SimpleRemapper(names);
        for (String name :
                new String[] {"fixtures/ParenNames", "fixtures/OddV", "fixtures/OddJ", "fixtures/OddW"}) {
            Path p = root.resolve(name + ".class");
            ClassWriter w = new ClassWriter(0);
            new ClassReader(Files.readAllBytes(p)).accept(new ClassRemapper(w, remapper), 0);
            Files.delete(p);
            write(root, names.getOrDefault(name, name), w.toByteArray());
        }
    }

    static byte[] scalaModule(String name) {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS);
        cw.visit(V1_8, ACC_PUBLIC | ACC_FINAL | ACC_SUPER, name, null, "java/lang/Object", null);
        String self = "L" + name + ";";
        cw.visitField(ACC_PUBLIC | ACC_STATIC | ACC_FINAL, "MODULE$", self, null, null).visitEnd();
        cw.visitField(ACC_PUBLIC | ACC_STATIC | ACC_FINAL, "TOTAL", "I", null, null).visitEnd();
        MethodVisitor clinit = cw.visitMethod(ACC_STATIC, "<clinit>", "()V", null, null);
        clinit.visitCode();
        clinit.visitIntInsn(BIPUSH, 10);
        clinit.visitMethodInsn(INVOKESTATIC, name, "initTotal", "(I)V", false);
        clinit.visitTypeInsn(NEW, name);
        clinit.visitMethodInsn(INVOKESPECIAL, name, "<init>", "()V", false);
        clinit.visitInsn(RETURN);
        clinit.visitMaxs(0, 0);
        clinit.visitEnd();
        MethodVisitor init = cw.visitMethod(ACC_PRIVATE, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(ALOAD, 0);
        init.visitMethodInsn(INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        init.visitVarInsn(ALOAD, 0);
        init.visitFieldInsn(PUTSTATIC, name, "MODULE$", self);
        init.visitInsn(RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        // initTotal(n): TOTAL = 0 + 1 + ... + (n - 1), written at every step of a loop.
        MethodVisitor initTotal = cw.visitMethod(ACC_STATIC, "initTotal", "(I)V", null, null);
        initTotal.visitCode();
        countedLoop(initTotal, 1, 0, () -> {
            initTotal.visitFieldInsn(GETSTATIC, name, "TOTAL", "I");
            initTotal.visitVarInsn(ILOAD, 1);
            initTotal.visitInsn(IADD);
            initTotal.visitFieldInsn(PUTSTATIC, name, "TOTAL", "I");
        });
        initTotal.visitInsn(RETURN);
        initTotal.visitMaxs(0, 0);
        initTotal.visitEnd();
        // sum(n) = 0 + 1 + ... + (n - 1), with a loop: a method with a twin.
        MethodVisitor sum = cw.visitMethod(ACC_PUBLIC, "sum", "(I)I", null, null);
        sum.visitCode();
        sum.visitInsn(ICONST_0);
        sum.visitVarInsn(ISTORE, 2);
        countedLoop(sum, 3, 1, () -> {
            sum.visitVarInsn(ILOAD, 2);
            sum.visitVarInsn(ILOAD, 3);
            sum.visitInsn(IADD);
            sum.visitVarInsn(ISTORE, 2);
        });
        sum.visitVarInsn(ILOAD, 2);
        sum.visitInsn(IRETURN);
        sum.visitMaxs(0, 0);
        sum.visitEnd();
        MethodVisitor main = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "main", "([Ljava/lang/String;)V", null, null);
        main.visitCode();
        main.visitFieldInsn(GETSTATIC, "java/lang/System", "out", "Ljava/io/PrintStream;");
        main.visitFieldInsn(GETSTATIC, name, "MODULE$", self);
        main.visitIntInsn(BIPUSH, 100);
        main.visitMethodInsn(INVOKEVIRTUAL, name, "sum", "(I)I", false);
        main.visitMethodInsn(INVOKEVIRTUAL, "java/io/PrintStream", "println", "(I)V", false);
        main.visitFieldInsn(GETSTATIC, "java/lang/System", "out", "Ljava/io/PrintStream;");
        main.visitFieldInsn(GETSTATIC, name, "TOTAL", "I");
        main.visitMethodInsn(INVOKEVIRTUAL, "java/io/PrintStream", "println", "(I)V", false);
        main.visitInsn(RETURN);
        main.visitMaxs(0, 0);
        main.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** for (local counter = 0; counter < local limit; counter++) body, in javac's layout. */
    static void countedLoop(MethodVisitor mv, int counter, int limit, Runnable body) {
        Label test = new Label();
        Label start = new Label();
        mv.visitInsn(ICONST_0);
        mv.visitVarInsn(ISTORE, counter);
        mv.visitJumpInsn(GOTO, test);
        mv.visitLabel(start);
        body.run();
        mv.visitIincInsn(counter, 1);
        mv.visitLabel(test);
        mv.visitVarInsn(ILOAD, counter);
        mv.visitVarInsn(ILOAD, limit);
        mv.visitJumpInsn(IF_ICMPLT, start);
    }

    // ---------------------------------------------------------------------------------------
    // OldJsr: finally blocks compiled the pre-Java-6 way (jsr/ret), wide local indices, no frames.

    /** Expected result of OldJsr.run() (and OldJsr46.run()); tests compare against it. */
    public static final int OLD_JSR_RUN_RESULT = 1_210_019;

    static byte[] oldJsr(String name, int version) {
        ClassWriter cw = new ClassWriter(0);
        cw.visit(version, ACC_PUBLIC | ACC_SUPER, name, null, "java/lang/Object", null);
        cw.visitField(ACC_STATIC, "finallyCount", "I", null, null).visitEnd();
        defaultConstructor(cw);
        oldJsrLoop(cw, name);
        oldJsrGuarded(cw, name);
        oldJsrRun(cw, name);
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** Code of the shared "finally" subroutine: finallyCount++, then ret through retSlot. */
    static void finallySubroutine(MethodVisitor mv, String owner, int retSlot) {
        mv.visitVarInsn(ASTORE, retSlot);
        mv.visitFieldInsn(GETSTATIC, owner, "finallyCount", "I");
        mv.visitInsn(ICONST_1);
        mv.visitInsn(IADD);
        mv.visitFieldInsn(PUTSTATIC, owner, "finallyCount", "I");
        mv.visitVarInsn(RET, retSlot);
    }

    /**
     * public static int loop(): for (i = 0; i < 10; i++) { acc += 1000; jsr fin } return acc;
     * fin does acc -= 3 via a wide iinc; acc lives in local 300 (wide iload/istore/iinc), the
     * return address in local 301 (wide astore/ret). Result 10 * 997 = 9970.
     */
    static void oldJsrLoop(ClassWriter cw, String owner) {
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "loop", "()I", null, null);
        mv.visitCode();
        Label loop = new Label();
        Label end = new Label();
        Label fin = new Label();
        mv.visitInsn(ICONST_0);
        mv.visitVarInsn(ISTORE, 300);
        mv.visitInsn(ICONST_0);
        mv.visitVarInsn(ISTORE, 1);
        mv.visitLabel(loop);
        mv.visitVarInsn(ILOAD, 1);
        mv.visitIntInsn(BIPUSH, 10);
        mv.visitJumpInsn(IF_ICMPGE, end);
        mv.visitIincInsn(300, 1000);
        mv.visitJumpInsn(JSR, fin);
        mv.visitIincInsn(1, 1);
        mv.visitJumpInsn(GOTO, loop);
        mv.visitLabel(end);
        mv.visitVarInsn(ILOAD, 300);
        mv.visitInsn(IRETURN);
        mv.visitLabel(fin);
        mv.visitVarInsn(ASTORE, 301);
        mv.visitIincInsn(300, -3);
        mv.visitFieldInsn(GETSTATIC, owner, "finallyCount", "I");
        mv.visitInsn(ICONST_1);
        mv.visitInsn(IADD);
        mv.visitFieldInsn(PUTSTATIC, owner, "finallyCount", "I");
        mv.visitVarInsn(RET, 301);
        mv.visitMaxs(2, 302);
        mv.visitEnd();
    }

    /**
     * public static int guarded(int x): try { if (x < 0) throw new IAE(); r = 2x; } finally {...}
     * return r; with an any-type handler that stores the exception, calls the subroutine and
     * rethrows — the javac 1.4 shape of try/finally.
     */
    static void oldJsrGuarded(ClassWriter cw, String owner) {
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "guarded", "(I)I", null, null);
        mv.visitCode();
        Label start = new Label();
        Label ok = new Label();
        Label endTry = new Label();
        Label handler = new Label();
        Label fin = new Label();
        mv.visitTryCatchBlock(start, endTry, handler, null);
        mv.visitLabel(start);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitJumpInsn(IFGE, ok);
        mv.visitTypeInsn(NEW, "java/lang/IllegalArgumentException");
        mv.visitInsn(DUP);
        mv.visitMethodInsn(INVOKESPECIAL, "java/lang/IllegalArgumentException", "<init>", "()V", false);
        mv.visitInsn(ATHROW);
        mv.visitLabel(ok);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(ICONST_2);
        mv.visitInsn(IMUL);
        mv.visitVarInsn(ISTORE, 1);
        mv.visitLabel(endTry);
        mv.visitJumpInsn(JSR, fin);
        mv.visitVarInsn(ILOAD, 1);
        mv.visitInsn(IRETURN);
        mv.visitLabel(handler);
        mv.visitVarInsn(ASTORE, 2);
        mv.visitJumpInsn(JSR, fin);
        mv.visitVarInsn(ALOAD, 2);
        mv.visitInsn(ATHROW);
        mv.visitLabel(fin);
        finallySubroutine(mv, owner, 3);
        mv.visitMaxs(2, 4);
        mv.visitEnd();
    }

    /**
     * public static int run(): finallyCount = 0; r = loop() + guarded(21);
     * try { guarded(-1) } catch (IllegalArgumentException e) { r += 7 }
     * return r + finallyCount * 100000  ==  9970 + 42 + 7 + 12 * 100000 = 1210019.
     */
    static void oldJsrRun(ClassWriter cw, String owner) {
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "run", "()I", null, null);
        mv.visitCode();
        Label tryStart = new Label();
        Label tryEnd = new Label();
        Label handler = new Label();
        Label after = new Label();
        mv.visitTryCatchBlock(tryStart, tryEnd, handler, "java/lang/IllegalArgumentException");
        mv.visitInsn(ICONST_0);
        mv.visitFieldInsn(PUTSTATIC, owner, "finallyCount", "I");
        mv.visitMethodInsn(INVOKESTATIC, owner, "loop", "()I", false);
        mv.visitIntInsn(BIPUSH, 21);
        mv.visitMethodInsn(INVOKESTATIC, owner, "guarded", "(I)I", false);
        mv.visitInsn(IADD);
        mv.visitVarInsn(ISTORE, 0);
        mv.visitLabel(tryStart);
        mv.visitInsn(ICONST_M1);
        mv.visitMethodInsn(INVOKESTATIC, owner, "guarded", "(I)I", false);
        mv.visitInsn(POP);
        mv.visitLabel(tryEnd);
        mv.visitJumpInsn(GOTO, after);
        mv.visitLabel(handler);
        mv.visitInsn(POP);
        mv.visitIincInsn(0, 7);
        mv.visitLabel(after);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitFieldInsn(GETSTATIC, owner, "finallyCount", "I");
        mv.visitLdcInsn(100000);
        mv.visitInsn(IMUL);
        mv.visitInsn(IADD);
        mv.visitInsn(IRETURN);
        mv.visitMaxs(3, 1);
        mv.visitEnd();
    }

    static void defaultConstructor(ClassWriter cw) {
        defaultConstructor(cw, "java/lang/Object");
    }

    /** public &lt;init&gt;() { super(); } for a class whose superclass is superName. */
    static void defaultConstructor(ClassWriter cw, String superName) {
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC, "<init>", "()V", null, null);
        mv.visitCode();
        mv.visitVarInsn(ALOAD, 0);
        mv.visitMethodInsn(INVOKESPECIAL, superName, "<init>", "()V", false);
        mv.visitInsn(RETURN);
        mv.visitMaxs(1, 1);
        mv.visitEnd();
    }

    // ---------------------------------------------------------------------------------------
    // Self-test inputs for duplex.test.VerifyAll.

    /**
     * OUTDIR/broken/  Good, InitBomb, Broken (v52, pop on empty stack), BadType (v52, ireturn of
     *                 a reference), OldBroken (v49, old inference verifier, pop on empty stack)
     * OUTDIR/broken.jar  the same classes as a jar
     * OUTDIR/deps/    Good, InitBomb, SignatureMissing (verifies; a parameter type is missing),
     *                 ExtendsMissing (superclass missing), VerifierNeedsMissing (the verifier must
     *                 load a missing class to check an areturn)
     * OUTDIR/v50/     Frames50 and BadFrames50 (major 50, the second with a wrong StackMapTable
     *                 frame that HotSpot accepts by falling back to the old verifier)
     * OUTDIR/jdk-good/<module>/...    real JDK classes copied from jrt:/ plus new java.util classes
     * OUTDIR/jdk-broken/java.base/... java.util.DuplexBroken (pop on empty stack)
     * OUTDIR/split/in/   the input: selftest.split.Sub (extends the package-private Base of
     *                    split/dep), Api (public abstract), Make (returns an other.Impl as an
     *                    Api, so the verifier loads Impl, whose superclass is the input's Api),
     *                    Broken (pop on empty stack)
     * OUTDIR/split/dep/  its class path: Base, other.Impl, and a valid Broken of the same name
     *                    that must not shadow the input's
     */
    static void selftest(Path out) throws IOException {
        Map<String, byte[]> broken = new TreeMap<>();
        broken.put("selftest/Good", good("selftest/Good"));
        broken.put("selftest/InitBomb", initBomb("selftest/InitBomb"));
        broken.put("selftest/Broken", popEmpty("selftest/Broken", V1_8));
        broken.put("selftest/BadType", badType("selftest/BadType"));
        broken.put("selftest/OldBroken", popEmpty("selftest/OldBroken", V1_5));
        for (Map.Entry<String, byte[]> e : broken.entrySet()) {
            write(out.resolve("broken"), e.getKey(), e.getValue());
        }
        writeJar(out.resolve("broken.jar"), broken);

        Path deps = out.resolve("deps");
        write(deps, "selftest/Good", good("selftest/Good"));
        write(deps, "selftest/InitBomb", initBomb("selftest/InitBomb"));
        write(deps, "selftest/SignatureMissing", signatureMissing("selftest/SignatureMissing"));
        write(deps, "selftest/ExtendsMissing", extendsMissing("selftest/ExtendsMissing"));
        write(deps, "selftest/VerifierNeedsMissing", verifierNeedsMissing("selftest/VerifierNeedsMissing"));

        Path v50 = out.resolve("v50");
        write(v50, "selftest/Frames50", branchWithFrame("selftest/Frames50", V1_6, "I"));
        write(v50, "selftest/BadFrames50", branchWithFrame("selftest/BadFrames50", V1_6, "java/lang/String"));

        Path jdkGood = out.resolve("jdk-good");
        write(jdkGood.resolve("java.base"), "java/util/DuplexGood", good("java/util/DuplexGood"));
        write(jdkGood.resolve("java.base"), "java/util/DuplexInitBomb", initBomb("java/util/DuplexInitBomb"));
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        String[][] copies = {
            {"java.base", "java/util/zip/CRC32"},
            {"java.base", "java/util/ArrayDeque"},
            {"java.base", "java/text/DecimalFormat"},
            {"java.sql", "java/sql/Timestamp"},
            {"java.xml", "javax/xml/namespace/QName"},
        };
        for (String[] c : copies) {
            byte[] bytes = Files.readAllBytes(jrt.getPath("modules", c[0], c[1] + ".class"));
            write(jdkGood.resolve(c[0]), c[1], bytes);
        }

        Path jdkBroken = out.resolve("jdk-broken");
        write(jdkBroken.resolve("java.base"), "java/util/DuplexGood", good("java/util/DuplexGood"));
        write(jdkBroken.resolve("java.base"), "java/util/DuplexBroken", popEmpty("java/util/DuplexBroken", V1_8));

        Path in = out.resolve("split").resolve("in");
        Path dep = out.resolve("split").resolve("dep");
        write(dep, "selftest/split/Base", withConstructor("selftest/split/Base", 0, "java/lang/Object"));
        write(in, "selftest/split/Sub", withConstructor("selftest/split/Sub", ACC_PUBLIC, "selftest/split/Base"));
        write(in, "selftest/split/Api",
                withConstructor("selftest/split/Api", ACC_PUBLIC | ACC_ABSTRACT, "java/lang/Object"));
        write(dep, "selftest/other/Impl", withConstructor("selftest/other/Impl", ACC_PUBLIC, "selftest/split/Api"));
        write(in, "selftest/split/Make", makeImplAsApi("selftest/split/Make"));
        write(in, "selftest/split/Broken", popEmpty("selftest/split/Broken", V1_8));
        write(dep, "selftest/split/Broken", good("selftest/split/Broken"));
    }

    /** An empty class with the given access flags and a constructor calling its superclass's. */
    static byte[] withConstructor(String name, int access, String superName) {
        ClassWriter cw = new ClassWriter(0);
        cw.visit(V1_8, access | ACC_SUPER, name, null, superName, null);
        defaultConstructor(cw, superName);
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** static selftest.split.Api make() { return new selftest.other.Impl(); } */
    static byte[] makeImplAsApi(String name) {
        ClassWriter cw = begin(name, V1_8, "java/lang/Object");
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "make", "()Lselftest/split/Api;", null, null);
        mv.visitCode();
        mv.visitTypeInsn(NEW, "selftest/other/Impl");
        mv.visitInsn(DUP);
        mv.visitMethodInsn(INVOKESPECIAL, "selftest/other/Impl", "<init>", "()V", false);
        mv.visitInsn(ARETURN);
        mv.visitMaxs(2, 0);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    static void writeJar(Path jar, Map<String, byte[]> classes) throws IOException {
        try (OutputStream os = Files.newOutputStream(jar); JarOutputStream jos = new JarOutputStream(os)) {
            for (Map.Entry<String, byte[]> e : classes.entrySet()) {
                JarEntry je = new JarEntry(e.getKey() + ".class");
                je.setTime(0);
                jos.putNextEntry(je);
                jos.write(e.getValue());
                jos.closeEntry();
            }
        }
    }

    static ClassWriter begin(String name, int version, String superName) {
        ClassWriter cw = new ClassWriter(0);
        cw.visit(version, ACC_PUBLIC | ACC_SUPER, name, null, superName, null);
        return cw;
    }

    /** A valid class: static int answer() { return 42; } */
    static byte[] good(String name) {
        ClassWriter cw = begin(name, V1_8, "java/lang/Object");
        defaultConstructor(cw);
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "answer", "()I", null, null);
        mv.visitCode();
        mv.visitIntInsn(BIPUSH, 42);
        mv.visitInsn(IRETURN);
        mv.visitMaxs(1, 0);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** Valid, but its static initializer calls System.exit(97): proves nothing initializes it. */
    static byte[] initBomb(String name) {
        ClassWriter cw = begin(name, V1_8, "java/lang/Object");
        MethodVisitor mv = cw.visitMethod(ACC_STATIC, "<clinit>", "()V", null, null);
        mv.visitCode();
        mv.visitIntInsn(BIPUSH, 97);
        mv.visitMethodInsn(INVOKESTATIC, "java/lang/System", "exit", "(I)V", false);
        mv.visitInsn(RETURN);
        mv.visitMaxs(1, 0);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** static void broken() { pop; return; } — operand stack underflow. Straight-line code, so
     *  a v52 class needs no StackMapTable: only the verifier can reject it. */
    static byte[] popEmpty(String name, int version) {
        ClassWriter cw = begin(name, version, "java/lang/Object");
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "broken", "()V", null, null);
        mv.visitCode();
        mv.visitInsn(POP);
        mv.visitInsn(RETURN);
        mv.visitMaxs(1, 0);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    /**
     * static int pick(int x) { return x == 0 ? 0 : 1; } with one StackMapTable frame at the
     * branch target declaring local 0 as local0 ("I" is right, anything else is wrong).
     */
    static byte[] branchWithFrame(String name, int version, Object local0) {
        ClassWriter cw = begin(name, version, "java/lang/Object");
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "pick", "(I)I", null, null);
        mv.visitCode();
        Label zero = new Label();
        mv.visitVarInsn(ILOAD, 0);
        mv.visitJumpInsn(IFEQ, zero);
        mv.visitInsn(ICONST_1);
        mv.visitInsn(IRETURN);
        mv.visitLabel(zero);
        mv.visitFrame(F_FULL, 1, new Object[] {"I".equals(local0) ? INTEGER : local0}, 0, new Object[0]);
        mv.visitInsn(ICONST_0);
        mv.visitInsn(IRETURN);
        mv.visitMaxs(1, 1);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** static int badType(String s) { aload_0; ireturn } — wrong type on the operand stack. */
    static byte[] badType(String name) {
        ClassWriter cw = begin(name, V1_8, "java/lang/Object");
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "badType", "(Ljava/lang/String;)I", null, null);
        mv.visitCode();
        mv.visitVarInsn(ALOAD, 0);
        mv.visitInsn(IRETURN);
        mv.visitMaxs(1, 1);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** Verifies without loading anything, but reflection on its methods needs selftest.Missing3. */
    static byte[] signatureMissing(String name) {
        ClassWriter cw = begin(name, V1_8, "java/lang/Object");
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "take", "(Lselftest/Missing3;)V", null, null);
        mv.visitCode();
        mv.visitInsn(RETURN);
        mv.visitMaxs(0, 1);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    static byte[] extendsMissing(String name) {
        ClassWriter cw = begin(name, V1_8, "selftest/Missing1");
        cw.visitEnd();
        return cw.toByteArray();
    }

    /**
     * static Number make() { return Factory.create(); } where create() returns selftest.Missing2.
     * Checking that Missing2 is assignable to Number makes the verifier load Missing2; nothing
     * in the class's own member signatures mentions a missing class.
     */
    static byte[] verifierNeedsMissing(String name) {
        ClassWriter cw = begin(name, V1_8, "java/lang/Object");
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "make", "()Ljava/lang/Number;", null, null);
        mv.visitCode();
        mv.visitMethodInsn(INVOKESTATIC, "selftest/Factory", "create", "()Lselftest/Missing2;", false);
        mv.visitInsn(ARETURN);
        mv.visitMaxs(1, 0);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }
}
