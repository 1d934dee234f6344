// Outlined duplication: the duplicated code moves into a synthetic "twin" method of the same
// class, so that the method the program calls holds only the checking code.
//
// Why: once samples are taken, a JIT compiles both copies of an inline-duplicated method,
// and the copy's calls eat the inlining budget of every hot caller (docs/RESULTS.md). With
// the copy outlined, a check that fires calls the twin, passing the live locals; the twin
// starts in the copy at that point (a dispatch on an entry id) and runs until it returns or
// reaches a checked edge whose check does not fire, where it hands the locals back to the
// checking method (rewriter/hand_back.h).
//
// The twin is `private static synthetic <name>$duplex(<params>I)<return>`. Its parameters
// stand for the original local slots, so the copied code keeps its slot numbers: slot s of
// the original arrives in parameter slot s when every entry point agrees on its kind (the
// "primary" parameters), else in an extra parameter after them that the entry's prologue
// copies into slot s. Then comes the entry id, and last the cold parameter: always null,
// declared an Object, and of a class that never exists once the twin has moved to a twin class
// (lazy twins, twin_nest.h), so that C2 does not inline the twin there into the hot method
// whose rare sample path calls it (docs/design/hotspot-costs.md, section 15).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "classfile/code_ir.h"
#include "classfile/error.h"
#include "rewriter/cfg.h"
#include "rewriter/dup_plan.h"
#include "rewriter/instrumentation.h"

namespace duplex {

inline constexpr const char* kTwinSuffix = "$duplex";

struct OutlineEntry {
  int32_t block = -1;  // -1: the method entry; else the block a checked edge enters
  Frame frame;         // the locals there (the operand stack is empty)
};

struct OutlineParam {
  uint16_t slot = 0;            // the original local slot it carries
  VTag kind = VTag::kInteger;   // kInteger, kFloat, kLong, kDouble or kObject
  uint16_t declared_class = 0;  // kObject: pool Class index of the parameter type
  bool primary = true;          // arrives in `slot` itself
  uint16_t twin_slot = 0;       // where it arrives in the twin
  // Nonzero: a primary parameter of a type its method's descriptor does not name (this pool
  // Class; the class's own type included), declared as an Object, since reflection resolves the
  // types a twin's signature names (outline_layout.cpp, shown_by_method), and cast back once
  // where the twin starts (emit_twin_start_casts).
  uint16_t cast_to = 0;
};

struct OutlineLayout {
  std::vector<OutlineEntry> entries;  // entries[0] is the method entry
  std::vector<OutlineParam> params;
  uint16_t id_slot = 0;     // the twin's slot of the entry id
  bool cold_param = false;  // the cold parameter follows the id (at id_slot + 1): pass null
  std::string twin_name;
  std::string twin_descriptor;
  uint16_t twin_max_locals = 0;

  // The entry for a block (-1: method entry), or -1 if it has none.
  int32_t entry_of_block(int32_t block) const;
};

// Plans the twin of a method duplicated by `plan`, or says why it cannot be outlined (an
// interface, a constructor, a checked edge with a non-empty stack or an uninitialized
// object, no frame for an entry, too many parameter slots, a name already taken).
// `taken` holds the name+descriptor of every twin planned in the class so far, and of the
// class's own methods a twin could be confused with (take_existing_twin_names); the new one
// is added (overloads get `<name>$2$duplex`, ... when their twins' descriptors collide).
// `suffix`: kTwinSuffix, or kSampledTwinSuffix for a twin that sampled callers call
// (rewriter/sampled_calls.h), which has no cold parameter.
Result<OutlineLayout> plan_outline(const MethodView& method, const Cfg& cfg, const DupPlan& plan,
                                   ConstantPool& pool, std::set<std::string>& taken,
                                   std::string_view suffix = kTwinSuffix);

// Adds to `taken` the name+descriptor of each of the class's methods whose name ends in a twin
// suffix: only those can have a twin's name. Once per class, before its methods are planned
// (a scan of every method for every twin was quadratic in the methods of big classes).
void take_existing_twin_names(const ClassFile& cf, std::set<std::string>& taken);

// The twin's first instructions: each parameter with a cast_to cast back from the Object it
// is declared as. `frame` (the twin's initial frame) then holds their real types.
void emit_twin_start_casts(const OutlineLayout& layout, Frame& frame, std::vector<Insn>& out);

// The checking method's side of entry `e`: load the locals, push the id, call the twin. Its
// result is then on the stack (see rewriter/hand_back.h for what follows).
Status emit_twin_call(const OutlineLayout& layout, size_t e, uint16_t twin_methodref,
                      std::vector<Insn>& out);

// The twin's side of entry `e`: move the parameters into the entry's original slots (with
// the casts the entry's frame needs). The caller adds the jump into the copy.
void emit_twin_prologue(const OutlineLayout& layout, size_t e, std::vector<Insn>& out);

}  // namespace duplex
