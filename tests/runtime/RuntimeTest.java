package duplextest;

import duplex.runtime.Duplex;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Tests of duplex-runtime.jar through its public API. Settings fixed at class init (counter mode,
 * trigger, countChecks, bad system properties, exit hooks, bootstrap loading) run in child JVMs:
 * {@code RuntimeTest child <scenario>}. Run under -Xverify:all (see tests/meson.build).
 */
public final class RuntimeTest {
  private static int failures;
  private static Path tmp;
  private static String mainOut; // duplex.out as given by tests/meson.build: the exit profile

  private RuntimeTest() {}

  /** A failed expectation. */
  static final class Failure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Failure(String msg) { super(msg); }
  }

  interface Body {
    void run() throws Exception;
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("child")) {
      Children.run(args[1]);
      return;
    }
    tmp = Files.createTempDirectory("duplex-runtime-test");
    mainOut = Duplex.getOption("out");
    try {
      test("interval 1, 10, 0", RuntimeTest::intervals);
      test("setInterval while running", RuntimeTest::setIntervalWhileRunning);
      test("jitter keeps the mean and is deterministic", RuntimeTest::jitter);
      test("bursts: samples at consecutive checks", RuntimeTest::bursts);
      test("method counters: rearm", RuntimeTest::methodCounters);
      test("method counters: bursts of their own", RuntimeTest::methodCounterBursts);
      test("field and event counts", RuntimeTest::fieldsAndEvents);
      test("concurrent counting is exact", RuntimeTest::concurrentCounts);
      test("entry and backedge counts", RuntimeTest::entriesAndBackedges);
      test("tick and expired", RuntimeTest::tickAndExpired);
      test("loop budgets", RuntimeTest::loopBudgets);
      test("dump writes well-formed XML", RuntimeTest::dumpWellFormed);
      test("dump is atomic", RuntimeTest::dumpAtomic);
      test("dump failure is reported", RuntimeTest::dumpFailure);
      test("reset clears counts", RuntimeTest::reset);
      test("class counters: tables of version 1 and 2", RuntimeTest::classCounterTables);
      test("call sites hold receiver classes weakly", RuntimeTest::receiversUnload);
      test("method counters of unloaded classes are swept", RuntimeTest::methodCountersSwept);
      test("configure validates", RuntimeTest::configure);
      test("periodic dump", RuntimeTest::periodicDump);
      test("call edge: caller and line", RuntimeTest::callEdgeCaller);
      test("call edge: site tables map the bci", RuntimeTest::callEdgeSiteTables);
      test("call edge: outlined callers and callees", Outlined::check);
      test("call edge: hidden frames are skipped", RuntimeTest::callEdgeHiddenFrames);
      test("call edge: concurrent counting is exact", RuntimeTest::callEdgeConcurrent);
      test("sampled calls: static, widened parameters", SampledCalls::statics);
      test("sampled calls: twins of the wrong type are ignored", SampledCalls::wrongTwins);
      test("sampled calls: virtual dispatch per receiver class", SampledCalls::virtuals);
      test("sampled calls: interface and default methods", SampledCalls::interfaces);
      test("sampled calls: bridge methods", SampledCalls::bridges);
      test("sampled calls: private and special calls", SampledCalls::privates);
      test("sampled calls: other handles link as they are", SampledCalls::notCalls);
      test("child: striped counters",
          () -> child("striped", "-Dduplex.counter=striped", "-Dduplex.interval=10"));
      test("child: global counter",
          () -> child("global", "-Dduplex.counter=global", "-Dduplex.interval=10"));
      test("child: timer trigger",
          () -> child("timer", "-Dduplex.trigger=timer", "-Dduplex.timerMs=5"));
      test("child: countChecks",
          () -> child("countChecks", "-Dduplex.countChecks=true", "-Dduplex.interval=7"));
      test("child: warm-up", RuntimeTest::warmup);
      test("child: profile written at exit", RuntimeTest::exitDump);
      test("child: profile written on SIGTERM", RuntimeTest::sigtermDump);
      test("child: bootstrap class path", RuntimeTest::bootstrap);
      test("child: bad property values stop class init", RuntimeTest::badProperties);
    } finally {
      deleteTree(tmp);
    }
    if (failures > 0) {
      System.out.println(failures + " runtime test(s) FAILED");
      System.exit(1);
    }
    System.out.println("all runtime tests passed");
    System.exit(0);
  }

  private static void test(String name, Body body) {
    Duplex.reset();
    try {
      body.run();
      System.out.println("ok   " + name);
    } catch (Throwable t) {
      failures++;
      System.out.println("FAIL " + name + ": " + t);
      if (!(t instanceof Failure)) t.printStackTrace(System.out);
    } finally {
      Duplex.setOut(mainOut);
    }
  }

  static void expect(boolean cond, String what) {
    if (!cond) throw new Failure(what);
  }

  static void expectEq(Object want, Object got, String what) {
    if (want == null ? got != null : !want.equals(got)) {
      throw new Failure(what + ": want " + want + ", got " + got);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Sampling.

  /** The indices (0-based) of the checks among n that returned true. */
  static List<Integer> sampleIndices(int n) {
    List<Integer> hits = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (Duplex.check()) hits.add(i);
    }
    return hits;
  }

  /**
   * The exit check: tick() counts down to zero, then expired() resets the counter and says
   * whether to sample; at interval 0 the counter is parked far away and expired() says no.
   */
  static void tickAndExpired() {
    Duplex.setInterval(10);
    Duplex.reset();
    int samples = 0;
    for (int i = 0; i < 1000; i++) {
      if (Duplex.tick() <= 0) {
        expectEq(9, i % 10, "tick reaches zero every 10th time");
        expect(Duplex.expired(), "expired() samples at interval 10");
        samples++;
      }
    }
    expectEq(100, samples, "samples by tick at interval 10");
    expectEq(100L, Duplex.samplesTaken(), "samplesTaken by expired()");
    Duplex.setInterval(0);
    expect(Duplex.tick() > 1_000_000, "interval 0 parks the counter");
    expect(!Duplex.expired(), "expired() at interval 0");
    Duplex.setInterval(1000);
  }

  /**
   * Loop budgets: a method's entry takes the counter as its budget, its back edges count down a
   * local, and only a used-up budget (spend) or a return (spent) counts on the counter. The
   * samples fall on the same checks as with tick(): every 10th at interval 10.
   */
  static void loopBudgets() {
    Duplex.setInterval(10);
    Duplex.reset();
    int start = Duplex.loopEntry();
    expectEq(9, start, "the entry's check is counted; the budget is what is left");
    int left = start;
    int samples = 0;
    for (int edge = 1; edge <= 1000; edge++) {
      if (--left > 0) continue;
      left = start = Duplex.spend(start);
      if (left > 0) continue;
      expectEq(9, edge % 10, "a budget runs out on every 10th check");
      expect(Duplex.expired(), "expired() samples at interval 10");
      left = start = Duplex.budget();
      expectEq(10, start, "a new budget after a sample is the interval");
      samples++;
    }
    expectEq(100, samples, "samples of a loop at interval 10");
    // The counter is at 10 since the last sample. A return that took 3 back edges counts them.
    Duplex.spent(3);
    expectEq(6, Duplex.tick(), "spent() counted the back edges");
    Duplex.spent(0);
    expectEq(5, Duplex.tick(), "spent(0) counts nothing");
    // Sampling off: budgets are capped, so a loop still looks at the counter now and then (and
    // sees sampling switched on within that many iterations).
    Duplex.setInterval(0);
    int off = Duplex.loopEntry();
    expect(off > 0 && off <= 1 << 20, "a capped budget at interval 0: " + off);
    expectEq(off, Duplex.spend(off), "spending a capped budget leaves it capped");
    expect(!Duplex.expired(), "expired() at interval 0");
    // due(): the twin's decision when a budget, not the counter, may have run out.
    Duplex.setInterval(10);
    Duplex.reset();
    Duplex.spent(4);
    expect(!Duplex.due(), "due() with 6 checks left");
    expectEq(5, Duplex.tick(), "due() left the counter alone");
    Duplex.spent(5);
    expect(Duplex.due(), "due() once the counter ran out");
    expectEq(10, Duplex.budget(), "due() reset the counter");
    expectEq(1L, Duplex.samplesTaken(), "due() took one sample");
    Duplex.setInterval(1000);
  }

  static void intervals() {
    Duplex.setInterval(1);
    Duplex.reset();
    expectEq(1000, sampleIndices(1000).size(), "samples at interval 1");
    expectEq(1000L, Duplex.samplesTaken(), "samplesTaken at interval 1");

    Duplex.setInterval(10);
    Duplex.reset();
    List<Integer> hits = sampleIndices(1000);
    expectEq(100, hits.size(), "samples at interval 10");
    for (int k = 0; k < hits.size(); k++) {
      expectEq(10 * k + 9, hits.get(k), "sample position at interval 10");
    }
    expectEq(100L, Duplex.samplesTaken(), "samplesTaken at interval 10");

    Duplex.setInterval(0);
    Duplex.reset();
    expectEq(0, sampleIndices(100000).size(), "samples at interval 0");
    expectEq(0L, Duplex.samplesTaken(), "samplesTaken at interval 0");
    expectEq("0", Duplex.getOption("interval"), "getOption(interval)");
    Duplex.setInterval(1000);
  }

  static void setIntervalWhileRunning() throws Exception {
    // Single thread: the new interval counts from the call.
    Duplex.setInterval(1000);
    expectEq(0, sampleIndices(500).size(), "no sample in the first 500 of 1000");
    Duplex.setInterval(10);
    expectEq(Arrays.asList(9, 19), sampleIndices(20), "samples right after setInterval(10)");

    // Another thread checking all the time sees the changes.
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong seen = new AtomicLong();
    Thread worker = new Thread(() -> {
      long n = 0;
      while (!stop.get()) {
        if (Duplex.check()) seen.set(++n);
      }
    });
    worker.start();
    try {
      Duplex.setInterval(100);
      waitFor(() -> seen.get() > 1000, 5000, "worker samples at interval 100");
      Duplex.setInterval(0);
      Thread.sleep(50); // lets a decrement racing with setInterval run out
      long before = seen.get();
      Thread.sleep(200);
      expectEq(before, seen.get(), "no samples after setInterval(0)");
      Duplex.setInterval(50);
      waitFor(() -> seen.get() > before + 1000, 5000, "samples again after setInterval(50)");
    } finally {
      stop.set(true);
      worker.join();
      Duplex.setInterval(1000);
    }
  }

  static void jitter() {
    Duplex.configure("interval=100,jitter=0.5,seed=42");
    Duplex.reset();
    int n = 2_000_000;
    List<Integer> hits = sampleIndices(n);
    int samples = hits.size();
    expect(Math.abs(samples - n / 100) < n / 100 / 50, "mean kept: " + samples + " samples");
    int min = Integer.MAX_VALUE;
    int max = 0;
    for (int k = 1; k < hits.size(); k++) {
      int gap = hits.get(k) - hits.get(k - 1);
      min = Math.min(min, gap);
      max = Math.max(max, gap);
    }
    expect(min >= 50 && min < 55, "smallest gap near 50: " + min);
    expect(max <= 150 && max > 145, "largest gap near 150: " + max);

    // Same seed, same sequence.
    List<Integer> first = seededGaps();
    List<Integer> second = seededGaps();
    expectEq(first, second, "gaps after reseeding with 42");
    Duplex.configure("seed=7");
    Duplex.setInterval(1);
    Duplex.setInterval(100);
    expect(!first.equals(gaps(200)), "another seed gives other gaps");
    Duplex.configure("jitter=0,interval=1000");
  }

  /**
   * burst=4 at interval 10, no jitter: the counter fires at the 10th check, the next three checks
   * sample too, then the next interval is counted: samples at 9-12, 22-25, 35-38, ... Changing
   * the burst alone keeps the interval's counting; setInterval starts it afresh.
   */
  static void bursts() throws Exception {
    String jitterBefore = Duplex.getOption("jitter");
    Duplex.configure("jitter=0,burst=4");
    Duplex.setInterval(1);
    Duplex.setInterval(10);
    int n = 140;
    List<Integer> want = new ArrayList<>();
    for (int start = 9; start < n; start += 13) {
      for (int k = 0; k < 4 && start + k < n; k++) want.add(start + k);
    }
    expectEq(want, sampleIndices(n), "sample indices with burst=4, interval 10");
    expectEq((long) want.size(), Duplex.samplesTaken(), "every sample of a burst is counted");
    Element run = elements(parse(Duplex.profileXml()), "run").get(0);
    expectEq("4", run.getAttribute("burst"), "burst attribute");
    // A burst cut short by a new interval is forgotten: counting starts afresh.
    Duplex.setInterval(1);
    Duplex.setInterval(10);
    List<Integer> again = sampleIndices(n);
    expectEq(want, again, "the same indices after setInterval");
    Duplex.configure("burst=1,jitter=" + jitterBefore);
    Duplex.setInterval(1);
    Duplex.setInterval(10);
    expectEq(Arrays.asList(9, 19, 29), sampleIndices(30), "burst=1: one sample per interval");
    Duplex.setInterval(1000);
  }

  /**
   * Method counters (rewrite option --method-counters): a method's first check finds no counter
   * and leaves for its twin, which makes one; a thread stripe's first check on a counter makes its
   * cell with a phase drawn from [1, interval], counting that check, and leaves only when the
   * phase is 1; a cell that ran out (0) samples and restarts at the interval; interval 1 always
   * samples; sampling off parks the cells in place, and a new interval restarts every cell in
   * place. Checks on one counter then sample exactly once per interval after the first, and each
   * thread stripe counts on a cell of its own.
   */
  static void methodCounters() throws Exception {
    String jitterBefore = Duplex.getOption("jitter");
    Duplex.configure("jitter=0");
    Duplex.setInterval(10);
    expectEq(0, Duplex.tickOf(null), "a method's first check leaves for its twin");
    Object k = Duplex.methodCounter(null);
    expect(k != null && Duplex.methodCounter(k) == k, "the twin makes the counter once");
    int[] phases = new int[11];
    int sampled = 0;
    for (int i = 0; i < 10000; i++) {
      Object fresh = Duplex.methodCounter(null);
      int left = Duplex.tickOf(fresh); // makes this thread's cell, this check counted
      expect(left >= 0 && left <= 9, "a new cell's phase is in [1, 10]: " + (left + 1));
      if (left == 0) {
        sampled++;
        expect(Duplex.rearm(fresh), "phase 1: the first check samples");
        expectEq(10, checksToExpiry(fresh), "a first expiry that samples restarts at the interval");
      } else {
        phases[left]++;
        expect(!Duplex.rearm(fresh), "a cell with checks left is no sample");
        expectEq(left, checksToExpiry(fresh), "and keeps its phase");
      }
    }
    expect(sampled > 800 && sampled < 1200, "a tenth of first expiries sample: " + sampled);
    for (int p = 1; p <= 9; p++)
      expect(phases[p] > 800 && phases[p] < 1200, "phase " + p + " drawn " + phases[p] + " times");
    // A cell that ran out samples, restarts at the interval, and the sample is counted. (The
    // twin that made the counter found no cell: it made one, this check counted.)
    boolean firstSampled = Duplex.rearm(k);
    int phaseLeft = checksToExpiry(k);
    expect(firstSampled ? phaseLeft == 10 : phaseLeft <= 9, "the twin's new cell: " + phaseLeft);
    long before = Duplex.samplesTaken();
    expect(Duplex.rearm(k), "a counter that ran out samples");
    expectEq(before + 1, Duplex.samplesTaken(), "the sample is counted");
    expectEq(10, checksToExpiry(k), "and restarts at the interval");
    // One method's checks: after the first sample, one sample every 10 checks.
    Object m = null;
    List<Integer> samples = new ArrayList<>();
    for (int check = 0; check < 100; check++) {
      if (Duplex.tickOf(m) <= 0) {
        m = Duplex.methodCounter(m);
        if (Duplex.rearm(m)) samples.add(check);
      }
    }
    for (int i = 1; i < samples.size(); i++)
      expectEq(10, samples.get(i) - samples.get(i - 1), "samples 10 checks apart: " + samples);
    expect(samples.size() >= 9 && samples.size() <= 10, "9 or 10 samples in 100 checks: " + samples);
    otherStripeCountsApart(k);
    Duplex.setInterval(1);
    for (int i = 0; i < 5; i++) {
      Object fresh = Duplex.methodCounter(null);
      expect(Duplex.rearm(fresh), "interval 1: a first expiry samples");
      expectEq(1, checksToExpiry(fresh), "interval 1: every check samples");
    }
    Duplex.setInterval(0);
    expect(Duplex.tickOf(k) > 1_000_000, "sampling off parks every cell in place");
    expect(!Duplex.rearm(k), "sampling off: no sample");
    expect(Duplex.tickOf(Duplex.methodCounter(null)) > 1_000_000,
        "sampling off: a new cell parks at its first check");
    Duplex.setInterval(10);
    int left = checksToExpiry(k);
    expect(left >= 1 && left <= 10, "sampling on again: the cell takes a phase in place: " + left);
    Duplex.configure("jitter=" + jitterBefore);
    Duplex.setInterval(1000);
  }

  /**
   * burst=4 at interval 10 on method counters, no jitter: each method's checks sample in runs of
   * four consecutive checks whose starts are 13 checks apart, as on the shared counter, however
   * the checks of two methods interleave (a burst is its cell's own, Duplex.rearm); every sample
   * is counted.
   */
  static void methodCounterBursts() throws Exception {
    String jitterBefore = Duplex.getOption("jitter");
    Duplex.configure("jitter=0,burst=4");
    Duplex.setInterval(10);
    long before = Duplex.samplesTaken();
    Object[] counters = new Object[2];
    List<List<Integer>> samples = Arrays.asList(new ArrayList<>(), new ArrayList<>());
    for (int check = 0; check < 300; check++) {
      for (int k = 0; k < 2; k++) { // two methods' checks, interleaved
        if (Duplex.tickOf(counters[k]) > 0) continue;
        counters[k] = Duplex.methodCounter(counters[k]);
        if (Duplex.rearm(counters[k])) samples.get(k).add(check);
      }
    }
    for (List<Integer> one : samples) {
      List<Integer> runStarts = new ArrayList<>();
      int run = 0;
      for (int i = 0; i < one.size(); i++) {
        boolean next = i > 0 && one.get(i) == one.get(i - 1) + 1;
        if (!next) {
          if (i > 0) expectEq(4, run, "a burst of four consecutive checks: " + one);
          runStarts.add(one.get(i));
          run = 0;
        }
        run++;
      }
      for (int i = 1; i < runStarts.size(); i++)
        expectEq(13, runStarts.get(i) - runStarts.get(i - 1), "bursts 13 checks apart: " + one);
      expect(runStarts.size() >= 22, "about 23 bursts in 300 checks: " + one);
    }
    long taken = samples.get(0).size() + samples.get(1).size();
    expectEq(before + taken, Duplex.samplesTaken(), "every sample of a burst is counted");
    Duplex.configure("burst=1,jitter=" + jitterBefore);
    Duplex.setInterval(1000);
  }

  /** A receiver for {@link #receiversUnload}, defined again by a loader of its own. */
  public static final class Receiver {
    @Override
    public String toString() { return "receiver"; }
  }

  /** Defines {@link Receiver} in a loader of its own, which nothing else refers to. */
  static final class OneClassLoader extends ClassLoader {
    OneClassLoader() { super(RuntimeTest.class.getClassLoader()); }

    Class<?> defineReceiver() throws IOException {
      String name = Receiver.class.getName();
      byte[] bytes;
      try (java.io.InputStream in =
          getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
        bytes = in.readAllBytes();
      }
      return defineClass(name, bytes, 0, bytes.length);
    }
  }

  static final String WEAK_SITE =
      "duplextest/RuntimeTest\tweak\t()V\t7\t-1\tjava/lang/Object.toString()Ljava/lang/String;";

  /** Counts five virtual calls on a receiver of a class of a loader of its own; the loader. */
  static java.lang.ref.WeakReference<ClassLoader> countOnThrowawayClass() throws Exception {
    OneClassLoader loader = new OneClassLoader();
    Object receiver = loader.defineReceiver().getDeclaredConstructor().newInstance();
    expect(receiver.getClass() != Receiver.class, "a class of its own loader");
    for (int i = 0; i < 5; i++) Duplex.callSiteVirtual(receiver, WEAK_SITE);
    return new java.lang.ref.WeakReference<ClassLoader>(loader);
  }

  /**
   * A receiver's class counted at a virtual call site can still be unloaded, and with it its
   * loader (a server's redeployed application); its calls stay in the profile, under the site's
   * declared callee.
   */
  static void receiversUnload() throws Exception {
    Duplex.reset();
    java.lang.ref.WeakReference<ClassLoader> loader = countOnThrowawayClass();
    for (int i = 0; i < 100 && loader.get() != null; i++) {
      System.gc();
      Thread.sleep(10);
    }
    expect(loader.get() == null, "the receiver's class and its loader were unloaded");
    int found = 0;
    for (Element e : elements(parse(Duplex.profileXml()), "edge")) {
      if (!e.getAttribute("caller-method").equals("weak")) continue;
      found++;
      expectEq("java/lang/Object.toString()Ljava/lang/String;", e.getAttribute("callee"),
          "an unloaded receiver's calls go to the declared callee");
      expectEq("5", e.getAttribute("count"), "and none is lost");
    }
    expectEq(1, found, "one edge for the site");
    Duplex.reset();
  }

  /**
   * The runtime's list of method counters (MethodCounters.ALL, read by reflection: no API shows
   * it) drops the counters nobody holds once it has doubled, and keeps those still held.
   */
  static void methodCountersSwept() throws Exception {
    Class<?> counters = Class.forName("duplex.runtime.MethodCounters");
    java.lang.reflect.Field allField = counters.getDeclaredField("ALL");
    allField.setAccessible(true);
    List<?> all = (List<?>) allField.get(null);
    Object[] kept = new Object[10];
    for (int i = 0; i < kept.length; i++) kept[i] = Duplex.methodCounter(null);
    // Counters of classes since unloaded: nothing holds them.
    for (int i = 0; i < 2500; i++) Duplex.methodCounter(null);
    java.lang.ref.WeakReference<Object> gone =
        new java.lang.ref.WeakReference<>(Duplex.methodCounter(null));
    for (int i = 0; i < 100 && gone.get() != null; i++) {
      System.gc();
      Thread.sleep(10);
    }
    expect(gone.get() == null, "an unheld counter was collected");
    int before;
    int made = 0;
    boolean swept = false;
    synchronized (all) {
      before = all.size();
    }
    for (; made < 20_000 && !swept; made++) {
      Duplex.methodCounter(null);
      synchronized (all) {
        swept = all.size() < before + made + 1;
      }
    }
    expect(swept, "the list was swept (" + before + " entries, " + made + " more made)");
    int after;
    int keptFound = 0;
    synchronized (all) {
      after = all.size();
      for (Object ref : all) {
        Object cells = ((java.lang.ref.WeakReference<?>) ref).get();
        for (Object k : kept) keptFound += k == cells ? 1 : 0;
      }
    }
    // The list grows by one per counter made; the sweep takes out at least the 2,501 collected
    // (those made since the collection are still in it).
    expect(after <= before + made - 2501, "the sweep dropped the collected counters (" + before
        + " + " + made + " made -> " + after + ")");
    expectEq(kept.length, keptFound, "the counters still held stay in the list");
  }

  /** Checks on a method counter until it runs out: how many it took (the cell's count). */
  static int checksToExpiry(Object counter) {
    int n = 1;
    while (Duplex.tickOf(counter) > 0) n++;
    return n;
  }

  /** A thread on another stripe makes a cell of its own in `k`, and leaves this thread's alone. */
  static void otherStripeCountsApart(Object k) throws Exception {
    Duplex.rearm(k); // this thread's cell ran out: 10 checks left (interval 10)
    // The other thread's first checks on k and on 20 counters this thread made cells in: each
    // makes the thread's own cell with a phase (this check counted), leaving only at phase 1.
    Object[] others = new Object[20];
    for (int i = 0; i < others.length; i++) {
      others[i] = Duplex.methodCounter(null);
      Duplex.rearm(others[i]);
    }
    int[] seen = new int[1 + others.length];
    Thread t;
    do {
      t = new Thread(() -> {
        seen[0] = Duplex.tickOf(k);
        for (int i = 0; i < others.length; i++) seen[1 + i] = Duplex.tickOf(others[i]);
      });
    } while ((t.getId() & 15) == (Thread.currentThread().getId() & 15));
    t.start();
    t.join();
    int stayed = 0;
    for (int v : seen) {
      expect(v >= 0 && v <= 9, "another stripe's thread makes its cell: " + v);
      if (v > 0) stayed++;
    }
    expect(stayed >= 12, "most of a new stripe's first checks stay (phase > 1): " + stayed);
    expectEq(10, checksToExpiry(k), "this thread's cell is untouched");
  }

  static List<Integer> seededGaps() {
    Duplex.setInterval(1);
    Duplex.configure("interval=100,seed=42");
    return gaps(200);
  }

  static List<Integer> gaps(int count) {
    List<Integer> gaps = new ArrayList<>();
    int since = 0;
    while (gaps.size() < count) {
      since++;
      if (Duplex.check()) {
        gaps.add(since);
        since = 0;
      }
    }
    return gaps;
  }

  // ---------------------------------------------------------------------------------------------
  // Counting.

  static void fieldsAndEvents() throws Exception {
    for (int i = 0; i < 3; i++) Duplex.fieldRead("duplextest/A.f:I");
    for (int i = 0; i < 2; i++) Duplex.fieldWrite("duplextest/A.f:I");
    for (int i = 0; i < 7; i++) Duplex.fieldWrite("duplextest/A.g:Ljava/lang/String;");
    for (int i = 0; i < 5; i++) Duplex.event("kind:x");
    Duplex.event(new String("kind:x")); // an equal key that is not the same object
    for (int i = 0; i < 6; i++) Duplex.event("kind:y");
    Duplex.event("other:z");
    Document doc = parse(Duplex.profileXml());

    List<Element> fields = elements(doc, "field");
    expectEq(2, fields.size(), "field rows");
    Element g = fields.get(0);
    expectEq(
        "duplextest/A.g:Ljava/lang/String;", g.getAttribute("key"), "first field (7 accesses)");
    expectEq("duplextest/A", g.getAttribute("owner"), "owner");
    expectEq("g", g.getAttribute("name"), "name");
    expectEq("Ljava/lang/String;", g.getAttribute("descriptor"), "descriptor");
    expectEq("0", g.getAttribute("reads"), "g reads");
    expectEq("7", g.getAttribute("writes"), "g writes");
    Element f = fields.get(1);
    expectEq("duplextest/A.f:I", f.getAttribute("key"), "second field");
    expectEq("3", f.getAttribute("reads"), "f reads");
    expectEq("2", f.getAttribute("writes"), "f writes");
    Element section = elements(doc, "field-accesses").get(0);
    expectEq("3", section.getAttribute("reads"), "total reads");
    expectEq("9", section.getAttribute("writes"), "total writes");

    List<Element> events = elements(doc, "event");
    expectEq(3, events.size(), "event rows");
    expectEq("kind:x", events.get(0).getAttribute("key"), "ties sorted by key");
    expectEq("6", events.get(0).getAttribute("count"), "kind:x count (copy merged)");
    expectEq("kind:y", events.get(1).getAttribute("key"), "second event");
    expectEq("6", events.get(1).getAttribute("count"), "kind:y count");
    expectEq("other:z", events.get(2).getAttribute("key"), "third event");
    expectEq("13", elements(doc, "events").get(0).getAttribute("total"), "events total");
  }

  static void concurrentCounts() throws Exception {
    int threads = 8;
    int perThread = 20000;
    int keys = 300; // enough new keys to grow the table while other threads count
    List<Thread> list = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread th = new Thread(() -> {
        for (int i = 0; i < perThread; i++) {
          Duplex.event("mt:shared");
          Duplex.fieldRead("mt/C.f:I");
          if (i < keys) Duplex.event("mt:k" + i);
        }
      });
      list.add(th);
      th.start();
    }
    for (Thread th : list) th.join();
    Document doc = parse(Duplex.profileXml());
    List<Element> events = elements(doc, "event");
    expectEq(keys + 1, events.size(), "distinct events");
    expectEq("mt:shared", events.get(0).getAttribute("key"), "most frequent first");
    expectEq(
        Integer.toString(threads * perThread), events.get(0).getAttribute("count"), "shared count");
    for (Element e : events.subList(1, events.size())) {
      expectEq(Integer.toString(threads), e.getAttribute("count"), e.getAttribute("key"));
    }
    expectEq(Integer.toString(threads * perThread),
        elements(doc, "field").get(0).getAttribute("reads"), "field reads");
  }

  static void entriesAndBackedges() throws Exception {
    for (int i = 0; i < 3; i++) Duplex.countEntry();
    for (int i = 0; i < 4; i++) Duplex.countBackedge();
    expectEq(3L, Duplex.entriesExecuted(), "entries");
    expectEq(4L, Duplex.backedgesExecuted(), "backedges");
    Element run = elements(parse(Duplex.profileXml()), "run").get(0);
    expectEq("3", run.getAttribute("entries"), "entries attribute");
    expectEq("4", run.getAttribute("backedges"), "backedges attribute");
    expect(!run.hasAttribute("checks"), "no checks attribute when countChecks is off");
  }

  // ---------------------------------------------------------------------------------------------
  // Dumping.

  static void dumpWellFormed() throws Exception {
    Path out = tmp.resolve("well-formed.xml");
    Duplex.configure("mode=full,profile=call-edges+fields");
    Duplex.setOut(out.toString());
    String nasty = "odd:<tag> & \"quoted\" 'single'\ttab\nnewline\u0001ctl \uD83D\uDE00";
    Duplex.event(nasty);
    Duplex.fieldRead("duplextest/A.f:I");
    expect(Duplex.dump(), "dump() returned false");
    Document doc = parse(Files.readAllBytes(out));
    Element root = doc.getDocumentElement();
    expectEq("duplex-profile", root.getTagName(), "root element");
    expectEq("1", root.getAttribute("version"), "format version");
    Element run = elements(doc, "run").get(0);
    expectEq("full", run.getAttribute("mode"), "mode");
    expectEq("call-edges+fields", run.getAttribute("profile"), "profile");
    expectEq("1000", run.getAttribute("interval"), "interval");
    expectEq("counter", run.getAttribute("trigger"), "trigger");
    expectEq("striped", run.getAttribute("counter"), "counter");
    expectEq("api", run.getAttribute("reason"), "reason");
    for (String a : new String[] {"jitter", "burst", "seed", "samples", "jvm-name", "jvm-version", "start",
             "end", "duration-ms", "counts-since"}) {
      expect(run.hasAttribute(a), "run attribute " + a);
    }
    expect(System.getProperty("java.vm.name").equals(run.getAttribute("jvm-name")), "jvm-name");
    String back = elements(doc, "event").get(0).getAttribute("key");
    expectEq(nasty.replace('\u0001', '\uFFFD'), back, "escaped key read back");
    expectEq(1, elements(doc, "call-edges").size(), "call-edges section present");
    expectEq(1, elements(doc, "field").size(), "one field");
    Duplex.configure("mode=,profile=");
  }

  static void dumpAtomic() throws Exception {
    Path out = tmp.resolve("atomic.xml");
    Duplex.setOut(out.toString());
    expect(Duplex.dump(), "first dump");
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger reads = new AtomicInteger();
    AtomicInteger bad = new AtomicInteger();
    Thread reader = new Thread(() -> {
      while (!stop.get()) {
        try {
          parse(Files.readAllBytes(out));
          reads.incrementAndGet();
        } catch (Exception e) {
          bad.incrementAndGet();
        }
      }
    });
    reader.start();
    try {
      for (int i = 0; i < 300; i++) {
        for (int k = 0; k < 20; k++) Duplex.event("atomic:" + i + ":" + k);
        expect(Duplex.dump(), "dump " + i);
      }
    } finally {
      stop.set(true);
      reader.join();
    }
    expectEq(0, bad.get(), "partial profiles seen by the reader");
    expect(reads.get() > 0, "the reader read something");
    expectEq(6000, elements(parse(Files.readAllBytes(out)), "event").size(), "final profile");
    try (Stream<Path> files = Files.list(tmp)) {
      List<Path> leftovers = new ArrayList<>();
      files.filter(p -> p.getFileName().toString().endsWith(".tmp")).forEach(leftovers::add);
      expectEq(new ArrayList<Path>(), leftovers, "temporary files left behind");
    }
  }

  static void dumpFailure() throws Exception {
    Duplex.setOut(tmp.resolve("no-such-dir").resolve("x.xml").toString());
    System.out.println("     (one 'cannot write profile' line on stderr is expected)");
    expect(!Duplex.dump(), "dump() into a missing directory must return false");
    Duplex.setOut(mainOut);
  }

  static void reset() throws Exception {
    Duplex.setInterval(1);
    Duplex.check();
    Duplex.event("reset:e");
    Duplex.fieldWrite("reset/C.f:I");
    CallSites.callerA();
    Duplex.reset();
    Document doc = parse(Duplex.profileXml());
    expectEq(0, elements(doc, "event").size(), "events after reset");
    expectEq(0, elements(doc, "field").size(), "fields after reset");
    expectEq(0, elements(doc, "edge").size(), "edges after reset");
    expectEq("0", elements(doc, "run").get(0).getAttribute("samples"), "samples after reset");
    expectEq(0L, Duplex.samplesTaken(), "samplesTaken after reset");
    Duplex.event("reset:e");
    expectEq(1, elements(parse(Duplex.profileXml()), "event").size(), "counting after reset");
    Duplex.setInterval(1000);
  }

  /** The edge of the profile with these caller method, offset and callee, or null. */
  static Element edge(Document doc, String method, String offset, String callee) {
    for (Element e : elements(doc, "edge")) {
      if (e.getAttribute("caller-method").equals(method) && e.getAttribute("offset").equals(offset)
          && e.getAttribute("callee").equals(callee)) {
        return e;
      }
    }
    return null;
  }

  /** Expects that edge, with each (attribute, value) pair of {@code attributes}. */
  static void expectEdge(Document doc, String method, String offset, String callee, String what,
      String... attributes) {
    Element e = edge(doc, method, offset, callee);
    boolean ok = e != null;
    for (int i = 0; ok && i + 1 < attributes.length; i += 2) {
      ok = e.getAttribute(attributes[i]).equals(attributes[i + 1]);
    }
    expect(ok, what);
  }

  static void classCounterTables() throws Exception {
    Duplex.reset();
    // Version 2 (rewriter/class_counters.h): call sites of the class under "m" lines.
    java.util.concurrent.atomic.AtomicLongArray v2 = Duplex.counters("duplex-counters 2\n"
        + "class t/V2\n"
        + "m run\t()V\n"
        + "s 3\t10\tt/V2.helper()V\n" // slot 0
        + "r t/V2.f:I\n" // slot 1
        + "v 9\t11\tjava/lang/Object.toString()Ljava/lang/String;\n" // slot 2
        + "m other\t(I)I\n"
        + "v 4\t-1\tjava/lang/Object.hashCode()I\n" // slot 3
        + "S t/Else\tx\t()V\t7\t1\tt/Else.y()V\n" // slot 4: a whole key
        + "V t/Else\tz\t()V\t8\t2\tjava/lang/Object.hashCode()I\n"); // slot 5
    expectEq(6, v2.length(), "slots of a version 2 table ('m' lines take none)");
    v2.getAndIncrement(0);
    v2.getAndIncrement(0);
    v2.getAndIncrement(1);
    v2.getAndIncrement(4);
    for (int i = 0; i < 3; i++) Duplex.callSiteVirtual("a string", v2, 2);
    Duplex.callSiteVirtual(null, v2, 2); // a null receiver counts on the declared callee
    Duplex.callSiteVirtual(Integer.valueOf(1), v2, 3);
    Duplex.callSiteVirtual(new Object(), v2, 5);
    Duplex.callSiteVirtual("ignored", v2, 1); // not a virtual site: nothing counted
    Duplex.callSiteVirtual("ignored", v2, 99); // no such slot: nothing counted, nothing thrown
    Duplex.callSiteVirtual("ignored", new java.util.concurrent.atomic.AtomicLongArray(4), 0);
    // Version 1: whole keys.
    java.util.concurrent.atomic.AtomicLongArray v1 = Duplex.counters(
        "duplex-counters 1\nclass t/V1\ns t/V1\tgo\t()V\t5\t20\tt/V1.helper()V\n");
    v1.getAndIncrement(0);
    // A version this runtime does not know: nothing counted under any key (and one line said).
    java.util.concurrent.atomic.AtomicLongArray v3 = Duplex.counters(
        "duplex-counters 3\nclass t/V3\ns t/V3\tgo\t()V\t5\t20\tt/V3.helper()V\n"
        + "v t/V3\tgo\t()V\t6\t20\tjava/lang/Object.hashCode()I\n");
    v3.getAndIncrement(0);
    Duplex.callSiteVirtual("x", v3, 1);
    Document doc = parse(Duplex.profileXml());
    expectEdge(doc, "run", "3", "t/V2.helper()V", "static site under its m line",
        "caller-class", "t/V2", "caller-descriptor", "()V", "line", "10", "count", "2");
    expectEdge(doc, "run", "9", "java/lang/String.toString()Ljava/lang/String;",
        "virtual site, resolved by receiver", "count", "3");
    expectEdge(doc, "run", "9", "java/lang/Object.toString()Ljava/lang/String;",
        "null receiver on the declared callee", "count", "1");
    expectEdge(doc, "other", "4", "java/lang/Integer.hashCode()I", "the second m line applies",
        "caller-descriptor", "(I)I", "line", "-1");
    expectEdge(doc, "x", "7", "t/Else.y()V", "whole static key (S)", "caller-class", "t/Else");
    expectEdge(doc, "z", "8", "java/lang/Object.hashCode()I", "whole virtual key (V)", "count",
        "1");
    expectEdge(doc, "go", "5", "t/V1.helper()V", "version 1 table", "caller-class", "t/V1");
    expectEq(7, elements(doc, "edge").size(), "edges: nothing counted for bad slots or tables");
    expectEq("1", elements(doc, "field").get(0).getAttribute("reads"), "field slot");
    // After a reset the slots find their (new) entries again.
    Duplex.reset();
    Duplex.callSiteVirtual("again", v2, 2);
    expectEdge(parse(Duplex.profileXml()), "run", "9",
        "java/lang/String.toString()Ljava/lang/String;", "virtual site counted after reset",
        "count", "1");
    Duplex.reset();
  }

  static void configure() {
    expectThrows(
        () -> Duplex.configure("interval=abc"), "duplex: bad value for duplex.interval: \"abc\"");
    expectThrows(
        () -> Duplex.configure("jitter=1.5"), "duplex: bad value for duplex.jitter: \"1.5\"");
    expectThrows(() -> Duplex.configure("log=loud"), "duplex: bad value for duplex.log: \"loud\"");
    expectThrows(() -> Duplex.configure("burst=0"), "duplex: bad value for duplex.burst: \"0\"");
    expectThrows(
        () -> Duplex.configure("burst=1000001"), "duplex: bad value for duplex.burst: \"1000001\"");
    expectThrows(() -> Duplex.configure("nosuch=1"), "duplex: unknown option \"nosuch\"");
    expectThrows(
        () -> Duplex.configure("interval"), "duplex: bad option \"interval\" (expected key=value)");
    expectThrows(() -> Duplex.setInterval(-1), "duplex: bad value for duplex.interval: \"-1\"");
    expectThrows(() -> Duplex.setOut(""), "duplex: bad value for duplex.out: \"\"");
    String fixed = expectThrows(() -> Duplex.configure("counter=global"), null);
    expect(fixed.contains("duplex.counter cannot be changed"), fixed);
    // All or nothing: a bad entry leaves the good ones unapplied.
    expectThrows(()
                     -> Duplex.configure("interval=5,jitter=2"),
        "duplex: bad value for duplex.jitter: \"2\"");
    expectEq("1000", Duplex.getOption("interval"), "interval after a failed configure");
    // Fixed options may be repeated with their current value, as the agent does.
    Duplex.configure(" counter=striped , trigger=counter,countChecks=false,,timerMs=20,dumpMs=0 ");
    expectEq("20", Duplex.getOption("timerMs"), "timerMs");
    Duplex.configure("interval=123");
    expectEq(123, Duplex.getInterval(), "getInterval after configure");
    Duplex.setInterval(1000);
  }

  static String expectThrows(Runnable r, String message) {
    try {
      r.run();
    } catch (IllegalArgumentException e) {
      if (message != null) expectEq(message, e.getMessage(), "exception message");
      return e.getMessage();
    }
    throw new Failure("no IllegalArgumentException; wanted " + message);
  }

  static void periodicDump() throws Exception {
    Path out = tmp.resolve("periodic.xml");
    Duplex.event("periodic:e");
    Duplex.configure("dumpMs=20,out=" + out);
    try {
      waitFor(() -> Files.exists(out), 5000, "periodic dump file");
      Element run = elements(parse(Files.readAllBytes(out)), "run").get(0);
      expectEq("periodic", run.getAttribute("reason"), "reason");
      // A new period is picked up.
      Duplex.configure("dumpMs=10");
      Files.delete(out);
      waitFor(() -> Files.exists(out), 5000, "periodic dump after changing the period");
    } finally {
      Duplex.configure("dumpMs=0");
      Duplex.setOut(mainOut);
    }
    Thread.sleep(100); // the dumper notices dumpMs=0 and stops
    Files.deleteIfExists(out);
    Thread.sleep(100);
    expect(!Files.exists(out), "no periodic dump after dumpMs=0");
  }

  // ---------------------------------------------------------------------------------------------
  // Call edges.

  static Element onlyEdge(Document doc) {
    List<Element> edges = elements(doc, "edge");
    expectEq(1, edges.size(), "edge rows");
    return edges.get(0);
  }

  static void callEdgeCaller() throws Exception {
    CallSites.callerA();
    Element e = onlyEdge(parse(Duplex.profileXml()));
    expectEq("duplextest/CallSites", e.getAttribute("caller-class"), "caller class");
    expectEq("callerA", e.getAttribute("caller-method"), "caller method");
    expectEq("()V", e.getAttribute("caller-descriptor"), "caller descriptor");
    expectEq("callerA", CallSites.lastCallerMethod, "Throwable's caller method");
    expectEq(Integer.toString(CallSites.lastCallerLine), e.getAttribute("line"), "line");
    expectEq(Integer.toString(CallSites.lastCallerBci), e.getAttribute("offset"), "offset = bci");
    expectEq(CallSites.CALLEE_KEY, e.getAttribute("callee"), "callee");
    expectEq("1", e.getAttribute("count"), "count");

    Duplex.reset();
    for (int i = 0; i < 3; i++) CallSites.callerB("x", i);
    e = onlyEdge(parse(Duplex.profileXml()));
    expectEq("callerB", e.getAttribute("caller-method"), "caller method B");
    expectEq("(Ljava/lang/String;J)Ljava/lang/String;", e.getAttribute("caller-descriptor"),
        "caller descriptor B");
    expectEq(Integer.toString(CallSites.lastCallerLine), e.getAttribute("line"), "line B");
    expectEq("3", e.getAttribute("count"), "count B");
  }

  /** Reflection and @Hidden frames between callee and caller are skipped (as StackWalker does). */
  static void callEdgeHiddenFrames() throws Exception {
    Duplex.reset();
    CallSites.viaReflection();
    Element e = onlyEdge(parse(Duplex.profileXml()));
    expectEq("duplextest/CallSites", e.getAttribute("caller-class"), "reflection: caller class");
    expectEq("viaReflection", e.getAttribute("caller-method"), "reflection: caller method");
    expectEq(CallSites.Reflected.KEY, e.getAttribute("callee"), "reflection: callee");
    Duplex.reset();
    CallSites.viaPrivileged();
    e = onlyEdge(parse(Duplex.profileXml()));
    expectEq("java/security/AccessController", e.getAttribute("caller-class"),
        "doPrivileged: caller class");
    expectEq("doPrivileged", e.getAttribute("caller-method"), "doPrivileged: caller method");
  }

  /**
   * Threads counting one edge while another registers tables for the caller's class (each one
   * makes every cached caller-site mapping be redone) and others count other edges: exact.
   */
  static void callEdgeConcurrent() throws Exception {
    Duplex.reset();
    int threads = 4;
    int perThread = 20000;
    AtomicBoolean done = new AtomicBoolean();
    Thread registrar = new Thread(() -> {
      for (int i = 0; !done.get(); i++) {
        Duplex.register(CallSites.Concurrent.class, "duplex-sites 1\nclass "
            + "duplextest/CallSites$Concurrent\nmethod other" + i + "()V\ncall 1 2 3\n");
        Thread.yield();
      }
    });
    registrar.start();
    List<Thread> list = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread th = new Thread(() -> {
        for (int i = 0; i < perThread; i++) {
          CallSites.Concurrent.caller();
          if (i % 100 == 0) CallSites.callerB("x", i);
        }
      });
      list.add(th);
      th.start();
    }
    for (Thread th : list) th.join();
    done.set(true);
    registrar.join();
    List<Element> edges = elements(parse(Duplex.profileXml()), "edge");
    expectEq(2, edges.size(), "edge rows");
    expectEq("duplextest/CallSites$Concurrent", edges.get(0).getAttribute("caller-class"),
        "most frequent edge");
    expectEq(Integer.toString(threads * perThread), edges.get(0).getAttribute("count"),
        "concurrent edge count");
    expectEq(Integer.toString(threads * perThread / 100), edges.get(1).getAttribute("count"),
        "callerB count");
  }

  static void callEdgeSiteTables() throws Exception {
    // Learn each caller's real bci (no table yet: the bci is reported as is).
    CallSites.Mapped.caller();
    int mappedBci = CallSites.lastCallerBci;
    expectEq(Integer.toString(mappedBci),
        onlyEdge(parse(Duplex.profileXml())).getAttribute("offset"), "offset before registration");
    CallSites.Mapped.notInTable();
    int notInTableBci = CallSites.lastCallerBci;
    CallSites.MappedByName.caller(1);
    int byNameBci = CallSites.lastCallerBci;
    int byNameLine = CallSites.lastCallerLine;
    CallSites.Unmapped.caller();
    int unmappedBci = CallSites.lastCallerBci;

    // Version 1 tables (a class rewritten before 2026-11-28) are still read; Outlined.java
    // registers version 2 ones.
    Duplex.register(CallSites.Mapped.class,
        "duplex-sites 1\nclass duplextest/CallSites$Mapped\nmethod caller()V\ncall " + mappedBci
            + " 777 4242\n");
    // A second part for the same class, as for tables longer than one constant.
    Duplex.register(CallSites.Mapped.class,
        "duplex-sites 1\nclass duplextest/CallSites$Mapped\nmethod other()V\ncall 3 1 2\n");
    Duplex.registerByName(
        "duplex-sites 1\nclass duplextest/CallSites$MappedByName\nmethod caller(I)V\n"
        + "call " + (byNameBci + 100) + " 1 1\ncall " + byNameBci + " 55 -1\n");
    Duplex.register(CallSites.Unmapped.class,
        "duplex-sites 1\nclass duplextest/CallSites$Unmapped\nmethod caller()V\ncall "
            + (unmappedBci + 1) + " 9 9\n");
    Duplex.reset();

    CallSites.Mapped.caller();
    Element e = onlyEdge(parse(Duplex.profileXml()));
    expectEq("777", e.getAttribute("offset"), "register: mapped offset");
    expectEq("4242", e.getAttribute("line"), "register: line from the table");

    Duplex.reset();
    CallSites.Mapped.notInTable();
    e = onlyEdge(parse(Duplex.profileXml()));
    expectEq(Integer.toString(notInTableBci), e.getAttribute("offset"),
        "method without a table keeps its bci");

    Duplex.reset();
    CallSites.MappedByName.caller(1);
    e = onlyEdge(parse(Duplex.profileXml()));
    expectEq("55", e.getAttribute("offset"), "registerByName: mapped offset");
    expectEq(
        Integer.toString(byNameLine), e.getAttribute("line"), "line -1 keeps the frame's line");

    Duplex.reset();
    CallSites.Unmapped.caller();
    e = onlyEdge(parse(Duplex.profileXml()));
    expectEq("-1", e.getAttribute("offset"), "bci missing from the method's table");
  }

  // ---------------------------------------------------------------------------------------------
  // Child JVMs.

  static final class ChildResult {
    int exit;
    String stdout;
    String stderr;

    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
    }
  }

  static String javaBin() {
    return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
  }

  static List<String> javaCommand(String classPath, List<String> jvmArgs, String scenario) {
    List<String> cmd = new ArrayList<>();
    cmd.add(javaBin());
    cmd.add("-Xverify:all");
    cmd.addAll(jvmArgs);
    cmd.add("-cp");
    cmd.add(classPath);
    cmd.add(RuntimeTest.class.getName());
    cmd.add("child");
    cmd.add(scenario);
    return cmd;
  }

  static ChildResult runChild(List<String> cmd) throws Exception {
    Path outFile = Files.createTempFile(tmp, "child", ".out");
    Path errFile = Files.createTempFile(tmp, "child", ".err");
    Process p = new ProcessBuilder(cmd)
                    .redirectOutput(outFile.toFile())
                    .redirectError(errFile.toFile())
                    .start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new Failure("child timed out: " + cmd);
    }
    ChildResult r = new ChildResult();
    r.exit = p.exitValue();
    r.stdout = new String(Files.readAllBytes(outFile), StandardCharsets.UTF_8);
    r.stderr = new String(Files.readAllBytes(errFile), StandardCharsets.UTF_8);
    return r;
  }

  static ChildResult child(String scenario, String... jvmArgs) throws Exception {
    List<String> args = new ArrayList<>(Arrays.asList(jvmArgs));
    ChildResult r = runChild(javaCommand(System.getProperty("java.class.path"), args, scenario));
    if (r.exit != 0) throw new Failure("child " + scenario + " failed: " + r);
    return r;
  }

  /** The warm-up (Warmup.java): ended by a profile, by time, and refused with the timer. */
  static void warmup() throws Exception {
    child("warmup", "-Dduplex.interval=1000", "-Dduplex.warmupMs=600000",
        "-Dduplex.warmupInterval=10", "-Dduplex.jitter=0", "-Dduplex.counter=global");
    child("warmupTimed", "-Dduplex.interval=1000", "-Dduplex.warmupMs=300",
        "-Dduplex.warmupInterval=100");
    child("warmupRace", "-Dduplex.interval=1000", "-Dduplex.warmupMs=200",
        "-Dduplex.warmupInterval=10");
    // The exit dump ends it too: its counts are scaled.
    Path out = tmp.resolve("warm-exit.xml");
    child("exit", "-Dduplex.out=" + out, "-Dduplex.interval=1000", "-Dduplex.warmupMs=600000",
        "-Dduplex.warmupInterval=500");
    Document doc = parse(Files.readAllBytes(out));
    String n = elements(doc, "event").get(0).getAttribute("count");
    expect(n.equals("21"), "42 * 500/1000 at exit: " + n);
    ChildResult r = runChild(javaCommand(System.getProperty("java.class.path"),
        Arrays.asList("-Dduplex.trigger=timer", "-Dduplex.warmupMs=100"), "touch"));
    expect(r.exit != 0, "a warm-up with the timer trigger must stop the program; " + r);
    expect(r.stderr.contains("duplex: warmupMs needs trigger=counter"), "the reason; " + r);
  }

  static void exitDump() throws Exception {
    Path out = tmp.resolve("exit.xml");
    child("exit", "-Dduplex.out=" + out);
    Document doc = parse(Files.readAllBytes(out));
    expectEq("exit", elements(doc, "run").get(0).getAttribute("reason"), "reason");
    Element e = elements(doc, "event").get(0);
    expectEq("exit:event", e.getAttribute("key"), "event key");
    expectEq("42", e.getAttribute("count"), "event count");
  }

  static void sigtermDump() throws Exception {
    Path out = tmp.resolve("term.xml");
    Path ready = tmp.resolve("term.ready");
    List<String> cmd = javaCommand(System.getProperty("java.class.path"),
        Arrays.asList("-Dduplex.out=" + out, "-Dduplextest.ready=" + ready), "sigterm");
    Process p = new ProcessBuilder(cmd).inheritIO().start();
    try {
      waitFor(() -> Files.exists(ready), 30000, "child ready");
      expect(!Files.exists(out), "no profile before SIGTERM");
      p.destroy(); // SIGTERM: HotSpot runs the shutdown hooks
      expect(p.waitFor(30, TimeUnit.SECONDS), "child ends after SIGTERM");
    } finally {
      p.destroyForcibly();
    }
    Document doc = parse(Files.readAllBytes(out));
    expectEq("exit", elements(doc, "run").get(0).getAttribute("reason"), "reason");
    expectEq("7", elements(doc, "event").get(0).getAttribute("count"), "event count");
  }

  /** The agent's way of loading the runtime: bootstrap class path, verified like user code. */
  static void bootstrap() throws Exception {
    String jar = null;
    List<String> rest = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (entry.endsWith(".jar")) {
        jar = entry;
      } else {
        rest.add(entry);
      }
    }
    expect(jar != null, "runtime jar on the class path");
    List<String> jvm =
        Arrays.asList("-XX:+UnlockDiagnosticVMOptions", "-XX:+BytecodeVerificationLocal",
            "-Xbootclasspath/a:" + jar, "-Dduplex.out=" + tmp.resolve("boot.xml"));
    ChildResult r = runChild(javaCommand(String.join(File.pathSeparator, rest), jvm, "boot"));
    if (r.exit != 0) throw new Failure("boot child failed: " + r);
  }

  static void badProperties() throws Exception {
    String[][] cases = {
        {"-Dduplex.interval=abc", "duplex: bad value for duplex.interval: \"abc\""},
        {"-Dduplex.jitter=1.5", "duplex: bad value for duplex.jitter: \"1.5\""},
        {"-Dduplex.burst=x", "duplex: bad value for duplex.burst: \"x\""},
        {"-Dduplex.counter=stripy", "duplex: bad value for duplex.counter: \"stripy\""},
        {"-Dduplex.trigger=", "duplex: bad value for duplex.trigger: \"\""},
        {"-Dduplex.countChecks=yes", "duplex: bad value for duplex.countChecks: \"yes\""},
        {"-Dduplex.intervall=5", "duplex: unknown option \"duplex.intervall\""},
    };
    for (String[] c : cases) {
      ChildResult r = runChild(
          javaCommand(System.getProperty("java.class.path"), Arrays.asList(c[0]), "touch"));
      expect(r.exit != 0, c[0] + ": the program must stop; " + r);
      List<String> lines = Arrays.asList(r.stderr.split("\n"));
      expect(lines.contains(c[1]), c[0] + ": stderr must have the line " + c[1] + "; " + r);
      expect(!r.stdout.contains("touched"), c[0] + ": main must not run past class init");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers.

  interface Condition {
    boolean holds() throws Exception;
  }

  static void waitFor(Condition c, long millis, String what) throws Exception {
    long deadline = System.nanoTime() + millis * 1_000_000L;
    while (!c.holds()) {
      if (System.nanoTime() > deadline) throw new Failure("timed out waiting for " + what);
      Thread.sleep(5);
    }
  }

  static Document parse(String xml) throws Exception {
    return parse(xml.getBytes(StandardCharsets.UTF_8));
  }

  static Document parse(byte[] xml) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(false);
    javax.xml.parsers.DocumentBuilder b = f.newDocumentBuilder();
    b.setErrorHandler(null);
    return b.parse(new ByteArrayInputStream(xml));
  }

  static List<Element> elements(Document doc, String tag) {
    NodeList nodes = doc.getElementsByTagName(tag);
    List<Element> list = new ArrayList<>();
    for (int i = 0; i < nodes.getLength(); i++) list.add((Element) nodes.item(i));
    return list;
  }

  static void deleteTree(Path root) throws IOException {
    if (root == null || !Files.exists(root)) return;
    try (Stream<Path> walk = Files.walk(root)) {
      List<Path> all = new ArrayList<>();
      walk.sorted(Comparator.reverseOrder()).forEach(all::add);
      for (Path p : all) Files.deleteIfExists(p);
    }
  }
}
