#include "classfile/opcodes.h"

#include <array>
#include <cstddef>

namespace duplex {
namespace {

constexpr OpcodeInfo kInvalidInfo{"<invalid>", OperandShape::kInvalid, 0};

// Opcodes 0x00..0xc9 (JVMS 6.5). Lengths include the opcode byte; 0 marks variable length.
constexpr std::array<OpcodeInfo, 202> kOpcodes{{
    {"nop", OperandShape::kNone, 1},                         // 0x00
    {"aconst_null", OperandShape::kNone, 1},                 // 0x01
    {"iconst_m1", OperandShape::kNone, 1},                   // 0x02
    {"iconst_0", OperandShape::kNone, 1},                    // 0x03
    {"iconst_1", OperandShape::kNone, 1},                    // 0x04
    {"iconst_2", OperandShape::kNone, 1},                    // 0x05
    {"iconst_3", OperandShape::kNone, 1},                    // 0x06
    {"iconst_4", OperandShape::kNone, 1},                    // 0x07
    {"iconst_5", OperandShape::kNone, 1},                    // 0x08
    {"lconst_0", OperandShape::kNone, 1},                    // 0x09
    {"lconst_1", OperandShape::kNone, 1},                    // 0x0a
    {"fconst_0", OperandShape::kNone, 1},                    // 0x0b
    {"fconst_1", OperandShape::kNone, 1},                    // 0x0c
    {"fconst_2", OperandShape::kNone, 1},                    // 0x0d
    {"dconst_0", OperandShape::kNone, 1},                    // 0x0e
    {"dconst_1", OperandShape::kNone, 1},                    // 0x0f
    {"bipush", OperandShape::kByte, 2},                      // 0x10
    {"sipush", OperandShape::kShort, 3},                     // 0x11
    {"ldc", OperandShape::kCpByte, 2},                       // 0x12
    {"ldc_w", OperandShape::kCp, 3},                         // 0x13
    {"ldc2_w", OperandShape::kCp, 3},                        // 0x14
    {"iload", OperandShape::kLocal, 2},                      // 0x15
    {"lload", OperandShape::kLocal, 2},                      // 0x16
    {"fload", OperandShape::kLocal, 2},                      // 0x17
    {"dload", OperandShape::kLocal, 2},                      // 0x18
    {"aload", OperandShape::kLocal, 2},                      // 0x19
    {"iload_0", OperandShape::kNone, 1},                     // 0x1a
    {"iload_1", OperandShape::kNone, 1},                     // 0x1b
    {"iload_2", OperandShape::kNone, 1},                     // 0x1c
    {"iload_3", OperandShape::kNone, 1},                     // 0x1d
    {"lload_0", OperandShape::kNone, 1},                     // 0x1e
    {"lload_1", OperandShape::kNone, 1},                     // 0x1f
    {"lload_2", OperandShape::kNone, 1},                     // 0x20
    {"lload_3", OperandShape::kNone, 1},                     // 0x21
    {"fload_0", OperandShape::kNone, 1},                     // 0x22
    {"fload_1", OperandShape::kNone, 1},                     // 0x23
    {"fload_2", OperandShape::kNone, 1},                     // 0x24
    {"fload_3", OperandShape::kNone, 1},                     // 0x25
    {"dload_0", OperandShape::kNone, 1},                     // 0x26
    {"dload_1", OperandShape::kNone, 1},                     // 0x27
    {"dload_2", OperandShape::kNone, 1},                     // 0x28
    {"dload_3", OperandShape::kNone, 1},                     // 0x29
    {"aload_0", OperandShape::kNone, 1},                     // 0x2a
    {"aload_1", OperandShape::kNone, 1},                     // 0x2b
    {"aload_2", OperandShape::kNone, 1},                     // 0x2c
    {"aload_3", OperandShape::kNone, 1},                     // 0x2d
    {"iaload", OperandShape::kNone, 1},                      // 0x2e
    {"laload", OperandShape::kNone, 1},                      // 0x2f
    {"faload", OperandShape::kNone, 1},                      // 0x30
    {"daload", OperandShape::kNone, 1},                      // 0x31
    {"aaload", OperandShape::kNone, 1},                      // 0x32
    {"baload", OperandShape::kNone, 1},                      // 0x33
    {"caload", OperandShape::kNone, 1},                      // 0x34
    {"saload", OperandShape::kNone, 1},                      // 0x35
    {"istore", OperandShape::kLocal, 2},                     // 0x36
    {"lstore", OperandShape::kLocal, 2},                     // 0x37
    {"fstore", OperandShape::kLocal, 2},                     // 0x38
    {"dstore", OperandShape::kLocal, 2},                     // 0x39
    {"astore", OperandShape::kLocal, 2},                     // 0x3a
    {"istore_0", OperandShape::kNone, 1},                    // 0x3b
    {"istore_1", OperandShape::kNone, 1},                    // 0x3c
    {"istore_2", OperandShape::kNone, 1},                    // 0x3d
    {"istore_3", OperandShape::kNone, 1},                    // 0x3e
    {"lstore_0", OperandShape::kNone, 1},                    // 0x3f
    {"lstore_1", OperandShape::kNone, 1},                    // 0x40
    {"lstore_2", OperandShape::kNone, 1},                    // 0x41
    {"lstore_3", OperandShape::kNone, 1},                    // 0x42
    {"fstore_0", OperandShape::kNone, 1},                    // 0x43
    {"fstore_1", OperandShape::kNone, 1},                    // 0x44
    {"fstore_2", OperandShape::kNone, 1},                    // 0x45
    {"fstore_3", OperandShape::kNone, 1},                    // 0x46
    {"dstore_0", OperandShape::kNone, 1},                    // 0x47
    {"dstore_1", OperandShape::kNone, 1},                    // 0x48
    {"dstore_2", OperandShape::kNone, 1},                    // 0x49
    {"dstore_3", OperandShape::kNone, 1},                    // 0x4a
    {"astore_0", OperandShape::kNone, 1},                    // 0x4b
    {"astore_1", OperandShape::kNone, 1},                    // 0x4c
    {"astore_2", OperandShape::kNone, 1},                    // 0x4d
    {"astore_3", OperandShape::kNone, 1},                    // 0x4e
    {"iastore", OperandShape::kNone, 1},                     // 0x4f
    {"lastore", OperandShape::kNone, 1},                     // 0x50
    {"fastore", OperandShape::kNone, 1},                     // 0x51
    {"dastore", OperandShape::kNone, 1},                     // 0x52
    {"aastore", OperandShape::kNone, 1},                     // 0x53
    {"bastore", OperandShape::kNone, 1},                     // 0x54
    {"castore", OperandShape::kNone, 1},                     // 0x55
    {"sastore", OperandShape::kNone, 1},                     // 0x56
    {"pop", OperandShape::kNone, 1},                         // 0x57
    {"pop2", OperandShape::kNone, 1},                        // 0x58
    {"dup", OperandShape::kNone, 1},                         // 0x59
    {"dup_x1", OperandShape::kNone, 1},                      // 0x5a
    {"dup_x2", OperandShape::kNone, 1},                      // 0x5b
    {"dup2", OperandShape::kNone, 1},                        // 0x5c
    {"dup2_x1", OperandShape::kNone, 1},                     // 0x5d
    {"dup2_x2", OperandShape::kNone, 1},                     // 0x5e
    {"swap", OperandShape::kNone, 1},                        // 0x5f
    {"iadd", OperandShape::kNone, 1},                        // 0x60
    {"ladd", OperandShape::kNone, 1},                        // 0x61
    {"fadd", OperandShape::kNone, 1},                        // 0x62
    {"dadd", OperandShape::kNone, 1},                        // 0x63
    {"isub", OperandShape::kNone, 1},                        // 0x64
    {"lsub", OperandShape::kNone, 1},                        // 0x65
    {"fsub", OperandShape::kNone, 1},                        // 0x66
    {"dsub", OperandShape::kNone, 1},                        // 0x67
    {"imul", OperandShape::kNone, 1},                        // 0x68
    {"lmul", OperandShape::kNone, 1},                        // 0x69
    {"fmul", OperandShape::kNone, 1},                        // 0x6a
    {"dmul", OperandShape::kNone, 1},                        // 0x6b
    {"idiv", OperandShape::kNone, 1},                        // 0x6c
    {"ldiv", OperandShape::kNone, 1},                        // 0x6d
    {"fdiv", OperandShape::kNone, 1},                        // 0x6e
    {"ddiv", OperandShape::kNone, 1},                        // 0x6f
    {"irem", OperandShape::kNone, 1},                        // 0x70
    {"lrem", OperandShape::kNone, 1},                        // 0x71
    {"frem", OperandShape::kNone, 1},                        // 0x72
    {"drem", OperandShape::kNone, 1},                        // 0x73
    {"ineg", OperandShape::kNone, 1},                        // 0x74
    {"lneg", OperandShape::kNone, 1},                        // 0x75
    {"fneg", OperandShape::kNone, 1},                        // 0x76
    {"dneg", OperandShape::kNone, 1},                        // 0x77
    {"ishl", OperandShape::kNone, 1},                        // 0x78
    {"lshl", OperandShape::kNone, 1},                        // 0x79
    {"ishr", OperandShape::kNone, 1},                        // 0x7a
    {"lshr", OperandShape::kNone, 1},                        // 0x7b
    {"iushr", OperandShape::kNone, 1},                       // 0x7c
    {"lushr", OperandShape::kNone, 1},                       // 0x7d
    {"iand", OperandShape::kNone, 1},                        // 0x7e
    {"land", OperandShape::kNone, 1},                        // 0x7f
    {"ior", OperandShape::kNone, 1},                         // 0x80
    {"lor", OperandShape::kNone, 1},                         // 0x81
    {"ixor", OperandShape::kNone, 1},                        // 0x82
    {"lxor", OperandShape::kNone, 1},                        // 0x83
    {"iinc", OperandShape::kIinc, 3},                        // 0x84
    {"i2l", OperandShape::kNone, 1},                         // 0x85
    {"i2f", OperandShape::kNone, 1},                         // 0x86
    {"i2d", OperandShape::kNone, 1},                         // 0x87
    {"l2i", OperandShape::kNone, 1},                         // 0x88
    {"l2f", OperandShape::kNone, 1},                         // 0x89
    {"l2d", OperandShape::kNone, 1},                         // 0x8a
    {"f2i", OperandShape::kNone, 1},                         // 0x8b
    {"f2l", OperandShape::kNone, 1},                         // 0x8c
    {"f2d", OperandShape::kNone, 1},                         // 0x8d
    {"d2i", OperandShape::kNone, 1},                         // 0x8e
    {"d2l", OperandShape::kNone, 1},                         // 0x8f
    {"d2f", OperandShape::kNone, 1},                         // 0x90
    {"i2b", OperandShape::kNone, 1},                         // 0x91
    {"i2c", OperandShape::kNone, 1},                         // 0x92
    {"i2s", OperandShape::kNone, 1},                         // 0x93
    {"lcmp", OperandShape::kNone, 1},                        // 0x94
    {"fcmpl", OperandShape::kNone, 1},                       // 0x95
    {"fcmpg", OperandShape::kNone, 1},                       // 0x96
    {"dcmpl", OperandShape::kNone, 1},                       // 0x97
    {"dcmpg", OperandShape::kNone, 1},                       // 0x98
    {"ifeq", OperandShape::kBranch, 3},                      // 0x99
    {"ifne", OperandShape::kBranch, 3},                      // 0x9a
    {"iflt", OperandShape::kBranch, 3},                      // 0x9b
    {"ifge", OperandShape::kBranch, 3},                      // 0x9c
    {"ifgt", OperandShape::kBranch, 3},                      // 0x9d
    {"ifle", OperandShape::kBranch, 3},                      // 0x9e
    {"if_icmpeq", OperandShape::kBranch, 3},                 // 0x9f
    {"if_icmpne", OperandShape::kBranch, 3},                 // 0xa0
    {"if_icmplt", OperandShape::kBranch, 3},                 // 0xa1
    {"if_icmpge", OperandShape::kBranch, 3},                 // 0xa2
    {"if_icmpgt", OperandShape::kBranch, 3},                 // 0xa3
    {"if_icmple", OperandShape::kBranch, 3},                 // 0xa4
    {"if_acmpeq", OperandShape::kBranch, 3},                 // 0xa5
    {"if_acmpne", OperandShape::kBranch, 3},                 // 0xa6
    {"goto", OperandShape::kBranch, 3},                      // 0xa7
    {"jsr", OperandShape::kBranch, 3},                       // 0xa8
    {"ret", OperandShape::kLocal, 2},                        // 0xa9
    {"tableswitch", OperandShape::kTableSwitch, 0},          // 0xaa
    {"lookupswitch", OperandShape::kLookupSwitch, 0},        // 0xab
    {"ireturn", OperandShape::kNone, 1},                     // 0xac
    {"lreturn", OperandShape::kNone, 1},                     // 0xad
    {"freturn", OperandShape::kNone, 1},                     // 0xae
    {"dreturn", OperandShape::kNone, 1},                     // 0xaf
    {"areturn", OperandShape::kNone, 1},                     // 0xb0
    {"return", OperandShape::kNone, 1},                      // 0xb1
    {"getstatic", OperandShape::kCp, 3},                     // 0xb2
    {"putstatic", OperandShape::kCp, 3},                     // 0xb3
    {"getfield", OperandShape::kCp, 3},                      // 0xb4
    {"putfield", OperandShape::kCp, 3},                      // 0xb5
    {"invokevirtual", OperandShape::kCp, 3},                 // 0xb6
    {"invokespecial", OperandShape::kCp, 3},                 // 0xb7
    {"invokestatic", OperandShape::kCp, 3},                  // 0xb8
    {"invokeinterface", OperandShape::kInvokeInterface, 5},  // 0xb9
    {"invokedynamic", OperandShape::kInvokeDynamic, 5},      // 0xba
    {"new", OperandShape::kCp, 3},                           // 0xbb
    {"newarray", OperandShape::kByte, 2},                    // 0xbc
    {"anewarray", OperandShape::kCp, 3},                     // 0xbd
    {"arraylength", OperandShape::kNone, 1},                 // 0xbe
    {"athrow", OperandShape::kNone, 1},                      // 0xbf
    {"checkcast", OperandShape::kCp, 3},                     // 0xc0
    {"instanceof", OperandShape::kCp, 3},                    // 0xc1
    {"monitorenter", OperandShape::kNone, 1},                // 0xc2
    {"monitorexit", OperandShape::kNone, 1},                 // 0xc3
    {"wide", OperandShape::kWide, 0},                        // 0xc4
    {"multianewarray", OperandShape::kMultiANewArray, 4},    // 0xc5
    {"ifnull", OperandShape::kBranch, 3},                    // 0xc6
    {"ifnonnull", OperandShape::kBranch, 3},                 // 0xc7
    {"goto_w", OperandShape::kBranchWide, 5},                // 0xc8
    {"jsr_w", OperandShape::kBranchWide, 5},                 // 0xc9
}};

}  // namespace

namespace detail {
namespace {
constexpr std::array<OpcodeInfo, 256> full_table() {
  std::array<OpcodeInfo, 256> t{};
  for (std::size_t i = 0; i < t.size(); ++i)
    t[i] = i < kOpcodes.size() ? kOpcodes[i] : kInvalidInfo;
  return t;
}
}  // namespace
// Constant-initialised, so callers in other translation units never see it empty.
constinit const std::array<OpcodeInfo, 256> kOpcodeTable = full_table();
}  // namespace detail

uint8_t invert_condition(uint8_t opcode) {
  if (opcode == op::kIfnull) return op::kIfnonnull;
  if (opcode == op::kIfnonnull) return op::kIfnull;
  // ifeq/ifne, iflt/ifge, ifgt/ifle, if_icmpeq/ne, ... come in adjacent pairs starting at
  // an even offset from ifeq.
  int delta = opcode - op::kIfeq;
  return static_cast<uint8_t>(delta % 2 == 0 ? opcode + 1 : opcode - 1);
}

}  // namespace duplex
