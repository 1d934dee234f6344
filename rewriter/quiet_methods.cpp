#include "rewriter/quiet_methods.h"

#include <cstdint>
#include <span>

#include "classfile/attributes.h"
#include "classfile/code_ir.h"
#include "classfile/opcodes.h"
#include "rewriter/dup_plan.h"

namespace duplex {
namespace {

int32_t read_s16(std::span<const uint8_t> b, size_t at) {
  return static_cast<int16_t>(static_cast<uint16_t>(b[at] << 8 | b[at + 1]));
}

bool is_branch(uint8_t op) {
  return (op >= op::kIfeq && op <= op::kJsr) || op == op::kIfnull || op == op::kIfnonnull;
}

// True if the Code attribute's bytecode visibly has no cycle: every branch goes forward, and
// nothing the scan does not follow (switches, wide, goto_w, jsr, ret, handlers) is present.
bool forward_only(std::span<const uint8_t> attr) {
  if (attr.size() < 8) return false;
  uint32_t length = static_cast<uint32_t>(attr[4]) << 24 | static_cast<uint32_t>(attr[5]) << 16 |
                    static_cast<uint32_t>(attr[6]) << 8 | attr[7];
  if (attr.size() < 8 + static_cast<size_t>(length) + 2) return false;
  std::span<const uint8_t> code = attr.subspan(8, length);
  if (attr[8 + length] != 0 || attr[8 + length + 1] != 0) return false;  // handlers
  for (size_t at = 0; at < code.size();) {
    uint8_t op = code[at];
    const OpcodeInfo& info = opcode_info(op);
    if (info.length == 0 || op == op::kJsr || op == op::kRet) return false;
    if (at + info.length > code.size()) return false;
    if (is_branch(op) && read_s16(code, at + 1) <= 0) return false;
    if (op == op::kGotoW || op == op::kJsrW) return false;
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
    const Attribute* code = cf.find_attribute(m.attributes, "Code");
    if (!code || code->data.size() < 8) continue;
    uint32_t length = static_cast<uint32_t>(code->data[4]) << 24 |
                      static_cast<uint32_t>(code->data[5]) << 16 |
                      static_cast<uint32_t>(code->data[6]) << 8 | code->data[7];
    if (length == 0 || length > options.flag_check_max_bytes) continue;
    context.assign(cf, m);
    if (likely_entered_from_outside(context) || !forward_only(code->data)) continue;
    quiet.insert(context.method_id());
  }
  return quiet;
}

}  // namespace duplex
