// A class's BootstrapMethods attribute as a table that can grow: for code that adds
// invokedynamic (or Dynamic) constants. Read once, add entries (identical entries are shared),
// write back once.
#pragma once

#include <cstdint>
#include <vector>

#include "classfile/attributes.h"
#include "classfile/class_file.h"
#include "classfile/error.h"

namespace duplex {

class BootstrapTable {
 public:
  // The class's current table (empty when it has no BootstrapMethods attribute).
  static Result<BootstrapTable> read(const ClassFile& cf);

  // The index of `method` in the table, appended if no identical entry exists. Fails past
  // 65535 entries (the attribute's count is a u2).
  Result<uint16_t> add(const BootstrapMethod& method);

  // Puts the table into `cf` (replacing or adding the attribute) if anything was added.
  Status write(ClassFile& cf) const;

  size_t size() const { return methods_.size(); }

 private:
  std::vector<BootstrapMethod> methods_;
  bool changed_ = false;
};

std::vector<uint8_t> encode_bootstrap_methods(const std::vector<BootstrapMethod>& methods);

}  // namespace duplex
