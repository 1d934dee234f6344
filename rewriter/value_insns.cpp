#include "rewriter/value_insns.h"

#include "classfile/descriptors.h"
#include "classfile/opcodes.h"

namespace duplex {
namespace {

// Position of a value kind in the xload/xstore/xreturn opcode families (i, l, f, d, a).
int family_index(VTag kind) {
  switch (kind) {
    case VTag::kInteger:
      return 0;
    case VTag::kLong:
      return 1;
    case VTag::kFloat:
      return 2;
    case VTag::kDouble:
      return 3;
    default:
      return 4;
  }
}

}  // namespace

VTag kind_of(const VType& t) {
  switch (t.tag) {
    case VTag::kInteger:
    case VTag::kFloat:
    case VTag::kLong:
    case VTag::kDouble:
      return t.tag;
    default:
      return VTag::kObject;
  }
}

uint16_t slots_of(VTag kind) {
  return kind == VTag::kLong || kind == VTag::kDouble ? 2 : 1;
}

Insn local_insn(bool store, VTag kind, uint16_t slot) {
  int k = family_index(kind);
  if (slot <= 3) {
    uint8_t base = store ? op::kIstore0 : op::kIload0;
    return Insn::make(static_cast<uint8_t>(base + 4 * k + slot));
  }
  uint8_t base = store ? op::kIstore : op::kIload;
  return Insn::make(static_cast<uint8_t>(base + k), slot);
}

Insn zero_of(VTag kind) {
  switch (kind) {
    case VTag::kInteger:
      return Insn::make(op::kIconst0);
    case VTag::kLong:
      return Insn::make(op::kLconst0);
    case VTag::kFloat:
      return Insn::make(op::kFconst0);
    case VTag::kDouble:
      return Insn::make(op::kDconst0);
    default:
      return Insn::make(op::kAconstNull);
  }
}

Insn push_int(int32_t v) {
  if (v >= -1 && v <= 5) return Insn::make(static_cast<uint8_t>(op::kIconst0 + v));
  if (v >= -128 && v <= 127) return Insn::make(op::kBipush, v);
  return Insn::make(op::kSipush, v);
}

std::optional<VTag> return_kind(std::string_view method_descriptor) {
  std::string_view ret = return_type(method_descriptor);
  char r = ret.empty() ? 'V' : ret[0];
  switch (r) {
    case 'V':
      return std::nullopt;
    case 'J':
      return VTag::kLong;
    case 'F':
      return VTag::kFloat;
    case 'D':
      return VTag::kDouble;
    case 'L':
    case '[':
      return VTag::kObject;
    default:
      return VTag::kInteger;
  }
}

Insn return_for(std::string_view method_descriptor) {
  auto kind = return_kind(method_descriptor);
  if (!kind) return Insn::make(op::kReturn);
  return Insn::make(static_cast<uint8_t>(op::kIreturn + family_index(*kind)));
}

uint32_t frame_slots(std::span<const VType> locals) {
  uint32_t n = 0;
  for (const VType& t : locals) n += t.is_wide() ? 2 : 1;
  return n;
}

}  // namespace duplex
