// A structure-aware libFuzzer mutator for class files, linked into a fuzz target when
// CODE_MUTATOR=1 (fuzz/build.sh): half of the mutations keep the class envelope (constant
// pool, members) intact and mutate only one method's Code attribute (its bytecode, with
// code_length fixed up, or its exception table and nested attributes), so most mutants get
// past the parser into the IR builder, the assembler and the rewriter. The other half are
// libFuzzer's own byte-level mutations.
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "classfile/class_file.h"

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
