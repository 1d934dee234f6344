// The serialVersionUID that Java serialization gives a Serializable class that declares none
// (Java Object Serialization Specification, section 4.6; java.io.ObjectStreamClass computes it
// when a stream is written or read): the first eight bytes of a SHA-1 over the class's name,
// modifiers and interfaces, its non-private fields (and private ones that are neither static
// nor transient), whether it has a static initializer, and its non-private constructors and
// methods. Adding a non-private member to such a class changes it, and objects the original
// program serialized can no longer be read (InvalidClassException), nor the other way round.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "classfile/class_file.h"
#include "classfile/error.h"

namespace duplex {

// The bytes the hash is taken over, as ObjectStreamClass writes them. Two classes with the same
// bytes get the same default serialVersionUID. Fails on a pool index that does not resolve.
Result<std::vector<uint8_t>> serial_version_input(const ClassFile& cf);

// The serialVersionUID of a class whose serial_version_input is `input`: the first eight bytes of
// its SHA-1, little-endian.
int64_t serial_version_uid_of(std::span<const uint8_t> input);

// The default serialVersionUID of `cf` (whether or not it is Serializable, which only its
// class hierarchy tells).
Result<int64_t> default_serial_version_uid(const ClassFile& cf);

// Whether serialization gives `cf` a serialVersionUID of 0 whatever its members: a record (unless
// it declares one) and an enum (whose declared one is ignored), told by their superclass.
bool serial_version_is_fixed(const ClassFile& cf);

// Whether `cf` declares a field named serialVersionUID: serialization then reads that field
// (when it is static and final) instead of computing the default.
bool declares_serial_version_uid(const ClassFile& cf);

}  // namespace duplex
