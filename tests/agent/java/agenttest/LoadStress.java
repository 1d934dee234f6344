package agenttest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Parallel class-loading stress: many threads define the fixture classes through many loaders
 * at once (private loaders per thread and parallel-capable loaders shared by all threads), run
 * every fixture's main and compare its output with a single-threaded reference run.
 *
 * <pre>java agenttest.LoadStress FIXTURES_DIR THREADS LOADERS_PER_THREAD SHARED_LOADERS</pre>
 *
 * Prints a deterministic summary; exit 1 on any mismatch or unexpected throwable.
 */
public final class LoadStress {
  /** Defines classes from the byte map; parallel capable, so threads load through it at once. */
  static final class BytesLoader extends ClassLoader {
    static {
      registerAsParallelCapable();
    }

    private final Map<String, byte[]> classes;
    final AtomicInteger defined = new AtomicInteger();

    BytesLoader(String name, Map<String, byte[]> classes) {
      super(name, ClassLoader.getPlatformClassLoader());
      this.classes = classes;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      byte[] b = classes.get(name);
      if (b == null) return super.loadClass(name, resolve);
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null) {
          c = defineClass(name, b, 0, b.length);
          defined.incrementAndGet();
        }
        return c;
      }
    }
  }

  /** System.out for every thread goes to that thread's own buffer. */
  static final class PerThreadOut extends OutputStream {
    final ThreadLocal<ByteArrayOutputStream> buf =
        ThreadLocal.withInitial(ByteArrayOutputStream::new);

    @Override
    public void write(int b) {
      buf.get().write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      buf.get().write(b, off, len);
    }

    String take() {
      String s = buf.get().toString();
      buf.get().reset();
      return s;
    }
  }

  static Map<String, byte[]> readClasses(Path dir) throws IOException {
    Map<String, byte[]> m = new TreeMap<>();
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        String rel = dir.relativize(p).toString();
        if (!rel.endsWith(".class")) continue;
        m.put(rel.substring(0, rel.length() - 6).replace('/', '.'), Files.readAllBytes(p));
      }
    }
    return m;
  }

  static String runMain(ClassLoader l, String name, PerThreadOut out) {
    try {
      Class<?> c = Class.forName(name, true, l);
      Method main = c.getMethod("main", String[].class);
      main.invoke(null, (Object) new String[0]);
      return out.take();
    } catch (Throwable t) {
      return out.take() + "!! " + t;
    }
  }

  static boolean hasMain(Class<?> c) {
    try {
      return Modifier.isStatic(c.getMethod("main", String[].class).getModifiers());
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  public static void main(String[] args) throws Exception {
    Path dir = Paths.get(args[0]);
    int threads = Integer.parseInt(args[1]);
    int loadersPerThread = Integer.parseInt(args[2]);
    int shared = Integer.parseInt(args[3]);
    Map<String, byte[]> classes = readClasses(dir);
    PrintStream realOut = System.out;
    PerThreadOut out = new PerThreadOut();
    System.setOut(new PrintStream(out, true));

    // Reference: one loader, one thread.
    BytesLoader ref = new BytesLoader("reference", classes);
    List<String> mains = new ArrayList<>();
    Map<String, String> expected = new TreeMap<>();
    for (String n : classes.keySet()) {
      if (n.indexOf('$') >= 0) continue;
      if (hasMain(Class.forName(n, false, ref))) mains.add(n);
    }
    for (String n : mains) expected.put(n, runMain(ref, n, out));

    List<BytesLoader> sharedLoaders = new ArrayList<>();
    for (int i = 0; i < shared; i++) sharedLoaders.add(new BytesLoader("shared" + i, classes));
    AtomicLong runs = new AtomicLong();
    AtomicLong mismatches = new AtomicLong();
    AtomicLong defined = new AtomicLong();
    List<String> problems = Collections.synchronizedList(new ArrayList<>());
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      final int id = t;
      Thread w = new Thread(() -> {
        Random rnd = new Random(id);
        List<ClassLoader> mine = new ArrayList<>();
        for (int i = 0; i < loadersPerThread; i++) mine.add(new BytesLoader("t" + id + "-" + i, classes));
        mine.addAll(sharedLoaders);
        for (ClassLoader l : mine) {
          List<String> order = new ArrayList<>(classes.keySet());
          Collections.shuffle(order, rnd);
          try {
            for (String n : order) Class.forName(n, false, l); // define everything, in any order
          } catch (Throwable e) {
            problems.add("load in " + l.getName() + ": " + e);
          }
          if (sharedLoaders.contains(l)) {
            // Shared by all threads: only define and link (verify), since running a fixture
            // twice in one loader may print differently (static state).
            for (String n : order) {
              try {
                Class.forName(n, false, l).getDeclaredMethods();
              } catch (Throwable e) {
                problems.add("link " + n + " in " + l.getName() + ": " + e);
              }
            }
            continue;
          }
          List<String> ms = new ArrayList<>(mains);
          Collections.shuffle(ms, rnd);
          for (String n : ms) {
            String got = runMain(l, n, out);
            runs.incrementAndGet();
            if (!got.equals(expected.get(n))) {
              mismatches.incrementAndGet();
              problems.add(n + " in " + l.getName() + " printed:\n" + got);
            }
          }
          if (l instanceof BytesLoader && !sharedLoaders.contains(l)) {
            defined.addAndGet(((BytesLoader) l).defined.get());
          }
        }
      }, "stress-" + t);
      workers.add(w);
    }
    for (Thread w : workers) w.start();
    for (Thread w : workers) w.join();
    for (BytesLoader l : sharedLoaders) defined.addAndGet(l.defined.get());
    System.setOut(realOut);
    realOut.println("classes " + classes.size() + ", fixtures with main " + mains.size());
    realOut.println("threads " + threads + ", loaders " + (threads * loadersPerThread + shared)
        + ", classes defined " + defined.get() + ", mains run " + runs.get()
        + ", mismatches " + mismatches.get() + ", problems " + problems.size());
    for (String p : problems.subList(0, Math.min(5, problems.size()))) realOut.println(p);
    realOut.flush();
    System.exit(problems.isEmpty() && mismatches.get() == 0 ? 0 : 1);
  }
}
