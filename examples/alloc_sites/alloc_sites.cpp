// An example tool: a new kind of profiling (allocation sites) defined through the duplex
// library API in one screenful, and sampled by the framework at no extra engineering.
//
//   alloc-sites IN OUT [--mode full|partial|nodup|exhaustive|auto]
//
// Then run OUT with the duplex runtime: each sampled allocation counts one event under the
// key "alloc:<class>.<method>@<offset>:<type>" in the profile's <events> section.
#include <iostream>
#include <string>

#include "classfile/opcodes.h"
#include "duplex/instrument.h"

namespace {

using namespace duplex;

class AllocationSites final : public Instrumentation {
 public:
  std::string name() const override { return "alloc-sites"; }

  // Every new, newarray, anewarray and multianewarray.
  void select(const MethodView& m, std::vector<SitePoint>& out) const override {
    for (uint32_t i = 0; i < m.code.insns.size(); ++i) {
      const Insn& insn = m.code.insns[i];
      std::string type = allocated_type(m, insn);
      if (type.empty()) continue;
      out.push_back({SiteKind::kInstruction, i,
                     "alloc:" + m.context.class_name + "." + m.context.method_name + "@" +
                         std::to_string(insn.original_offset) + ":" + type});
    }
  }

  // The event: Duplex.event(key). The framework decides where it goes and what guards it.
  Status emit(const MethodView&, const SitePoint& site, EventCode& out) const override {
    return out.count_event(site.target);
  }

 private:
  static std::string allocated_type(const MethodView& m, const Insn& insn) {
    switch (insn.opcode) {
      case op::kNew:
      case op::kAnewarray:
      case op::kMultianewarray: {
        auto name = m.cls.pool.class_name(static_cast<uint32_t>(insn.a));
        return name ? std::string(*name) + (insn.opcode == op::kNew ? "" : "[]") : "?";
      }
      case op::kNewarray:
        return "primitive[]";
      default:
        return {};
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: alloc-sites IN OUT [--mode M]\n";
    return 2;
  }
  InstrumentOptions options;
  options.rewrite.instrumentations = {std::make_shared<AllocationSites>()};
  if (argc == 5 && std::string(argv[3]) == "--mode") {
    auto mode = parse_mode(argv[4]);
    if (!mode) {
      std::cerr << "alloc-sites: " << mode.error().message() << "\n";
      return 2;
    }
    options.rewrite.mode = *mode;
  }
  auto summary = instrument_path(argv[1], argv[2], options);
  if (!summary) {
    std::cerr << "alloc-sites: " << summary.error().message() << "\n";
    return 1;
  }
  std::cout << "alloc-sites: rewrote " << summary->classes_rewritten << " of "
            << summary->classes_seen << " classes\n";
  return 0;
}
