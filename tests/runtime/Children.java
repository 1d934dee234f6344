package duplextest;

import static duplextest.RuntimeTest.elements;
import static duplextest.RuntimeTest.expect;
import static duplextest.RuntimeTest.expectEq;
import static duplextest.RuntimeTest.parse;

import duplex.runtime.Duplex;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The scenarios RuntimeTest runs in child JVMs, for settings fixed at class init. A scenario
 * returns normally on success; a failed expectation ends the child with exit code 1.
 */
final class Children {
  private Children() {}

  static void run(String scenario) throws Exception {
    try {
      switch (scenario) {
        case "striped":
          striped();
          break;
        case "global":
          global();
          break;
        case "timer":
          timer();
          break;
        case "countChecks":
          countChecks();
          break;
        case "exit":
          for (int i = 0; i < 42; i++) Duplex.event("exit:event");
          break;
        case "sigterm":
          sigterm();
          break;
        case "boot":
          boot();
          break;
        case "edges": // the call-edge tests, run under the agent by tests/agent/edges.sh
          RuntimeTest.callEdgeCaller();
          Duplex.reset();
          RuntimeTest.callEdgeSiteTables();
          Outlined.check();
          RuntimeTest.callEdgeHiddenFrames();
          RuntimeTest.callEdgeConcurrent();
          System.out.println("edges ok");
          break;
        case "warmup":
          warmup();
          break;
        case "warmupTimed":
          warmupTimed();
          break;
        case "warmupRace":
          warmupRace();
          break;
        case "touch":
          Duplex.check();
          System.out.println("touched");
          break;
        default:
          throw new RuntimeTest.Failure("unknown scenario " + scenario);
      }
    } catch (RuntimeTest.Failure f) {
      System.err.println("child " + scenario + ": " + f.getMessage());
      System.exit(1);
    }
  }

  /**
   * -Dduplex.interval=1000 -Dduplex.warmupMs=600000 -Dduplex.warmupInterval=10 -Dduplex.jitter=0
   * -Dduplex.counter=global: sampling every 10 checks until a profile is taken, whose counts are
   * then the warm-up's times 10/1000; every 1000 checks after it, counts as they come.
   */
  static void warmup() throws Exception {
    expectEq(10, Duplex.getInterval(), "interval during the warm-up");
    expectEq(100, RuntimeTest.sampleIndices(1000).size(), "samples during the warm-up");
    for (int i = 0; i < 3000; i++) Duplex.event("warm:exact"); // 3000 * 10/1000 = 30
    for (int i = 0; i < 1234; i++) Duplex.event("warm:rounded"); // 12.34: 12 or 13
    java.util.concurrent.atomic.AtomicLongArray slots =
        Duplex.counters("duplex-counters 2\nclass t/W\nr t/W.f:I\n");
    slots.addAndGet(0, 500); // 5
    Document doc = parse(Duplex.profileXml()); // ends the warm-up
    Element run = elements(doc, "run").get(0);
    expectEq("1000", run.getAttribute("interval"), "interval attribute");
    expectEq("600000", run.getAttribute("warmup-ms"), "warmup-ms attribute");
    expectEq("10", run.getAttribute("warmup-interval"), "warmup-interval attribute");
    expectEq("30", eventCount(doc, "warm:exact"), "an event count scaled exactly");
    String rounded = eventCount(doc, "warm:rounded");
    expect(rounded.equals("12") || rounded.equals("13"), "12.34 rounds to 12 or 13: " + rounded);
    expectEq("5", elements(doc, "field").get(0).getAttribute("reads"), "a class counter scaled");
    expectEq(1000, Duplex.getInterval(), "interval after the warm-up");
    expectEq(2, RuntimeTest.sampleIndices(2000).size(), "samples after the warm-up");
    for (int i = 0; i < 7; i++) Duplex.event("warm:exact");
    expectEq("37", eventCount(parse(Duplex.profileXml()), "warm:exact"),
        "counts after the warm-up are not scaled (and the warm-up's only once)");
  }

  /** -Dduplex.interval=1000 -Dduplex.warmupMs=300 -Dduplex.warmupInterval=100: ends by itself. */
  static void warmupTimed() throws Exception {
    expectEq(100, Duplex.getInterval(), "interval during the warm-up");
    for (int i = 0; i < 40; i++) Duplex.event("timed");
    long deadline = System.currentTimeMillis() + 30000;
    while (Duplex.getInterval() != 1000 && System.currentTimeMillis() < deadline) Thread.sleep(20);
    expectEq(1000, Duplex.getInterval(), "interval once warmupMs passed");
    expectEq("4", eventCount(parse(Duplex.profileXml()), "timed"), "40 * 100/1000");
  }

  /**
   * -Dduplex.interval=1000 -Dduplex.warmupMs=200 -Dduplex.warmupInterval=10: the warm-up ends on
   * its own thread while this one samples and counts as fast as it can. Every check that samples
   * counts one event, so the profile must hold about one event per 1000 checks: the warm-up's
   * scaled, the rest as counted. (Scaling before switching the interval let this thread count at
   * the warm-up's rate, unscaled, while the scaling ran: 1.3 to 2.2 times too many events here,
   * 2.7 times on xalan.)
   */
  static void warmupRace() throws Exception {
    // Many class counters, so that scaling them takes a while, as in a large program.
    StringBuilder table = new StringBuilder("duplex-counters 2\nclass t/Many\n");
    for (int i = 0; i < 100000; i++) table.append("r t/Many.f").append(i).append(":I\n");
    Duplex.counters(table.toString());
    long start = System.currentTimeMillis();
    long checks = 0;
    while (System.currentTimeMillis() - start < 700) {
      for (int i = 0; i < 10000; i++) {
        if (Duplex.check()) Duplex.event("race");
      }
      checks += 10000;
    }
    expectEq(1000, Duplex.getInterval(), "interval once warmupMs passed");
    long want = checks / 1000;
    long got = Long.parseLong(eventCount(parse(Duplex.profileXml()), "race"));
    expect(Math.abs(got - want) <= want * 3 / 100,
        "events within 3% of one per 1000 checks: " + got + " for " + checks + " checks");
  }

  private static String eventCount(Document doc, String key) {
    for (Element e : elements(doc, "event")) {
      if (e.getAttribute("key").equals(key)) return e.getAttribute("count");
    }
    return "absent";
  }

  /** -Dduplex.counter=global -Dduplex.interval=10 */
  static void global() throws Exception {
    expectEq(100, RuntimeTest.sampleIndices(1000).size(), "global, interval 10");
    RuntimeTest.tickAndExpired();
    RuntimeTest.intervals();
    RuntimeTest.bursts();
    Element run = elements(parse(Duplex.profileXml()), "run").get(0);
    expectEq("global", run.getAttribute("counter"), "counter attribute");
  }

  /** -Dduplex.counter=striped -Dduplex.interval=10 */
  static void striped() throws Exception {
    expectEq(100, RuntimeTest.sampleIndices(1000).size(), "one thread, interval 10");
    int threads = 4;
    int checks = 200_000;
    AtomicLong trues = new AtomicLong();
    List<Thread> list = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread th = new Thread(() -> {
        long n = 0;
        for (int i = 0; i < checks; i++) {
          if (Duplex.check()) n++;
        }
        trues.addAndGet(n);
      });
      list.add(th);
    }
    Duplex.reset();
    for (Thread th : list) th.start();
    for (Thread th : list) th.join();
    long want = threads * (long) checks / 10;
    // Threads whose ids share a stripe race on it, so allow a little slack.
    expect(Math.abs(trues.get() - want) <= want / 20, "samples over 4 threads: " + trues.get());
    expectEq(trues.get(), Duplex.samplesTaken(), "samplesTaken");
    Duplex.setInterval(0);
    expectEq(0, RuntimeTest.sampleIndices(100_000).size(), "striped, interval 0");
    Duplex.setInterval(5);
    expectEq(20, RuntimeTest.sampleIndices(100).size(), "striped, interval 5");
    Element run = elements(parse(Duplex.profileXml()), "run").get(0);
    expectEq("striped", run.getAttribute("counter"), "counter attribute");
  }

  /** -Dduplex.trigger=timer -Dduplex.timerMs=5 */
  static void timer() throws Exception {
    Duplex.reset();
    long samples = 0;
    long start = System.nanoTime();
    long checks = 0;
    while (System.nanoTime() - start < 1_000_000_000L) {
      checks++;
      if (Duplex.check()) samples++;
    }
    long elapsedMs = (System.nanoTime() - start) / 1_000_000L;
    // At most one sample per tick; most ticks are seen by this busy thread.
    expect(samples >= 20, "timer samples in 1s: " + samples + " of " + checks + " checks");
    expect(samples <= elapsedMs / 5 + 5, "at most one sample per tick: " + samples);
    expectEq(samples, Duplex.samplesTaken(), "samplesTaken");
    // Interval 0 stops the ticks and parks the counter.
    Duplex.setInterval(0);
    Thread.sleep(20);
    expectEq(0, RuntimeTest.sampleIndices(1_000_000).size(), "timer, interval 0");
    Thread.sleep(50);
    expectEq(0, RuntimeTest.sampleIndices(1000).size(), "no ticks while interval is 0");
    // Ticks resume: the parked counter is zeroed, the next check samples and parks it again
    // (a second tick may land within the 1000 checks, rarely).
    Duplex.setInterval(1);
    Thread.sleep(50);
    int resumed = RuntimeTest.sampleIndices(1000).size();
    expect(resumed == 1 || resumed == 2, "samples after ticks resume: " + resumed);
    Element run = elements(parse(Duplex.profileXml()), "run").get(0);
    expectEq("timer", run.getAttribute("trigger"), "trigger attribute");
    // burst=3: a tick's sample is followed by samples at the next two checks.
    Duplex.configure("burst=3");
    Thread.sleep(50);
    List<Integer> hits = RuntimeTest.sampleIndices(1000);
    expect(hits.size() == 3 || hits.size() == 6, "a burst of 3 per tick seen: " + hits);
    expect(hits.get(1) == hits.get(0) + 1 && hits.get(2) == hits.get(0) + 2,
        "a burst's samples are at consecutive checks: " + hits);
    // A method counter (--method-counters) samples at the ticks too, bursts included: its
    // checks count on the shared counter the ticks zero. (Its own cell saw a tick only every
    // 16,384 of its checks, and then took a single sample.)
    Thread.sleep(50);
    hits = methodCounterSamples(1000);
    expect(hits.size() == 3 || hits.size() == 6, "a method counter's burst per tick: " + hits);
    expect(hits.get(1) == hits.get(0) + 1 && hits.get(2) == hits.get(0) + 2,
        "a method counter's burst is at consecutive checks: " + hits);
    Duplex.configure("burst=1");
    expectEq("5", run.getAttribute("timer-ms"), "timer-ms attribute");
  }

  /** The checks (of {@code n}) at which a method on a method counter samples, as its twin says. */
  private static List<Integer> methodCounterSamples(int n) {
    Object counter = null; // the method's static field, set by its twin
    List<Integer> hits = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (Duplex.tickOf(counter) > 0) continue;
      counter = Duplex.methodCounter(counter);
      if (Duplex.rearm(counter)) hits.add(i);
    }
    return hits;
  }

  /** -Dduplex.countChecks=true -Dduplex.interval=7 */
  static void countChecks() throws Exception {
    Duplex.reset();
    int samples = RuntimeTest.sampleIndices(1234).size();
    expectEq(176, samples, "samples at interval 7");
    expectEq(1234L, Duplex.checksExecuted(), "checksExecuted");
    for (int i = 0; i < 10; i++) Duplex.countEntry();
    for (int i = 0; i < 20; i++) Duplex.countBackedge();
    Element run = elements(parse(Duplex.profileXml()), "run").get(0);
    expectEq("1234", run.getAttribute("checks"), "checks attribute");
    expectEq("10", run.getAttribute("entries"), "entries attribute");
    expectEq("20", run.getAttribute("backedges"), "backedges attribute");
  }

  static void sigterm() throws Exception {
    for (int i = 0; i < 7; i++) Duplex.event("term:event");
    Files.write(Paths.get(System.getProperty("duplextest.ready")), new byte[0]);
    Thread.sleep(60_000); // the parent sends SIGTERM
    System.err.println("child sigterm: not terminated");
    System.exit(1);
  }

  /** -Xbootclasspath/a:duplex-runtime.jar, verified with BytecodeVerificationLocal. */
  static void boot() throws Exception {
    expect(Duplex.class.getClassLoader() == null, "Duplex is in the bootstrap loader");
    Duplex.setInterval(3);
    expectEq(3, RuntimeTest.sampleIndices(10).size(), "samples");
    Duplex.event("boot:e");
    Duplex.fieldRead("boot/C.f:I");
    CallSites.callerA();
    Duplex.register(
        CallSites.Mapped.class, "duplex-sites 1\nclass duplextest/CallSites$Mapped\nmethod x()V\n");
    Document doc = parse(Duplex.profileXml());
    List<Element> edges = elements(doc, "edge");
    expectEq(1, edges.size(), "edges");
    expectEq("callerA", edges.get(0).getAttribute("caller-method"), "caller method");
    expectEq(Integer.toString(CallSites.lastCallerLine), edges.get(0).getAttribute("line"), "line");
    expectEq(
        Integer.toString(CallSites.lastCallerBci), edges.get(0).getAttribute("offset"), "offset");
    expect(Duplex.dump(), "dump");
  }
}
