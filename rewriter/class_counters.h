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
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
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
  ClassCounters(ClassCounters&&) = default;  // a deque's elements stay where they are
  ClassCounters& operator=(ClassCounters&&) = default;
  ClassCounters(const ClassCounters&) = delete;  // slots_ views keys_
  ClassCounters& operator=(const ClassCounters&) = delete;

  bool usable() const { return usable_; }
  bool empty() const { return keys_.empty(); }

  // Appends `counts().getAndIncrement(slot)` for `key` of `kind` ('r' field read, 'w' field
  // write, 's' static
  // or special call site) to `out`. Fails when the class is not usable or its slots run out.
  Status emit_increment(ConstantPool& pool, char kind, std::string_view key,
                        std::vector<Insn>& out);

  // After every method is rewritten: adds the field and the accessor (when any slot is used).
  Status install(ClassFile& cf) const;

 private:
  int32_t slot(char kind, std::string_view key);
  std::string table() const;

  bool usable_ = false;
  std::string class_name_;
  std::string runtime_class_;
  uint16_t major_version_ = 0;
  // kind + ' ' + key -> slot, the views into keys_ (a deque: its strings never move).
  std::unordered_map<std::string_view, int32_t> slots_;
  std::deque<std::string> keys_;  // by slot
  std::string lookup_;            // slot's key being looked up (kept: no allocation per look)
};

}  // namespace duplex
