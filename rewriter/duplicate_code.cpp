// Full- and Partial-Duplication: lays out the checking code (the original, with checks on
// the entry and on planned edges), the check trampolines, and the duplicated code (kept
// blocks, carrying the events, whose back edges and exits return to the checking code).
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "classfile/attributes.h"
#include "classfile/opcodes.h"
#include "rewriter/check_emitter.h"
#include "rewriter/hand_back.h"
#include "rewriter/jdk_packages.h"
#include "rewriter/outline_layout.h"
#include "rewriter/runtime_api.h"
#include "rewriter/sampled_calls.h"
#include "rewriter/transforms.h"
#include "rewriter/value_insns.h"

namespace duplex {
namespace {

struct Trampoline {
  LabelId label;
  LabelId fallback;    // the original target in the checking code
  LabelId dup_target;  // kNoLabel: no check, count only
  bool count;
  uint32_t to_block;  // the edge's target
};

// The duplicator's tables, kept from method to method on each thread (classfile/scratch.h): a
// rewrite runs the duplicator once or twice per method.
struct DuplicatorSpares {
  std::vector<LabelId> dup_label, check_start, dup_start, exception_trampoline, edge_trampoline;
  std::vector<std::pair<uint32_t, uint32_t>> redirected;
  std::vector<uint8_t> jumped_to_handler, flag_facts;
  std::vector<Trampoline> trampolines;
};

DuplicatorSpares& duplicator_spares() {
  thread_local DuplicatorSpares s;
  return s;
}

class Duplicator {
 public:
  Duplicator(const MethodView& m, const Cfg& cfg, const MethodSites& sites, const DupPlan& plan,
             ConstantPool& pool, bool with_events, bool count_edges, const Outline& outline,
             CheckForm check_form)
      : m_(m),
        src_(m.code),
        cfg_(cfg),
        sites_(sites),
        plan_(plan),
        pool_(pool),
        with_events_(with_events),
        count_edges_(count_edges),
        outline_(outline),
        check_form_(check_form) {
    swap_tables(/*taking=*/true);
  }
  ~Duplicator() { swap_tables(/*taking=*/false); }
  Duplicator(const Duplicator&) = delete;
  Duplicator& operator=(const Duplicator&) = delete;

  Result<TransformedCode> run() {
    copy_only_ = twin_reaches_no_checking_code();
    init_output();
    if (auto s = make_runtime_calls(); !s) return s.error();
    allocate_labels();
    if (auto s = emit_entry(); !s) return s.error();
    exception_trampoline_.assign(src_.try_catches.size(), kNoLabel);
    if (!copy_only_) emit_checking_code();
    place(checking_end_ = out_.new_label());
    if (checking_only()) {
      if (auto s = emit_twin_calls(); !s) return s.error();
    } else if (auto s = emit_duplicated_code(); !s) {
      return s.error();
    }
    emit_trampolines();
    emit_decisions();
    build_exception_table();
    emit_handler_stubs();
    if (!checking_only()) copy_debug_tables();
    if (auto s = check_.add_local_to_frames(out_); !s) return s.error();
    return TransformedCode{std::move(out_), checks_};
  }

 private:
  // ---- setup ----

  // Takes the tables' buffers from the thread's spares, or gives them back.
  void swap_tables(bool taking) {
    DuplicatorSpares& s = duplicator_spares();
    scratch::exchange(dup_label_, s.dup_label, taking);
    scratch::exchange(check_start_, s.check_start, taking);
    scratch::exchange(dup_start_, s.dup_start, taking);
    scratch::exchange(exception_trampoline_, s.exception_trampoline, taking);
    scratch::exchange(edge_trampoline_, s.edge_trampoline, taking);
    scratch::exchange(redirected_, s.redirected, taking);
    scratch::exchange(jumped_to_handler_, s.jumped_to_handler, taking);
    scratch::exchange(flag_facts_, s.flag_facts, taking);
    scratch::exchange(trampolines_, s.trampolines, taking);
  }

  void init_output() {
    out_.max_stack = src_.max_stack;
    out_.max_locals = src_.max_locals;
    copy_table(out_.switches, src_.switches, true);
    // Room for the labels this adds, so that new_label never moves the frames.
    out_.labels.reserve(label_bound());
    out_.labels = src_.labels;
    // A twin without checking code keeps only the copy's lines and locals (copy_debug_tables);
    // the type annotations name instructions of the checking code.
    copy_table(out_.line_numbers, src_.line_numbers, !copy_only_);
    copy_table(out_.local_variables, src_.local_variables, !copy_only_);
    copy_table(out_.local_variable_types, src_.local_variable_types, !copy_only_);
    if (!copy_only_) {
      out_.visible_type_annotations = src_.visible_type_annotations;
      out_.invisible_type_annotations = src_.invisible_type_annotations;
    }
    out_.unknown_attributes = src_.unknown_attributes;
    out_.had_stack_map_table = src_.had_stack_map_table;
    out_.insns.reserve(src_.insns.size() * 2 + 16);
  }

  // Copies `from` into `to` if `copy`, with room for the duplicated code's copies of the
  // entries (copy_debug_tables, retarget_dup_branch) so that appending them moves nothing.
  template <class T>
  void copy_table(std::vector<T>& to, const std::vector<T>& from, bool copy) {
    to.reserve((copy ? from.size() : 0) + (checking_only() ? 0 : from.size()));
    if (copy) to.assign(from.begin(), from.end());
  }

  // At most: a copy of each label, a start per block in each code, one trampoline per edge
  // and code, a handler stub per exception-table entry, the few labels of an outline's entries
  // and the odd ones (entries, ends).
  size_t label_bound() const {
    size_t outline = outline_.layout ? 6 * outline_.layout->entries.size() : 0;
    return 2 * src_.labels.size() + 2 * cfg_.blocks.size() + 2 * cfg_.edges.size() +
           src_.try_catches.size() + outline + 8;
  }

  Status make_runtime_calls() {
    auto check = CheckEmitter::make(pool_, m_.runtime_class, check_form_, counter_slot(),
                                    plan_.flag_checks, exits_to_twin(), twin_side());
    if (!check) return check.error();
    check_ = *check;
    // The planner gives a method counter only to exit checks that count (use_method_counter
    // refuses anything else).
    const bool method_counter = plan_.method_counter != 0;
    if (method_counter) {
      if (auto s = check_.use_method_counter(pool_, m_.runtime_class, plan_.method_counter); !s)
        return s;
    } else if (wants_stripe_local()) {
      if (auto s = check_.use_stripe_local(pool_, m_.runtime_class, local_slot_base()); !s)
        return s;
    }
    if (count_edges_) {
      auto entry =
          pool_.add_methodref(m_.runtime_class, runtime_api::kCountEntry, runtime_api::kVoidDesc);
      auto back = pool_.add_methodref(m_.runtime_class, runtime_api::kCountBackedge,
                                      runtime_api::kVoidDesc);
      if (!entry) return entry.error();
      if (!back) return back.error();
      count_entry_ = Insn::make(op::kInvokestatic, *entry);
      count_back_ = Insn::make(op::kInvokestatic, *back);
    }
    if (hands_back_here()) {
      auto calls = HandBackCalls::make(pool_, m_.runtime_class);
      if (!calls) return calls.error();
      hand_back_calls_ = *calls;
    }
    if (twin_side() && !outline_.hand_back) {
      // With a loop budget the twin may be entered before the counter ran out (the checking
      // method's budget did): due() samples only if it did.
      auto expired = pool_.add_methodref(
          m_.runtime_class, check_.has_budget() ? runtime_api::kDue : runtime_api::kExpired,
          runtime_api::kCheckDesc);
      if (!expired) return expired.error();
      decision_[0] = Insn::make(op::kInvokestatic, *expired);
      decision_size_ = 1;
      if (method_counter) return make_rearm();
    }
    return Ok{};
  }

  // A twin's decision on the method's own counter, leaving the sampling decision on the stack
  // as `expired()` would: `getstatic f; invokestatic methodCounter; dup; putstatic f;
  // invokestatic rearm` (runtime-contract.md).
  Status make_rearm() {
    auto make = pool_.add_methodref(m_.runtime_class, runtime_api::kMethodCounter,
                                    runtime_api::kMethodCounterMakeDesc);
    if (!make) return make.error();
    auto rearm =
        pool_.add_methodref(m_.runtime_class, runtime_api::kRearm, runtime_api::kRearmDesc);
    if (!rearm) return rearm.error();
    const uint16_t field = plan_.method_counter;
    decision_ = {Insn::make(op::kGetstatic, field), Insn::make(op::kInvokestatic, *make),
                 Insn::make(op::kDup), Insn::make(op::kPutstatic, field),
                 Insn::make(op::kInvokestatic, *rearm)};
    decision_size_ = decision_.size();
    return Ok{};
  }

  void emit_expired() {
    out_.insns.insert(out_.insns.end(), decision_.begin(), decision_.begin() + decision_size_);
  }

  // The local that caches the counter (CheckForm::kLocal; a loop budget where checks exit to
  // the twin): the first free slot, in a method with edge checks. Without loops the entry
  // check is the only one, and a call is cheaper.
  int32_t counter_slot() const {
    if (check_form_ != CheckForm::kLocal || plan_.flag_checks || !has_edge_checks()) return -1;
    // A loop budget pays off in loops that call nothing that counts checks; around such a call
    // it is counted and taken again, which in a loop costs more than the checks it saves.
    if (exits_to_twin() && counting_call_in_loop()) return -1;
    return local_slot_base();
  }

  // The first slot free for the checks' own local: past the method's locals, or in a twin past
  // its parameters.
  int32_t local_slot_base() const {
    if (outline_.layout && outline_.side == OutlineSide::kTwin)
      return outline_.layout->twin_max_locals;
    return src_.max_locals;
  }

  // Counting exit checks at back edges on the shared counter, which the stripe local serves
  // (RewriteOptions::stripe_in_local): a method without them keeps the one lookup its entry
  // check makes.
  bool wants_stripe_local() const {
    return plan_.stripe_in_local && exits_to_twin() && !plan_.flag_checks && !check_.has_local() &&
           has_edge_checks();
  }

  // Events' scratch locals go past the method's locals and the checks' local.
  uint16_t first_temp_local() const { return check_.locals_end(src_.max_locals); }

  bool has_back_edges() const {
    for (const BasicBlock& b : cfg_.blocks) {
      for (const CfgEdge& e : b.succs) {
        if (e.back) return true;
      }
    }
    return false;
  }

  bool has_edge_checks() const { return plan_.check_edge.any(); }

  // Whether a call that may count checks lies in a loop: in a block from which a back edge's
  // source is reached without passing its target (the loop's header), over all edges.
  bool counting_call_in_loop() const {
    const size_t n = cfg_.blocks.size();
    std::vector<std::vector<uint32_t>> preds(n);
    for (uint32_t b = 0; b < n; ++b) {
      for (const CfgEdge& e : cfg_.blocks[b].succs) preds[e.to].push_back(b);
    }
    std::vector<uint8_t> in_loop(n, 0);
    std::vector<uint32_t> work;
    // Which back edge's walk saw each block (one array for all walks).
    std::vector<uint32_t> seen_by(n, UINT32_MAX);
    for (uint32_t b = 0; b < n; ++b) {
      for (const CfgEdge& e : cfg_.blocks[b].succs) {
        if (!e.back) continue;
        const auto walk = static_cast<uint32_t>(&e - cfg_.edges.data());
        seen_by[e.to] = walk;
        in_loop[e.to] = 1;
        if (seen_by[b] != walk) work.push_back(b), seen_by[b] = walk;
        while (!work.empty()) {
          uint32_t x = work.back();
          work.pop_back();
          in_loop[x] = 1;
          for (uint32_t p : preds[x]) {
            if (seen_by[p] != walk) work.push_back(p), seen_by[p] = walk;
          }
        }
      }
    }
    for (uint32_t b = 0; b < n; ++b) {
      if (!in_loop[b]) continue;
      for (uint32_t i = cfg_.blocks[b].begin; i < cfg_.blocks[b].end; ++i) {
        const Insn& insn = src_.insns[i];
        if (!insn.is_label() && is_invoke(insn.opcode) && callee_may_count(insn)) return true;
      }
    }
    return false;
  }

  // Whether a call may run checks, so that a loop budget must be counted before it and taken
  // again after it. Not for the runtime's methods, nor (with a budget) for JDK classes, which
  // are not rewritten: a JDK method that calls back into the program leaves the budget stale
  // for that call, which only moves samples to the callback's checks.
  bool may_count_checks(const Insn& call) const {
    return !check_.has_budget() || callee_may_count(call);
  }

  bool callee_may_count(const Insn& call) const {
    if (call.opcode == op::kInvokedynamic) return true;
    auto ref = pool_.member_ref(static_cast<uint32_t>(call.a));
    if (!ref) return true;
    // A static or private method of this class that counts no check (flag checks).
    bool exact = call.opcode == op::kInvokestatic || call.opcode == op::kInvokespecial;
    if (exact && plan_.quiet_methods && ref->owner == m_.context.class_name &&
        plan_.quiet_methods->contains(std::string(ref->name) + std::string(ref->descriptor)))
      return false;
    return ref->owner != m_.runtime_class && !in_jdk_package(ref->owner);
  }

  bool uses_frames() const { return m_.context.major_version >= 50; }

  // Frames by pointer into the original code: most uses only test or copy them once.
  const Frame* frame_of(LabelId l) const {
    if (l == kNoLabel || l >= src_.labels.size() || !src_.labels[l].frame) return nullptr;
    return &*src_.labels[l].frame;
  }

  // The frame of the first framed label in the leading label run of block b.
  const Frame* block_entry_frame(uint32_t b) const {
    const BasicBlock& block = cfg_.blocks[b];
    for (uint32_t i = block.begin; i < block.end && src_.insns[i].is_label(); ++i) {
      if (const Frame* f = frame_of(src_.insns[i].label())) return f;
    }
    return nullptr;
  }

  // Dup copies of labels, block-start labels in both codes, the duplicated entry.
  void allocate_labels() {
    const size_t blocks = cfg_.blocks.size();
    dup_label_.assign(src_.labels.size(), kNoLabel);
    check_start_.assign(blocks, kNoLabel);
    dup_start_.assign(blocks, kNoLabel);
    for (uint32_t b = 0; b < blocks; ++b) {
      check_start_[b] = out_.new_label();
      if (!plan_.kept[b]) continue;
      dup_start_[b] = out_.new_label();
      for (uint32_t i = cfg_.blocks[b].begin; i < cfg_.blocks[b].end; ++i) {
        if (src_.insns[i].is_label()) dup_label_[src_.insns[i].label()] = out_.new_label();
      }
    }
    // Frames of copies: the same types, with Uninitialized(new) pointing at the copied `new`.
    for (LabelId l = 0; l < src_.labels.size(); ++l) {
      if (dup_label_[l] != kNoLabel) out_.labels[dup_label_[l]].frame = remap(frame_of(l));
    }
    for (uint32_t b = 0; b < blocks; ++b) {
      if (dup_start_[b] != kNoLabel) out_.labels[dup_start_[b]].frame = remap(block_entry_frame(b));
    }
    dup_end_ = out_.new_label();
    has_entry_events_ = with_events_ && !sites_.entry().empty() && plan_.kept[0];
    dup_entry_ = has_entry_events_ ? out_.new_label() : (blocks ? dup_start_[0] : kNoLabel);
  }

  std::optional<Frame> remap(const Frame* original) const {
    if (!original) return std::nullopt;
    std::optional<Frame> f = *original;
    for (std::span<VType> list : f->lists()) {
      for (VType& v : list) {
        if (v.tag == VTag::kUninitialized && v.data < dup_label_.size() &&
            dup_label_[v.data] != kNoLabel) {
          v.data = dup_label_[v.data];
        }
      }
    }
    return f;
  }

  void place(LabelId l) { out_.insns.push_back(Insn::make_label(l)); }

  void emit_check(LabelId dup_target) {
    check_.emit(out_, dup_target);
    ++checks_;
  }

  // ---- checking code ----

  Status emit_entry() {
    // The local counter is set before anything else (labels included), so that every frame
    // and every try range in the method sees it defined.
    if (check_.has_local()) {
      out_.max_locals = static_cast<uint16_t>(check_.local_slot() + check_.local_slots());
      check_.emit_local_init(out_, twin_side());
    }
    if (check_.has_stripe_local()) {
      out_.max_locals = std::max(out_.max_locals, check_.locals_end(0));
      check_.emit_stripe_init(out_);
    }
    emit_leading_labels();
    // Labels the entry check makes (a flag check's `ifnull go_on`) are reached with the entry
    // state: the check leaves the stack and the locals as it found them.
    size_t check_labels_from = out_.labels.size();
    if (outline_.layout && !checking_only()) {
      if (auto s = emit_twin_dispatch(); !s) return s;
      check_labels_from = out_.labels.size();
    } else {
      if (count_edges_) out_.insns.push_back(count_entry_);
      if (plan_.entry_check && dup_entry_ != kNoLabel) {
        LabelId sample = sample_target(-1);
        check_labels_from = out_.labels.size();
        check_.emit_entry(out_, sample);
        ++checks_;
      }
    }
    // The duplicated entry is reached from the entry check with the entry state too. Given
    // here, these frames spare the assembler a simulation of the code (an eighth of what
    // rewriting a small method cost).
    return give_entry_frame(check_labels_from);
  }

  // The entry frame, to the duplicated entry and to the labels from `check_labels_from` on,
  // where they have none.
  Status give_entry_frame(size_t check_labels_from) {
    if (!uses_frames()) return Ok{};
    const Frame* initial = nullptr;  // looked up for the first label that needs it
    auto give = [&](size_t l) -> Status {
      if (out_.labels[l].frame) return Ok{};
      if (initial == nullptr) {
        auto frame = initial_frame_ref(pool_, m_.context.class_name, m_.context.method_name,
                                       m_.context.descriptor, m_.context.access_flags);
        if (!frame) return frame.error();
        initial = frame.value();
      }
      out_.labels[l].frame = *initial;
      return Ok{};
    };
    if (dup_entry_ != kNoLabel) {
      if (auto s = give(dup_entry_); !s) return s;
    }
    for (size_t l = check_labels_from; l < out_.labels.size(); ++l) {
      if (auto s = give(l); !s) return s;
    }
    return Ok{};
  }

  // Labels at offset 0 that nothing jumps to (line numbers, local-variable scopes) go before
  // the entry check, so that parameters are in scope and the line is known from offset 0.
  // Jump targets stay after it: a loop back to offset 0 must not pass the entry check.
  // Labels that name an instruction (a `new` in Uninitialized types, a type annotation's
  // target) must stay with it.
  void emit_leading_labels() {
    if (cfg_.blocks.empty()) return;
    uint32_t end = cfg_.blocks[0].begin;
    while (end < cfg_.blocks[0].end && src_.insns[end].is_label() &&
           !cfg_.label_is_target[src_.insns[end].label()]) {
      ++end;
    }
    if (end == cfg_.blocks[0].begin) return;
    end = first_insn_named_by_label(end);
    out_.insns.insert(out_.insns.end(), src_.insns.begin() + cfg_.blocks[0].begin,
                      src_.insns.begin() + end);
    if (end > cfg_.blocks[0].begin) leading_labels_ = end;
    // A twin starts with its own parameters, not the original's entry state: a frame the
    // original gave offset 0 (javac only does for a loop there, which is a branch target and
    // not moved here, but other compilers do without one) would describe the twin's first
    // instruction wrongly. Nothing jumps to these labels, so they need no frame.
    if (twin_side()) {
      for (uint32_t i = cfg_.blocks[0].begin; i < end; ++i) {
        if (src_.insns[i].is_label()) out_.labels[src_.insns[i].label()].frame.reset();
      }
    }
  }

  // The first insn index below `limit` holding a label that names an instruction, or `limit`.
  uint32_t first_insn_named_by_label(uint32_t limit) const {
    uint32_t first = limit;
    auto name = [&](LabelId l) {
      if (l >= cfg_.label_position.size()) return;
      int32_t at = cfg_.label_position[l];
      if (at >= 0 && static_cast<uint32_t>(at) < first) first = static_cast<uint32_t>(at);
    };
    for (const LabelInfo& info : src_.labels) {
      if (!info.frame) continue;
      for (std::span<const VType> list : info.frame->lists()) {
        for (const VType& v : list) {
          if (v.tag == VTag::kUninitialized) name(v.data);
        }
      }
    }
    for (const auto* annos : {&src_.visible_type_annotations, &src_.invisible_type_annotations}) {
      for (const CodeTypeAnnotationIR& a : *annos) name(a.insn);
    }
    return first;
  }

  bool edge_has_action(uint32_t b, size_t e) const {
    return plan_.check_edge[b][e] || plan_.count_edge[b][e];
  }

  // The check (and count) of edge e of block b, out of line: `check; ifne copy; goto target`.
  // One per edge, shared by the checking code and the duplicated code: a back edge taken in
  // the copy passes the same check, so at interval 1 every iteration is sampled.
  LabelId make_trampoline(uint32_t b, size_t e, LabelId fallback, const Frame* frame,
                          bool from_copy = false) {
    // Where the copy's back edges rejoin a checking copy that runs on after a sample (a twin
    // that does not hand back), they get trampolines of their own: a shared one would merge
    // the sampled path into the hot back edge before its jump to the loop header.
    bool own = from_copy && twin_side() && !outline_.hand_back;
    LabelId& label = trampoline_of(b, e, own);
    if (label != kNoLabel) return label;
    const CfgEdge& edge = cfg_.blocks[b].succs[e];
    Trampoline t{out_.new_label(), fallback,
                 plan_.check_edge[b][e] ? sample_target(static_cast<int32_t>(edge.to)) : kNoLabel,
                 plan_.count_edge[b][e] != 0, edge.to};
    // The trampoline holds the state that flows into the target: give it the target's frame.
    if (frame) out_.labels[t.label].frame = *frame;
    trampolines_.push_back(t);
    return label = t.label;
  }

  // The trampoline of edge e of block b (kNoLabel: none yet), shared or the copy's own.
  LabelId& trampoline_of(uint32_t b, size_t e, bool own) {
    if (edge_trampoline_.empty()) edge_trampoline_.assign(2 * cfg_.edges.size(), kNoLabel);
    return edge_trampoline_[2 * (cfg_.blocks[b].first_edge + e) + own];
  }

  LabelId make_trampoline(uint32_t b, size_t e, LabelId fallback, bool from_copy = false) {
    return make_trampoline(b, e, fallback, frame_of(fallback), from_copy);
  }

  void emit_checking_code() {
    for (uint32_t b = 0; b < cfg_.blocks.size(); ++b) {
      const BasicBlock& block = cfg_.blocks[b];
      place(check_start_[b]);
      for (uint32_t i = b == 0 ? leading_labels_ : block.begin; i < block.end; ++i) {
        Insn insn = src_.insns[i];
        if (static_cast<int32_t>(i) == block.last_real) retarget_checking_branch(b, insn);
        if (!insn.is_label() && is_return(static_cast<uint8_t>(insn.opcode)))
          check_.emit_spent(out_);
        bool recount = is_invoke(insn.opcode) && may_count_checks(insn);
        if (recount) check_.emit_before_call(out_);
        out_.insns.push_back(insn);
        if (recount) check_.emit_reload(out_);
      }
      emit_fallthrough_action(b);
      plan_exception_trampolines(b);
    }
  }

  void retarget_checking_branch(uint32_t b, Insn& insn) {
    const auto& succs = cfg_.blocks[b].succs;
    bool is_sw = is_switch(static_cast<uint8_t>(insn.opcode));
    SwitchTable* table = is_sw ? &out_.switches[insn.switch_index] : nullptr;
    for (size_t e = 0; e < succs.size(); ++e) {
      const CfgEdge& edge = succs[e];
      if (!edge_has_action(b, e)) continue;
      if (edge.kind == EdgeKind::kBranch) {
        insn.target = make_trampoline(b, e, insn.target);
      } else if (edge.kind == EdgeKind::kSwitch && table) {
        LabelId& slot = edge.case_index < 0 ? insn.target : table->targets[edge.case_index];
        slot = make_trampoline(b, e, slot);
      }
    }
  }

  void emit_fallthrough_action(uint32_t b) {
    const auto& succs = cfg_.blocks[b].succs;
    for (size_t e = 0; e < succs.size(); ++e) {
      if (succs[e].kind != EdgeKind::kFallthrough || !edge_has_action(b, e)) continue;
      if (plan_.count_edge[b][e]) out_.insns.push_back(count_back_);
      if (!plan_.check_edge[b][e]) continue;
      emit_check(sample_target(static_cast<int32_t>(succs[e].to)));
      if (!twin_side() || !outline_.hand_back) continue;
      // In a twin, a check that does not fire ends the sample. The target block follows with
      // no fall-through into it any more: it needs a frame of its own if it has none.
      uint32_t to = succs[e].to;
      out_.insns.push_back(Insn::make_branch(op::kGoto, hand_back_label(to)));
      give_entry_frame(to);
    }
  }

  // One trampoline per exception-table entry whose edges from this block need a check.
  void plan_exception_trampolines(uint32_t b) {
    const auto& succs = cfg_.blocks[b].succs;
    for (size_t e = 0; e < succs.size(); ++e) {
      const CfgEdge& edge = succs[e];
      if (edge.kind != EdgeKind::kException || !edge_has_action(b, e)) continue;
      LabelId& t = exception_trampoline_[edge.try_index];
      LabelId handler = src_.try_catches[edge.try_index].handler;
      if (t == kNoLabel) t = make_trampoline(b, e, handler);
      redirected_.push_back({b, edge.try_index});
      // The trampoline jumps to the handler, and to its copy when its check fires.
      mark_jumped_to(handler);
      if (!checking_only() && plan_.check_edge[b][e] && dup_label_[handler] != kNoLabel)
        mark_jumped_to(dup_label_[handler]);
    }
  }

  void mark_jumped_to(LabelId handler) {
    if (handler >= jumped_to_handler_.size()) jumped_to_handler_.resize(handler + 1, 0);
    jumped_to_handler_[handler] = 1;
  }

  bool is_jumped_to(LabelId handler) const {
    return handler < jumped_to_handler_.size() && jumped_to_handler_[handler];
  }

  void emit_trampolines() {
    for (const Trampoline& t : trampolines_) {
      place(t.label);
      if (t.count) out_.insns.push_back(count_back_);
      if (t.dup_target == kNoLabel) {
        out_.insns.push_back(Insn::make_branch(op::kGoto, t.fallback));
        continue;
      }
      emit_check(t.dup_target);
      // In a twin, a check that does not fire ends the sample.
      LabelId next = twin_side() && outline_.hand_back ? hand_back_label(t.to_block) : t.fallback;
      out_.insns.push_back(Insn::make_branch(op::kGoto, next));
    }
    for (const auto& [entry, label] : hand_back_label_) {
      place(label);
      emit_hand_back(*outline_.layout, static_cast<size_t>(entry), hand_back_calls_,
                     m_.context.descriptor, out_.insns);
    }
  }

  // ---- outlined layout ----

  // The checking method of an outlined pair: no copy here, checks call the twin.
  bool checking_only() const { return outline_.layout && outline_.side == OutlineSide::kChecking; }
  bool twin_side() const { return outline_.layout && outline_.side == OutlineSide::kTwin; }
  // The checking method of a pair that does not hand back: its checks leave for the twin.
  bool exits_to_twin() const { return outline_.layout && !outline_.hand_back; }
  bool hands_back_here() const {
    return outline_.layout && outline_.hand_back && hands_back(*outline_.layout);
  }

  // A twin whose copy never enters the checking code: every block is kept and every back edge
  // is checked, so each way back hands back to the checking method (Full-Duplication). Its own
  // copy of the checking code would be dead weight (bytes, and JIT work), so it has none.
  // Partial's exits into removed blocks need it.
  bool twin_reaches_no_checking_code() const {
    if (!twin_side()) return false;
    // Without hand-back the twin's checking copy runs the rest of an activation after a sample
    // at a back edge; a loop-free method has none, and calls itself when it is not sampled.
    if (!outline_.hand_back && !plan_.flag_checks && has_back_edges()) return false;
    for (uint32_t b = 0; b < cfg_.blocks.size(); ++b) {
      if (!plan_.kept[b]) return false;
      const auto& succs = cfg_.blocks[b].succs;
      for (size_t e = 0; e < succs.size(); ++e) {
        if (succs[e].back && !plan_.check_edge[b][e]) return false;
      }
    }
    return true;
  }

  // A checked block (an outline entry) that is entered by fall-through only has no frame of its
  // own; one that is jumped to from hand-back code, or no longer fallen into, needs the entry's.
  void give_entry_frame(uint32_t block) {
    std::optional<Frame>& frame = out_.labels[check_start_[block]].frame;
    if (frame || block_entry_frame(block) != nullptr) return;
    frame = outline_.layout->entries[outline_.layout->entry_of_block(static_cast<int32_t>(block))]
                .frame;
  }

  // The twin's hand-back to the checking method at `block` (an entry: every checked edge's
  // target is one), with the entry's frame.
  LabelId hand_back_label(uint32_t block) {
    int32_t e = outline_.layout->entry_of_block(static_cast<int32_t>(block));
    auto [it, fresh] = hand_back_label_.try_emplace(e, kNoLabel);
    if (fresh) {
      it->second = out_.new_label();
      out_.labels[it->second].frame = outline_.layout->entries[e].frame;
    }
    return it->second;
  }

  // Where a check that fires goes, for the method entry (-1) or the copy of a block.
  LabelId sample_target(int32_t block) {
    if (decides_in_twin() && block >= 0) return decision_label(static_cast<uint32_t>(block));
    if (!checking_only()) return block < 0 ? dup_entry_ : dup_start_[block];
    int32_t e = outline_.layout->entry_of_block(block);
    auto [it, fresh] = twin_call_label_.try_emplace(e, kNoLabel);
    if (fresh) {
      it->second = out_.new_label();
      out_.labels[it->second].frame = outline_.layout->entries[e].frame;
    }
    return it->second;
  }

  // One call per entry: pass the locals and the entry id. Then return what the twin returns,
  // or, when the twin can hand back, go on where it handed back (rewriter/hand_back.h).
  Status emit_twin_calls() {
    const OutlineLayout& layout = *outline_.layout;
    const bool resumes = hands_back_here();
    LabelId after = resumes ? out_.new_label() : kNoLabel;
    for (const auto& [entry, label] : twin_call_label_) {
      place(label);
      if (entry > 0) check_.emit_spend_all(out_);  // a back edge's budget ran out
      if (auto s = emit_twin_call(layout, static_cast<size_t>(entry), outline_.twin_methodref,
                                  out_.insns);
          !s) {
        return s;
      }
      bool last = label == twin_call_label_.rbegin()->second;
      if (!resumes) {
        out_.insns.push_back(return_for(m_.context.descriptor));
      } else if (!last) {
        out_.insns.push_back(Insn::make_branch(op::kGoto, after));
      }
    }
    if (!resumes) return Ok{};
    place(after);
    check_.emit_reload(out_);  // the twin's checks moved the shared counter
    std::vector<LabelId> resume_at(layout.entries.size(), kNoLabel);
    for (size_t e = 1; e < layout.entries.size(); ++e) {
      auto block = static_cast<uint32_t>(layout.entries[e].block);
      resume_at[e] = check_start_[block];
      give_entry_frame(block);
    }
    return emit_resume(layout, hand_back_calls_, m_.context.descriptor, pool_, after, resume_at,
                       out_);
  }

  // The twin starts with a switch on the entry id; each case moves the parameters into the
  // original slots and jumps into the copy. The default case (never taken) enters the
  // checking code at the top, if the twin has one, so that it is reachable as it was.
  Status emit_twin_dispatch() {
    const OutlineLayout& layout = *outline_.layout;
    auto frame = initial_frame(pool_, m_.context.class_name, layout.twin_name,
                               layout.twin_descriptor, access::kStatic);
    if (!frame) return frame.error();
    out_.max_locals = std::max<uint16_t>(out_.max_locals, layout.twin_max_locals);
    // No frame names the cold parameter: its type changes when the twin moves to a twin class
    // (twin_nest.h), and only the method's descriptor may say which it is.
    if (layout.cold_param) frame->locals.pop_back();  // the last of the twin's parameters
    emit_twin_start_casts(layout, *frame, out_.insns);
    SwitchTable table;
    table.targets.reserve(layout.entries.size());
    for (size_t e = 0; e < layout.entries.size(); ++e) {
      table.targets.push_back(out_.new_label());
      out_.labels[table.targets.back()].frame = *frame;
    }
    // The case labels, which stay where they are when the table moves to out_.switches.
    const std::span<const LabelId> cases = table.targets;
    // Without checking code the default (never taken) is entry 0's case.
    LabelId top = copy_only_ ? cases[0] : out_.new_label();
    out_.labels[top].frame = std::move(*frame);
    // One entry and nothing else to reach: no dispatch (the id parameter stays, unused).
    if (layout.entries.size() > 1 || !copy_only_) {
      out_.insns.push_back(Insn::make(static_cast<uint8_t>(op::kIload), layout.id_slot));
      Insn sw = Insn::make_branch(op::kTableswitch, top);
      sw.switch_index = static_cast<uint32_t>(out_.switches.size());
      out_.switches.push_back(std::move(table));
      out_.insns.push_back(sw);
    }
    for (size_t e = 0; e < layout.entries.size(); ++e) {
      place(cases[e]);
      emit_twin_prologue(layout, e, out_.insns);
      int32_t block = layout.entries[e].block;
      if (decides_in_twin() && copy_only_) {
        // A loop-free method's twin has no checking copy: when this is not a sample (sampling
        // off), it calls the method itself again, which nothing has changed yet.
        LabelId sample = out_.new_label();
        out_.labels[sample].frame = layout.entries[e].frame;
        emit_expired();
        out_.insns.push_back(Insn::make_branch(op::kIfne, sample));
        if (auto s = emit_call_original(layout.entries[e].frame); !s) return s;
        place(sample);
      } else if (decides_in_twin()) {
        // Entered because the checking method's counter ran out: sample, or go on unsampled
        // in this twin's checking code (which then runs the rest of the activation).
        emit_expired();
        check_.emit_budget_reset(out_);
        out_.insns.push_back(
            Insn::make_branch(op::kIfeq, block < 0 ? top : unsampled_entry(block)));
      }
      LabelId into = block < 0 ? dup_entry_ : dup_start_[block];
      if (into == kNoLabel) into = check_start_[0];  // nothing sampled from here: the top
      // A block entered by fall-through only has no frame of its own; the entry's frame (the
      // state there, computed when planning) keeps the twin's parameters out of it.
      if (!out_.labels[into].frame && !(block < 0 && into == check_start_[0]))
        out_.labels[into].frame = layout.entries[e].frame;
      out_.insns.push_back(Insn::make_branch(op::kGoto, into));
    }
    if (copy_only_) return Ok{};
    place(top);
    size_t before = out_.insns.size();
    emit_twin_prologue(layout, 0, out_.insns);
    // From here on the state is the original method's entry state: say so, so that frames
    // computed further on never carry the twin's parameter slots into a join with a path
    // that went through one of the original frames. (A nop keeps that frame off the offset
    // of `top`, whose frame is the twin's.)
    // A nop also keeps `top`'s frame apart from block 0's own frame (a loop at offset 0).
    if (out_.insns.size() == before) out_.insns.push_back(Insn::make(op::kNop));
    if (!cfg_.blocks.empty() && block_entry_frame(0) == nullptr)
      out_.labels[check_start_[0]].frame = layout.entries[0].frame;
    return Ok{};
  }

  // `return m(...)`: the original method called with the entry's locals (its parameters), by
  // invokespecial for an instance method, so that no override runs instead.
  Status emit_call_original(const Frame& entry) {
    const MethodContext& c = m_.context;
    auto ref = pool_.add_methodref(c.class_name, c.method_name, c.descriptor);
    if (!ref) return ref.error();
    for (const auto& [slot, t] : locals_by_slot(entry)) {
      out_.insns.push_back(local_insn(false, kind_of(t), slot));
    }
    bool is_static = (c.access_flags & access::kStatic) != 0;
    out_.insns.push_back(Insn::make(is_static ? op::kInvokestatic : op::kInvokespecial, *ref));
    out_.insns.push_back(return_for(c.descriptor));
    return Ok{};
  }

  // A twin entered by a counting check that does not hand back decides itself whether to
  // sample (Duplex.expired). Flag checks need no decision: the caller's sample decided.
  bool decides_in_twin() const { return twin_side() && !outline_.hand_back && !plan_.flag_checks; }

  // In such a twin a counting check that runs out goes here: `expired()`, then the copy of
  // the block (a sample) or the block itself, each by a jump of its own to the block's start,
  // so the rare path joins the loop at its header and never in the middle of the hot path.
  LabelId decision_label(uint32_t block) {
    auto [it, fresh] = decision_label_.try_emplace(block, kNoLabel);
    if (fresh) {
      it->second = out_.new_label();
      int32_t e = outline_.layout->entry_of_block(static_cast<int32_t>(block));
      out_.labels[it->second].frame = outline_.layout->entries[e].frame;
    }
    return it->second;
  }

  void emit_decisions() {
    for (const auto& [block, label] : decision_label_) {
      place(label);
      emit_expired();
      check_.emit_budget_reset(out_);
      out_.insns.push_back(
          Insn::make_branch(op::kIfeq, unsampled_entry(static_cast<int32_t>(block))));
      LabelId copy = dup_start_[block];
      if (!out_.labels[copy].frame) out_.labels[copy].frame = out_.labels[label].frame;
      out_.insns.push_back(Insn::make_branch(op::kGoto, copy));
    }
  }

  LabelId unsampled_entry(int32_t block) {
    give_entry_frame(static_cast<uint32_t>(block));
    return check_start_[static_cast<uint32_t>(block)];
  }

  // ---- duplicated code ----

  Status emit_duplicated_code() {
    find_flag_facts();
    if (has_entry_events_) {
      place(dup_entry_);
      if (auto s = emit_events(m_, sites_.entry(), pool_, out_, first_temp_local()); !s) return s;
    }
    for (uint32_t b = 0; b < cfg_.blocks.size(); ++b) {
      if (!plan_.kept[b]) continue;
      place(dup_start_[b]);
      if (auto s = copy_block(b); !s) return s;
      emit_dup_fallthrough(b);
    }
    place(dup_end_);
    return Ok{};
  }

  // The sampling flag is set before each call of the duplicated code, so that the small
  // methods it calls (flag checks) sample themselves, and cleared where control leaves the
  // copy with the flag set, rather than after each call: clearing after each call took 4
  // bytes a call, 6% of h2's rewritten code. Between a call and the copy's next exit only the
  // copy runs on this thread, and it reads no flag; a counting callee clears the flag at its
  // entry anyway. A block whose exceptions go to the checking code starts with the flag
  // unset and keeps the clear after each call, so that an exception leaves the copy with the
  // flag as it did before.
  Status copy_block(uint32_t b) {
    const BasicBlock& block = cfg_.blocks[b];
    const bool clear_after_calls = fact(b, kExceptionsLeave);
    bool clear_at_entry = clear_after_calls && fact(b, kSetOnEntry);
    bool clear_at_exit = fact(b, kControlLeaves) && flag_set_on_exit(b);
    for (uint32_t i = block.begin; i < block.end; ++i) {
      const Insn& insn = src_.insns[i];
      if (insn.is_label()) {
        place(dup_label_[insn.label()]);
        continue;
      }
      if (clear_at_entry) {
        check_.emit_set_sampling(out_, false);
        clear_at_entry = false;
      }
      if (with_events_) {
        if (auto s = emit_events(m_, sites_.at(i), pool_, out_, first_temp_local()); !s) return s;
      }
      Insn copy = insn;
      if (static_cast<int32_t>(i) == block.last_real) {
        retarget_dup_branch(b, copy);
        if (clear_at_exit && !falls_through_only(copy)) {
          check_.emit_set_sampling(out_, false);
          clear_at_exit = false;
        }
      }
      if (!is_invoke(copy.opcode)) {
        if (is_return(static_cast<uint8_t>(copy.opcode))) check_.emit_spent(out_);
        out_.insns.push_back(copy);
        continue;
      }
      if (plan_.sampled_calls && with_events_) {
        auto sampled = plan_.sampled_calls->redirect(pool_, copy);
        if (!sampled) return sampled.error();
        copy = *sampled;
      }
      // The callee (and what it calls back) is part of this sample until it counts checks.
      bool recount = may_count_checks(insn);
      if (recount) check_.emit_before_call(out_);
      check_.emit_set_sampling(out_, true);
      out_.insns.push_back(copy);
      if (clear_after_calls) check_.emit_set_sampling(out_, false);
      if (recount) check_.emit_reload(out_);
    }
    if (clear_at_exit) check_.emit_set_sampling(out_, false);
    return Ok{};
  }

  // An instruction after which control goes on to the next one only (not a branch, switch,
  // return or athrow): the flag is cleared after it rather than before.
  static bool falls_through_only(const Insn& insn) {
    auto o = static_cast<uint8_t>(insn.opcode);
    return !is_conditional_branch(o) && !ends_block(o);
  }

  // What the flag's clearing needs to know of each kept block, as bits of flag_facts_.
  enum FlagFact : uint8_t {
    // The block calls something (its copy sets the flag for the call).
    kHasCall = 1,
    // An exception edge goes back to the checking code (a back edge, or a handler
    // Partial-Duplication did not copy).
    kExceptionsLeave = 2,
    // It ends in a return or athrow, or has a normal edge back to the checking code (a block
    // of labels only has neither).
    kControlLeaves = 4,
    // The copy may enter it with the flag set.
    kSetOnEntry = 8,
  };

  bool fact(uint32_t b, FlagFact f) const { return (flag_facts_[b] & f) != 0; }

  uint8_t facts_of(uint32_t b) const {
    const BasicBlock& block = cfg_.blocks[b];
    uint8_t facts = 0;
    for (uint32_t i = block.begin; i < block.end && !(facts & kHasCall); ++i) {
      if (is_invoke(src_.insns[i].opcode)) facts |= kHasCall;
    }
    for (const CfgEdge& e : block.succs) {
      bool leaves = e.back || !plan_.kept[e.to];
      if (leaves) facts |= e.kind == EdgeKind::kException ? kExceptionsLeave : kControlLeaves;
    }
    if (block.last_real >= 0) {
      auto last = static_cast<uint8_t>(src_.insns[static_cast<uint32_t>(block.last_real)].opcode);
      if (is_return(last) || last == op::kAthrow) facts |= kControlLeaves;
    }
    return facts;
  }

  // Whether the flag may be set at the end of kept block b, before any clear at its exit: its
  // calls set it, unless the block clears it at its entry and after each call
  // (kExceptionsLeave).
  bool flag_set_on_exit(uint32_t b) const {
    if (fact(b, kExceptionsLeave)) return fact(b, kSetOnEntry) && cfg_.blocks[b].last_real < 0;
    return fact(b, kHasCall) || fact(b, kSetOnEntry);
  }

  // Each kept block's FlagFacts, and then which blocks the copy may enter with the flag set
  // (kSetOnEntry): a forward data flow over the copy's edges that stay in it. Back edges leave the
  // copy, so its edges mostly go forward and one pass usually settles it. The copy's entries start
  // with the flag as the sample found it, which is not this copy's to clear.
  void find_flag_facts() {
    const uint32_t n = static_cast<uint32_t>(cfg_.blocks.size());
    flag_facts_.assign(n, 0);
    for (uint32_t b = 0; b < n; ++b) {
      if (plan_.kept[b]) flag_facts_[b] = facts_of(b);
    }
    for (bool again = true; again;) {
      again = false;
      for (uint32_t b = 0; b < n; ++b) {
        if (!plan_.kept[b]) continue;
        bool at_end = flag_set_on_exit(b) && !fact(b, kControlLeaves);
        bool anywhere = at_end || fact(b, kHasCall) || fact(b, kSetOnEntry);
        for (const CfgEdge& e : cfg_.blocks[b].succs) {
          if (e.back || !plan_.kept[e.to] || fact(e.to, kSetOnEntry)) continue;
          if (e.kind == EdgeKind::kException ? anywhere : at_end) {
            flag_facts_[e.to] |= kSetOnEntry;
            again = again || e.to <= b;  // a block this pass has passed: go round again
          }
        }
      }
    }
  }

  // Where a duplicated edge goes: back edges and edges into removed blocks return to the
  // checking code; the others stay in the duplicated code.
  LabelId dup_edge_target(const CfgEdge& edge, LabelId original) const {
    if (edge.back || !plan_.kept[edge.to]) return original;
    return dup_label_[original] != kNoLabel ? dup_label_[original] : dup_start_[edge.to];
  }

  // A back edge of the copy goes through its edge's check, if it has one.
  LabelId dup_target(uint32_t b, size_t e, LabelId original) {
    const CfgEdge& edge = cfg_.blocks[b].succs[e];
    if (edge.back && edge_has_action(b, e)) return make_trampoline(b, e, original, true);
    return dup_edge_target(edge, original);
  }

  void retarget_dup_branch(uint32_t b, Insn& insn) {
    const auto& succs = cfg_.blocks[b].succs;
    if (is_switch(static_cast<uint8_t>(insn.opcode))) {
      SwitchTable table = src_.switches[insn.switch_index];
      for (size_t e = 0; e < succs.size(); ++e) {
        if (succs[e].kind != EdgeKind::kSwitch) continue;
        LabelId& slot = succs[e].case_index < 0 ? insn.target : table.targets[succs[e].case_index];
        slot = dup_target(b, e, slot);
      }
      insn.switch_index = static_cast<uint32_t>(out_.switches.size());
      out_.switches.push_back(std::move(table));
      return;
    }
    for (size_t e = 0; e < succs.size(); ++e) {
      if (succs[e].kind == EdgeKind::kBranch) insn.target = dup_target(b, e, insn.target);
    }
  }

  void emit_dup_fallthrough(uint32_t b) {
    const auto& succs = cfg_.blocks[b].succs;
    for (size_t e = 0; e < succs.size(); ++e) {
      const CfgEdge& edge = succs[e];
      if (edge.kind != EdgeKind::kFallthrough) continue;
      bool stays = !edge.back && plan_.kept[edge.to] && next_kept(b) == edge.to;
      if (stays) return;
      LabelId target =
          (edge.back || !plan_.kept[edge.to]) ? check_start_[edge.to] : dup_start_[edge.to];
      if (edge.back && edge_has_action(b, e)) {
        target = make_trampoline(b, e, check_start_[edge.to], block_entry_frame(edge.to), true);
      }
      out_.insns.push_back(Insn::make_branch(op::kGoto, target));
    }
  }

  uint32_t next_kept(uint32_t b) const {
    for (uint32_t n = b + 1; n < cfg_.blocks.size(); ++n) {
      if (plan_.kept[n]) return n;
    }
    return UINT32_MAX;
  }

  // ---- tables ----

  // Checking entries first (split where some blocks' edges go through a trampoline), then
  // the duplicated code's entries, each in the original order so that the first match
  // still wins.
  void build_exception_table() {
    // Split runs can make more entries; this is the usual count.
    out_.try_catches.reserve(2 * src_.try_catches.size());
    if (!copy_only_) {
      for (uint32_t t = 0; t < src_.try_catches.size(); ++t) add_checking_entries(t);
    }
    if (checking_only()) return;
    for (uint32_t t = 0; t < src_.try_catches.size(); ++t) add_dup_entries(t);
  }

  bool is_redirected(uint32_t b, uint32_t t) const {
    for (const auto& [rb, rt] : redirected_) {
      if (rb == b && rt == t) return true;
    }
    return false;
  }

  void add_run(const TryCatch& base, LabelId start, LabelId end, LabelId handler) {
    TryCatch entry = base;
    entry.start = start;
    entry.end = end;
    entry.handler = exception_entry(handler);
    out_.try_catches.push_back(entry);
  }

  // C1 refuses a method in which an exception handler is also reached by a jump ("Exception
  // handler can be reached by both normal and exceptional control flow") and leaves it to the
  // interpreter until C2 takes it, if ever (H2's MVMap.operate ran interpreted throughout). A
  // handler that a trampoline jumps to is therefore entered from the exception table through a
  // stub of its own, `goto handler`, and is an ordinary block.
  LabelId exception_entry(LabelId handler) {
    if (!is_jumped_to(handler)) return handler;
    auto [it, fresh] = handler_stub_.try_emplace(handler, kNoLabel);
    if (fresh) {
      it->second = out_.new_label();
      out_.labels[it->second].frame = out_.labels[handler].frame;
    }
    return it->second;
  }

  void emit_handler_stubs() {
    for (const auto& [handler, stub] : handler_stub_) {
      place(stub);
      out_.insns.push_back(Insn::make_branch(op::kGoto, handler));
    }
  }

  void add_checking_entries(uint32_t t) {
    const TryCatch& tc = src_.try_catches[t];
    if (exception_trampoline_[t] == kNoLabel) {
      add_run(tc, tc.start, tc.end, tc.handler);
      return;
    }
    uint32_t first = cfg_.block_of_label(tc.start);
    uint32_t last = cfg_.block_of_label(tc.end);
    uint32_t run_start = first;
    for (uint32_t b = first; b < last; ++b) {
      bool same = b + 1 < last && is_redirected(b + 1, t) == is_redirected(b, t);
      if (same) continue;
      LabelId handler = is_redirected(b, t) ? exception_trampoline_[t] : tc.handler;
      LabelId end = b + 1 < last ? check_start_[b + 1] : tc.end;
      add_run(tc, check_start_[run_start], end, handler);
      run_start = b + 1;
    }
  }

  void add_dup_entries(uint32_t t) {
    const TryCatch& tc = src_.try_catches[t];
    uint32_t first = cfg_.block_of_label(tc.start);
    uint32_t last = cfg_.block_of_label(tc.end);
    uint32_t handler_block = cfg_.block_of_label(tc.handler);
    LabelId run_handler = kNoLabel;
    LabelId run_start = kNoLabel;
    auto close = [&](LabelId end) {
      if (run_start != kNoLabel) add_run(tc, run_start, end, run_handler);
      run_start = kNoLabel;
    };
    for (uint32_t b = first; b < last; ++b) {
      if (!plan_.kept[b]) continue;
      bool back = false;
      for (const CfgEdge& e : cfg_.blocks[b].succs) {
        if (e.kind == EdgeKind::kException && e.try_index == t) back = back || e.back;
      }
      LabelId handler = (back || !plan_.kept[handler_block]) ? tc.handler : dup_label_[tc.handler];
      // A back edge through a handler passes its check, as in the checking code.
      if (back && exception_trampoline_[t] != kNoLabel) handler = exception_trampoline_[t];
      if (run_start != kNoLabel && handler != run_handler) close(dup_start_[b]);
      if (run_start == kNoLabel) {
        run_start = dup_start_[b];
        run_handler = handler;
      }
      uint32_t n = next_kept(b);
      bool contiguous = n != UINT32_MAX && n < last;
      if (!contiguous) close(n == UINT32_MAX ? dup_end_ : dup_start_[n]);
    }
  }

  LabelId dup_of_bound(LabelId l) const {
    if (dup_label_[l] != kNoLabel) return dup_label_[l];
    return kNoLabel;
  }

  // Line numbers and local variables also describe the duplicated code, so stack traces and
  // debuggers see the same lines and names there.
  void copy_debug_tables() {
    for (const LineNumber& ln : src_.line_numbers) {
      if (dup_label_[ln.label] != kNoLabel)
        out_.line_numbers.push_back({dup_label_[ln.label], ln.line});
    }
    copy_local_ranges(src_.local_variables, out_.local_variables);
    copy_local_ranges(src_.local_variable_types, out_.local_variable_types);
  }

  void copy_local_ranges(const std::vector<LocalVar>& from, std::vector<LocalVar>& to) {
    for (const LocalVar& v : from) {
      uint32_t first = cfg_.block_of_label(v.start);
      uint32_t last = cfg_.block_of_label(v.end);
      bool all_kept = true;
      for (uint32_t b = first; b < last && all_kept; ++b) all_kept = plan_.kept[b];
      if (!all_kept || dup_label_[v.start] == kNoLabel) continue;
      LabelId end = dup_label_[v.end] != kNoLabel ? dup_label_[v.end] : kNoLabel;
      if (end == kNoLabel) {
        uint32_t n = next_kept(last == 0 ? 0 : last - 1);
        end = (n == UINT32_MAX || n >= cfg_.blocks.size()) ? dup_end_ : dup_start_[n];
      }
      LocalVar copy = v;
      copy.start = dup_label_[v.start];
      copy.end = end;
      to.push_back(copy);
    }
  }

  const MethodView& m_;
  const CodeIR& src_;
  const Cfg& cfg_;
  const MethodSites& sites_;
  const DupPlan& plan_;
  ConstantPool& pool_;
  const bool with_events_;
  const bool count_edges_;
  const Outline& outline_;

  CodeIR out_;
  std::map<int32_t, LabelId> twin_call_label_;  // outline entry -> its call in the checking code
  std::map<int32_t, LabelId> hand_back_label_;  // outline entry -> the twin's hand-back to it
  std::map<uint32_t, LabelId> decision_label_;  // block -> the twin's sample-or-not decision
  HandBackCalls hand_back_calls_;
  CheckEmitter check_;
  const CheckForm check_form_;
  Insn count_entry_, count_back_;
  // The twin's decision: `expired()`, or make_rearm's sequence (no allocation per method).
  std::array<Insn, 5> decision_{};
  size_t decision_size_ = 0;
  std::vector<LabelId> dup_label_, check_start_, dup_start_, exception_trampoline_;
  std::vector<std::pair<uint32_t, uint32_t>> redirected_;  // (block, try index)
  std::vector<uint8_t> jumped_to_handler_;                 // by label: a trampoline jumps there
  std::vector<uint8_t> flag_facts_;                        // by block: FlagFact bits
  std::map<LabelId, LabelId> handler_stub_;  // such a handler -> its exception-table entry
  std::vector<Trampoline> trampolines_;
  // By edge (in Cfg::edges order) and whether from the copy (trampoline_of): its label.
  std::vector<LabelId> edge_trampoline_;
  LabelId dup_entry_ = kNoLabel, dup_end_ = kNoLabel, checking_end_ = kNoLabel;
  bool has_entry_events_ = false;
  bool copy_only_ = false;       // a twin with no checking code (twin_reaches_no_checking_code)
  uint32_t leading_labels_ = 0;  // insns of block 0 already emitted before the entry check
  uint32_t checks_ = 0;
};

}  // namespace

Result<Insn> make_check_call(ConstantPool& pool, std::string_view runtime_class) {
  auto ref = pool.add_methodref(runtime_class, runtime_api::kCheck, runtime_api::kCheckDesc);
  if (!ref) return ref.error();
  return Insn::make(op::kInvokestatic, *ref);
}

Result<TransformedCode> duplicate_code(const MethodView& method, const Cfg& cfg,
                                       const MethodSites& sites, const DupPlan& plan,
                                       ConstantPool& pool, bool with_events, bool count_edges,
                                       const Outline& outline, CheckForm check) {
  return Duplicator(method, cfg, sites, plan, pool, with_events, count_edges, outline, check).run();
}

}  // namespace duplex
