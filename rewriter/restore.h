// Undoing a rewrite without changing a class's set of members, for a JVM that already runs the
// rewritten class: JVMTI's RetransformClasses may change method bodies but not add or remove
// methods, so a class that gained outlined twins cannot go back to its original bytes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "classfile/error.h"

namespace duplex {

// The rewritten class with every method it shares with the original given back the original's
// attributes (code, tables, annotations: byte for byte), so only the added methods (twins,
// which nothing calls any more) differ from the original. Valid because the rewriter only
// appends to the constant pool: the original's indices mean the same in the rewritten pool.
// Fails when the two classes do not belong together (another class, a member missing from the
// rewritten class, or an original pool that is not a prefix of the rewritten one).
Result<std::vector<uint8_t>> restore_keeping_members(std::span<const uint8_t> original,
                                                     std::span<const uint8_t> rewritten);

}  // namespace duplex
