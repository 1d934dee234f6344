// The JVM instruction set (JVMS 6.5): names, operand shapes and control-flow kinds.
#pragma once

#include <array>
#include <cstdint>

namespace duplex {

namespace op {
// Only the opcodes the library names in code; the full table is in opcodes.cpp.
inline constexpr uint8_t kNop = 0x00, kAconstNull = 0x01, kIconstM1 = 0x02, kIconst0 = 0x03,
                         kIconst1 = 0x04, kIconst5 = 0x08, kLconst0 = 0x09, kLconst1 = 0x0a,
                         kFconst0 = 0x0b, kFconst2 = 0x0d, kDconst0 = 0x0e, kDconst1 = 0x0f,
                         kBipush = 0x10, kSipush = 0x11, kLdc = 0x12, kLdcW = 0x13, kLdc2W = 0x14,
                         kIload = 0x15, kLload = 0x16, kFload = 0x17, kDload = 0x18, kAload = 0x19,
                         kIload0 = 0x1a, kAload3 = 0x2d, kIaload = 0x2e, kLaload = 0x2f,
                         kAaload = 0x32, kSaload = 0x35, kIstore = 0x36, kLstore = 0x37,
                         kFstore = 0x38, kDstore = 0x39, kAstore = 0x3a, kIstore0 = 0x3b,
                         kAstore3 = 0x4e, kIastore = 0x4f, kLastore = 0x50, kAastore = 0x53,
                         kSastore = 0x56, kPop = 0x57, kPop2 = 0x58, kDup = 0x59, kDupX1 = 0x5a,
                         kDupX2 = 0x5b, kDup2 = 0x5c, kDup2X1 = 0x5d, kDup2X2 = 0x5e, kSwap = 0x5f,
                         kIadd = 0x60, kIsub = 0x64, kIinc = 0x84, kI2l = 0x85, kL2i = 0x88,
                         kLcmp = 0x94, kIfeq = 0x99, kIfne = 0x9a, kIflt = 0x9b, kIfge = 0x9c,
                         kIfgt = 0x9d, kIfle = 0x9e, kIfIcmpeq = 0x9f, kIfAcmpne = 0xa6,
                         kGoto = 0xa7, kJsr = 0xa8, kRet = 0xa9, kTableswitch = 0xaa,
                         kLookupswitch = 0xab, kIreturn = 0xac, kReturn = 0xb1, kGetstatic = 0xb2,
                         kPutstatic = 0xb3, kGetfield = 0xb4, kPutfield = 0xb5,
                         kInvokevirtual = 0xb6, kInvokespecial = 0xb7, kInvokestatic = 0xb8,
                         kInvokeinterface = 0xb9, kInvokedynamic = 0xba, kNew = 0xbb,
                         kNewarray = 0xbc, kAnewarray = 0xbd, kArraylength = 0xbe, kAthrow = 0xbf,
                         kCheckcast = 0xc0, kInstanceof = 0xc1, kMonitorenter = 0xc2,
                         kMonitorexit = 0xc3, kWide = 0xc4, kMultianewarray = 0xc5, kIfnull = 0xc6,
                         kIfnonnull = 0xc7, kGotoW = 0xc8, kJsrW = 0xc9;
}  // namespace op

// How an instruction's operands are encoded.
enum class OperandShape : uint8_t {
  kNone,             // no operands
  kByte,             // bipush (s1), newarray (atype u1)
  kShort,            // sipush (s2)
  kLocal,            // u1 local index (u2 under wide)
  kIinc,             // u1 index, s1 const (u2, s2 under wide)
  kCpByte,           // ldc: u1 pool index
  kCp,               // u2 pool index
  kBranch,           // s2 offset
  kBranchWide,       // s4 offset
  kInvokeInterface,  // u2 index, u1 count, u1 zero
  kInvokeDynamic,    // u2 index, u2 zero
  kMultiANewArray,   // u2 index, u1 dimensions
  kTableSwitch,
  kLookupSwitch,
  kWide,     // the wide prefix itself
  kInvalid,  // not a defined opcode
};

struct OpcodeInfo {
  const char* name;  // mnemonic, e.g. "iload"
  OperandShape shape;
  uint8_t length;  // fixed length in bytes including the opcode; 0 for switches/wide
};

namespace detail {
// All 256 byte values; undefined opcodes have shape kInvalid. Defined in opcodes.cpp and
// declared here so the lookups below inline into the per-instruction loops.
extern const std::array<OpcodeInfo, 256> kOpcodeTable;
}  // namespace detail

inline const OpcodeInfo& opcode_info(uint8_t opcode) {
  return detail::kOpcodeTable[opcode];
}

// if*, ifnull, ifnonnull
inline bool is_conditional_branch(uint8_t opcode) {
  return (opcode >= op::kIfeq && opcode <= op::kIfAcmpne) || opcode == op::kIfnull ||
         opcode == op::kIfnonnull;
}
// goto, goto_w
inline bool is_unconditional_jump(uint8_t opcode) {
  return opcode == op::kGoto || opcode == op::kGotoW;
}
// ireturn..return
inline bool is_return(uint8_t opcode) {
  return opcode >= op::kIreturn && opcode <= op::kReturn;
}
// invokevirtual..invokedynamic. Takes the IR's 16-bit opcode, whose label marker is no invoke.
inline bool is_invoke(uint16_t opcode) {
  return opcode >= op::kInvokevirtual && opcode <= op::kInvokedynamic;
}
inline bool is_switch(uint8_t opcode) {
  return opcode == op::kTableswitch || opcode == op::kLookupswitch;
}
// Control never falls through to the next instruction: goto(_w), returns, athrow, switches,
// ret.
inline bool ends_block(uint8_t opcode) {
  return is_unconditional_jump(opcode) || is_return(opcode) || is_switch(opcode) ||
         opcode == op::kAthrow || opcode == op::kRet;
}
// The conditional branch that tests the opposite condition (ifeq <-> ifne, ...).
uint8_t invert_condition(uint8_t opcode);

}  // namespace duplex
