#include "classfile/pool_use.h"

#include <algorithm>

#include "classfile/attributes.h"
#include "classfile/bytes.h"
#include "classfile/code_walk.h"

namespace duplex {
namespace {

class PoolUse {
 public:
  // first_added: entries below it count as used whatever names them (0: none do).
  PoolUse(const ClassFile& cf, std::span<const std::string_view> index_free, uint32_t first_added)
      : cf_(cf),
        index_free_(index_free),
        first_added_(first_added),
        used_(cf.pool.count(), false) {}

  std::optional<std::vector<bool>> of_class() && {
    if (first_added_ == 0 && (!cf_.fields.empty() || !cf_.interfaces.empty())) return std::nullopt;
    mark(cf_.this_class);
    mark(cf_.super_class);
    for (uint16_t i : cf_.interfaces) mark(i);
    for (const Member& f : cf_.fields) {
      mark(f.name_index);
      mark(f.descriptor_index);
      for (const Attribute& a : f.attributes) {
        mark(a.name_index);
        if (cf_.attribute_name(a) == "ConstantValue") {
          ByteReader in(a.data);
          mark(in.u2());
          if (in.failed()) return std::nullopt;
        } else if (!unread_allowed(a)) {
          return std::nullopt;
        }
      }
    }
    for (const Member& m : cf_.methods) {
      mark(m.name_index);
      mark(m.descriptor_index);
      for (const Attribute& a : m.attributes) {
        mark(a.name_index);
        bool ok = cf_.attribute_name(a) == "Code" ? code(a) : unread_allowed(a);
        if (!ok) return std::nullopt;
      }
    }
    for (const Attribute& a : cf_.attributes) {
      mark(a.name_index);
      if (!class_attribute(a)) return std::nullopt;
    }
    for (uint32_t i = 1; i < first_added_ && i < used_.size(); ++i) used_[i] = true;
    cf_.pool.mark_references(used_);
    return std::move(used_);
  }

 private:
  void mark(uint32_t index) {
    if (index < used_.size()) used_[index] = true;
  }

  // An attribute this does not read may stay unread when it names nothing added: it holds no
  // pool index at all (index_free), or it came with the class as parsed (its name is one of
  // the entries below first_added, and so is everything it names, since the parsed class
  // could name nothing else). One named by an added entry was made since, by a writer this
  // cannot follow.
  bool unread_allowed(const Attribute& a) const {
    if (a.name_index < first_added_) return true;
    std::string_view name = cf_.attribute_name(a);
    return std::find(index_free_.begin(), index_free_.end(), name) != index_free_.end();
  }

  bool code(const Attribute& attr) {
    auto code = decode_code(attr);
    if (!code) return false;
    for (const ExceptionTableEntry& e : code->exception_table) mark(e.catch_type);
    bool ok = for_each_instruction(code->code,
                                   [&](uint8_t, auto insn) { mark(instruction_pool_index(insn)); });
    if (!ok) return false;
    for (const Attribute& a : code->attributes) {
      mark(a.name_index);
      std::string_view name = cf_.attribute_name(a);
      ByteReader in(a.data);
      if (name == "StackMapTable") {
        if (!stack_map_table(in)) return false;
      } else if (name == "LocalVariableTable" || name == "LocalVariableTypeTable") {
        for (uint16_t n = in.u2(); n > 0 && !in.failed(); --n) {
          in.skip(4);  // start_pc, length
          mark(in.u2());
          mark(in.u2());
          in.skip(2);  // index
        }
      } else if (name != "LineNumberTable" && !unread_allowed(a)) {
        return false;
      }
      if (in.failed()) return false;
    }
    return true;
  }

  // Only ITEM_Object (tag 7) names a pool entry.
  bool stack_map_table(ByteReader& in) {
    auto types = [&](uint32_t n) {
      for (; n > 0 && !in.failed(); --n) {
        uint8_t tag = in.u1();
        if (tag == 7) mark(in.u2());
        if (tag == 8) in.skip(2);
      }
    };
    for (uint16_t n = in.u2(); n > 0 && !in.failed(); --n) {
      uint8_t type = in.u1();
      if (type < 64) continue;
      if (type < 128) {
        types(1);
      } else if (type < 247) {
        return false;  // reserved
      } else if (type == 247) {
        in.skip(2);
        types(1);
      } else if (type < 252) {
        in.skip(2);
      } else if (type < 255) {
        in.skip(2);
        types(type - 251u);
      } else {
        in.skip(2);
        types(in.u2());
        types(in.u2());
      }
    }
    return !in.failed();
  }

  bool class_attribute(const Attribute& a) {
    std::string_view name = cf_.attribute_name(a);
    ByteReader in(a.data);
    if (name == "SourceFile" || name == "NestHost") {
      mark(in.u2());
    } else if (name == "NestMembers") {
      for (uint16_t n = in.u2(); n > 0 && !in.failed(); --n) mark(in.u2());
    } else if (name == "BootstrapMethods") {
      for (uint16_t n = in.u2(); n > 0 && !in.failed(); --n) {
        mark(in.u2());
        for (uint16_t args = in.u2(); args > 0 && !in.failed(); --args) mark(in.u2());
      }
    } else if (!unread_allowed(a)) {
      return false;
    }
    return !in.failed();
  }

  const ClassFile& cf_;
  std::span<const std::string_view> index_free_;
  uint32_t first_added_;
  std::vector<bool> used_;
};

}  // namespace

std::optional<std::vector<bool>> pool_entries_used(const ClassFile& cf,
                                                   std::span<const std::string_view> index_free) {
  return PoolUse(cf, index_free, 0).of_class();
}

std::optional<std::vector<bool>> pool_entries_used_since(
    const ClassFile& cf, uint32_t first_added, std::span<const std::string_view> index_free) {
  return PoolUse(cf, index_free, std::max<uint32_t>(first_added, 1)).of_class();
}

}  // namespace duplex
