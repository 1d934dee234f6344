// Bytes of the attributes a class is given after parsing (a rewritten method's Code attribute,
// above all), packed into blocks that the class and those attributes share. A new Code
// attribute then costs a copy into the current block instead of two allocations (its buffer
// and the buffer's owner) and two frees, and all of it is freed with the last holder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace duplex {

class AttributeStore {
 public:
  // Copies `bytes` into the store. The result stays valid while the store lives: blocks never
  // move, so what was added earlier stays where it is as more is added.
  std::span<const uint8_t> add(std::span<const uint8_t> bytes);

 private:
  // Blocks double from 1 KiB to 16 KiB, so that a class given one small body holds a small
  // block (a tool may keep thousands of edited classes), while a class rewritten with
  // Full-Duplication (about four times its input, 20 KiB for an average class of h2) takes a
  // few. Bytes of half the largest block or more get a block of their own, so that one large
  // method does not strand the rest of the current block.
  static constexpr size_t kFirstBlockBytes = 1024;
  static constexpr size_t kMaxBlockBytes = 16 * 1024;

  std::vector<std::unique_ptr<uint8_t[]>> blocks_;
  uint8_t* free_ = nullptr;  // the unused end of the current block
  size_t left_ = 0;
  size_t next_block_ = kFirstBlockBytes;
};

// A class's store, created at its first use. A copy of the class does not share it (the copy
// may be edited on another thread and appending is not synchronised); the attributes copied
// with the class keep the bytes they point to alive through their own `owned`.
class AttributeStoreHandle {
 public:
  AttributeStoreHandle() = default;
  AttributeStoreHandle(const AttributeStoreHandle&) noexcept {}
  AttributeStoreHandle& operator=(const AttributeStoreHandle&) noexcept {
    store_.reset();
    return *this;
  }
  AttributeStoreHandle(AttributeStoreHandle&&) noexcept = default;
  AttributeStoreHandle& operator=(AttributeStoreHandle&&) noexcept = default;

  const std::shared_ptr<AttributeStore>& get() {
    if (!store_) store_ = std::make_shared<AttributeStore>();
    return store_;
  }

 private:
  std::shared_ptr<AttributeStore> store_;
};

}  // namespace duplex
