// Per-class event counters: the built-in events of a class (field reads and writes, static
// and special call sites) count into one AtomicLongArray of the class's own, by slot: no call
// into the runtime and no lookup, one atomic add (C2 inlines it to a `lock xadd`). Virtual and
// interface call sites get a slot too, which names the site to the runtime
// (`Duplex.callSiteVirtual(receiver, counts, slot)`) in place of a key string per site.
//
// Why: a sampled event that calls the runtime and looks its key up in a shared table missed the
// cache on the table and its entry nearly every time (a quarter of xalan's CPU time at interval
// 1000 went to that lookup). A slot of an array that belongs to the class, incremented in place,
// is a few instructions and usually in cache while the class's code runs.
//
// The rewritten class gets `private static synthetic AtomicLongArray duplex$counts`, an
// accessor `private static synthetic AtomicLongArray duplex$counts()` that creates it on first
// use (through `duplex$countsInit()`, kept apart so that what C2 inlines at every event stays
// small) with Duplex.counters(table) (the table names the slots: docs/design/runtime-contract.md,
// "Per-class counters"; a call site's key is written without the class and, under an `m` line,
// without the method, which were most of its bytes). All are
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
// The accessor's first-use path, which holds the table (most of the strings the rewriter adds).
inline constexpr const char* kCountsInit = "duplex$countsInit";

class ClassCounters {
 public:
  // Usable for a class (not an interface) that has no member of that name yet.
  static ClassCounters for_class(const ClassFile& cf, std::string_view runtime_class);
  ClassCounters() = default;

  bool usable() const { return usable_; }
  bool empty() const { return lines_by_slot_.empty(); }

  // Appends `counts().getAndIncrement(slot)` for `key` of `kind` ('r' field read, 'w' field
  // write, 's' static or special call site) to `out`. Fails when the class is not usable or
  // its slots run out.
  Status emit_increment(ConstantPool& pool, char kind, std::string_view key,
                        std::vector<Insn>& out);

  // Appends `Duplex.callSiteVirtual(<receiver on the stack>, counts(), slot)` for the virtual or
  // interface call site `key`. Fails as emit_increment does.
  Status emit_virtual_site(ConstantPool& pool, std::string_view key, std::vector<Insn>& out);

  // After every method is rewritten: adds the field and the accessor (when any slot is used).
  Status install(ClassFile& cf) const;

 private:
  // A slot's line in lines_ at [offset, offset + length): `kind key`, or for a call site of
  // this class `kind rest` where the key is `class TAB context TAB rest` and the context
  // (`method TAB descriptor`) is the text at [context, context + context_length) of the `m`
  // line before it.
  struct Line {
    uint32_t offset = 0;
    uint32_t length = 0;
    uint32_t context = 0;
    uint32_t context_length = 0;
    size_t hash = 0;  // of (kind, key), kept for growing the index
    char kind = 0;
    bool compact = false;
  };
  // A call site's key of this class split into its context and the rest (ok false otherwise).
  struct SiteKey {
    std::string_view context;
    std::string_view rest;
    bool ok = false;
  };

  SiteKey split_site_key(char kind, std::string_view key) const;
  int32_t slot(char kind, std::string_view key);
  void append_line(char kind, std::string_view key, const SiteKey& split, size_t hash);
  bool line_is(const Line& line, char kind, std::string_view key, const SiteKey& split) const;
  // `virtual_site` false: counts().getAndIncrement(slot); true: Duplex.callSiteVirtual.
  Status emit_slot_call(ConstantPool& pool, char kind, std::string_view key, bool virtual_site,
                        std::vector<Insn>& out);
  // The pool index of a method every event of the class calls, added to `pool` on first use.
  Result<uint16_t> event_method(ConstantPool& pool, uint16_t& cached, std::string_view owner,
                                std::string_view name, std::string_view desc);
  void grow_index();
  std::string table() const;

  bool usable_ = false;
  std::string class_name_;
  std::string class_key_;  // the name as keys write it (rewriter/key_text.h)
  std::string runtime_class_;
  uint16_t major_version_ = 0;
  // The slots' lines in slot order, each ended by '\n': the table's body as the runtime reads
  // it. One string for all of a class's keys, so a new slot allocates nothing most of the time.
  std::string lines_;
  std::vector<Line> lines_by_slot_;
  // The context text of the latest `m` line in lines_, at [offset, offset + length).
  uint32_t context_offset_ = 0;
  uint32_t context_length_ = 0;
  bool has_context_ = false;
  // Open addressing over lines_by_slot_: slot + 1 by hash of (kind, key), 0 for empty. Its
  // size is a power of two, more than twice the slot count.
  std::vector<int32_t> index_;
  // The methods every event calls, by pool index (0: not added yet). Kept for the pool they
  // were added to: entries never leave a pool, and a pool's id is never reused. Looking them
  // up again for each of a class's events was a tenth of the rewriter's pool work.
  uint64_t refs_pool_ = 0;
  uint16_t accessor_ref_ = 0;
  uint16_t increment_ref_ = 0;
  uint16_t virtual_site_ref_ = 0;
};

}  // namespace duplex
