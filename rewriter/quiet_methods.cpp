#include "rewriter/quiet_methods.h"

#include <cstdint>
#include <optional>
#include <span>

#include "classfile/attributes.h"
#include "classfile/bytes.h"
#include "classfile/code_ir.h"
#include "classfile/opcodes.h"
#include "rewriter/dup_plan.h"

namespace duplex {
namespace {

// The bytecode of a Code attribute with no exception handlers (a handler can close a cycle
// the forward scan below would not see), or nothing.
std::optional<std::span<const uint8_t>> handler_free_code(std::span<const uint8_t> attr) {
  ByteReader r(attr);
  r.u2();  // max_stack
  r.u2();  // max_locals
  std::span<const uint8_t> code = r.bytes(r.u4());
  uint16_t handlers = r.u2();
  if (r.failed() || handlers != 0) return std::nullopt;
  return code;
}

// True if the bytecode visibly has no cycle: every branch goes forward, and nothing the scan
// does not follow (switches, wide, goto_w, jsr, ret) is present.
bool forward_only(std::span<const uint8_t> code) {
  for (size_t at = 0; at < code.size();) {
    uint8_t op = code[at];
    const OpcodeInfo& info = opcode_info(op);
    if (info.length == 0 || at + info.length > code.size()) return false;
    if (op == op::kJsr || op == op::kJsrW || op == op::kRet || op == op::kGotoW) return false;
    if (is_conditional_branch(op) || op == op::kGoto) {
      ByteReader offset(code.subspan(at + 1, 2));
      if (offset.s2() <= 0) return false;
    }
    at += info.length;
  }
  return true;
}

}  // namespace

std::set<std::string> quiet_methods(const ClassFile& cf, const RewriteOptions& options) {
  std::set<std::string> quiet;
  bool counts_entries = options.mode != Mode::kFull && options.mode != Mode::kPartial &&
                        options.mode != Mode::kChecksOnly;
  if (counts_entries || options.flag_check_max_bytes == 0) return quiet;
  MethodContext context;
  for (const Member& m : cf.methods) {
    if (!(m.access_flags & (access::kStatic | access::kPrivate))) continue;
    const Attribute* attr = cf.find_attribute(m.attributes, "Code");
    auto code = attr ? handler_free_code(attr->data) : std::nullopt;
    if (!code || code->empty() || code->size() > options.flag_check_max_bytes) continue;
    context.assign(cf, m);
    if (likely_entered_from_outside(context) || !forward_only(*code)) continue;
    quiet.insert(context.method_id());
  }
  return quiet;
}

}  // namespace duplex
