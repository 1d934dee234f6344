#include "classfile/error.h"

namespace duplex {

std::string Error::message() const {
  std::string out;
  if (!class_name.empty()) out += class_name;
  if (!method.empty()) {
    if (!out.empty()) out += '.';
    out += method;
  }
  if (offset_kind != OffsetKind::kNone && offset >= 0) {
    if (!out.empty()) out += ": ";
    out += offset_kind == OffsetKind::kClassFile ? "class-file byte " : "bytecode offset ";
    out += std::to_string(offset);
  }
  if (!out.empty()) out += ": ";
  out += reason;
  return out;
}

}  // namespace duplex
