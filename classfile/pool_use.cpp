#include "classfile/pool_use.h"

#include <algorithm>

#include "classfile/attributes.h"
#include "classfile/bytes.h"
#include "classfile/code_walk.h"

namespace duplex {
namespace {

class PoolUse {
 public:
  PoolUse(const ClassFile& cf, std::span<const std::string_view> index_free)
      : cf_(cf), index_free_(index_free), used_(cf.pool.count(), false) {}

  std::optional<std::vector<bool>> of_class() && {
    if (!cf_.fields.empty() || !cf_.interfaces.empty()) return std::nullopt;
    mark(cf_.this_class);
    mark(cf_.super_class);
    for (const Member& m : cf_.methods) {
      mark(m.name_index);
      mark(m.descriptor_index);
      for (const Attribute& a : m.attributes) {
        mark(a.name_index);
        if (cf_.attribute_name(a) != "Code" || !code(a)) return std::nullopt;
      }
    }
    for (const Attribute& a : cf_.attributes) {
      mark(a.name_index);
      if (!class_attribute(a)) return std::nullopt;
    }
    cf_.pool.mark_references(used_);
    return std::move(used_);
  }

 private:
  void mark(uint32_t index) {
    if (index < used_.size()) used_[index] = true;
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
      } else if (name != "LineNumberTable") {
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
    } else if (std::find(index_free_.begin(), index_free_.end(), name) == index_free_.end()) {
      return false;
    }
    return !in.failed();
  }

  const ClassFile& cf_;
  std::span<const std::string_view> index_free_;
  std::vector<bool> used_;
};

}  // namespace

std::optional<std::vector<bool>> pool_entries_used(const ClassFile& cf,
                                                   std::span<const std::string_view> index_free) {
  return PoolUse(cf, index_free).of_class();
}

}  // namespace duplex
