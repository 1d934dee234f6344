// The two instrumentations of the paper: call-edge and field-access counts.
#include <string>

#include "classfile/opcodes.h"
#include "rewriter/instrumentation.h"
#include "rewriter/runtime_api.h"

namespace duplex {
namespace {

// At the entry of sampled code, records the edge (caller, call site, this method). The
// runtime finds the caller and the call site on the stack, as in the paper.
class CallEdgeInstrumentation final : public Instrumentation {
 public:
  std::string name() const override { return "call-edge"; }

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
    return m.context.class_name + "." + m.context.method_name + m.context.descriptor;
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
      key.append(ref->owner).append(".").append(ref->name).append(":").append(ref->descriptor);
      out.push_back({SiteKind::kInstruction, i, std::move(key)});
    }
  }

  Status emit(const MethodView& m, const SitePoint& site, EventCode& out) const override {
    return emit_call(m, site, out, runtime_api::kFieldRead, runtime_api::kFieldWrite);
  }

  bool has_sampled_form() const override { return true; }
  Status emit_sampled(const MethodView& m, const SitePoint& site, EventCode& out) const override {
    return emit_call(m, site, out, runtime_api::kSampledFieldRead, runtime_api::kSampledFieldWrite);
  }

 private:
  static Status emit_call(const MethodView& m, const SitePoint& site, EventCode& out,
                          const char* read, const char* write) {
    uint16_t opcode = m.code.insns[site.insn].opcode;
    bool is_write = opcode == op::kPutstatic || opcode == op::kPutfield;
    if (auto s = out.push_string(site.target); !s) return s;
    return out.invoke_static(out.runtime_class(), is_write ? write : read, runtime_api::kKeyDesc);
  }
};

}  // namespace

std::shared_ptr<const Instrumentation> make_builtin_instrumentation(std::string_view name) {
  if (name == "call-edge") return std::make_shared<CallEdgeInstrumentation>();
  if (name == "field-access") return std::make_shared<FieldAccessInstrumentation>();
  return nullptr;
}

std::vector<std::string> builtin_instrumentation_names() {
  return {"call-edge", "field-access"};
}

}  // namespace duplex
