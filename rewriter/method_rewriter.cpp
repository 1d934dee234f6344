#include "rewriter/method_rewriter.h"

#include <algorithm>

#include "classfile/assembler.h"
#include "classfile/code_ir.h"
#include "classfile/frames.h"
#include "classfile/opcodes.h"
#include "rewriter/cfg.h"
#include "rewriter/dup_plan.h"
#include "rewriter/method_counters.h"
#include "rewriter/method_policy.h"
#include "rewriter/outline_layout.h"
#include "rewriter/sampled_calls.h"
#include "rewriter/sites.h"
#include "rewriter/transforms.h"

namespace duplex {
namespace {

bool frame_has_uninitialized(const std::optional<Frame>& f) {
  if (!f) return false;
  auto uninit = [](const VType& v) { return v.tag == VTag::kUninitialized; };
  return std::any_of(f->locals.begin(), f->locals.end(), uninit) ||
         std::any_of(f->stack.begin(), f->stack.end(), uninit);
}

// Original offset -> source line, from the original LineNumberTable.
class LineLookup {
 public:
  explicit LineLookup(const CodeIR& ir) {
    for (const LineNumber& ln : ir.line_numbers) {
      if (ln.label < ir.labels.size() && ir.labels[ln.label].original_offset >= 0) {
        entries_.push_back({ir.labels[ln.label].original_offset, ln.line});
      }
    }
    std::stable_sort(entries_.begin(), entries_.end());
  }
  // The line of the last entry starting at or before `offset` (of several starting there, the
  // last in table order), or -1.
  int32_t line_at(int32_t offset) const {
    auto after = std::upper_bound(entries_.begin(), entries_.end(), offset,
                                  [](int32_t o, const auto& e) { return o < e.first; });
    return after == entries_.begin() ? -1 : std::prev(after)->second;
  }

 private:
  std::vector<std::pair<int32_t, int32_t>> entries_;
};

class MethodRewriter {
 public:
  MethodRewriter(ClassFile& cf, Member& method, const RewriteOptions& options,
                 std::set<std::string>& twin_names, ClassCounters* counters,
                 SampledCalls* sampled_calls, bool record_calls,
                 const std::set<std::string>* quiet_methods, MethodCounters* method_counters)
      : cf_(cf),
        method_(method),
        options_(options),
        twin_names_(twin_names),
        counters_(counters),
        sampled_calls_(sampled_calls),
        record_calls_(record_calls),
        quiet_methods_(quiet_methods),
        method_counters_(method_counters),
        ctx_(reused_context(cf, method)) {
    outcome_.report.method = ctx_.method_id();
    outcome_.report.requested = requested_transform(options.mode);
  }

  MethodOutcome run() {
    const Attribute* code_attr = cf_.find_attribute(method_.attributes, "Code");
    // Malformed code refuses the whole class, even where the method would stay unchanged.
    auto ir = build_code_ir(cf_, method_);
    if (!ir) return malformed(std::move(ir.error()));
    if (ctx_.class_name == "java/lang/Object" && ctx_.method_name == "<init>") {
      return unchanged("HotSpot requires java.lang.Object.<init> to stay a lone return");
    }
    ir_ = std::move(ir.value());
    // The assembler recomputes max_stack; a method whose declared max_stack is too small
    // (which the JVM rejects) must not come out "repaired", or the class would load only
    // when rewritten.
    auto needed = compute_max_stack(ir_, cf_.pool, ctx_);
    if (!needed) return malformed(std::move(needed.error()));
    if (*needed > ir_.max_stack) {
      return malformed(Error::plain("declared max_stack " + std::to_string(ir_.max_stack) +
                                    " is below what the code needs (" + std::to_string(*needed) +
                                    ")"));
    }
    outcome_.report.original_code_size = original_code_size(code_attr);
    outcome_.report.new_code_size = outcome_.report.original_code_size;
    MethodView view{cf_, method_, ctx_, ir_, options_.runtime_class, counters_};
    MethodSites sites(view, options_.instrumentations);
    outcome_.report.sites = static_cast<uint32_t>(sites.count());
    if (options_.list_sites) record_sites(view, sites);
    bool checks_only_everything =
        options_.mode == Mode::kChecksOnly && options_.instrumentations.empty();
    if (!sites.has_any() && !checks_only_everything) return unchanged("no instrumentation sites");
    Cfg cfg = build_cfg(ir_);
    const uint32_t size = outcome_.report.original_code_size;
    // A synchronized method's lock is taken by the call to it, which its twin would skip.
    via_callers_ = redirected_calls() && !(ctx_.access_flags & access::kSynchronized) &&
                   wants_flag_checks(ctx_, cfg, size, options_.caller_sampled_max_bytes);
    // Flag checks where a method is not sampled through its callers after all (see build).
    flag_checks_ =
        via_callers_ || wants_flag_checks(ctx_, cfg, size, options_.flag_check_max_bytes);
    if (via_callers_ && options_.mode == Mode::kChecksOnly)
      return unchanged("small and loop-free: sampled through its callers, with no check");
    const bool runs_once = ctx_.method_name == "<clinit>";
    PolicyInput input{ir_, cfg, sites, options_, flag_checks_, runs_once};
    PolicyChoice choice = candidate_transforms(input);
    outcome_.report.reason = choice.rationale;
    return try_candidates(view, cfg, sites, choice.candidates);
  }

 private:
  // The method's context in a per-thread object whose strings keep their capacity from method
  // to method: a class's methods share the class name, and most names fit what is there.
  static const MethodContext& reused_context(const ClassFile& cf, const Member& method) {
    thread_local MethodContext context;
    context.assign(cf, method);
    return context;
  }

  static uint32_t original_code_size(const Attribute* code) {
    // Code body: max_stack u2, max_locals u2, code_length u4.
    if (!code || code->data.size() < 8) return 0;
    const uint8_t* d = code->data.data();
    return static_cast<uint32_t>(d[4]) << 24 | static_cast<uint32_t>(d[5]) << 16 |
           static_cast<uint32_t>(d[6]) << 8 | d[7];
  }

  // Code the JVM refuses: the method is left as it is, and so must be the whole class.
  MethodOutcome malformed(Error e) {
    e.in(ctx_.class_name, ctx_.method_id());
    MethodOutcome out = unchanged("cannot read the code: " + e.message());
    out.malformed = std::move(e);
    return out;
  }

  MethodOutcome unchanged(std::string reason) {
    outcome_.report.applied = Transform::kUnchanged;
    outcome_.report.reason = std::move(reason);
    outcome_.calls.clear();
    return std::move(outcome_);
  }

  void record_sites(const MethodView& view, const MethodSites& sites) {
    LineLookup lines(view.code);
    const std::string method = ctx_.method_id();
    outcome_.sites.reserve(sites.count());
    for (const Site& s : sites.entry()) {
      outcome_.sites.push_back({0, s.instrumentation->name(), method, -1, -1, s.point.target});
    }
    for (const Site& s : sites.all_instruction_sites()) {
      int32_t offset = view.code.insns[s.point.insn].original_offset;
      outcome_.sites.push_back(
          {0, s.instrumentation->name(), method, offset, lines.line_at(offset), s.point.target});
    }
  }

  Result<TransformedCode> build(const MethodView& view, const Cfg& cfg, const MethodSites& sites,
                                Transform t, std::string& why_not) {
    if (via_callers_ && (t == Transform::kFull || t == Transform::kPartial)) {
      auto twin = build_sampled_twin(view, cfg, sites);
      if (twin) return twin;
      // Flag checks instead: the method is then sampled when a sampled caller calls it.
      via_callers_ = false;
      outline_note_ = "not sampled through callers: " + twin.error().message();
    }
    switch (t) {
      case Transform::kFull:
      case Transform::kChecksOnly: {
        DupPlan plan = plan_full_duplication(cfg, options_.count_edges);
        plan.flag_checks = flag_checks_;
        plan.sampled_calls = redirected_calls();
        plan.quiet_methods = quiet_methods_;
        plan.stripe_in_local = options_.stripe_in_local;
        if (!crossings_are_safe(cfg, plan, /*partial=*/false, why_not))
          return Error::plain(why_not);
        return duplicate(view, cfg, sites, plan, t == Transform::kFull);
      }
      case Transform::kPartial: {
        DupPlan plan =
            plan_partial_duplication(cfg, instrumented_blocks(cfg, sites), options_.count_edges);
        plan.flag_checks = flag_checks_;
        plan.sampled_calls = redirected_calls();
        plan.quiet_methods = quiet_methods_;
        plan.stripe_in_local = options_.stripe_in_local;
        if (!crossings_are_safe(cfg, plan, /*partial=*/true, why_not)) return Error::plain(why_not);
        return duplicate(view, cfg, sites, plan, true);
      }
      case Transform::kNoDup:
        // In a mode that duplicates, the small methods this one calls may have flag checks:
        // they are sampled only when a sampled caller calls them.
        return guard_each_event(view, sites, cf_.pool,
                                options_.mode != Mode::kNoDup && options_.flag_check_max_bytes > 0);
      case Transform::kExhaustive:
        return insert_events(view, sites, cf_.pool);
      case Transform::kUnchanged:
        break;
    }
    return Error::plain("no transform");
  }

  SampledCalls* redirected_calls() const {
    return sampled_calls_ && sampled_calls_->active() ? sampled_calls_ : nullptr;
  }

  // A small loop-free method sampled through its callers: its code stays as it is, and its
  // twin `<name>$sampled` holds the whole instrumented copy (Full-Duplication's, whatever the
  // mode: a loop-free copy has no back edge to return through). The twin must have exactly
  // the signature the runtime looks for (rewriter/sampled_calls.h).
  Result<TransformedCode> build_sampled_twin(const MethodView& view, const Cfg& cfg,
                                             const MethodSites& sites) {
    DupPlan plan = plan_full_duplication(cfg, options_.count_edges);
    plan.flag_checks = true;  // a twin that only runs when called: it decides nothing
    plan.sampled_calls = redirected_calls();
    std::string expected = sampled_twin_descriptor(ctx_.class_name, ctx_.descriptor,
                                                   (ctx_.access_flags & access::kStatic) != 0);
    if (auto twin_of_other = overload_with_twin_descriptor(expected))
      return Error::plain("its twin's descriptor would also fit " + *twin_of_other);
    auto layout = plan_outline(view, cfg, plan, cf_.pool, twin_names_, kSampledTwinSuffix);
    if (!layout) return layout.error();
    if (layout->twin_name != ctx_.method_name + kSampledTwinSuffix ||
        layout->twin_descriptor != expected) {
      return Error::plain("its twin would be " + layout->twin_name + layout->twin_descriptor +
                          ", not the " + ctx_.method_name + kSampledTwinSuffix + expected +
                          " the runtime looks for");
    }
    auto twin =
        duplicate_code(view, cfg, sites, plan, cf_.pool, /*with_events=*/true, options_.count_edges,
                       Outline{&*layout, OutlineSide::kTwin, 0, false}, options_.check);
    if (!twin) return twin.error();
    TransformedCode code;
    code.code = ir_;
    code.keep_method_code = true;
    code.twin = TwinCode{std::move(twin->code), layout->twin_name, layout->twin_descriptor};
    return code;
  }

  // The runtime finds a twin by the called method's name and widened descriptor, so two
  // overloads that widen alike (f(Z) and f(I)) would share one: the other's name+descriptor.
  std::optional<std::string> overload_with_twin_descriptor(const std::string& expected) const {
    for (const Member& other : cf_.methods) {
      if (&other == &method_ || cf_.pool.utf8(other.name_index) != ctx_.method_name) continue;
      std::string_view desc = cf_.pool.utf8(other.descriptor_index).value_or("");
      bool is_static = (other.access_flags & access::kStatic) != 0;
      if (sampled_twin_descriptor(ctx_.class_name, desc, is_static) == expected)
        return ctx_.method_name + std::string(desc);
    }
    return std::nullopt;
  }

  // Outlined when asked and possible (else inline, with the reason in the report).
  Result<TransformedCode> duplicate(const MethodView& view, const Cfg& cfg,
                                    const MethodSites& sites, const DupPlan& plan,
                                    bool with_events) {
    if (options_.outline) {
      auto layout = plan_outline(view, cfg, plan, cf_.pool, twin_names_);
      if (layout) return duplicate_outlined(view, cfg, sites, plan, with_events, *layout);
      outline_note_ = "not outlined: " + layout.error().message();
    }
    return duplicate_code(view, cfg, sites, plan, cf_.pool, with_events, options_.count_edges, {},
                          options_.check);
  }

  Result<TransformedCode> duplicate_outlined(const MethodView& view, const Cfg& cfg,
                                             const MethodSites& sites, const DupPlan& plan,
                                             bool with_events, const OutlineLayout& layout) {
    auto ref = cf_.pool.add_methodref(ctx_.class_name, layout.twin_name, layout.twin_descriptor);
    if (!ref) return ref.error();
    auto counted = with_method_counter(plan);
    if (!counted) return counted.error();
    const DupPlan& p = counted->method_counter ? *counted : plan;
    Outline checking{&layout, OutlineSide::kChecking, *ref, options_.hand_back};
    auto code = duplicate_code(view, cfg, sites, p, cf_.pool, with_events, options_.count_edges,
                               checking, options_.check);
    if (!code) return code.error();
    auto twin =
        duplicate_code(view, cfg, sites, p, cf_.pool, with_events, options_.count_edges,
                       Outline{&layout, OutlineSide::kTwin, 0, options_.hand_back}, options_.check);
    if (!twin) return twin.error();
    code->twin = TwinCode{std::move(twin->code), layout.twin_name, layout.twin_descriptor};
    return code;
  }

  // `plan` with the method's own counter (method_counters.h) where its checks count and exit
  // to the twin; an empty plan (method_counter 0) when they stay on the shared counter.
  // rewrite_class has refused the layouts without exit checks (method_counters_unsupported).
  Result<DupPlan> with_method_counter(const DupPlan& plan) {
    if (!method_counters_ || !method_counters_->usable() || plan.flag_checks) return DupPlan{};
    auto field =
        method_counters_->field_for(cf_.pool, static_cast<uint32_t>(&method_ - cf_.methods.data()));
    if (!field) return field.error();
    DupPlan counted = plan;
    counted.method_counter = *field;
    return counted;
  }

  static constexpr uint16_t kTwinAccess = access::kPrivate | access::kStatic | access::kSynthetic;

  MethodContext twin_context(const TwinCode& twin) const {
    MethodContext c = ctx_;
    c.method_name = twin.name;
    c.descriptor = twin.descriptor;
    c.access_flags = kTwinAccess;
    return c;
  }

  static std::vector<uint8_t> instrumented_blocks(const Cfg& cfg, const MethodSites& sites) {
    std::vector<uint8_t> marked(cfg.blocks.size(), 0);
    if (!sites.entry().empty() && !marked.empty()) marked[0] = 1;
    for (const Site& s : sites.all_instruction_sites()) marked[cfg.block_of_insn[s.point.insn]] = 1;
    return marked;
  }

  // Jumps between the checking and the duplicated code must not carry an uninitialized
  // object: its type names the offset of its `new`, which differs between the two copies.
  bool crossings_are_safe(const Cfg& cfg, const DupPlan& plan, bool partial, std::string& why) {
    for (uint32_t b = 0; b < cfg.blocks.size(); ++b) {
      for (const CfgEdge& e : cfg.blocks[b].succs) {
        bool crosses = e.back || (partial && plan.kept[b] != plan.kept[e.to]);
        if (!crosses) continue;
        const BasicBlock& target = cfg.blocks[e.to];
        for (uint32_t i = target.begin; i < target.end && ir_.insns[i].is_label(); ++i) {
          if (frame_has_uninitialized(ir_.labels[ir_.insns[i].label()].frame)) {
            why =
                "an uninitialized object is live where control crosses between the checking "
                "and the duplicated code";
            return false;
          }
        }
      }
    }
    if (partial) {
      for (const LabelInfo& l : ir_.labels) {
        if (frame_has_uninitialized(l.frame)) {
          why =
              "an uninitialized object is live across a branch (Partial-Duplication cannot "
              "prove every crossing safe)";
          return false;
        }
      }
    }
    return true;
  }

  // The first of `candidates` that builds and stays within the limits, or the method unchanged
  // with every candidate's reason.
  MethodOutcome try_candidates(const MethodView& view, const Cfg& cfg, const MethodSites& sites,
                               const std::vector<Transform>& candidates) {
    std::string reasons;
    for (Transform t : candidates) {
      std::string why_not;
      auto built = build_and_assemble(view, cfg, sites, t, why_not);
      if (!built) {
        append_reason(reasons, t, why_not);
        continue;
      }
      std::string limit = exceeds_limits(built->assembled.code_length);
      if (limit.empty() && built->twin)
        limit = exceeds_limits(built->twin->code_length, "its twin ");
      if (!limit.empty()) {
        append_reason(reasons, t, limit);
        continue;
      }
      install(t, *built, reasons);
      return std::move(outcome_);
    }
    return unchanged(
        join(outcome_.report.reason, reasons.empty() ? "no transform applies" : reasons));
  }

  struct Built {
    TransformedCode code;
    AssembledCode assembled;
    std::optional<AssembledCode> twin;
  };

  Result<Built> build_and_assemble(const MethodView& view, const Cfg& cfg, const MethodSites& sites,
                                   Transform t, std::string& why_not) {
    auto code = build(view, cfg, sites, t, why_not);
    if (!code) {
      if (why_not.empty()) why_not = code.error().message();
      return code.error();
    }
    auto assembled = code->keep_method_code ? kept_layout(code->code)
                                            : assemble_code(code->code, cf_.pool, ctx_);
    if (!assembled) {
      why_not = assembled.error().message();
      return assembled.error();
    }
    Built built{std::move(code.value()), std::move(assembled.value()), std::nullopt};
    if (built.code.twin) {
      auto twin = assemble_code(built.code.twin->code, cf_.pool, twin_context(*built.code.twin));
      if (!twin) {
        why_not = "outlined twin: " + twin.error().message();
        return twin.error();
      }
      built.twin = std::move(twin.value());
    }
    return built;
  }

  // The method's code as it stands (keep_method_code): every instruction where it was, so
  // nothing is assembled.
  Result<AssembledCode> kept_layout(const CodeIR& code) const {
    AssembledCode kept;
    kept.code_length = outcome_.report.original_code_size;
    kept.insn_offsets.reserve(code.insns.size());
    for (const Insn& insn : code.insns)
      kept.insn_offsets.push_back(insn.is_label() ? -1 : insn.original_offset);
    return kept;
  }

  std::string exceeds_limits(uint32_t size, std::string_view whose = "") const {
    uint32_t original = outcome_.report.original_code_size;
    if (options_.respect_huge_method_limit && original <= options_.huge_method_limit &&
        size > options_.huge_method_limit) {
      return std::string(whose) + "grows from " + std::to_string(original) + " to " +
             std::to_string(size) + " bytes, past HotSpot's HugeMethodLimit of " +
             std::to_string(options_.huge_method_limit) + " (it would no longer be compiled)";
    }
    return {};
  }

  static std::string join(const std::string& a, const std::string& b) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    return a + "; " + b;
  }

  static void append_reason(std::string& reasons, Transform t, const std::string& why) {
    if (!reasons.empty()) reasons += "; ";
    reasons += std::string(transform_name(t)) + ": " + why;
  }

  void install(Transform t, Built& built, const std::string& reasons) {
    Attribute* code = cf_.find_attribute(method_.attributes, "Code");
    if (built.code.keep_method_code) {
      outcome_.report.reason =
          join(outcome_.report.reason,
               "no check: sampled through its callers (twin " + built.code.twin->name + ")");
    } else {
      cf_.set_attribute_data(*code, built.assembled.code_attribute);
    }
    outcome_.report.applied = t;
    outcome_.report.new_code_size = built.code.keep_method_code ? outcome_.report.original_code_size
                                                                : built.assembled.code_length;
    outcome_.report.checks = built.code.checks;
    outcome_.report.reason = join(outcome_.report.reason, reasons);
    if (!built.twin) outcome_.report.reason = join(outcome_.report.reason, outline_note_);
    std::optional<LineLookup> lines;
    if (record_calls_) {
      lines.emplace(ir_);
      outcome_.calls = call_sites(built.code.code, built.assembled, *lines);
    }
    if (built.twin) {
      TwinCode& twin = *built.code.twin;
      outcome_.report.twin_code_size = built.twin->code_length;
      outcome_.report.new_code_size += built.twin->code_length;
      // A strictfp method's twin is strictfp too: its floating point must follow the same
      // rules on a JVM that still tells them apart (class files of version 46-60).
      const uint16_t strict = method_.access_flags & access::kStrict;
      outcome_.added =
          AddedMethod{static_cast<uint16_t>(kTwinAccess | strict), std::move(twin.name),
                      std::move(twin.descriptor), std::move(built.twin->code_attribute),
                      lines ? call_sites(twin.code, *built.twin, *lines) : std::vector<CallSite>{}};
    }
  }

  // The invokes that were in the original method: where they are now and where they were.
  static std::vector<CallSite> call_sites(const CodeIR& code, const AssembledCode& assembled,
                                          const LineLookup& lines) {
    std::vector<CallSite> calls;
    for (size_t i = 0; i < code.insns.size(); ++i) {
      const Insn& insn = code.insns[i];
      if (!is_invoke(insn.opcode) || insn.original_offset < 0) continue;
      calls.push_back({static_cast<uint32_t>(assembled.insn_offsets[i]), insn.original_offset,
                       lines.line_at(insn.original_offset)});
    }
    return calls;
  }

  ClassFile& cf_;
  Member& method_;
  const RewriteOptions& options_;
  std::set<std::string>& twin_names_;
  ClassCounters* counters_;
  SampledCalls* sampled_calls_;
  bool record_calls_;
  const std::set<std::string>* quiet_methods_;
  MethodCounters* method_counters_;
  const MethodContext& ctx_;  // reused_context(): valid until the next method on this thread
  CodeIR ir_;
  MethodOutcome outcome_;
  std::string outline_note_;  // why the chosen transform was not outlined, if asked
  bool flag_checks_ = false;  // the checks of Full and Partial are flag checks (dup_plan.h)
  bool via_callers_ = false;  // sampled through its callers (build_sampled_twin)
};

}  // namespace

MethodOutcome rewrite_method(ClassFile& cf, Member& method, const RewriteOptions& options,
                             std::set<std::string>& twin_names, ClassCounters* counters,
                             SampledCalls* sampled_calls, bool record_calls,
                             const std::set<std::string>* quiet_methods,
                             MethodCounters* method_counters) {
  return MethodRewriter(cf, method, options, twin_names, counters, sampled_calls, record_calls,
                        quiet_methods, method_counters)
      .run();
}

bool walks_stack(const RewriteOptions& options) {
  for (const auto& i : options.instrumentations) {
    if (i->name() == "call-edge-stack") return true;
  }
  return false;
}

std::vector<CallSite> call_sites_as_parsed(const CodeIR& ir) {
  const LineLookup lines(ir);
  std::vector<CallSite> calls;
  for (const Insn& insn : ir.insns) {
    if (!is_invoke(insn.opcode) || insn.original_offset < 0) continue;
    calls.push_back({static_cast<uint32_t>(insn.original_offset), insn.original_offset,
                     lines.line_at(insn.original_offset)});
  }
  return calls;
}

}  // namespace duplex
