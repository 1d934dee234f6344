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
// Built with -DDUPLEX_FUZZ_CODE_MUTATOR, the target also has a structure-aware mutator: half
// of the mutations keep the class envelope (constant pool, members) intact and mutate only
// one method's Code attribute (its bytecode, with code_length fixed up, or its exception table
// and nested attributes), so most mutants get past the parser into the IR builder and the
// assembler.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "classfile/assembler.h"
#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "classfile/code_ir_checked.h"
#include "classfile/code_ir_diff.h"

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

#ifdef DUPLEX_FUZZ_CODE_MUTATOR

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

// Mutates `body` (a Code attribute body) in place; false if it is too short to be one.
bool mutate_code_body(std::vector<uint8_t>& body, std::minstd_rand& rng) {
  if (body.size() < 8) return false;
  size_t code_length =
      (size_t{body[4]} << 24) | (size_t{body[5]} << 16) | (size_t{body[6]} << 8) | body[7];
  if (code_length > body.size() - 8) return false;
  size_t begin = 0, end = body.size();
  bool fix_length = false;
  switch (rng() % 4) {
    case 0:
    case 1:  // the bytecode; code_length follows its new size
      begin = 8;
      end = 8 + code_length;
      fix_length = true;
      break;
    case 2:  // exception table and nested attributes (LineNumberTable, StackMapTable, ...)
      begin = 8 + code_length;
      break;
    default:  // the whole body, max_stack and max_locals included
      break;
  }
  std::vector<uint8_t> part(body.begin() + static_cast<ptrdiff_t>(begin),
                            body.begin() + static_cast<ptrdiff_t>(end));
  size_t old_size = part.size();
  part.resize(old_size + 64);
  part.resize(LLVMFuzzerMutate(part.data(), old_size, part.size()));
  body.erase(body.begin() + static_cast<ptrdiff_t>(begin),
             body.begin() + static_cast<ptrdiff_t>(end));
  body.insert(body.begin() + static_cast<ptrdiff_t>(begin), part.begin(), part.end());
  if (fix_length) {
    uint32_t n = static_cast<uint32_t>(part.size());
    body[4] = static_cast<uint8_t>(n >> 24);
    body[5] = static_cast<uint8_t>(n >> 16);
    body[6] = static_cast<uint8_t>(n >> 8);
    body[7] = static_cast<uint8_t>(n);
  }
  return true;
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::minstd_rand rng(seed);
  if (rng() % 2 == 0) return LLVMFuzzerMutate(data, size, max_size);
  auto cf = duplex::ClassFile::parse(std::span<const uint8_t>(data, size));
  if (!cf) return LLVMFuzzerMutate(data, size, max_size);
  std::vector<duplex::Attribute*> codes;
  for (auto& m : cf->methods)
    if (auto* code = cf->find_attribute(m.attributes, "Code")) codes.push_back(code);
  if (codes.empty()) return LLVMFuzzerMutate(data, size, max_size);
  duplex::Attribute* code = codes[rng() % codes.size()];
  std::vector<uint8_t> body(code->data.begin(), code->data.end());
  if (!mutate_code_body(body, rng)) return LLVMFuzzerMutate(data, size, max_size);
  code->set_data(std::move(body));
  auto out = cf->write();
  if (!out || out->size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out->data(), out->size());
  return out->size();
}

#endif  // DUPLEX_FUZZ_CODE_MUTATOR
