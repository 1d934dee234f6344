// Names of the runtime class and methods that rewritten code calls. The Java side is
// runtime/java/duplex/runtime/Duplex.java; docs/design/runtime-contract.md is the contract.
#pragma once

namespace duplex::runtime_api {

inline constexpr const char* kClass = "duplex/runtime/Duplex";
inline constexpr const char* kPackagePrefix = "duplex/runtime/";  // never instrumented
// The type of an outlined twin's last parameter (rewriter/outline_layout.h), always passed null:
// an Object in the class, and a class that does not exist once the twin is in a twin class,
// so that C2 never inlines it there ("unloaded signature classes"; docs/design/hotspot-costs.md,
// section 15). No class of that name may ever exist.
inline constexpr const char* kColdParamDesc = "Ljava/lang/Object;";
inline constexpr const char* kNotInlinedDesc = "Lduplex/runtime/NotInlined;";

inline constexpr const char* kCheck = "check";
inline constexpr const char* kCheckDesc = "()Z";
// The inline check: decrement the public static `counter`; at zero call `fire()Z`.
inline constexpr const char* kCounter = "counter";
inline constexpr const char* kCounterDesc = "I";
inline constexpr const char* kFire = "fire";
// The exit check (outlined layout without hand-back): `tick()I` decrements the counter and
// returns it; at zero or below the checking method calls its twin, which asks `expired()Z`.
inline constexpr const char* kTick = "tick";
inline constexpr const char* kTickEntry = "tickEntry";
inline constexpr const char* kTickDesc = "()I";
inline constexpr const char* kExpired = "expired";
// Method counters (RewriteOptions::method_counters): the exit check counts down the method's
// own counter, a static Object field of its class, through `tickOf` / `tickEntryOf`
// (`getstatic f; invokestatic; ifle sample`); the twin decides with `getstatic f; invokestatic
// methodCounter; dup; putstatic f; invokestatic rearm`, which leaves the sampling decision as
// `expired()` would. The field is typed Object so that rewritten code names no other runtime
// class (the runtime keeps a cell per thread stripe in it).
inline constexpr const char* kTickOf = "tickOf";
inline constexpr const char* kTickEntryOf = "tickEntryOf";
inline constexpr const char* kTickOfDesc = "(Ljava/lang/Object;)I";
inline constexpr const char* kMethodCounter = "methodCounter";
inline constexpr const char* kMethodCounterMakeDesc = "(Ljava/lang/Object;)Ljava/lang/Object;";
inline constexpr const char* kRearm = "rearm";
inline constexpr const char* kRearmDesc = "(Ljava/lang/Object;)Z";
inline constexpr const char* kMethodCounterDesc = "Ljava/lang/Object;";
// The stripe in a local (RewriteOptions::stripe_in_local): a method with back-edge exit checks
// starts with `invokestatic here()Ljava/lang/Object;; astore s` (the calling thread's counter
// stripe, null with the global counter), and its back edges are `aload s; invokestatic
// tickAt(Ljava/lang/Object;)I; ifle sample`: tick() without finding the stripe again.
inline constexpr const char* kHere = "here";
inline constexpr const char* kHereDesc = "()Ljava/lang/Object;";
inline constexpr const char* kTickAt = "tickAt";
inline constexpr const char* kTickAtDesc = "(Ljava/lang/Object;)I";
inline constexpr const char* kObjectClass = "java/lang/Object";
// Loop budgets (CheckForm::kLocal in the outlined layout without hand-back): a method with
// loops counts its back edges in a local. `loopEntry()I` is its entry check (tickEntry, capped:
// the budget), `budget()I` the budget a twin starts with after `expired()`, `spend(I)I` counts a
// used-up budget on the shared counter and returns the next, `spent(I)V` counts what a
// returning activation used.
inline constexpr const char* kLoopEntry = "loopEntry";
inline constexpr const char* kBudget = "budget";
inline constexpr const char* kSpend = "spend";
inline constexpr const char* kSpendDesc = "(I)I";
inline constexpr const char* kSpent = "spent";
inline constexpr const char* kSpentDesc = "(I)V";
// The twin's decision with loop budgets (in place of `expired()`): sample if the counter ran
// out, else go on unsampled.
inline constexpr const char* kDue = "due";
// A method entry's counting check: check(), after clearing `sampling` (the caller's sample
// does not extend into a method that counts its own checks).
inline constexpr const char* kCheckEntry = "checkEntry";
// Flag checks (small loop-free methods) read this public static Thread: the thread whose
// duplicated code is calling out, set to Thread.currentThread() around each of its calls and
// cleared after. A flag check samples when it is set and samplingHere() says it is the
// calling thread's, so other threads' samples do not spill into a thread's small methods.
inline constexpr const char* kSampling = "sampling";
inline constexpr const char* kSamplingDesc = "Ljava/lang/Thread;";
inline constexpr const char* kSamplingHere = "samplingHere";
inline constexpr const char* kSamplingHereDesc = "()Z";
inline constexpr const char* kThreadClass = "java/lang/Thread";
inline constexpr const char* kCurrentThread = "currentThread";
inline constexpr const char* kCurrentThreadDesc = "()Ljava/lang/Thread;";
// The bootstrap of a sampled call (rewriter/sampled_calls.h): duplicated code's calls link to
// the callee's `<name>$sampled` twin when the method the call selects has one.
inline constexpr const char* kSampledCall = "sampledCall";
inline constexpr const char* kSampledCallDesc =
    "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;"
    "Ljava/lang/invoke/MethodHandle;)Ljava/lang/invoke/CallSite;";
inline constexpr const char* kCallEdge = "callEdge";
// Caller-side call edges (the `call-edge` instrumentation): before an invoke, with the site key
// (docs/design/runtime-contract.md); the virtual forms also take the receiver.
inline constexpr const char* kCallSite = "callSite";
inline constexpr const char* kCallSiteVirtual = "callSiteVirtual";
inline constexpr const char* kSampledCallSite = "sampledCallSite";
inline constexpr const char* kSampledCallSiteVirtual = "sampledCallSiteVirtual";
// The same in a No-Duplication fall-back of a duplicating mode: a sampled call also samples
// its callee (sets `sampling`); `endSample()V` follows the call.
inline constexpr const char* kSampledCallSiteInto = "sampledCallSiteInto";
inline constexpr const char* kSampledCallSiteVirtualInto = "sampledCallSiteVirtualInto";
inline constexpr const char* kEndSample = "endSample";
inline constexpr const char* kReceiverKeyDesc = "(Ljava/lang/Object;Ljava/lang/String;)V";
// callSiteVirtual in a class with counters of its own: the site is a slot of its table.
inline constexpr const char* kReceiverCountsDesc =
    "(Ljava/lang/Object;Ljava/util/concurrent/atomic/AtomicLongArray;I)V";
// No-Duplication's fused form of a class-counter increment: check, then count the slot.
inline constexpr const char* kSampledCount = "sampledCount";
inline constexpr const char* kSampledCountDesc =
    "(Ljava/util/concurrent/atomic/AtomicLongArray;I)V";
inline constexpr const char* kFieldRead = "fieldRead";
inline constexpr const char* kFieldWrite = "fieldWrite";
inline constexpr const char* kEvent = "event";
// Per-class counters (rewriter/class_counters.h): the accessor a class gains creates its
// array with counters(table) on first use.
inline constexpr const char* kCounters = "counters";
inline constexpr const char* kCountersDesc =
    "(Ljava/lang/String;)Ljava/util/concurrent/atomic/AtomicLongArray;";
// No-Duplication's fused forms: check, then the event (one call instead of a guard).
inline constexpr const char* kSampledCallEdge = "sampledCallEdge";
inline constexpr const char* kSampledFieldRead = "sampledFieldRead";
inline constexpr const char* kSampledFieldWrite = "sampledFieldWrite";
inline constexpr const char* kKeyDesc = "(Ljava/lang/String;)V";
inline constexpr const char* kRegister = "register";
inline constexpr const char* kRegisterDesc = "(Ljava/lang/Class;Ljava/lang/String;)V";
inline constexpr const char* kRegisterByName = "registerByName";
inline constexpr const char* kRegisterByNameDesc = "(Ljava/lang/String;)V";
inline constexpr const char* kCountEntry = "countEntry";
inline constexpr const char* kCountBackedge = "countBackedge";
inline constexpr const char* kVoidDesc = "()V";
// Hand-back (rewriter/hand_back.h): a twin whose check did not fire saves the live locals in
// the thread's buffer (handBack names the entry and returns the primitives' array,
// handBackRefs the references'); its checking method asks resumeEntry (-1: the twin returned),
// reads both arrays back, and calls resumed, which clears the references.
inline constexpr const char* kHandBack = "handBack";
inline constexpr const char* kHandBackDesc = "(II)[J";
inline constexpr const char* kHandBackRefs = "handBackRefs";
inline constexpr const char* kResumeEntry = "resumeEntry";
inline constexpr const char* kResumeEntryDesc = "()I";
inline constexpr const char* kResumePrims = "resumePrims";
inline constexpr const char* kPrimsDesc = "()[J";
inline constexpr const char* kResumeRefs = "resumeRefs";
inline constexpr const char* kRefsDesc = "()[Ljava/lang/Object;";
inline constexpr const char* kResumed = "resumed";

// The class attribute that marks a class as rewritten by duplex (the JVM ignores it).
inline constexpr const char* kMarkerAttribute = "duplex.Rewritten";
// Lazy twins: the name prefix of a bridge, a method of the host that runs one instruction for
// its twin class; never a caller (CallerFinder.BRIDGE_PREFIX, runtime-contract.md).
inline constexpr const char* kBridgePrefix = "duplex$bridge$";

}  // namespace duplex::runtime_api
