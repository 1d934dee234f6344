// A rewritten class keeps the serialVersionUID serialization gave the original.
//
// Why: a Serializable class that declares no serialVersionUID gets one computed from its
// non-private members (classfile/serial_version.h). Lazy twins without a nest make members the
// rewriter added package-private and add package-private bridges (rewriter/twin_nest.h), which
// changed it: objects the original program serialized could not be read back by the rewritten
// one (InvalidClassException), nor the other way round.
#pragma once

#include <cstdint>
#include <span>

#include "classfile/class_file.h"
#include "classfile/error.h"

namespace duplex {

// When `rewritten` (the rewrite of `original_bytes`) declares no serialVersionUID and its
// default differs from the original's, declares the original's: `private static final long
// serialVersionUID` (public in an interface, whose fields must be), which serialization reads
// instead and which, being private and static, changes nothing else. Whether the class is
// Serializable at all only its hierarchy tells, so every such class gets it. True when it
// declared one; fails only when the pool is full or the original does not parse.
Result<bool> keep_serial_version(std::span<const uint8_t> original_bytes, ClassFile& rewritten);

}  // namespace duplex
