// Method counters (RewriteOptions::method_counters): each counting method of a class counts
// its checks down on a counter of its own, held in a static field of the class,
// `private static synthetic Object duplex$k<N>` (N: the method's index in the class file),
// instead of the runtime's shared counter. The runtime keeps a cell per thread stripe in it
// (docs/design/runtime-contract.md, "Method counters"). Every method is then sampled at its own
// 1-in-interval rate, so a method's share of the samples follows its own checks: stratified
// sampling (docs/design/sampling-accuracy.md). The fields are private and static, so they change
// neither the class's serialVersionUID nor what subclasses see. Interfaces cannot hold such
// fields (theirs must be final): their methods keep the shared counter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "classfile/class_file.h"
#include "classfile/error.h"

namespace duplex {

class MethodCounters {
 public:
  // Usable for a class that is not an interface and has no field of that prefix yet.
  static MethodCounters for_class(const ClassFile& cf);

  bool usable() const { return usable_; }
  // The Fieldref of the counter of method number `method_index`, added to the pool when first
  // asked for (its field is then added by install).
  Result<uint16_t> field_for(ConstantPool& pool, uint32_t method_index);
  // After every method is rewritten: adds the fields asked for.
  Status install(ClassFile& cf) const;

 private:
  std::string class_name_;
  bool usable_ = false;
  std::vector<uint32_t> asked_;  // method indices, in the order asked
};

}  // namespace duplex
