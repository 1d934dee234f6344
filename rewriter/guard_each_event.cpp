// No-Duplication and Exhaustive: events are inserted in place, guarded by their own check
// (No-Duplication) or bare (Exhaustive). Events go after the labels in front of their
// instruction, so that every path into the instruction runs them.
#include <algorithm>

#include "classfile/attributes.h"
#include "classfile/opcodes.h"
#include "rewriter/runtime_api.h"
#include "rewriter/transforms.h"

namespace duplex {
namespace {

CodeIR copy_without_insns(const CodeIR& src) {
  CodeIR out;
  out.max_stack = src.max_stack;
  out.max_locals = src.max_locals;
  out.switches = src.switches;
  out.labels = src.labels;
  out.try_catches = src.try_catches;
  out.line_numbers = src.line_numbers;
  out.local_variables = src.local_variables;
  out.local_variable_types = src.local_variable_types;
  out.visible_type_annotations = src.visible_type_annotations;
  out.invisible_type_annotations = src.invisible_type_annotations;
  out.unknown_attributes = src.unknown_attributes;
  out.had_stack_map_table = src.had_stack_map_table;
  out.insns.reserve(src.insns.size() + 16);
  return out;
}

class InPlaceEvents {
 public:
  InPlaceEvents(const MethodView& m, const MethodSites& sites, ConstantPool& pool, bool guarded,
                bool samples_callees = false)
      : m_(m),
        sites_(sites),
        pool_(pool),
        guarded_(guarded),
        samples_callees_(samples_callees),
        out_(copy_without_insns(m.code)) {}

  Result<TransformedCode> run() {
    if (guarded_) {
      auto check = make_check_call(pool_, m_.runtime_class);
      if (!check) return check.error();
      check_ = *check;
    }
    if (!sites_.entry().empty()) {
      if (auto s = emit_group(sites_.entry(), /*at_entry=*/true); !s) return s.error();
    }
    const auto& insns = m_.code.insns;
    for (size_t i = 0; i < insns.size(); ++i) {
      callee_sampled_ = false;
      if (!insns[i].is_label()) {
        if (auto s = emit_group(sites_.at(i), false); !s) return s.error();
      }
      out_.insns.push_back(insns[i]);
      if (callee_sampled_) {
        if (auto s = end_sample(); !s) return s.error();
      }
    }
    return TransformedCode{std::move(out_), checks_};
  }

 private:
  Status emit_group(std::span<const Site> sites, bool at_entry) {
    if (sites.empty()) return Ok{};
    if (!guarded_) return emit_events(m_, sites, pool_, out_, m_.code.max_locals);
    if (sites.size() == 1 && sites[0].instrumentation->has_sampled_form()) {
      ++checks_;  // the runtime call checks, then records
      EventCode code(pool_, out_.insns, m_.runtime_class, m_.code.max_locals);
      code.set_samples_callees(samples_callees_);
      auto s = sites[0].instrumentation->emit_sampled(m_, sites[0].point, code);
      out_.max_locals = std::max(out_.max_locals, code.locals_needed());
      callee_sampled_ = code.did_sample_callee();
      return s;
    }
    LabelId skip = out_.new_label();
    out_.insns.push_back(check_);
    out_.insns.push_back(Insn::make_branch(op::kIfeq, skip));
    ++checks_;
    if (auto s = emit_events(m_, sites, pool_, out_, m_.code.max_locals); !s) return s;
    out_.insns.push_back(Insn::make_label(skip));
    // At the entry the state is the entry frame; elsewhere the assembler simulates it.
    if (at_entry && m_.context.major_version >= 50) {
      auto initial = initial_frame(pool_, m_.context.class_name, m_.context.method_name,
                                   m_.context.descriptor, m_.context.access_flags);
      if (!initial) return initial.error();
      out_.labels[skip].frame = std::move(initial.value());
    }
    return Ok{};
  }

  // After a call whose event may have sampled the callee: the sample ends with the call (a
  // call that throws leaves it to the next counting method's entry, as in duplicated code).
  Status end_sample() {
    if (end_sample_ref_ == 0) {
      auto end =
          pool_.add_methodref(m_.runtime_class, runtime_api::kEndSample, runtime_api::kVoidDesc);
      if (!end) return end.error();
      end_sample_ref_ = *end;
    }
    out_.insns.push_back(Insn::make(op::kInvokestatic, end_sample_ref_));
    return Ok{};
  }

  const MethodView& m_;
  const MethodSites& sites_;
  ConstantPool& pool_;
  const bool guarded_;
  const bool samples_callees_;
  bool callee_sampled_ = false;  // by the current instruction's event
  uint16_t end_sample_ref_ = 0;  // the Methodref of Duplex.endSample, once added
  CodeIR out_;
  Insn check_;
  uint32_t checks_ = 0;
};

}  // namespace

Result<TransformedCode> guard_each_event(const MethodView& method, const MethodSites& sites,
                                         ConstantPool& pool, bool samples_callees) {
  return InPlaceEvents(method, sites, pool, /*guarded=*/true, samples_callees).run();
}

Result<TransformedCode> insert_events(const MethodView& method, const MethodSites& sites,
                                      ConstantPool& pool) {
  return InPlaceEvents(method, sites, pool, /*guarded=*/false).run();
}

}  // namespace duplex
