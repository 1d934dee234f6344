#include "classfile/attribute_store.h"

#include <cstring>

namespace duplex {

std::span<const uint8_t> AttributeStore::add(std::span<const uint8_t> bytes) {
  const size_t n = bytes.size();
  if (n == 0) return {};
  if (n > left_) {
    if (n >= kBlockBytes / 2) {
      // A block of its own; the current block keeps its free end for the next small one.
      blocks_.push_back(std::make_unique_for_overwrite<uint8_t[]>(n));
      std::memcpy(blocks_.back().get(), bytes.data(), n);
      return {blocks_.back().get(), n};
    }
    blocks_.push_back(std::make_unique_for_overwrite<uint8_t[]>(kBlockBytes));
    free_ = blocks_.back().get();
    left_ = kBlockBytes;
  }
  uint8_t* at = free_;
  std::memcpy(at, bytes.data(), n);
  free_ += n;
  left_ -= n;
  return {at, n};
}

}  // namespace duplex
