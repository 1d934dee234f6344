// Rewritten classes of a named module reach the runtime.
//
// The runtime is on the boot class path, in the boot loader's unnamed module (or on the class
// path, in the application loader's, or on the module path, an automatic module), and a named
// module (one with a module-info.class) reads none of these: a rewritten class run from the module
// path fails at its first check with IllegalAccessError ("module app does not read unnamed
// module"). A module may add a read for itself (Module.addReads is caller-sensitive), so a class
// that may be in one starts its <clinit> with
//
//   try {
//     ThisClass.class.getModule().addReads(
//         Class.forName(RUNTIME, false, ThisClass.class.getClassLoader()).getModule());
//   } catch (Throwable t) {}
//
// before any of its code can name the runtime (a class runs no code before its initialization
// starts, and <clinit> starts with this). The class's own loader finds the runtime wherever the
// class's own references to it will (it delegates to the boot loader; a class of the boot loader
// gets null, the boot loader itself). Class.forName needs no read; in an unnamed module, or
// once the read exists, addReads does nothing; on Java 8, which has no modules (and a class of
// version 52 with a module-info beside it still runs there), getModule is missing and the catch
// lets <clinit> go on. RewriteOptions::in_named_module decides which classes get it.
#pragma once

#include <cstdint>
#include <string_view>

#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "classfile/error.h"

namespace duplex {

// The prologue's size in bytes once assembled: a multiple of 4, so that the rest of <clinit>
// keeps its switch padding and its offsets move by exactly this much (site_registration.h
// counts on it).
inline constexpr uint32_t kModuleReadsPrologueBytes = 32;

// The pool entries the prologue names.
struct ModuleReadsRefs {
  uint16_t this_class = 0;
  uint16_t get_module = 0;  // Class.getModule()
  uint16_t for_name = 0;    // Class.forName(String, boolean, ClassLoader)
  uint16_t get_loader = 0;  // Class.getClassLoader()
  uint16_t add_reads = 0;   // Module.addReads(Module)
  uint16_t runtime = 0;     // the runtime class's binary name, a String
};

// Adds the entries to the pool. Needs class-file version 49 or later (ldc of a Class), which
// every class of a named module has.
Result<ModuleReadsRefs> module_reads_refs(ClassFile& cf, std::string_view runtime_class);

// Puts the prologue at the start of `ir`: its instructions, labels and try/catch entry (first in
// the table: it covers only the prologue).
void prepend_module_reads(CodeIR& ir, const ModuleReadsRefs& refs);

}  // namespace duplex
