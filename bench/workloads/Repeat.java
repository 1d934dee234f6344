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
 * status ends the JVM with it. TIMES_FILE gets one line per iteration: "cpu_ns wall_ns jit_ms
 * measured", jit_ms being the JIT compilers' time during the iteration (CompilationMXBean,
 * approximate): it tells whether an iteration still pays for compilation.
 *
 * <p>ITERATIONS is a count (every iteration measured) or {@code converge:MAX:MEASURE}: iterations
 * run until the JIT has settled (the compilers' time over the last {@value #WINDOW} iterations
 * under {@value #SETTLED_PERCENT}% of their CPU time), then at least MEASURE more are measured,
 * and more until they add up to {@value #MEASURED_SECONDS} s of CPU time (at most 10 * MEASURE:
 * short iterations are noisy); after MAX iterations without settling, the last MEASURE are
 * measured and the file's last line says "unsettled". A rewritten program compiles two to three times the bytecode and settles later;
 * measuring it before then would compare compilation, not the code.
 *
 * <p>{@code window:FROM:COUNT} runs FROM iterations unmeasured, then measures COUNT: the same
 * iterations for every configuration of a program. Some programs get slower or faster with
 * every iteration on their own (rhino's per-iteration CPU time grows), so configurations
 * measured at the iteration where each settled would be compared at different points of that
 * drift; the harness finds the settling points with {@code converge} first.
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
  private static final int WINDOW = 3;
  private static final int SETTLED_PERCENT = 3;
  private static final long MEASURED_SECONDS = 3;

  private Repeat() {}

  /** The process's CPU nanoseconds (bench/workloads/cpu_clock.c), or -1 on failure. */
  private static native long processCpuNanos();

  /**
   * The process's CPU time, in nanoseconds: from cpu_clock.c when -Drepeat.cpuclock names it
   * (nanosecond steps), else from the OperatingSystemMXBean (on Linux in clock ticks: steps of
   * 10 ms).
   */
  private static final class CpuClock {
    private final com.sun.management.OperatingSystemMXBean os;
    private final boolean precise;

    CpuClock(com.sun.management.OperatingSystemMXBean os) {
      this.os = os;
      String lib = System.getProperty("repeat.cpuclock");
      boolean loaded = false;
      if (lib != null && !lib.isEmpty()) {
        try {
          System.load(lib);
          loaded = processCpuNanos() >= 0;
        } catch (UnsatisfiedLinkError e) {
          System.err.println("Repeat: " + lib + ": " + e.getMessage() + " (CPU time in ticks)");
        }
      }
      precise = loaded;
    }

    long now() {
      return precise ? processCpuNanos() : os.getProcessCpuTime();
    }
  }

  @SuppressWarnings("removal")
  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: Repeat ITERATIONS TIMES_FILE MAIN_CLASS ARGS...");
      System.exit(2);
    }
    boolean converge = args[0].startsWith("converge:");
    boolean window = args[0].startsWith("window:");
    String[] spec = args[0].split(":");
    int iterations;
    int measure;
    int measureFrom; // the first measured iteration, once known
    if (window) {
      measureFrom = Integer.parseInt(spec[1]);
      measure = Integer.parseInt(spec[2]);
      iterations = measureFrom + measure;
    } else {
      iterations = converge ? Integer.parseInt(spec[1]) : Integer.parseInt(args[0]);
      measure = converge ? Integer.parseInt(spec[2]) : iterations;
      measureFrom = converge ? -1 : 0;
    }
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
    CpuClock clock = new CpuClock(os);
    PrintStream out = System.out;
    PrintStream err = System.err;
    PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
    java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    boolean jitTimed = jit != null && jit.isCompilationTimeMonitoringSupported();
    StringBuilder times = new StringBuilder();
    int most = converge ? iterations + 10 * measure : iterations;
    long[] cpus = new long[most];
    long[] jits = new long[most];
    int done = 0;
    long measuredCpu = 0;
    for (int i = 0; i < most; i++) {
      if (measureFrom < 0 && i >= iterations) break; // never settled
      if (converge && measureFrom >= 0 && i >= measureFrom + measure
          && (measuredCpu >= MEASURED_SECONDS * 1_000_000_000L || i >= measureFrom + 10 * measure)) {
        break;
      }
      if (i == 1) {
        System.setOut(sink);
        System.setErr(sink);
      }
      long jit0 = jitTimed ? jit.getTotalCompilationTime() : 0;
      long cpu0 = clock.now();
      long wall0 = System.nanoTime();
      int status = mainClass.getName().equals(ECJ_MAIN)
          ? runEcj(mainClass, programArgs)
          : run(main, programArgs);
      long wall = System.nanoTime() - wall0;
      long cpu = clock.now() - cpu0;
      if (status != 0) {
        System.setSecurityManager(null);
        err.println("Repeat: iteration " + (i + 1) + " exited with status " + status);
        Runtime.getRuntime().halt(status);
      }
      long jitMs = jitTimed ? jit.getTotalCompilationTime() - jit0 : 0;
      cpus[i] = cpu;
      jits[i] = jitMs;
      done = i + 1;
      if (measureFrom >= 0 && i >= measureFrom) measuredCpu += cpu;
      if (measureFrom < 0 && settled(cpus, jits, done)) measureFrom = done;
      times.append(cpu).append(' ').append(wall).append(' ').append(jitMs).append(' ');
      times.append(measureFrom >= 0 && i >= measureFrom ? 1 : 0).append('\n');
    }
    if (measureFrom < 0 || done < measureFrom + measure) {
      times = remark(times.toString(), Math.max(0, done - measure));
      times.append("unsettled\n");
    }
    System.setOut(out);
    System.setErr(err);
    Files.write(Paths.get(timesFile), times.toString().getBytes(StandardCharsets.UTF_8));
    System.setSecurityManager(null);
  }

  /** The JIT's share of the last WINDOW iterations' CPU time is under SETTLED_PERCENT. */
  private static boolean settled(long[] cpuNs, long[] jitMs, int done) {
    if (done < WINDOW) return false;
    long cpu = 0;
    long jit = 0;
    for (int i = done - WINDOW; i < done; i++) {
      cpu += cpuNs[i];
      jit += jitMs[i];
    }
    return jit * 1_000_000L * 100 < cpu * SETTLED_PERCENT;
  }

  /** The times lines with the "measured" mark set from iteration {@code from} on. */
  private static StringBuilder remark(String lines, int from) {
    StringBuilder sb = new StringBuilder();
    String[] rows = lines.split("\n");
    for (int i = 0; i < rows.length; i++) {
      String row = rows[i];
      sb.append(row, 0, row.lastIndexOf(' ') + 1).append(i >= from ? 1 : 0).append('\n');
    }
    return sb;
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
