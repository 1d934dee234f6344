// Bounded samples for the outlined layout: the twin hands control back to its checking method
// at every checked edge whose check does not fire.
//
// Why: a twin that kept running after its sample (in its own copy of the checking code) ran
// the rest of the activation, loops included, so one sample could cost a whole loop nest in
// a method HotSpot compiles late or never (twins are large). The paper's samples end at the
// next back edge; so do these. A check that does not fire in the twin saves the locals of the
// edge's target (entry e of the layout) in the thread's hand-back buffer
// (Duplex.handBack, docs/design/runtime-contract.md) and returns. The checking method, after
// every call of its twin, asks the runtime whether the twin handed back; if so it restores
// the locals of the entry named and jumps to that block in its own code.
//
// The same checks run in the same order as without hand-back, so profiles do not change.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "classfile/code_ir.h"
#include "classfile/error.h"
#include "rewriter/outline_layout.h"

namespace duplex {

// Pool Methodrefs the hand-back code calls.
struct HandBackCalls {
  uint16_t hand_back = 0, hand_back_refs = 0;                                 // twin side
  uint16_t resume_entry = 0, resume_prims = 0, resume_refs = 0, resumed = 0;  // checking side
  uint16_t float_bits = 0, bits_float = 0, double_bits = 0, bits_double = 0;  // java.lang

  static Result<HandBackCalls> make(ConstantPool& pool, std::string_view runtime_class);
};

// True when the twin can hand back: some checked edge has an entry of its own.
inline bool hands_back(const OutlineLayout& layout) {
  return layout.entries.size() > 1;
}

// Twin side, at a point whose state is entry e's frame (empty stack): save the frame's
// locals, name e, and return a zero of the method's return type.
void emit_hand_back(const OutlineLayout& layout, size_t e, const HandBackCalls& calls,
                    std::string_view method_descriptor, std::vector<Insn>& out);

// Checking side: what follows the label `after`, which every twin call reaches with the
// twin's result on an otherwise empty stack (the caller places `after`, and may put a reload
// of a local counter right after it). It returns the result when the twin returned, else
// restores the locals of the entry the twin named and jumps to `resume_at[e]`. Gives `after`
// and the labels it creates their frames.
Status emit_resume(const OutlineLayout& layout, const HandBackCalls& calls,
                   std::string_view method_descriptor, ConstantPool& pool, LabelId after,
                   const std::vector<LabelId>& resume_at, CodeIR& out);

}  // namespace duplex
