import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.Permission;
import java.util.Map;

/**
 * Runs a program's main() several times in one JVM and records each iteration's process CPU
 * time and wall time, so the harness can measure steady state: code compiled by the JIT, as in
 * the paper, where every method was compiled before the run.
 *
 * <p>Usage: {@code Repeat ITERATIONS TIMES_FILE MAIN_CLASS ARGS...}. Only the first iteration's
 * standard output and error reach the real streams (that output is the one checked); later
 * iterations write into a sink. System.exit(0) from the program ends an iteration; any other
 * status ends the JVM with it. TIMES_FILE gets one line per iteration: "cpu_ns wall_ns jit_ms",
 * jit_ms being the JIT compilers' time during the iteration (CompilationMXBean, approximate):
 * it tells whether an iteration still pays for compilation.
 *
 * <p>ecj's batch Main exits from inside a catch-all that would swallow the trap, so it runs
 * through its own no-exit constructor instead (same arguments, same output).
 */
public final class Repeat {
  /** Thrown instead of exiting the JVM, to end one iteration. */
  private static final class ExitTrapped extends SecurityException {
    final int status;

    ExitTrapped(int status) {
      super("exit " + status);
      this.status = status;
    }
  }

  private static final String ECJ_MAIN = "org.eclipse.jdt.internal.compiler.batch.Main";

  private Repeat() {}

  @SuppressWarnings("removal")
  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: Repeat ITERATIONS TIMES_FILE MAIN_CLASS ARGS...");
      System.exit(2);
    }
    int iterations = Integer.parseInt(args[0]);
    String timesFile = args[1];
    Class<?> mainClass = Class.forName(args[2]);
    Method main = mainClass.getMethod("main", String[].class);
    String[] programArgs = new String[args.length - 3];
    System.arraycopy(args, 3, programArgs, 0, programArgs.length);
    System.setSecurityManager(new SecurityManager() {
      @Override
      public void checkExit(int status) {
        throw new ExitTrapped(status);
      }

      @Override
      public void checkPermission(Permission perm) {}

      @Override
      public void checkPermission(Permission perm, Object context) {}
    });
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    PrintStream out = System.out;
    PrintStream err = System.err;
    PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
    java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    boolean jitTimed = jit != null && jit.isCompilationTimeMonitoringSupported();
    StringBuilder times = new StringBuilder();
    for (int i = 0; i < iterations; i++) {
      if (i == 1) {
        System.setOut(sink);
        System.setErr(sink);
      }
      long jit0 = jitTimed ? jit.getTotalCompilationTime() : 0;
      long cpu0 = os.getProcessCpuTime();
      long wall0 = System.nanoTime();
      int status = mainClass.getName().equals(ECJ_MAIN)
          ? runEcj(mainClass, programArgs)
          : run(main, programArgs);
      long wall = System.nanoTime() - wall0;
      long cpu = os.getProcessCpuTime() - cpu0;
      if (status != 0) {
        System.setSecurityManager(null);
        err.println("Repeat: iteration " + (i + 1) + " exited with status " + status);
        Runtime.getRuntime().halt(status);
      }
      long jitMs = jitTimed ? jit.getTotalCompilationTime() - jit0 : 0;
      times.append(cpu).append(' ').append(wall).append(' ').append(jitMs).append('\n');
    }
    System.setOut(out);
    System.setErr(err);
    Files.write(Paths.get(timesFile), times.toString().getBytes(StandardCharsets.UTF_8));
    System.setSecurityManager(null);
  }

  /** ecj without System.exit: {@code new Main(out, err, false, null, null).compile(args)}. */
  private static int runEcj(Class<?> mainClass, String[] args) throws Exception {
    Class<?> progress = Class.forName("org.eclipse.jdt.core.compiler.CompilationProgress");
    Constructor<?> make = mainClass.getConstructor(
        PrintWriter.class, PrintWriter.class, boolean.class, Map.class, progress);
    PrintWriter out = new PrintWriter(System.out);
    PrintWriter err = new PrintWriter(System.err);
    Object compiler = make.newInstance(out, err, false, null, null);
    boolean ok = (Boolean) mainClass.getMethod("compile", String[].class)
        .invoke(compiler, (Object) args.clone());
    out.flush();
    err.flush();
    return ok ? 0 : 1;
  }

  /** One iteration: the program's exit status (0 when main returns). */
  private static int run(Method main, String[] args) throws Exception {
    try {
      main.invoke(null, (Object) args.clone());
      return 0;
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof ExitTrapped) return ((ExitTrapped) cause).status;
      throw e;
    }
  }
}
