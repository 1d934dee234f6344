// The two instrumentations of the paper: call-edge and field-access counts.
#include <array>
#include <charconv>
#include <string>

#include "classfile/descriptors.h"
#include "classfile/opcodes.h"
#include "classfile/scratch.h"
#include "rewriter/instrumentation.h"
#include "rewriter/key_text.h"
#include "rewriter/runtime_api.h"

namespace duplex {
namespace {

// At the entry of sampled code, records the edge (caller, call site, this method). The
// runtime finds the caller and the call site on the stack, as in the paper: a few
// microseconds per edge, but it also sees callers that are not instrumented (JDK code
// calling back into the program).
class StackCallEdgeInstrumentation final : public Instrumentation {
 public:
  std::string name() const override { return "call-edge-stack"; }

  void select(const MethodView& m, std::vector<SitePoint>& out) const override {
    // A static initializer is run by the JVM, not called from a call site.
    if (m.context.method_name == "<clinit>") return;
    out.push_back({SiteKind::kMethodEntry, 0, callee_key(m)});
  }

  Status emit(const MethodView&, const SitePoint& site, EventCode& out) const override {
    if (auto s = out.push_string(site.target); !s) return s;
    return out.invoke_static(out.runtime_class(), runtime_api::kCallEdge, runtime_api::kKeyDesc);
  }

  bool has_sampled_form() const override { return true; }
  Status emit_sampled(const MethodView&, const SitePoint& site, EventCode& out) const override {
    if (auto s = out.push_string(site.target); !s) return s;
    return out.invoke_static(out.runtime_class(), runtime_api::kSampledCallEdge,
                             runtime_api::kKeyDesc);
  }

 private:
  static std::string callee_key(const MethodView& m) {
    std::string key;
    append_key_text(key, m.context.class_name);
    key.append(".");
    append_key_text(key, m.context.method_name);
    append_key_text(key, m.context.descriptor);
    return key;
  }
};

// Before every invoke of sampled code, records the edge (this method, this call site, callee)
// with a key made when the code is rewritten, so nothing is looked up on the stack. For a
// virtual or interface call the runtime also gets the receiver, whose class decides the
// callee (resolved when the profile is written), as HotSpot's own receiver-type profiles do.
// invokedynamic sites have no method to name and are not recorded.
class CallEdgeInstrumentation final : public Instrumentation {
 public:
  std::string name() const override { return "call-edge"; }

  void select(const MethodView& m, std::vector<SitePoint>& out) const override {
    const auto& insns = m.code.insns;
    const std::string caller = caller_text(m.context);
    LineTracker lines(m.code);
    for (uint32_t i = 0; i < insns.size(); ++i) {
      lines.pass(insns[i]);
      uint16_t opcode = insns[i].opcode;
      if (opcode < op::kInvokevirtual || opcode > op::kInvokeinterface) continue;
      auto ref = m.cls.pool.member_ref(static_cast<uint32_t>(insns[i].a));
      if (!ref) continue;
      // One allocation per key: a site's key is built once and kept by the site.
      char numbers[32];
      char* end = std::to_chars(numbers, numbers + 12, insns[i].original_offset).ptr;
      *end++ = '\t';
      end = std::to_chars(end, end + 12, lines.current()).ptr;
      *end++ = '\t';
      auto n = end - numbers;
      std::string key;
      key.reserve(caller.size() + static_cast<size_t>(n) + ref->owner.size() + 1 +
                  ref->name.size() + ref->descriptor.size());
      key.append(caller).append(numbers, static_cast<size_t>(n));
      append_key_text(key, ref->owner);
      key.append(".");
      append_key_text(key, ref->name);
      append_key_text(key, ref->descriptor);
      out.push_back({SiteKind::kInstruction, i, std::move(key)});
    }
  }

  Status emit(const MethodView& m, const SitePoint& site, EventCode& out) const override {
    return emit_call(m, site, out, /*sampled=*/false);
  }

  bool has_sampled_form() const override { return true; }
  Status emit_sampled(const MethodView& m, const SitePoint& site, EventCode& out) const override {
    return emit_call(m, site, out, /*sampled=*/true);
  }

 private:
  // "class\tmethod\tdescriptor\t", escaped: the start of every key of the method's sites.
  static std::string caller_text(const MethodContext& c) {
    std::string text;
    text.reserve(c.class_name.size() + c.method_name.size() + c.descriptor.size() + 3);
    append_key_text(text, c.class_name);
    text.append("\t");
    append_key_text(text, c.method_name);
    text.append("\t");
    append_key_text(text, c.descriptor);
    text.append("\t");
    return text;
  }

  // The source line of each instruction in turn (-1 where unknown), from the labels passed.
  class LineTracker {
   public:
    explicit LineTracker(const CodeIR& code) : line_of_label_(spare()) {
      if (code.line_numbers.empty()) return;
      line_of_label_.vec.assign(code.labels.size(), -1);
      for (const LineNumber& ln : code.line_numbers) {
        if (ln.label < code.labels.size()) line_of_label_.vec[ln.label] = ln.line;
      }
    }
    void pass(const Insn& insn) {
      const std::vector<int32_t>& lines = line_of_label_.vec;
      if (insn.is_label() && insn.label() < lines.size() && lines[insn.label()] >= 0) {
        current_ = lines[insn.label()];
      }
    }
    int32_t current() const { return current_; }

   private:
    // The table is a per-thread buffer (classfile/scratch.h): one per method otherwise.
    static std::vector<int32_t>& spare() {
      thread_local std::vector<int32_t> table;
      return table;
    }

    scratch::Borrowed<int32_t> line_of_label_;
    int32_t current_ = -1;
  };

  // `sampled`: No-Duplication's fused form, whose runtime method checks before it counts. It
  // stays `ldc key; invokestatic` (5-6 bytes): No-Duplication's events sit in the method the
  // program runs, where every byte counts against HotSpot's inlining sizes, and the class's
  // counters would take 7-8 (h2's bytecode growth under No-Duplication: +77% against +104%).
  // Otherwise a class with counters of its own counts a static or special site in them, and
  // names a virtual call site to the runtime by its slot (ClassCounters::emit_virtual_site).
  static Status emit_call(const MethodView& m, const SitePoint& site, EventCode& out,
                          bool sampled) {
    // A sampled call from a method of a duplicating mode that has no duplicated code also
    // samples its callee, as a call from duplicated code would.
    const bool into = sampled && out.samples_callees();
    const char* plain = into      ? runtime_api::kSampledCallSiteInto
                        : sampled ? runtime_api::kSampledCallSite
                                  : runtime_api::kCallSite;
    const char* virtual_form = into      ? runtime_api::kSampledCallSiteVirtualInto
                               : sampled ? runtime_api::kSampledCallSiteVirtual
                                         : runtime_api::kCallSiteVirtual;
    if (into) out.callee_sampled();
    const Insn& invoke = m.code.insns[site.insn];
    bool dispatched = invoke.opcode == op::kInvokevirtual || invoke.opcode == op::kInvokeinterface;
    if (!dispatched && !sampled && out.count_in_class('s', site.target)) {
      return Ok{};
    }
    if (!dispatched) {
      if (auto s = out.push_string(site.target); !s) return s;
      return out.invoke_static(out.runtime_class(), plain, runtime_api::kKeyDesc);
    }
    auto ref = m.cls.pool.member_ref(static_cast<uint32_t>(invoke.a));
    if (!ref) return Error::plain("bad invoke operand");
    // [.., receiver, args]: the arguments wait in scratch locals while a copy of the
    // receiver goes to the runtime with the key, then come back. A descriptor has at most 255
    // parameter slots, so fixed arrays hold them (no allocation per call site).
    std::array<char, 256> kinds;
    std::array<uint16_t, 256> slots;
    size_t count = argument_kinds(ref->descriptor, kinds);
    for (size_t i = 0; i < count; ++i) {
      auto t = out.temp_local(kinds[i] == 'J' || kinds[i] == 'D' ? 2 : 1);
      if (!t) return t.error();
      slots[i] = *t;
    }
    for (size_t i = count; i-- > 0;) out.raw(local_op(true, kinds[i], slots[i]));
    out.raw(Insn::make(op::kDup));
    if (sampled || !out.count_virtual_in_class(site.target)) {
      if (auto s = out.push_string(site.target); !s) return s;
      if (auto s =
              out.invoke_static(out.runtime_class(), virtual_form, runtime_api::kReceiverKeyDesc);
          !s) {
        return s;
      }
    }
    for (size_t i = 0; i < count; ++i) out.raw(local_op(false, kinds[i], slots[i]));
    return Ok{};
  }

  // One letter per parameter into `kinds`: I (int-like), J, F, D or A (reference); returns how
  // many (at most kinds.size(): a longer list is cut, which a class the JVM accepts never has).
  static size_t argument_kinds(std::string_view d, std::array<char, 256>& kinds) {
    size_t n = 0;
    ParameterReader params(d);
    for (std::string_view param; n < kinds.size() && params.next(param);) {
      char c = param[0];  // never empty
      kinds[n++] = c == 'L' || c == '[' ? 'A' : c == 'J' || c == 'D' || c == 'F' ? c : 'I';
    }
    return n;
  }

  static Insn local_op(bool store, char kind, uint16_t slot) {
    int family = kind == 'I' ? 0 : kind == 'J' ? 1 : kind == 'F' ? 2 : kind == 'D' ? 3 : 4;
    uint8_t base = store ? op::kIstore : op::kIload;
    return Insn::make(static_cast<uint8_t>(base + family), slot);
  }
};

// One counter per field (owner, name, descriptor), reads and writes apart.
class FieldAccessInstrumentation final : public Instrumentation {
 public:
  std::string name() const override { return "field-access"; }

  void select(const MethodView& m, std::vector<SitePoint>& out) const override {
    const auto& insns = m.code.insns;
    for (uint32_t i = 0; i < insns.size(); ++i) {
      uint16_t opcode = insns[i].opcode;
      if (opcode < op::kGetstatic || opcode > op::kPutfield) continue;
      auto ref = m.cls.pool.member_ref(static_cast<uint32_t>(insns[i].a));
      if (!ref) continue;  // the IR builder already checked the operand; be safe anyway
      std::string key;
      key.reserve(ref->owner.size() + ref->name.size() + ref->descriptor.size() + 2);
      append_key_text(key, ref->owner);
      key.append(".");
      append_key_text(key, ref->name);
      key.append(":");
      append_key_text(key, ref->descriptor);
      out.push_back({SiteKind::kInstruction, i, std::move(key)});
    }
  }

  Status emit(const MethodView& m, const SitePoint& site, EventCode& out) const override {
    return emit_call(m, site, out, /*sampled=*/false);
  }

  bool has_sampled_form() const override { return true; }
  Status emit_sampled(const MethodView& m, const SitePoint& site, EventCode& out) const override {
    return emit_call(m, site, out, /*sampled=*/true);
  }

 private:
  // `sampled`: as for call sites.
  static Status emit_call(const MethodView& m, const SitePoint& site, EventCode& out,
                          bool sampled) {
    uint16_t opcode = m.code.insns[site.insn].opcode;
    bool is_write = opcode == op::kPutstatic || opcode == op::kPutfield;
    if (!sampled && out.count_in_class(is_write ? 'w' : 'r', site.target)) return Ok{};
    const char* method =
        is_write ? (sampled ? runtime_api::kSampledFieldWrite : runtime_api::kFieldWrite)
                 : (sampled ? runtime_api::kSampledFieldRead : runtime_api::kFieldRead);
    if (auto s = out.push_string(site.target); !s) return s;
    return out.invoke_static(out.runtime_class(), method, runtime_api::kKeyDesc);
  }
};

}  // namespace

std::shared_ptr<const Instrumentation> make_builtin_instrumentation(std::string_view name) {
  if (name == "call-edge") return std::make_shared<CallEdgeInstrumentation>();
  if (name == "call-edge-stack") return std::make_shared<StackCallEdgeInstrumentation>();
  if (name == "field-access") return std::make_shared<FieldAccessInstrumentation>();
  return nullptr;
}

std::vector<std::string> builtin_instrumentation_names() {
  return {"call-edge", "call-edge-stack", "field-access"};
}

}  // namespace duplex
