package duplex.runtime;

import java.lang.invoke.CallSite;
import java.lang.invoke.ConstantCallSite;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The runtime that classes rewritten by duplex call (Arnold &amp; Ryder's instrumentation
 * sampling).
 *
 * <p>The methods in the first group are the contract with the rewriter
 * (docs/design/runtime-contract.md): their names and descriptors must not change. The second group
 * is the control API for programs and for the duplex agent. Settings and the profile format are in
 * docs/profile-format.md.
 *
 * <p>The sample condition is a counter decremented by every check. In counter-trigger mode it is
 * reset to the interval (plus optional jitter) whenever it reaches zero; in timer-trigger mode a
 * daemon thread counts a tick every timerMs milliseconds and zeroes it; the first check to reach
 * zero after a tick takes the sample. Between ticks the counter counts down from TIMER_POLL and
 * then asks again: code that caches the counter in a local (the rewriter's local check) never
 * reads the zeroed counter inside a call-free loop, but still sees the tick within TIMER_POLL
 * checks. The global counter is a plain static int: threads racing on it may lose a
 * decrement, which shifts a sample by a check but never loses the sample condition for long
 * (the striped counter mode avoids most of those races).
 */
public final class Duplex {
  /**
   * Timer trigger: how many checks run between two looks at the tick count. Small enough that a
   * loop holding the counter in a local sees a tick promptly, large enough to cost nothing.
   */
  private static final int TIMER_POLL = 1 << 14;

  /** Timer ticks so far (written by the timer thread only). */
  private static volatile int ticks;

  /** The tick the global counter last sampled (timer trigger); stripes keep theirs beside them. */
  private static int tickSeen;
  /**
   * Where the counter waits while sampling is off (interval 0): about a second of checks away.
   * Each expiry costs a twin call (the twin then finds sampling off), so it must be rare. Not
   * Integer.MAX_VALUE: a decrement racing with setInterval() can write back the old parked
   * value; restartCounters() therefore writes the new start twice, a moment apart.
   */
  private static final int OFF = 1 << 30;

  /** Striped counters: 64 stripes, chosen by thread id (see {@link Stripe}). */
  private static final int STRIPE_MASK = 63;

  // Chosen at class init and never changed, so the JIT folds the branches in check() away.
  private static final boolean STRIPED;
  private static final boolean TIMER;
  private static final boolean COUNT_CHECKS;
  private static final boolean SPECIAL; // STRIPED || COUNT_CHECKS: check() must leave its fast path
  // The stripes (counter=striped); with check counting and the global counter, COUNTING alone
  // counts, so that `counter` can stay at 0 and every inline check reaches fire().
  private static final Stripe[] STRIPES;
  private static final Stripe COUNTING;

  /**
   * The global sample counter (counter=global). Deliberately not volatile: see the class doc.
   * Public for the inline check (`getstatic counter; iconst_1; isub; dup; putstatic counter;
   * ifgt skip; invokestatic fire()Z; ifne sample`). With the striped counter or check counting
   * it stays at zero or below, so every inline check goes to {@link #fire}, which counts with
   * the stripes instead.
   */
  public static int counter;

  /**
   * The thread whose duplicated code (a sample) is calling out, or null. Small loop-free methods
   * check this instead of decrementing the counter (their checks would otherwise dominate the
   * cost of hot loops they are inlined into): they are sampled when it is set and
   * {@link #samplingHere} says it is their own thread's, so they are sampled exactly when a
   * sampled caller of their thread calls them. {@link #checkEntry} clears it. One field for all
   * threads: while two threads sample at once, the later one's calls win it, and the other's
   * small callees go unsampled until its next call sets it again.
   */
  public static Thread sampling;

  /** A flag check found {@link #sampling} set: is the sample the calling thread's? */
  public static boolean samplingHere() {
    return sampling == Thread.currentThread();
  }

  /** Ends a sample the calling thread extended into this call (another thread's stays). */
  private static void endCallerSample() {
    Thread t = sampling;
    if (t != null && t == Thread.currentThread()) sampling = null;
  }

  static volatile int interval;
  static volatile double jitter;
  static volatile int burst;
  static volatile int timerMs;
  static volatile long dumpMs;
  static volatile String out;

  /** The current settings (the source of truth for configure); guarded by CONFIG. */
  private static Options options;

  private static final Object CONFIG = new Object();

  static final KeyCounts FIELD_READS = new KeyCounts();
  static final KeyCounts FIELD_WRITES = new KeyCounts();
  static final KeyCounts EVENTS = new KeyCounts();
  static final CallEdges CALL_EDGES = new CallEdges();
  static final CallSites CALL_SITES = new CallSites();
  /** Every store above: what reset() clears and the end of a warm-up scales. */
  private static final CountStore[] STORES = {
    FIELD_READS, FIELD_WRITES, EVENTS, CALL_EDGES, CALL_SITES
  };

  static final long START_MILLIS = System.currentTimeMillis();
  static volatile long countsSinceMillis = START_MILLIS;

  /** While a warm-up lasts (Warmup.java): the interval it samples at; 0 otherwise. */
  private static volatile int warmupInterval; // written under CONFIG

  private static Thread dumper; // guarded by CONFIG
  private static int recordErrors; // reported errors, to avoid flooding stderr

  static {
    Options o;
    try {
      o = Options.fromSystemProperties();
    } catch (IllegalArgumentException e) {
      // Inside the user's JVM a wrong option must stop the program, not be ignored.
      System.err.println(e.getMessage());
      throw new Error(e.getMessage());
    }
    STRIPED = o.striped;
    TIMER = o.timerTrigger;
    COUNT_CHECKS = o.countChecks;
    SPECIAL = STRIPED || COUNT_CHECKS;
    STRIPES = SPECIAL ? newStripes(o.seed) : null;
    COUNTING = SPECIAL ? STRIPES[0] : null;
    options = o;
    interval = o.interval;
    if (o.warmupMs > 0 && TIMER) {
      String m = "duplex: warmupMs needs trigger=counter (the timer trigger samples by time)";
      System.err.println(m);
      throw new Error(m);
    }
    if (Warmup.wanted(o)) {
      warmupInterval = o.warmupInterval;
      interval = warmupInterval;
    }
    jitter = o.jitter;
    burst = o.burst;
    timerMs = o.timerMs;
    dumpMs = o.dumpMs;
    out = o.out;
    Log.level = o.log;
    Sampler.seed(o.seed);
    restartCounters();
    startThreads();
    Log.debug("runtime started: " + describe(o));
  }

  private Duplex() {}

  // ---------------------------------------------------------------------------------------------
  // The contract with rewritten code.

  /**
   * A method entry's check: {@link #check}, after ending any sample a caller extended into this
   * call through {@link #sampling} (a method that counts its own checks samples itself).
   */
  public static boolean checkEntry() {
    if (sampling != null) endCallerSample(); // read first: the cache line stays shared
    return check();
  }

  /**
   * A check: true when the caller should take a sample (enter its duplicated code). Kept tiny (28
   * bytes of bytecode, under the JIT's always-inline limit of 35) so that it is inlined at every
   * method entry and loop back edge; the rare reset is in fireGlobal().
   */
  public static boolean check() {
    if (SPECIAL) return checkSpecial(); // folded away by the JIT in the default configuration
    if (--counter > 0) return false;
    return fireGlobal();
  }

  /**
   * The exit check of a checking method (outlined layout): decrements the counter and returns
   * it. At zero or below the caller leaves for its twin, which calls {@link #expired} to reset
   * the counter and decide whether to sample. No branch here: once inlined, the caller's own
   * `ifle` is the only one, and its rare side leaves the method instead of merging back into
   * the compiled loop (a call that merges back makes C2 reload every field after every check).
   */
  public static int tick() {
    if (SPECIAL) return tickSpecial();
    return --counter;
  }

  /**
   * The stripe a method's back-edge checks count on (the rewrite's stripe in a local): the
   * calling thread's stripe, or null with the global counter. A method looks it up once, at its
   * start, and hands it to {@link #tickAt} at each back edge; after a call, finding it again
   * would take the thread's id, the stripe array and the stripe, a chain of loads at every
   * iteration of a loop that calls. Typed Object so that rewritten code names no other runtime
   * class. An activation stays on its thread, so the stripe stays right for it.
   */
  public static Object here() {
    return SPECIAL ? (STRIPED ? stripe() : COUNTING) : null;
  }

  /** {@link #tick} on the stripe {@link #here} gave the calling method. */
  public static int tickAt(Object here) {
    if (!SPECIAL) return --counter;
    return tickOn((Stripe) here);
  }

  /** A counting method's entry: {@link #tick}, after ending a caller's flag sample. */
  public static int tickEntry() {
    if (sampling != null) endCallerSample();
    // tick()'s body, not a call of it: the interpreter runs every entry check, and a second
    // call there costs more than the check itself. 29 bytes: C1 and C2 still inline it.
    if (SPECIAL) return tickSpecial();
    return --counter;
  }

  // Method counters (the rewrite option --method-counters): each counting method counts down a
  // counter of its own instead of the shared one, so that each method is sampled at its own
  // 1-in-interval rate. A method's share of the samples then follows its own checks (stratified
  // sampling) instead of where the shared count happened to run out. The counter is a static
  // Object field of the method's class holding a MethodCell[]: one cell per thread stripe, so
  // that threads running the same method do not write the same cache line at every check
  // (docs/design/sampling-accuracy.md, "Per-thread cells"). Typed Object
  // so that rewritten code names no runtime class but this one. The field is set by the twin
  // ({@link #methodCounter}) at the method's first check; each thread stripe's cell is made by the
  // check that first needs it ({@link #firstTickOf}), so that a thread does not leave for the
  // twin just because it is new to the method.

  /** A back edge's check on a method counter: the cell's next value (at zero or below: leave). */
  public static int tickOf(Object counter) {
    // The timer trigger samples by time: the tick zeroes the shared counter, and a method's own
    // cell would see it only when its count ran out, TIMER_POLL of the method's checks later
    // (rarely called methods never), so every check counts on the shared counter instead.
    if (TIMER) return tick();
    if (COUNT_CHECKS) Sampler.countCheck();
    MethodCell c;
    if (counter == null || (c = ((MethodCell[]) counter)[cellIndex()]) == null) {
      return firstTickOf(counter);
    }
    return --c.count;
  }

  /**
   * The first check of this thread stripe on a method counter: makes the stripe's cell, counting
   * this check (0, to leave for the twin, when the method has no counter yet). Here rather than
   * in the twin: a thread new to a method (a worker starting on code the main thread made hot)
   * would otherwise leave for the twin from compiled code once per method, even with sampling
   * off (docs/design/sampling-accuracy.md, section 4). A call of its own, off the path that C2
   * inlines into every check.
   */
  private static int firstTickOf(Object counter) {
    if (counter == null) return 0; // the method's first check: its twin makes the counter
    return newCell((MethodCell[]) counter, cellIndex(), STRIPED ? stripe() : null).count;
  }

  /** Makes cell {@code i} of a method counter, at {@link #cellStart} with this check counted. */
  private static MethodCell newCell(MethodCell[] cells, int i, Stripe s) {
    MethodCell c = new MethodCell();
    c.count = cellStart(s) - 1;
    cells[i] = c;
    return c;
  }

  /**
   * Where a new or restarted cell starts: a phase drawn uniformly from [1, interval], as if it
   * had been counting all along, so that methods do not all take their first sample at their
   * first check; parked when sampling is off. (The timer trigger makes no cells: {@link #tickOf}.)
   * {@code s}: the calling thread's stripe (its PRNG), or null for the shared one.
   */
  static int cellStart(Stripe s) {
    int iv = interval;
    if (iv <= 0) return OFF;
    return s != null ? Sampler.phase(s, iv) : Sampler.phase(iv);
  }

  /** A counting method's entry on a method counter: {@link #tickOf}, after ending a caller's flag sample. */
  public static int tickEntryOf(Object counter) {
    if (sampling != null) endCallerSample();
    return tickOf(counter);
  }

  /**
   * In a twin entered because its method counter ran out: the counter to store back in the field
   * (the one given, or a new one on the method's first check).
   */
  public static Object methodCounter(Object counter) {
    if (TIMER) return null; // the timer trigger counts on the shared counter: no cells (tickOf)
    return counter != null ? counter : MethodCounters.make();
  }

  /**
   * In a twin entered because its method counter ran out (after {@link #methodCounter}): restarts
   * the calling thread's cell; true: sample. The cell is missing only on the method's first check
   * (the check found no counter): it is made as {@link #firstTickOf} makes one. A cell below 0
   * (threads sharing it raced) starts afresh the same way (a sample may be lost, never biased).
   * A cell at 0 ran out: the shared counter's rule decides ({@link #nextStart}); sampling off
   * parks the cell as far away as the shared counter (a later setInterval() restarts every cell:
   * {@link MethodCounters#restartAll}). A burst ({@code burst=b}, counter trigger) is the cell's
   * own: its next b - 1 checks sample too. The shared counter's bursts would fall on whatever
   * checks came next, of methods that count on it (interfaces, flag checks) and not of this
   * one, and such methods took b times the samples of the others: rhino's call edges 94.3%
   * overlap without bursts and 70.7% with burst=4, measured 2026-11-28 before this.
   */
  public static boolean rearm(Object counter) {
    if (TIMER) return expired(); // the shared counter ran out (tickOf): its rule, bursts included
    MethodCell[] cells = (MethodCell[]) counter;
    int i = cellIndex();
    Stripe s = STRIPED ? stripe() : null;
    MethodCell c = cells[i];
    if (c == null) {
      c = newCell(cells, i, s);
    } else if (c.count < 0) {
      c.count = cellStart(s) - 1;
    }
    if (c.count > 0) return false;
    int next = nextStart(s, 1, OFF);
    if (next > 0 && burst > 1) next = cellBurst(c, next);
    c.count = Math.abs(next);
    return next > 0;
  }

  /**
   * A sample of cell {@code c} under bursts: 1 (the next check samples too) while its burst has
   * samples left to take, else {@code next}, the interval.
   */
  private static int cellBurst(MethodCell c, int next) {
    c.burstLeft = c.burstLeft > 0 ? c.burstLeft - 1 : burst - 1;
    return c.burstLeft > 0 ? 1 : next;
  }

  /** The calling thread's cell of a method counter: its stripe's, or the one cell (counter=global). */
  private static int cellIndex() {
    return STRIPED ? (int) Thread.currentThread().getId() & MethodCounters.CELL_MASK : 0;
  }

  /** In a twin entered because {@link #tick} reached zero: reset the counter; true: sample. */
  public static boolean expired() {
    if (SPECIAL) return fireStripe(STRIPED ? stripe() : COUNTING);
    return fireGlobal();
  }

  /**
   * Loop budgets (the local check form of the outlined layout): a method with loops counts its
   * back edges in a local, the budget, instead of decrementing the shared counter at each one,
   * so its loops carry no store and C2 can unroll and vectorize them. The budget is the
   * counter's value at entry, capped, so that a loop looks at the counter again within that many
   * iterations and sees sampling switched on (the timer trigger keeps the counter at
   * TIMER_POLL, which caps budgets further).
   */
  private static final int LOOP_BUDGET = 1 << 20;

  /** A loop method's entry: {@link #tickEntry}, as a budget. At zero or below: leave for the twin. */
  public static int loopEntry() {
    return Math.min(tickEntry(), LOOP_BUDGET);
  }

  /** The budget a loop starts with where a twin takes over (after {@link #expired}). */
  public static int budget() {
    return Math.min(counterLeft(), LOOP_BUDGET);
  }

  /**
   * A loop used up its budget of {@code checks} back edges: counts them on the shared counter and
   * returns the next budget. At zero or below the counter ran out: leave for the twin.
   */
  public static int spend(int checks) {
    spent(checks);
    return budget();
  }

  /**
   * The twin's decision when loop budgets are used: the checking method leaves for the twin when
   * the counter ran out or when a loop's budget did ({@link #spent} counted it first). Samples
   * (as {@link #expired}) only in the first case; false: go on unsampled.
   */
  public static boolean due() {
    return counterLeft() <= 0 && expired();
  }

  /** The calling thread's counter: the global one, or its stripe. */
  private static int counterLeft() {
    return SPECIAL ? (STRIPED ? stripe() : COUNTING).counter : counter;
  }

  /**
   * A loop method returns, or calls a method that may count checks, having taken {@code checks}
   * of its budget: count them. A budget taken when the counter had already run out (another
   * thread on the stripe, a JDK callback in between) is 0 or below: nothing to count.
   */
  public static void spent(int checks) {
    if (checks > 0) countDown(checks);
  }

  private static void countDown(int checks) {
    if (!SPECIAL) {
      counter -= checks;
      return;
    }
    if (COUNT_CHECKS) Sampler.countChecks(checks);
    (STRIPED ? stripe() : COUNTING).counter -= checks;
  }

  private static int tickSpecial() {
    return tickOn(STRIPED ? stripe() : COUNTING);
  }

  /** A check counted on stripe {@code s} (the striped counter, or check counting). */
  private static int tickOn(Stripe s) {
    if (COUNT_CHECKS) Sampler.countCheck();
    return --s.counter;
  }

  private static Stripe stripe() {
    return STRIPES[(int) Thread.currentThread().getId() & STRIPE_MASK];
  }

  private static Stripe[] newStripes(long seed) {
    Stripe[] s = new Stripe[STRIPE_MASK + 1];
    for (int i = 0; i < s.length; i++) {
      s[i] = new Stripe();
      Sampler.seed(s[i], seed, i);
    }
    return s;
  }

  /**
   * The slow path of the inline check, taken when it brought {@link #counter} to zero or below:
   * reset the counter and decide whether this is a sample. True: take the sample.
   */
  public static boolean fire() {
    if (SPECIAL) {
      counter = 0; // every inline check comes here: count it, and use the stripes
      return checkSpecial();
    }
    return fireGlobal();
  }

  /** check() for the striped counter or with check counting (kept out of check()'s bytecode). */
  private static boolean checkSpecial() {
    if (COUNT_CHECKS) Sampler.countCheck();
    Stripe s = STRIPED ? stripe() : COUNTING;
    if (--s.counter > 0) return false;
    return fireStripe(s);
  }

  /** The counter reached zero: reset it and decide whether this is a sample. */
  private static boolean fireGlobal() {
    int next = nextStart(null, burst, TIMER ? TIMER_POLL : OFF);
    counter = Math.abs(next);
    return next > 0;
  }

  private static boolean fireStripe(Stripe s) {
    int next = nextStart(s, burst, TIMER ? TIMER_POLL : OFF);
    s.counter = Math.abs(next);
    return next > 0;
  }

  /**
   * The decision when a counter (the global one with {@code s} null, a stripe's, or a method's)
   * has run out: where it starts again, negated when this is no sample. Sampling off parks it
   * {@code park} checks away; the timer trigger samples once per tick (seen by the global counter
   * or by the stripe), then as many checks as the burst asks for.
   */
  private static int nextStart(Stripe s, int burst, int park) {
    int iv = interval;
    if (iv <= 0) return -park;
    if (TIMER) {
      int t = ticks;
      boolean inBurst = s != null ? s.burstTaken > 0 : Sampler.inBurst();
      if (t == (s != null ? s.tickSeen : tickSeen) && !inBurst) {
        return -TIMER_POLL; // no tick since the last sample: poll again later
      }
      if (s != null) s.tickSeen = t;
      else tickSeen = t;
      boolean more = s != null ? Sampler.countInBurst(s, burst) : Sampler.timerSample(burst);
      return more ? 1 : TIMER_POLL;
    }
    return s != null ? Sampler.sample(s, iv, jitter, burst) : Sampler.sample(iv, jitter, burst);
  }

  // Hand-back: an outlined twin whose check did not fire returns to its checking method, which
  // goes on from the same point (rewriter/hand_back.h). Called once per sample, not per check.

  /**
   * Twin side: names the layout entry to resume at and returns the thread's array for the
   * primitive locals (indexed by slot), with room for {@code slots} slots.
   */
  public static long[] handBack(int entry, int slots) {
    HandBack b = HandBack.current();
    b.start(entry, slots);
    return b.prims;
  }

  /** Twin side: the thread's array for the reference locals (after {@link #handBack}). */
  public static Object[] handBackRefs() {
    return HandBack.current().refs;
  }

  /**
   * Checking side, after every call of the twin: the entry the twin handed back to, or -1 if it
   * returned.
   */
  public static int resumeEntry() {
    return HandBack.current().takeEntry();
  }

  /** Checking side: the primitive locals the twin left. */
  public static long[] resumePrims() {
    return HandBack.current().prims;
  }

  /** Checking side: the reference locals the twin left. */
  public static Object[] resumeRefs() {
    return HandBack.current().refs;
  }

  /** Checking side, once the locals are restored: drops the references the buffer holds. */
  public static void resumed() {
    HandBack.current().clearRefs();
  }

  /** Counts a call edge from the caller of the calling method to {@code calleeKey}. */
  public static void callEdge(String calleeKey) {
    int[] g = Guard.enter();
    if (g == null) return;
    try {
      // The agent's stack walk is called from here, not deeper: every frame above the caller
      // costs it about 100 ns (GetStackTrace walks them all).
      CallerSite s = CallerFinder.nativeStack ? callerSite0() : CallerFinder.callerSite();
      if (s != null) {
        s.count(calleeKey);
      } else {
        Log.debug("call edge to " + calleeKey + " has no caller frame; dropped");
      }
    } catch (RuntimeException e) {
      recordFailed("callEdge", e);
    } finally {
      g[0] = 0;
    }
  }

  /** Counts a read of the field {@code owner.name:desc}. */
  public static void fieldRead(String fieldKey) { count(FIELD_READS, fieldKey); }

  /** Counts a write of the field {@code owner.name:desc}. */
  public static void fieldWrite(String fieldKey) { count(FIELD_WRITES, fieldKey); }

  /**
   * No-Duplication's guarded events in one call: the check, then the event if it samples.
   * Small enough that the JIT inlines them, so they cost what `check(); ifeq; event` costs,
   * in half the bytecode at every site.
   */
  public static void sampledFieldRead(String fieldKey) {
    if (check()) fieldRead(fieldKey);
  }

  /** See {@link #sampledFieldRead}. */
  public static void sampledFieldWrite(String fieldKey) {
    if (check()) fieldWrite(fieldKey);
  }

  /** See {@link #sampledFieldRead}; the caller is found as for {@link #callEdge}. */
  public static void sampledCallEdge(String calleeKey) {
    if (check()) callEdge(calleeKey);
  }

  /**
   * Counts one static or special call at the call site {@code siteKey} (caller-side call edges:
   * see {@link CallSites} for the key). Rewritten code calls it just before the invoke.
   */
  public static void callSite(String siteKey) {
    CallSites.Site s = CALL_SITES.find(siteKey);
    if (s == null && (s = addSite(siteKey)) == null) return;
    CallSites.count(s);
  }

  /** As {@link #callSite}, for a virtual or interface call on {@code receiver}. */
  public static void callSiteVirtual(Object receiver, String siteKey) {
    CallSites.Site s = CALL_SITES.find(siteKey);
    if (s == null && (s = addSite(siteKey)) == null) return;
    CallSites.countVirtual(s, receiver);
  }

  /**
   * As {@link #callSiteVirtual(Object, String)}, in a class with counters of its own: the site
   * is slot {@code slot} of the class's {@code counts} ({@link #counters}), whose table holds its
   * key, so the class carries no key string per site. The site's entry is looked up once and
   * then kept beside the slot.
   */
  public static void callSiteVirtual(Object receiver, AtomicLongArray counts, int slot) {
    CallSites.Site s = ClassCounts.site(counts, slot);
    if (s == null && (s = findSite(counts, slot)) == null) return;
    CallSites.countVirtual(s, receiver);
  }

  private static CallSites.Site findSite(AtomicLongArray counts, int slot) {
    String key = ClassCounts.virtualSiteKey(counts, slot);
    if (key == null) return null;
    CallSites.Site s = CALL_SITES.find(key);
    if (s == null && (s = addSite(key)) == null) return null;
    ClassCounts.remember(counts, slot, s);
    return s;
  }

  // The event paths above and count() below take no guard when the key is known: they then run
  // only the runtime's own code, String.hashCode and java.util.concurrent, none of which the
  // agent rewrites, so they cannot raise events themselves. Adding a key allocates and locks,
  // so it runs under the guard, once per key.

  private static CallSites.Site addSite(String siteKey) {
    int[] g = Guard.enter();
    if (g == null) return null;
    try {
      return CALL_SITES.add(siteKey);
    } catch (RuntimeException e) {
      recordFailed("callSite", e);
      return null;
    } finally {
      g[0] = 0;
    }
  }

  /** No-Duplication's fused form of {@link #callSite}. */
  public static void sampledCallSite(String siteKey) {
    if (check()) callSite(siteKey);
  }

  /** No-Duplication's fused form of {@link #callSiteVirtual(Object, String)}. */
  public static void sampledCallSiteVirtual(Object receiver, String siteKey) {
    if (check()) callSiteVirtual(receiver, siteKey);
  }

  /**
   * {@link #sampledCallSite} in a method left without duplicated code in a mode that duplicates
   * (No-Duplication as a fall-back): a sampled call samples its callee too, as a call from
   * duplicated code does, by setting {@link #sampling} for the call; the caller calls {@link
   * #endSample} after it. Without this, small methods with flag checks called from such a
   * method were never sampled there.
   */
  public static void sampledCallSiteInto(String siteKey) {
    if (!check()) return;
    callSite(siteKey);
    sampling = Thread.currentThread();
  }

  /** {@link #sampledCallSiteInto} for a virtual or interface call. */
  public static void sampledCallSiteVirtualInto(Object receiver, String siteKey) {
    if (!check()) return;
    callSiteVirtual(receiver, siteKey);
    sampling = Thread.currentThread();
  }

  /** After a call that {@link #sampledCallSiteInto} may have sampled: ends this thread's sample. */
  public static void endSample() {
    if (sampling != null) endCallerSample();
  }

  /**
   * Bootstrap method of the invokedynamic that replaces a call in sampled code (the call is
   * {@code callee}, a direct handle of kind REF_invokeVirtual, REF_invokeInterface,
   * REF_invokeStatic or REF_invokeSpecial; {@code type} is its stack shape, the receiver first).
   * The site does what the call does, except that when the method the call selects has a
   * caller-sampled twin ({@code <name>$sampled}), the twin runs instead: see {@link SampledCalls}.
   * Never throws: when anything fails the site is the plain call.
   */
  public static CallSite sampledCall(MethodHandles.Lookup caller, String name, MethodType type,
      MethodHandle callee) {
    try {
      return new ConstantCallSite(SampledCalls.target(caller, type, callee));
    } catch (Throwable t) {
      // The plain call is always correct: the callee is only not sampled through this site.
      Log.debug("sampled call " + name + type + ": plain call (" + t + ")");
      return new ConstantCallSite(callee.asType(type));
    }
  }

  /**
   * The counters of one rewritten class, created the first time the class counts (its accessor
   * {@code duplex$counts()} calls this; see {@link ClassCounts} for the table).
   */
  public static AtomicLongArray counters(String table) {
    return ClassCounts.register(table);
  }

  /** Counts one event under a free-form key ({@code kind:detail}). */
  public static void event(String key) { count(EVENTS, key); }

  private static void count(KeyCounts table, String key) {
    KeyCounts.Counter c = table.find(key);
    if (c == null && (c = addKey(table, key)) == null) return;
    c.count.increment();
  }

  private static KeyCounts.Counter addKey(KeyCounts table, String key) {
    int[] g = Guard.enter();
    if (g == null) return null;
    try {
      return table.insert(key);
    } catch (RuntimeException e) {
      recordFailed("count", e);
      return null;
    } finally {
      g[0] = 0;
    }
  }

  /** Records the site table of {@code owner} (see the runtime contract). */
  public static void register(Class<?> owner, String siteTable) {
    int[] g = Guard.enter(); // registered even inside the runtime: a lost table gives wrong offsets
    try {
      SiteTables.register(owner, siteTable);
    } catch (RuntimeException e) {
      recordFailed("register", e);
    } finally {
      if (g != null) g[0] = 0;
    }
  }

  /** As {@link #register}, keyed by the class named on the table's {@code class} line. */
  public static void registerByName(String siteTable) {
    int[] g = Guard.enter(); // registered even inside the runtime: a lost table gives wrong offsets
    try {
      SiteTables.registerByName(siteTable);
    } catch (RuntimeException e) {
      recordFailed("registerByName", e);
    } finally {
      if (g != null) g[0] = 0;
    }
  }

  /** Test mode (rewriter option count_edges): counts one method entry. */
  public static void countEntry() { Sampler.countEntry(); }

  /** Test mode (rewriter option count_edges): counts one back edge. */
  public static void countBackedge() { Sampler.countBackedge(); }

  // ---------------------------------------------------------------------------------------------
  // Control API.

  /** Changes the sampling interval now; 0 turns sampling off. The next sample is n checks away. */
  public static void setInterval(int n) {
    if (n < 0) throw Options.bad("interval", Integer.toString(n));
    synchronized (CONFIG) {
      Options next = options.clone();
      next.interval = n;
      apply(next, false);
    }
  }

  public static int getInterval() { return interval; }

  /** Sets the profile file written by dump() and at exit. */
  public static void setOut(String path) {
    synchronized (CONFIG) {
      Options next = options.clone();
      next.set("out", path);
      apply(next, false);
    }
  }

  /**
   * Applies {@code key=value,key=value} settings (the option names of the {@code duplex.<option>}
   * system properties). All or nothing: on a bad entry nothing changes and IllegalArgumentException
   * says which. trigger, counter, countChecks, warmupMs and warmupInterval are fixed at startup;
   * giving them their current value is accepted, changing them is an error.
   */
  public static void configure(String agentOptions) {
    synchronized (CONFIG) {
      Options next = options.clone();
      boolean reseed = false;
      for (String[] kv : Options.parseList(agentOptions)) {
        next.set(kv[0], kv[1]);
        reseed |= kv[0].equals("seed");
      }
      fixed("trigger", next.timerTrigger != TIMER, next);
      fixed("counter", next.striped != STRIPED, next);
      fixed("countChecks", next.countChecks != COUNT_CHECKS, next);
      fixed("warmupMs", next.warmupMs != options.warmupMs, next);
      fixed("warmupInterval", next.warmupInterval != options.warmupInterval, next);
      apply(next, reseed);
    }
  }

  /** The current value of an option, in the form configure() accepts. */
  public static String getOption(String name) {
    synchronized (CONFIG) {
      return options.get(name);
    }
  }

  /** Writes the profile to the current out file now; false (after a line on stderr) on failure. */
  public static boolean dump() { return dumpAs("api"); }

  /** The profile as dump() would write it now. */
  public static String profileXml() {
    int[] g = Guard.enter();
    try {
      return ProfileWriter.xml("api");
    } finally {
      if (g != null) g[0] = 0;
    }
  }

  /** Clears every count (events, fields, call edges, samples, checks); settings are kept. */
  public static void reset() {
    for (CountStore store : STORES) store.clear();
    Sampler.clearCounts();
    ClassCounts.clear();
    if (SPECIAL) {
      for (Stripe s : STRIPES) s.samples = 0;
    }
    countsSinceMillis = System.currentTimeMillis();
  }

  public static long samplesTaken() { return counts()[0]; }

  /** Checks executed since start or reset; always 0 unless duplex.countChecks=true. */
  public static long checksExecuted() { return counts()[1]; }

  public static long entriesExecuted() { return counts()[2]; }

  public static long backedgesExecuted() { return counts()[3]; }

  /** {samples, checks, entries, backedges}: Sampler's counts plus the stripes' samples. */
  static long[] counts() {
    long[] c = Sampler.counts();
    if (SPECIAL) {
      for (Stripe s : STRIPES) c[0] += s.samples;
    }
    return c;
  }

  /**
   * Stops profiling for good: sampling off (interval 0) and, under the duplex agent
   * (libduplexagent.so), every class the agent rewrote is retransformed back to its original
   * bytes, so the framework costs nothing any more. Returns true if the agent restored the
   * classes (now or earlier); false without the agent, where only sampling is turned off.
   */
  public static boolean stop() {
    setInterval(0);
    return agentPresent && agentStop0();
  }

  // ---------------------------------------------------------------------------------------------
  // Hooks of the duplex agent. libduplexagent.so registers these natives with RegisterNatives and
  // then sets agentPresent; without the agent they are never called.

  /** Set by the agent once its natives are registered. */
  static volatile boolean agentPresent;

  /** Stops sampling and restores the agent's classes to their original bytes. */
  static native boolean agentStop0();

  /** The agent's statistics for the profile's run element: attribute name, value, name, ... */
  static native String[] agentStats0();

  /**
   * The caller site of a call edge from JVMTI GetStackTrace (registered by the agent, with
   * CallerFinder.nativeStack set, when its option nativeStack is on; see CallerFinder).
   */
  private static native CallerSite callerSite0();

  // ---------------------------------------------------------------------------------------------
  // Internals.

  static boolean countsChecks() { return COUNT_CHECKS; }

  static boolean striped() { return STRIPED; }

  static boolean timerTrigger() { return TIMER; }

  static Options optionsSnapshot() {
    synchronized (CONFIG) {
      return options.clone();
    }
  }

  private static void fixed(String key, boolean changed, Options next) {
    if (!changed) return;
    throw new IllegalArgumentException("duplex: duplex." + key
        + " cannot be changed while running (asked for \"" + next.get(key) + "\", running with \""
        + options.get(key) + "\"); set it as a system property");
  }

  /** Makes {@code next} current; called with CONFIG held. */
  private static void apply(Options next, boolean reseed) {
    // The warm-up's counts are scaled to the interval it ran for before another one applies.
    if (next.interval != options.interval) endWarmup("the interval was changed");
    Options prev = options;
    options = next;
    jitter = next.jitter;
    burst = next.burst;
    timerMs = next.timerMs;
    out = next.out;
    Log.level = next.log;
    if (reseed) {
      Sampler.seed(next.seed);
      for (int i = 0; SPECIAL && i < STRIPES.length; i++) Sampler.seed(STRIPES[i], next.seed, i);
    }
    if (next.interval != prev.interval) switchInterval(next.interval);
    if (next.dumpMs != prev.dumpMs) {
      dumpMs = next.dumpMs;
      CONFIG.notifyAll(); // wakes the dumper to pick up the new period
      if (dumpMs > 0 && dumper == null) dumper = startDaemon("duplex-dump", new Dumper());
    }
    Log.debug("settings: " + describe(next));
  }

  /** Samples every {@code iv} checks from now on; called with CONFIG held. */
  private static void switchInterval(int iv) {
    interval = iv;
    restartCounters();
    // A check racing with the first write may have stored a value it read before it (a parked
    // counter would then stay parked); the race window is a few instructions wide.
    Thread.yield();
    restartCounters();
  }

  /** Starts counting the current interval afresh (timer mode: waits for the next tick). */
  private static void restartCounters() {
    int iv = interval;
    int start = TIMER ? TIMER_POLL : iv <= 0 ? OFF : iv;
    int t = ticks; // timer mode: wait for the next tick
    tickSeen = t;
    Sampler.endBurst();
    if (SPECIAL) {
      for (Stripe s : STRIPES) {
        s.counter = start;
        s.tickSeen = t;
        s.burstTaken = 0;
      }
      counter = 0;
    } else {
      counter = start;
    }
    MethodCounters.restartAll();
  }

  /** The timer trigger: sets the sample condition; the next check takes the sample. */
  private static void timerTick() {
    if (interval <= 0) return;
    ticks = ticks + 1; // only this thread writes it
    if (SPECIAL) {
      for (Stripe s : STRIPES) s.counter = 0;
    }
    counter = 0;
  }

  /**
   * Ends the warm-up if one is on (Warmup.java): its counts scaled by warmupInterval / interval,
   * and sampling at the interval from now on. Called when warmupMs have passed, before any
   * profile is taken and before the interval changes.
   */
  static void endWarmup(String why) {
    if (warmupInterval == 0) return;
    synchronized (CONFIG) {
      int w = warmupInterval;
      if (w == 0) return;
      int target = options.interval;
      // The interval first, then the counts: an event counted between the two is one of the
      // few at the new interval, scaled as if of the warm-up. The other order let the program
      // count at the warm-up's rate, unscaled, for as long as the scaling took (milliseconds
      // over xalan's class counters; at a warm-up interval of 10 each such event weighs 100
      // times an event at 1000, which made xalan's profile count 2.7 times too many events).
      warmupInterval = 0;
      switchInterval(target);
      CountScale s = new CountScale(w, target, options.seed);
      for (CountStore store : STORES) store.scale(s);
      ClassCounts.scale(s);
      Log.info("warm-up ended (" + why + "): sampling every " + target + " checks, the warm-up's"
          + " counts scaled by " + w + "/" + target);
    }
  }

  private static void startThreads() {
    if (warmupInterval != 0) startDaemon("duplex-warmup", new Warmup.Ender(options.warmupMs));
    if (TIMER) startDaemon("duplex-timer", new Timer());
    if (dumpMs > 0) {
      synchronized (CONFIG) {
        dumper = startDaemon("duplex-dump", new Dumper());
      }
    }
    try {
      Runtime.getRuntime().addShutdownHook(new Thread(new ExitDump(), "duplex-exit-dump"));
    } catch (IllegalStateException e) {
      Log.debug("JVM already shutting down: no exit dump"); // first used by a shutdown hook
    } catch (RuntimeException e) {
      Log.error("cannot register the exit dump: " + e);
    }
  }

  private static Thread startDaemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static final class Timer implements Runnable {
    @Override
    public void run() {
      Guard.enter(); // nothing this thread runs is profiled
      try {
        while (true) {
          Thread.sleep(timerMs);
          timerTick();
        }
      } catch (InterruptedException e) {
        // stop
      }
    }
  }

  private static final class Dumper implements Runnable {
    @Override
    public void run() {
      Guard.enter();
      try {
        while (true) {
          synchronized (CONFIG) {
            long ms = dumpMs;
            if (ms <= 0) {
              dumper = null;
              return;
            }
            CONFIG.wait(ms);
            if (dumpMs != ms) continue; // the period changed: start a new one
          }
          ProfileWriter.dump("periodic");
        }
      } catch (InterruptedException e) {
        synchronized (CONFIG) {
          dumper = null;
        }
      }
    }
  }

  private static final class ExitDump implements Runnable {
    @Override
    public void run() {
      Guard.enter();
      ProfileWriter.dump("exit");
    }
  }

  private static boolean dumpAs(String reason) {
    int[] g = Guard.enter();
    if (g == null) return false; // called from code the runtime itself is running
    try {
      return ProfileWriter.dump(reason);
    } finally {
      g[0] = 0;
    }
  }

  private static void recordFailed(String what, RuntimeException e) {
    synchronized (CONFIG) {
      if (recordErrors++ >= 10) return;
    }
    Log.error("internal error in " + what + " (event dropped): " + e);
  }

  private static String describe(Options o) {
    StringBuilder sb = new StringBuilder();
    for (String n : Options.NAMES) {
      if (sb.length() > 0) sb.append(',');
      sb.append(n).append('=').append(o.get(n));
    }
    return sb.toString();
  }
}
