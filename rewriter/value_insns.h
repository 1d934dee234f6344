// Instructions that move one local's value by its kind: the loads, stores, zero constants and
// returns that the outlined layout's calls, prologues and hand-backs are made of.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "classfile/code_ir.h"

namespace duplex {

// What a verification type is passed as: kInteger, kFloat, kLong, kDouble or kObject.
VTag kind_of(const VType& t);
// Local slots a value of `kind` takes (2 for long and double).
uint16_t slots_of(VTag kind);
// xload / xstore of `slot` for a value of `kind`, in the short form where there is one.
Insn local_insn(bool store, VTag kind, uint16_t slot);
// iconst_0, lconst_0, fconst_0, dconst_0 or aconst_null.
Insn zero_of(VTag kind);
// The shortest push of an int constant that fits in 16 bits.
Insn push_int(int32_t v);
// The return instruction of a method descriptor's return type.
Insn return_for(std::string_view method_descriptor);
// The kind of a method descriptor's return type; nullopt for void.
std::optional<VTag> return_kind(std::string_view method_descriptor);
// Local slots a frame's locals (list form) span: long and double count two.
uint32_t frame_slots(std::span<const VType> locals);
// (slot, type) of every local of a frame in list form, Top slots left out: a view over the
// frame (which must outlive it), since the rewriter walks every entry frame several times
// and a vector per walk was a large share of its allocations.
class LocalsBySlot {
 public:
  class iterator {
   public:
    iterator(const VType* at, const VType* end, uint16_t slot) : at_(at), end_(end), slot_(slot) {
      skip_top();
    }
    std::pair<uint16_t, VType> operator*() const { return {slot_, *at_}; }
    iterator& operator++() {
      advance();
      skip_top();
      return *this;
    }
    bool operator==(const iterator& o) const { return at_ == o.at_; }

   private:
    void advance() {
      slot_ = static_cast<uint16_t>(slot_ + (at_->is_wide() ? 2 : 1));
      ++at_;
    }
    void skip_top() {
      while (at_ != end_ && at_->tag == VTag::kTop) advance();
    }
    const VType* at_;
    const VType* end_;
    uint16_t slot_;
  };
  explicit LocalsBySlot(std::span<const VType> locals) : locals_(locals) {}
  iterator begin() const { return {locals_.data(), locals_.data() + locals_.size(), 0}; }
  iterator end() const {
    const VType* e = locals_.data() + locals_.size();
    return {e, e, 0};
  }

 private:
  std::span<const VType> locals_;
};
inline LocalsBySlot locals_by_slot(const Frame& f) {
  return LocalsBySlot(f.locals);
}

}  // namespace duplex
