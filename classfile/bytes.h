// Bounds-checked big-endian reading and growable writing of class-file bytes.
// Every read past the end sets a sticky failure instead of touching memory, so parsers can
// read a whole structure and check once.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace duplex {

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> data, size_t base_offset = 0)
      : data_(data), base_(base_offset) {}

  uint8_t u1() {
    if (!need(1)) return 0;
    return data_[pos_++];
  }
  uint16_t u2() {
    if (!need(2)) return 0;
    uint16_t v = static_cast<uint16_t>(data_[pos_] << 8 | data_[pos_ + 1]);
    pos_ += 2;
    return v;
  }
  uint32_t u4() {
    if (!need(4)) return 0;
    uint32_t v = static_cast<uint32_t>(data_[pos_]) << 24 |
                 static_cast<uint32_t>(data_[pos_ + 1]) << 16 |
                 static_cast<uint32_t>(data_[pos_ + 2]) << 8 | data_[pos_ + 3];
    pos_ += 4;
    return v;
  }
  int16_t s2() { return static_cast<int16_t>(u2()); }
  int32_t s4() { return static_cast<int32_t>(u4()); }
  // A view of the next n bytes (empty and failed if there are fewer).
  std::span<const uint8_t> bytes(size_t n) {
    if (!need(n)) return {};
    auto s = data_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  void skip(size_t n) { (void)bytes(n); }
  // The bytes not read yet (empty once a read has failed).
  std::span<const uint8_t> rest() const {
    return failed_ ? std::span<const uint8_t>() : data_.subspan(pos_);
  }

  bool failed() const { return failed_; }
  // Offset of the first failed read (or the current position), counted from base_offset.
  size_t failure_offset() const { return base_ + (failed_ ? fail_pos_ : pos_); }
  size_t pos() const { return pos_; }
  size_t absolute_pos() const { return base_ + pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }
  void seek(size_t pos) {
    if (pos > data_.size()) {
      fail();
      return;
    }
    pos_ = pos;
  }

 private:
  bool need(size_t n) {
    if (failed_) return false;
    if (data_.size() - pos_ < n) {
      fail();
      return false;
    }
    return true;
  }
  void fail() {
    if (!failed_) fail_pos_ = pos_;
    failed_ = true;
  }

  std::span<const uint8_t> data_;
  size_t base_;
  size_t pos_ = 0;
  size_t fail_pos_ = 0;
  bool failed_ = false;
};

// The buffer is grown ahead of the bytes written (`size_` marks the end of the data), so
// each write is a bounds check and a store rather than a vector push_back per byte: writing
// is on the path of every assembled method and every written class.
class ByteWriter {
 public:
  ByteWriter() = default;
  // Writes into `buffer`'s storage: its bytes are dropped, its capacity is kept (a spare).
  explicit ByteWriter(std::vector<uint8_t>&& buffer) : out_(std::move(buffer)) { out_.clear(); }

  void u1(uint32_t v) { *grow(1) = static_cast<uint8_t>(v); }
  void u2(uint32_t v) {
    uint8_t* p = grow(2);
    p[0] = static_cast<uint8_t>(v >> 8);
    p[1] = static_cast<uint8_t>(v);
  }
  void u4(uint32_t v) {
    uint8_t* p = grow(4);
    p[0] = static_cast<uint8_t>(v >> 24);
    p[1] = static_cast<uint8_t>(v >> 16);
    p[2] = static_cast<uint8_t>(v >> 8);
    p[3] = static_cast<uint8_t>(v);
  }
  void bytes(std::span<const uint8_t> b) {
    if (!b.empty()) std::memcpy(grow(b.size()), b.data(), b.size());
  }
  void bytes(std::string_view s) {
    if (!s.empty()) std::memcpy(grow(s.size()), s.data(), s.size());
  }
  // Overwrites a u2/u4 written earlier (for lengths known only afterwards).
  void patch_u2(size_t at, uint32_t v) {
    out_[at] = static_cast<uint8_t>(v >> 8);
    out_[at + 1] = static_cast<uint8_t>(v);
  }
  void patch_u4(size_t at, uint32_t v) {
    patch_u2(at, v >> 16);
    patch_u2(at + 2, v & 0xFFFF);
  }
  // Appends n bytes (zero) for the caller to fill through the pointer, which stays valid
  // until the next write.
  uint8_t* append(size_t n) { return grow(n); }
  size_t size() const { return size_; }
  std::span<const uint8_t> view() const { return {out_.data(), size_}; }
  // Forgets the bytes but keeps the buffer, for a writer reused from call to call.
  void clear() { size_ = 0; }
  void reserve(size_t n) {
    if (n > out_.size()) out_.resize(n);
  }
  std::vector<uint8_t>& buffer() {
    out_.resize(size_);
    return out_;
  }
  std::vector<uint8_t> take() {
    out_.resize(size_);
    size_ = 0;
    std::vector<uint8_t> r = std::move(out_);
    out_.clear();
    return r;
  }

 private:
  // Forced inline: it is the body of every write; only the rare expand() is a call.
  [[gnu::always_inline]] uint8_t* grow(size_t n) {
    if (out_.size() - size_ < n) expand(n);
    uint8_t* p = out_.data() + size_;
    size_ += n;
    return p;
  }
  [[gnu::noinline]] void expand(size_t n) {
    size_t want = out_.size() * 2;
    if (want < size_ + n) want = size_ + n;
    out_.resize(want < 64 ? 64 : want);
  }

  std::vector<uint8_t> out_;  // out_.size() is the capacity in use; the data ends at size_
  size_t size_ = 0;
};

}  // namespace duplex
