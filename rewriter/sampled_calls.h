// Sampled calls: how a sample reaches small methods that carry no check of their own.
//
// A small loop-free method (RewriteOptions::caller_sampled_max_bytes) keeps its code exactly as
// it was, with no check, and gains a twin `private static synthetic <name>$sampled` holding its
// instrumented copy. It is sampled when a sampled caller calls it: in duplicated code, each
// call to a method outside the JDK becomes an `invokedynamic` that the runtime links
// (Duplex.sampledCall) to the twin of the method the original call would run, when that method
// has one, and to the original call otherwise. Unsampled code calls the method itself and pays
// nothing, not even a flag check: in the hot loops such methods are inlined into, the flag
// check's rarely taken branch was compiled in and cost as much as a counting check
// (docs/design/hotspot-costs.md).
//
// The twin's signature is fixed so that the runtime finds it from the callee alone: the
// declaring class first for an instance method (the receiver), then the parameters with
// boolean, byte, short and char widened to int, then an int entry id (0), returning what the
// method returns. invokedynamic needs class files of version 51 (Java 7) or later.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "classfile/bootstrap_table.h"
#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "classfile/error.h"

namespace duplex {

inline constexpr const char* kSampledTwinSuffix = "$sampled";

// The descriptor the twin of method `name``descriptor` of `class_name` must have: the receiver
// (of an instance method), then the parameters with boolean, byte, short and char as int, then
// the entry id; the class's own type (the receiver's) declared as java.lang.Object.
std::string sampled_twin_descriptor(std::string_view class_name, std::string_view descriptor,
                                    bool is_static);

class SampledCalls {
 public:
  // For the duplicated code of `cf`'s methods; inactive (redirect() copies) before version 51.
  static Result<SampledCalls> for_class(const ClassFile& cf, std::string_view runtime_class);

  bool active() const { return active_; }

  // The instruction the duplicated code holds for `insn`: an invokedynamic for a call that may
  // reach a sampled twin, else `insn` itself.
  Result<Insn> redirect(ConstantPool& pool, const Insn& insn);

  // After every method is rewritten: writes the bootstrap methods the redirects added.
  Status install(ClassFile& cf) const;

 private:
  bool eligible(const Insn& insn, std::string_view owner, std::string_view name,
                std::string_view descriptor, bool interface_ref) const;
  // The InvokeDynamic constant for a call, or 0 for a call that cannot reach a twin.
  Result<uint16_t> site_constant(ConstantPool& pool, const Insn& insn, uint8_t kind);
  Result<uint16_t> bootstrap_handle(ConstantPool& pool);

  bool active_ = false;
  std::string class_name_;
  std::string runtime_class_;
  uint16_t major_version_ = 0;
  BootstrapTable table_;
  uint16_t bootstrap_handle_ = 0;
  // (opcode, callee ref) -> its site_constant, so each call is looked at once per class.
  std::map<std::pair<uint16_t, int32_t>, uint16_t> done_;
};

}  // namespace duplex
