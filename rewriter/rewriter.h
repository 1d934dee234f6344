// The sampling rewriter: Arnold & Ryder's instrumentation-sampling framework on JVM bytecode.
//
// rewrite_class() applies one transform per method (chosen by RewriteOptions::mode, with
// defined fallbacks) and returns the new class bytes, a report per method, and the table of
// instrumented sites. It never fails a class because of one method: a method that cannot take
// a transform falls back (full -> partial -> no-duplication -> unchanged) and says why.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "classfile/error.h"
#include "rewriter/instrumentation.h"

namespace duplex {

class ClassIndex;  // classfile/class_index.h

enum class Mode : uint8_t {
  kFull,        // Full-Duplication
  kPartial,     // Partial-Duplication (no top and bottom nodes)
  kNoDup,       // No-Duplication: every event behind its own check
  kExhaustive,  // events inserted with no framework (the baseline)
  kChecksOnly,  // Full-Duplication with empty duplicated instrumentation
  kAuto,        // per-method choice among full, partial, no-duplication and unchanged
};

// What was done to one method.
enum class Transform : uint8_t { kUnchanged, kFull, kPartial, kNoDup, kExhaustive, kChecksOnly };

const char* mode_name(Mode mode);
const char* transform_name(Transform t);
// Parses "full", "partial", "nodup", "exhaustive", "checks", "auto".
Result<Mode> parse_mode(std::string_view text);

// How a check decrements the sample counter (RewriteOptions::check).
enum class CheckForm : uint8_t {
  // `invokestatic Duplex.check()Z; ifne sample` (6 bytes): the runtime decrements the counter.
  kCall,
  // Decrement the public static counter in place; call `fire()Z` only when it reaches zero
  // (18 bytes; no call in the interpreter, where short runs spend much of their time).
  kInline,
  // Methods with checked edges (loops) keep the counter in a local for the activation.
  // Outlined layout with exit checks (the default layout), in methods whose loops call nothing
  // that may count checks: a loop budget. The entry check's count is the budget
  // (Duplex.loopEntry), back edges count down the local alone and leave for the twin when it
  // runs out (the twin asks Duplex.due()), and returns and calls count what was used
  // (Duplex.spent; a new budget after a call): a loop's checks touch no memory and have no rare
  // path that rejoins the loop, and samples fall on the same checks as in the call form.
  // Other layouts: each edge check decrements the local and stores it (no load, so no
  // loop-carried dependency through memory), and the local is reloaded after every call,
  // whose checks decrement the shared counter; the entry check stays a call.
  kLocal,
};

const char* check_form_name(CheckForm form);
// Parses "call", "inline", "local".
Result<CheckForm> parse_check_form(std::string_view text);

struct RewriteOptions {
  Mode mode = Mode::kFull;
  std::vector<std::shared_ptr<const Instrumentation>> instrumentations;
  // Keep methods that HotSpot compiles today (<= huge_method_limit bytes) under that limit.
  uint32_t huge_method_limit = 8000;
  bool respect_huge_method_limit = true;
  // Test option: count method entries and back edges executed (Property 1 checks).
  bool count_edges = false;
  // Hand the site table to the runtime from <clinit> (adding one if the class has none).
  // The agent turns this off: a class it may later retransform to its original bytes must
  // keep its set of methods, so it registers ClassRewrite::site_tables itself.
  bool register_sites_in_clinit = true;
  // Fill ClassRewrite::sites, one record (with its key) per instrumented point. The duplex
  // program and the agent do not use the list and turn it off: two strings per site were
  // about a twentieth of the rewrite's time.
  bool list_sites = true;
  // The runtime class rewritten code calls (internal name). Another name serves a shaded copy
  // of the runtime, or a stub placed in a JDK module to verify rewritten JDK classes.
  std::string runtime_class = "duplex/runtime/Duplex";
  // Full-, Partial-Duplication and Checks-only put the duplicated code in a synthetic twin
  // method (`<name>$duplex`) where they can, so the method itself keeps only the checking
  // code (rewriter/outline_layout.h). Adds methods: not for classes that may later be
  // retransformed back to their original bytes (the agent turns it off).
  bool outline = true;
  // Outlined layout: the twin hands back to the checking method at the first check that does
  // not fire (rewriter/hand_back.h). Off: the checking method's checks leave for the twin
  // (`return twin(...)`), and the twin, which then holds a checking copy too, runs the rest of
  // the activation, so no rare path merges back into the checking method's compiled code.
  bool hand_back = false;
  CheckForm check = CheckForm::kCall;
  // Outlined layout with exit checks, counting checks at back edges: the calling thread's
  // counter stripe is looked up once, at the method's start, and kept in a local of type
  // Object, so that a back edge's check decrements it without finding it again (the thread's
  // id, the stripe array and the stripe: a chain of loads after every call the loop makes).
  // Counts and samples exactly as the plain exit check does. Off by default: beside two copies
  // of the default it gained on sunflow in every round and was within the noise on bcprov and
  // xalan (docs/design/hotspot-costs.md, sections 21 and 22). Methods with loop budgets or method
  // counters keep their own counters; the inline and handback layouts refuse it
  // (stripe_in_local_unsupported).
  bool stripe_in_local = false;
  // Loop-free methods of at most this many bytes get flag checks: they read whether a sampled
  // caller of their thread is calling them instead of decrementing the shared counter. The
  // default is HotSpot's FreqInlineSize, the methods C2 inlines where they are hot: a counting
  // check in each of them chains every inlined call through the counter's memory (and bounces
  // its cache line between threads), while flag loads fold together. 35 (MaxInlineSize, the
  // default until 2026-11-25) cost xalan's Full @1000 half as much again
  // (docs/design/hotspot-costs.md, section 8). 0: every check counts.
  uint32_t flag_check_max_bytes = 325;
  // Loop-free methods of at most this many bytes (325, HotSpot's FreqInlineSize, is the size
  // measured: the methods C2 inlines where they are hot) carry no check at all and are sampled
  // through their callers instead: they keep their code and gain a `<name>$sampled` twin, which
  // the duplicated code's calls reach through invokedynamic (rewriter/sampled_calls.h). Needs
  // the outlined layout and class files of version 51 or later (others keep flag checks, up to
  // flag_check_max_bytes). 0 (the default): off. Off by default because linking the call
  // sites costs more in short runs than it saves (docs/design/hotspot-costs.md, section 2).
  uint32_t caller_sampled_max_bytes = 0;
  // Each counting method counts down a counter of its own (a private synthetic static field of
  // its class, `duplex$k<N>`, holding a cell per thread stripe) instead of the runtime's shared
  // counter, so that every method is sampled at its own 1-in-interval rate: stratified
  // sampling, whose profiles from a few samples are closer to the exhaustive one
  // (docs/design/sampling-accuracy.md). Needs the outlined layout without hand-back and without
  // loop budgets (CheckForm::kLocal); interfaces (whose fields must be final) keep the shared
  // counter.
  bool method_counters = false;
  // Lazy twins (rewriter/twin_nest.h, docs/design/lazy-twins.md): the outlined twins move into
  // a class `<class>$DuplexTwins` of the same package (ClassRewrite::twin_class), which the JVM
  // loads only when the class first samples: a nestmate from version 55 on (see
  // lazy_twins_raise_version for 50-54). Twins that another class could not run the same way
  // stay. Needs the outlined layout. Off by default: the caller must write the twin class
  // beside the class (instrument_path does).
  bool lazy_twins = false;
  // With lazy_twins: the classes the rewritten class may extend (its jar, the jars it needs,
  // the JDK), which make the rules that keep twins in their class exact: a class whose
  // superclasses are not all in it keeps its twins. Without one (nullptr), the rules cannot
  // tell two rare shapes of protected access apart (rewriter/twin_nest.h), and a twin of that
  // shape fails with IllegalAccessError at its first sample. Not owned; read-only while
  // rewriting, so one index may serve many threads.
  const ClassIndex* class_index = nullptr;
  // With lazy_twins: a class of version 50-54 is raised to 55 so that it may host the nest
  // (the output then needs Java 11), unless its code is what 55 refuses. false (what `duplex
  // instrument` does unless given --lazy-twins), or where it cannot be raised: such a class
  // keeps its version, its twin class is a plain class of its package, and the class's private
  // members are reached through bridges; the output runs wherever the input ran.
  bool lazy_twins_raise_version = true;
  // With lazy_twins: asked with the class's name before its twins are placed; a reason (text
  // without ':') makes the class keep all its twins, as the rewriter's own reasons do, with
  // the note "lazy twins: REASON". For what only the caller knows: where the twin class would
  // be written (instrument_path: a jar entry not at the path its name gives). Empty: none.
  std::function<std::optional<std::string>(std::string_view class_name)> twin_class_veto;
  // Asked with the class's name once it is known: whether the class may run in a named module
  // (instrument_path: its jar or directory holds a module-info.class where its packages start).
  // A named module reads no unnamed module, and the runtime is in the boot loader's, so such a
  // class's <clinit> begins by making its module read the runtime's (rewriter/module_reads.h);
  // a class that cannot have that is left unchanged. Classes of unnamed and automatic modules
  // read every unnamed module, and the agent adds the read itself. Empty: none.
  std::function<bool(std::string_view class_name)> in_named_module;
};

// Whether a rewrite with these options makes outlined twins (`<name>$duplex` methods): the
// modes with duplicated code (Full, Partial, Checks-only, auto) in the outline or handback
// layout.
inline bool makes_twins(const RewriteOptions& o) {
  return o.outline && o.mode != Mode::kNoDup && o.mode != Mode::kExhaustive;
}

// RewriteOptions::lazy_twins: the twin class of class `a/b/C` is `a/b/C$DuplexTwins`.
inline constexpr const char* kTwinClassSuffix = "$DuplexTwins";

struct MethodReport {
  std::string method;  // name + descriptor
  Transform requested = Transform::kUnchanged;
  Transform applied = Transform::kUnchanged;
  std::string reason;  // why `applied` differs from `requested`, or why auto chose it
  uint32_t original_code_size = 0;
  uint32_t new_code_size = 0;   // the method's code, plus its twin's when outlined
  uint32_t twin_code_size = 0;  // the outlined twin's code (0: not outlined)
  uint32_t sites = 0;           // instrumented points
  uint32_t checks = 0;          // checks placed (static count)
};

struct SiteRecord {
  uint32_t index = 0;            // stable: position in the class's site list
  std::string kind;              // instrumentation name
  std::string method;            // name + descriptor
  int32_t original_offset = -1;  // -1 for the method entry
  int32_t line = -1;
  std::string target;
};

struct ClassRewrite {
  std::string class_name;
  bool changed = false;
  std::vector<uint8_t> bytes;  // the rewritten class; empty when unchanged
  std::vector<MethodReport> methods;
  std::vector<SiteRecord> sites;  // empty unless RewriteOptions::list_sites
  // The site table parts (docs/design/runtime-contract.md) for Duplex.register*, when any
  // rewritten method has call sites.
  std::vector<std::string> site_tables;
  std::vector<std::string> notes;
  // RewriteOptions::lazy_twins: the nestmate class holding the twins that left this class
  // (internal name and bytes), to be written beside it; empty when none moved.
  std::string twin_class_name;
  std::vector<uint8_t> twin_class;
  uint32_t twins_moved = 0;
  std::map<std::string, uint32_t> twins_kept;  // why twins stayed in the class -> how many
  // The class declares no serialVersionUID and the members the rewrite added would have
  // changed the one serialization computes, so it now declares the original's
  // (rewriter/serial_version_kept.h).
  bool serial_version_declared = false;
};

// Why `options` ask for something that cannot be done (method counters with a layout or check
// form they do not support), or nothing. rewrite_class refuses such options with this reason.
std::optional<std::string> method_counters_unsupported(const RewriteOptions& options);
// Why RewriteOptions::stripe_in_local cannot apply with these options (the layouts without exit
// checks), or nothing.
std::optional<std::string> stripe_in_local_unsupported(const RewriteOptions& options);

// Rewrites one class. Fails when the class cannot be parsed or written, when it was already
// rewritten by duplex (refused with a clear message), or when one of its methods is malformed
// (code the JVM refuses: see build_code_ir; a max_stack below what the code needs): rewriting
// could repair such a class or change how the JVM fails on it, so it must stay as it is. A
// method that is well formed but cannot be transformed is left unchanged, with the reason.
Result<ClassRewrite> rewrite_class(std::span<const uint8_t> class_bytes,
                                   const RewriteOptions& options);

// True when the class was produced by rewrite_class().
bool is_rewritten(const ClassFile& cf);

}  // namespace duplex
