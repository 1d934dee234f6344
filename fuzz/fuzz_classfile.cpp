// libFuzzer target over the class-file layer: parse -> write (byte-identical) -> every method
// through build_code_ir + replace_code -> write -> parse again.
//
// What counts as a bug (the target aborts, so libFuzzer saves the input):
//  - a crash, hang, leak or sanitizer report anywhere below;
//  - an input that parses but does not write back byte for byte;
//  - a class that was edited (every method whose IR built was reassembled) and written, but
//    whose output no longer parses.
//  - the two IR builders (build_code_ir's fast route and the checked builder) disagreeing on
//    any method: a different IR, a different error, or a different pool afterwards.
// Errors returned as values (parse, IR or assembly rejecting the input) are fine.
//
// Linked with code_mutator.cpp (CODE_MUTATOR=1 fuzz/build.sh), the target also has a
// structure-aware mutator.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "classfile/assembler.h"
#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "classfile/code_ir_checked.h"
#include "classfile/code_ir_diff.h"
#include "classfile/serial_version.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "duplex fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

void check_write_identical(const duplex::ClassFile& cf, std::span<const uint8_t> input) {
  auto out = cf.write();
  if (!out) fail("write of an unedited class failed", out.error().message());
  if (out->size() != input.size() || std::memcmp(out->data(), input.data(), input.size()) != 0)
    fail("parse+write is not byte-identical", cf.name());
}

// build_code_ir (which takes a fast route for well-formed code) must build what the checked
// builder builds, fail where it fails with its message, and grow the pool as it does.
void check_builders_agree(std::span<const uint8_t> input) {
  auto fast_cf = duplex::ClassFile::parse(input);
  auto checked_cf = duplex::ClassFile::parse(input);
  if (!fast_cf || !checked_cf) fail("a class parses once but not twice", "");
  for (size_t i = 0; i < fast_cf->methods.size(); ++i) {
    const auto& m = fast_cf->methods[i];
    if (fast_cf->find_attribute(m.attributes, "Code") == nullptr) continue;
    auto fast = duplex::build_code_ir(fast_cf.value(), m);
    auto checked = duplex::build_code_ir_checked(checked_cf.value(), checked_cf->methods[i]);
    if (fast.ok() != checked.ok()) fail("only one IR builder accepts a method", fast_cf->name());
    if (!fast.ok() && fast.error().message() != checked.error().message()) {
      fail("the IR builders give different errors",
           fast.error().message() + " / " + checked.error().message());
    }
    if (fast.ok()) {
      std::string d = duplex::code_ir_difference(fast.value(), checked.value());
      if (!d.empty()) fail("the IR builders build different IRs", d);
    }
    if (fast_cf->pool.count() != checked_cf->pool.count()) {
      fail("the IR builders leave different pools", fast_cf->name());
    }
  }
}

// Every method with code through the IR and the assembler; returns, by method index, whether
// its code was replaced.
std::vector<bool> reassemble_all(duplex::ClassFile& cf) {
  std::vector<bool> replaced(cf.methods.size());
  for (size_t i = 0; i < cf.methods.size(); ++i) {
    auto& m = cf.methods[i];
    if (cf.find_attribute(m.attributes, "Code") == nullptr) continue;
    auto ir = duplex::build_code_ir(cf, m);
    if (!ir) continue;  // malformed code is rejected as a value: fine
    auto r = duplex::replace_code(cf, m, ir.value());
    replaced[i] = r.ok();  // an Error is fine too; what must not happen is a crash
  }
  return replaced;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> input(data, size);
  auto cf = duplex::ClassFile::parse(input);
  if (!cf) return 0;
  check_write_identical(cf.value(), input);
  check_builders_agree(input);
  // Reads InnerClasses and every member's names: errors are values, never a bad read.
  (void)duplex::default_serial_version_uid(cf.value());

  std::vector<bool> replaced = reassemble_all(cf.value());
  // build_code_ir may add pool entries even when nothing is replaced, so always rewrite.
  auto out = cf->write();
  if (!out) return 0;  // only a u2/u4 count overflow may fail here (e.g. a full pool)
  auto again = duplex::ClassFile::parse(out.value());
  if (!again) fail("reassembled class does not parse", again.error().message());
  check_write_identical(again.value(), out.value());
  // What the assembler wrote must be code the IR builder accepts.
  for (size_t i = 0; i < again->methods.size() && i < replaced.size(); ++i) {
    if (!replaced[i]) continue;
    auto ir = duplex::build_code_ir(again.value(), again->methods[i]);
    if (!ir) fail("reassembled code does not build an IR", ir.error().message());
  }
  return 0;
}
