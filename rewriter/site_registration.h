// The class's site table (docs/design/runtime-contract.md) and the code in <clinit> that
// hands it to the runtime, so the runtime can map a caller's rewritten bytecode index back to
// the original call-site offset.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "rewriter/method_rewriter.h"
#include "rewriter/module_reads.h"

namespace duplex {

struct MethodCalls {
  std::string method;  // name + descriptor
  std::vector<CallSite> calls;
  std::string reported_as;  // an outlined twin: the original method's name + descriptor
};

// The table text, split into parts that each fit in one constant (<= 65535 bytes of modified
// UTF-8). `clinit_shift` is added to the offsets of the <clinit> entry.
std::vector<std::string> site_table_parts(const std::string& class_name,
                                          const std::vector<MethodCalls>& methods,
                                          uint32_t clinit_shift);

// What runs first in <clinit>, before the registration: the module-reads prologue
// (rewriter/module_reads.h) when the class may be in a named module.
struct ClinitLead {
  std::optional<ModuleReadsRefs> module_reads;
  // Its size, a multiple of 4, by which the table's <clinit> offsets move.
  uint32_t bytes() const { return module_reads ? kModuleReadsPrologueBytes : 0; }
};

// The class's static initializer, or nullptr.
Member* find_clinit(ClassFile& cf);

// Adds the registration at the start of <clinit> (creating it if needed), after `lead`.
// `methods` must hold the rewritten <clinit>'s calls, if it was rewritten, under
// "<clinit>()V". Fails (and leaves the class as it was) if <clinit> cannot take the code.
// `parts_out` receives the table parts registered. `clinit_written`: <clinit>'s code is the
// rewriter's (it may name pool entries added since the class was parsed).
Status add_site_registration(ClassFile& cf, const std::vector<MethodCalls>& methods,
                             std::string_view runtime_class, bool clinit_written,
                             const ClinitLead& lead, std::vector<std::string>& parts_out);

// Puts `lead` and then `prefix` at the start of <clinit>, creating it if the class has none.
// `clinit_written` as above.
Status prepend_to_clinit(ClassFile& cf, std::vector<Insn> prefix, const ClinitLead& lead,
                         bool clinit_written);

}  // namespace duplex
