// Per-class event counters: the built-in events of a class (field reads and writes, static
// and special call sites) count into one AtomicLongArray of the class's own, by slot: no call
// into the runtime and no lookup, one atomic add (C2 inlines it to a `lock xadd`).
//
// Why: a sampled event that calls the runtime and looks its key up in a shared table missed the
// cache on the table and its entry nearly every time (a quarter of xalan's CPU time at interval
// 1000 went to that lookup). A slot of an array that belongs to the class, incremented in place,
// is a few instructions and usually in cache while the class's code runs.
//
// The rewritten class gets `private static synthetic AtomicLongArray duplex$counts` and an
// accessor `private static synthetic AtomicLongArray duplex$counts()` that creates it on first
// use with
// Duplex.counters(table) (the table names the slots: docs/design/runtime-contract.md). Both are
// private and static, so they change neither the class's serialVersionUID nor what subclasses
// see, and no <clinit> is added. Interfaces cannot hold such a field, and JDK classes must not
// count through JDK code: their events call the runtime as before.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "classfile/error.h"

namespace duplex {

inline constexpr const char* kCountsField = "duplex$counts";

class ClassCounters {
 public:
  // Usable for a class (not an interface) that has no member of that name yet.
  static ClassCounters for_class(const ClassFile& cf, std::string_view runtime_class);
  ClassCounters() = default;

  bool usable() const { return usable_; }
  bool empty() const { return lines_by_slot_.empty(); }

  // Appends `counts().getAndIncrement(slot)` for `key` of `kind` ('r' field read, 'w' field
  // write, 's' static
  // or special call site) to `out`. Fails when the class is not usable or its slots run out.
  Status emit_increment(ConstantPool& pool, char kind, std::string_view key,
                        std::vector<Insn>& out);

  // After every method is rewritten: adds the field and the accessor (when any slot is used).
  Status install(ClassFile& cf) const;

 private:
  // A slot's line in lines_: `kind key`, at [offset, offset + length).
  struct Line {
    uint32_t offset = 0;
    uint32_t length = 0;
  };

  int32_t slot(char kind, std::string_view key);
  bool line_is(const Line& line, char kind, std::string_view key) const;
  void grow_index();
  std::string table() const;

  bool usable_ = false;
  std::string class_name_;
  std::string runtime_class_;
  uint16_t major_version_ = 0;
  // The slots' lines in slot order, each ended by '\n': the table's body as the runtime reads
  // it. One string for all of a class's keys, so a new slot allocates nothing most of the time.
  std::string lines_;
  std::vector<Line> lines_by_slot_;
  // Open addressing over lines_by_slot_: slot + 1 by hash of (kind, key), 0 for empty. Its
  // size is a power of two, more than twice the slot count.
  std::vector<int32_t> index_;
};

}  // namespace duplex
