import static org.objectweb.asm.Opcodes.*;

import java.nio.file.Files;
import java.nio.file.Path;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;

/**
 * Writes p/Host.class (version 55, NestMembers p/Host$DuplexTwins, a private field and a
 * private instance method, and run(int), whose "sample stub" calls run$duplex through
 * invokedynamic bootstrapped by TwinLinker.link) and the twin class's bytes (NestHost p/Host;
 * run$duplex reads the host's private field and calls its private method).
 */
public final class GenIndyTwin {
  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    Files.createDirectories(out.resolve("classes/p"));
    Files.write(out.resolve("classes/p/Host.class"), host());
    Files.write(out.resolve("twin.bin"), twin());
  }

  static byte[] host() {
    ClassWriter w = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS);
    w.visit(V11, ACC_PUBLIC | ACC_SUPER, "p/Host", null, "java/lang/Object", null);
    w.visitNestMember("p/Host$DuplexTwins");
    w.visitField(ACC_PRIVATE, "secret", "I", null, null).visitEnd();
    MethodVisitor init = w.visitMethod(ACC_PUBLIC, "<init>", "()V", null, null);
    init.visitCode();
    init.visitVarInsn(ALOAD, 0);
    init.visitMethodInsn(INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
    init.visitVarInsn(ALOAD, 0);
    init.visitIntInsn(BIPUSH, 40);
    init.visitFieldInsn(PUTFIELD, "p/Host", "secret", "I");
    init.visitInsn(RETURN);
    init.visitMaxs(0, 0);
    init.visitEnd();
    MethodVisitor plus = w.visitMethod(ACC_PRIVATE, "plus", "(I)I", null, null);
    plus.visitCode();
    plus.visitVarInsn(ALOAD, 0);
    plus.visitFieldInsn(GETFIELD, "p/Host", "secret", "I");
    plus.visitVarInsn(ILOAD, 1);
    plus.visitInsn(IADD);
    plus.visitInsn(IRETURN);
    plus.visitMaxs(0, 0);
    plus.visitEnd();
    MethodVisitor run = w.visitMethod(ACC_PUBLIC, "run", "(I)I", null, null);
    run.visitCode();
    run.visitVarInsn(ALOAD, 0);
    run.visitVarInsn(ILOAD, 1);
    Handle bsm = new Handle(H_INVOKESTATIC, "TwinLinker", "link",
        "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;)"
            + "Ljava/lang/invoke/CallSite;", false);
    run.visitInvokeDynamicInsn("run$duplex", "(Lp/Host;I)I", bsm);
    run.visitInsn(IRETURN);
    run.visitMaxs(0, 0);
    run.visitEnd();
    w.visitEnd();
    return w.toByteArray();
  }

  static byte[] twin() {
    ClassWriter w = new ClassWriter(ClassWriter.COMPUTE_MAXS);
    w.visit(V11, ACC_FINAL | ACC_SUPER | ACC_SYNTHETIC, "p/Host$DuplexTwins", null,
        "java/lang/Object", null);
    w.visitNestHost("p/Host");
    MethodVisitor m =
        w.visitMethod(ACC_STATIC | ACC_SYNTHETIC, "run$duplex", "(Lp/Host;I)I", null, null);
    m.visitCode();
    m.visitVarInsn(ALOAD, 0);
    m.visitFieldInsn(GETFIELD, "p/Host", "secret", "I"); // a private field of the host
    m.visitVarInsn(ALOAD, 0);
    m.visitVarInsn(ILOAD, 1);
    m.visitMethodInsn(INVOKEVIRTUAL, "p/Host", "plus", "(I)I", false); // a private method
    m.visitInsn(IADD);
    m.visitInsn(IRETURN);
    m.visitMaxs(0, 0);
    m.visitEnd();
    w.visitEnd();
    return w.toByteArray();
  }
}
