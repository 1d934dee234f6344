// The plug-in interface for instrumentations.
//
// An instrumentation says which points of a method it instruments (the method entry, or
// before given instructions) and emits the bytecode of one event at such a point. The
// framework decides where that code goes: into the duplicated code (Full- and
// Partial-Duplication), behind its own check (No-Duplication), or bare (Exhaustive). Several
// instrumentations compose in one pass; one check guards all of them.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "classfile/error.h"

namespace duplex {

class ClassCounters;

// The method being rewritten, read-only.
struct MethodView {
  const ClassFile& cls;
  const Member& method;
  const MethodContext& context;
  const CodeIR& code;  // the original code
  // The runtime class events call (internal name): duplex/runtime/Duplex unless the rewrite
  // options name another (a shaded copy, or a stub placed inside a JDK module for tests).
  std::string_view runtime_class;
  // The class's own event counters (EventCode::count_in_class), or null.
  ClassCounters* counters = nullptr;
};

enum class SiteKind : uint8_t {
  kMethodEntry,  // once, when the method is entered
  kInstruction,  // before the instruction at `insn`
};

struct SitePoint {
  SiteKind kind = SiteKind::kInstruction;
  uint32_t insn = 0;   // index into MethodView::code.insns (kInstruction)
  std::string target;  // what the event is about (callee or field key), for the site table
};

// Where an instrumentation writes the bytecode of one event. The code must be straight-line
// (no branches or labels) and must leave the operand stack as it found it. Locals: only
// scratch slots from temp_local(), dead once the event's code ends (the method's own locals
// are never touched). Helpers add the pool entries they need.
class EventCode {
 public:
  EventCode(ConstantPool& pool, std::vector<Insn>& out, std::string_view runtime_class,
            uint16_t first_free_local = 0, ClassCounters* counters = nullptr)
      : pool_(pool),
        out_(out),
        runtime_class_(runtime_class),
        counters_(counters),
        first_free_(first_free_local),
        high_(first_free_local) {}

  Status push_string(std::string_view modified_utf8);
  Status push_int(int32_t value);
  Status invoke_static(std::string_view owner, std::string_view name, std::string_view desc);
  // Calls the duplex runtime's event counter with `key` ("kind:detail").
  Status count_event(std::string_view key);
  // Built-in events only: counts `key` of `kind` ('r' field read, 'w' field write, 's' static
  // or special call site) in the class's own counters, with no call (rewriter/class_counters.h).
  // False, with nothing emitted, where the class has none: then call the runtime instead.
  bool count_in_class(char kind, std::string_view key);
  // The same for a virtual or interface call site, whose receiver's copy is on the stack:
  // passes it to the runtime with the site's slot in the class's counters instead of its key.
  bool count_virtual_in_class(std::string_view key);
  void raw(const Insn& insn) { out_.push_back(insn); }
  ConstantPool& pool() { return pool_; }
  std::string_view runtime_class() const { return runtime_class_; }

  // A scratch local of `slots` slots (2 for long and double) for the current event; the
  // next event() starts over. Fails past the 65535-slot limit.
  Result<uint16_t> temp_local(uint16_t slots);
  void next_event() { used_ = 0; }
  // One past the highest scratch slot used: the method's max_locals must reach it.
  uint16_t locals_needed() const { return high_; }

  // A sampled (No-Duplication) call-site event in a method of a duplicating mode: the sampled
  // form should also sample the callee (Duplex.sampledCallSiteInto), and say it did, so that
  // the call is followed by Duplex.endSample(). Built-in call-edge events only.
  void set_samples_callees(bool on) { samples_callees_ = on; }
  bool samples_callees() const { return samples_callees_; }
  void callee_sampled() { callee_sampled_ = true; }
  bool did_sample_callee() const { return callee_sampled_; }

 private:
  ConstantPool& pool_;
  std::vector<Insn>& out_;
  std::string_view runtime_class_;
  ClassCounters* counters_ = nullptr;
  uint16_t first_free_ = 0;
  uint16_t used_ = 0;
  uint16_t high_ = 0;
  bool samples_callees_ = false;
  bool callee_sampled_ = false;
};

class Instrumentation {
 public:
  virtual ~Instrumentation() = default;
  // A short name, e.g. "call-edge".
  virtual std::string name() const = 0;
  // Appends the points to instrument in this method, in instruction order.
  virtual void select(const MethodView& method, std::vector<SitePoint>& out) const = 0;
  // Emits one event at `site`.
  virtual Status emit(const MethodView& method, const SitePoint& site, EventCode& out) const = 0;

  // Optional: an instrumentation whose runtime call can do the check itself ("check, then
  // record") emits that one call for No-Duplication instead of `check; ifeq skip; event`.
  // Half the bytecode per site; the same cost once the JIT inlines the call.
  virtual bool has_sampled_form() const { return false; }
  virtual Status emit_sampled(const MethodView& method, const SitePoint& site,
                              EventCode& out) const {
    return emit(method, site, out);
  }
};

// The built-in instrumentations: "call-edge" and "field-access". Null for an unknown name.
std::shared_ptr<const Instrumentation> make_builtin_instrumentation(std::string_view name);
std::vector<std::string> builtin_instrumentation_names();

}  // namespace duplex
