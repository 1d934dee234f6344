// A rewritten class keeps the serialVersionUID serialization gave the original.
//
// Why: a Serializable class that declares no serialVersionUID gets one computed from its
// non-private members (classfile/serial_version.h). Lazy twins without a nest make members the
// rewriter added package-private and add package-private bridges (rewriter/twin_nest.h), and the
// call-edge-stack profile registers its site tables from a static initializer it may add: both
// changed it, so that objects the original program serialized could not be read back by the
// rewritten one (InvalidClassException), nor the other way round.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "classfile/class_file.h"
#include "classfile/error.h"

namespace duplex {

// What the default serialVersionUID depends on, noted before the rewrite edits the class: each
// member's access and its name and descriptor (as pool indices), the class's access and
// interfaces. Cheap, so that a rewrite that left all of them as they were and added only
// members the value ignores (private ones) is told apart without hashing anything.
struct SerialVersionBefore {
  // The class declares a serialVersionUID (serialization reads that), or is a record or an enum
  // (serialization gives them 0, whatever their members).
  bool declared = false;
  uint16_t access = 0;
  std::vector<uint16_t> interfaces;
  std::vector<std::array<uint16_t, 3>> fields, methods;  // access, name index, descriptor index
};
SerialVersionBefore note_serial_version(const ClassFile& cf);

// When `rewritten` (the rewrite of `original_bytes`, noted in `before`) declares no
// serialVersionUID and its default differs from the original's, declares the original's:
// `private static final long serialVersionUID` (public in an interface, whose fields must be),
// which serialization reads instead and which, being private and static, changes nothing else.
// Whether the class is Serializable at all only its hierarchy tells, so every such class gets
// it. True when it declared one; fails only when the pool is full or the original does not
// parse.
Result<bool> keep_serial_version(const SerialVersionBefore& before,
                                 std::span<const uint8_t> original_bytes, ClassFile& rewritten);

}  // namespace duplex
