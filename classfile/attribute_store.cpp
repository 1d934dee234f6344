#include "classfile/attribute_store.h"

#include <algorithm>
#include <cstring>

namespace duplex {

std::span<const uint8_t> AttributeStore::add(std::span<const uint8_t> bytes) {
  const size_t n = bytes.size();
  if (n == 0) return {};
  if (n > left_) {
    if (n >= kMaxBlockBytes / 2) {
      // A block of its own; the current block keeps its free end for the next small one.
      blocks_.push_back(std::make_unique_for_overwrite<uint8_t[]>(n));
      std::memcpy(blocks_.back().get(), bytes.data(), n);
      return {blocks_.back().get(), n};
    }
    const size_t size = std::max(next_block_, n);
    next_block_ = std::min(next_block_ * 2, kMaxBlockBytes);
    blocks_.push_back(std::make_unique_for_overwrite<uint8_t[]>(size));
    free_ = blocks_.back().get();
    left_ = size;
  }
  uint8_t* at = free_;
  std::memcpy(at, bytes.data(), n);
  free_ += n;
  left_ -= n;
  return {at, n};
}

}  // namespace duplex
