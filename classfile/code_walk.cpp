#include "classfile/code_walk.h"

#include "classfile/opcodes.h"

namespace duplex {
namespace {

int32_t be_s4(std::span<const uint8_t> b, size_t at) {
  return static_cast<int32_t>((uint32_t{b[at]} << 24) | (uint32_t{b[at + 1]} << 16) |
                              (uint32_t{b[at + 2]} << 8) | b[at + 3]);
}

}  // namespace

size_t instruction_length(std::span<const uint8_t> code, size_t pc) {
  uint8_t opcode = code[pc];
  size_t length = opcode_info(opcode).length;
  if (opcode == op::kWide) {
    length = pc + 1 < code.size() && code[pc + 1] == op::kIinc ? 6 : 4;
  } else if (opcode == op::kTableswitch || opcode == op::kLookupswitch) {
    size_t table = (pc + 4) & ~size_t{3};  // after the padding
    if (table + 12 > code.size()) return 0;
    int64_t entries = opcode == op::kTableswitch
                          ? int64_t{be_s4(code, table + 8)} - be_s4(code, table + 4) + 1
                          : int64_t{be_s4(code, table + 4)} * 2;
    if (entries < 0) return 0;
    length = table + (opcode == op::kTableswitch ? 12 : 8) + 4 * static_cast<size_t>(entries) - pc;
  } else if (opcode_info(opcode).shape == OperandShape::kInvalid) {
    return 0;
  }
  return pc + length <= code.size() ? length : 0;
}

uint16_t instruction_pool_index(std::span<const uint8_t> insn) {
  switch (opcode_info(insn[0]).shape) {
    case OperandShape::kCpByte:
      return insn[1];
    case OperandShape::kCp:
    case OperandShape::kInvokeInterface:
    case OperandShape::kInvokeDynamic:
    case OperandShape::kMultiANewArray:
      return static_cast<uint16_t>((insn[1] << 8) | insn[2]);
    default:
      return 0;
  }
}

std::optional<size_t> branch_target(std::span<const uint8_t> insn, size_t pc) {
  int64_t offset = 0;
  switch (opcode_info(insn[0]).shape) {
    case OperandShape::kBranch:
      offset = static_cast<int16_t>((insn[1] << 8) | insn[2]);
      break;
    case OperandShape::kBranchWide:
      offset = static_cast<int32_t>((uint32_t{insn[1]} << 24) | (uint32_t{insn[2]} << 16) |
                                    (uint32_t{insn[3]} << 8) | insn[4]);
      break;
    default:
      return std::nullopt;
  }
  int64_t target = static_cast<int64_t>(pc) + offset;
  if (target < 0) return std::nullopt;
  return static_cast<size_t>(target);
}

}  // namespace duplex
