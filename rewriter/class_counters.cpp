#include "rewriter/class_counters.h"

#include <functional>

#include "classfile/assembler.h"
#include "classfile/opcodes.h"
#include "classfile/text_hash.h"
#include "rewriter/jdk_packages.h"
#include "rewriter/key_text.h"
#include "rewriter/runtime_api.h"
#include "rewriter/value_insns.h"

namespace duplex {
namespace {

constexpr uint8_t kAreturn = 0xb0;  // not among classfile/opcodes.h's names
constexpr const char* kCountsClass = "java/util/concurrent/atomic/AtomicLongArray";
constexpr const char* kCountsDesc = "Ljava/util/concurrent/atomic/AtomicLongArray;";
constexpr const char* kAccessorDesc = "()Ljava/util/concurrent/atomic/AtomicLongArray;";
constexpr uint16_t kMemberAccess = access::kPrivate | access::kStatic | access::kSynthetic;
// Slots past this many fall back to the runtime call (sipush reaches 32767; a class with more
// built-in events than that is rare enough).
constexpr int32_t kMaxSlots = 32767;
// An ldc string holds at most 65535 bytes of modified UTF-8; longer tables are concatenated.
constexpr size_t kPartBytes = 60000;

bool has_member(const ClassFile& cf, const std::vector<Member>& members, std::string_view name) {
  for (const Member& m : members) {
    if (cf.member_name(m) == name) return true;
  }
  return false;
}

// Splits `text` at line ends into pieces of at most kPartBytes (keys have no line breaks, and
// the table's text is ASCII except in keys, whose bytes are kept together per line).
std::vector<std::string> parts_of(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = start + kPartBytes;
    if (end >= text.size()) {
      parts.push_back(text.substr(start));
      break;
    }
    size_t nl = text.rfind('\n', end);
    end = nl != std::string::npos && nl >= start ? nl + 1 : end;
    parts.push_back(text.substr(start, end - start));
    start = end;
  }
  return parts;
}

}  // namespace

ClassCounters ClassCounters::for_class(const ClassFile& cf, std::string_view runtime_class) {
  ClassCounters c;
  c.class_name_ = cf.name();
  c.class_key_ = key_text(c.class_name_);
  c.runtime_class_ = std::string(runtime_class);
  c.major_version_ = cf.major_version;
  // The counters are AtomicLongArrays, which run on java.lang, java.lang.invoke and
  // jdk.internal code: a rewritten JDK class among those would count inside its own counting.
  // JDK classes therefore keep the runtime calls (which take care never to recurse).
  c.usable_ = (cf.access_flags & access::kInterface) == 0 && !in_jdk_package(c.class_name_) &&
              !has_member(cf, cf.fields, kCountsField);
  c.usable_ = c.usable_ && !has_member(cf, cf.methods, kCountsField) &&
              !has_member(cf, cf.methods, kCountsInit);
  return c;
}

namespace {

size_t hash_of(char kind, std::string_view key) {
  return static_cast<size_t>(text_hash(key)) * 31 + static_cast<unsigned char>(kind);
}

bool is_call_site(char kind) {
  return kind == 's' || kind == 'v';
}

}  // namespace

ClassCounters::SiteKey ClassCounters::split_site_key(char kind, std::string_view key) const {
  // `class TAB method TAB descriptor TAB rest`: the context is `method TAB descriptor`.
  const std::string_view cls = class_key_;
  if (!is_call_site(kind) || key.size() <= cls.size() || key.substr(0, cls.size()) != cls ||
      key[cls.size()] != '\t') {
    return {};
  }
  std::string_view tail = key.substr(cls.size() + 1);
  size_t name_end = tail.find('\t');
  size_t desc_end = name_end == std::string_view::npos ? name_end : tail.find('\t', name_end + 1);
  if (desc_end == std::string_view::npos) return {};
  return {tail.substr(0, desc_end), tail.substr(desc_end + 1), true};
}

bool ClassCounters::line_is(const Line& line, char kind, std::string_view key,
                            const SiteKey& split) const {
  if (line.kind != kind) return false;
  std::string_view body(lines_.data() + line.offset + 2, line.length - 2);
  if (!line.compact) return body == key;
  std::string_view context(lines_.data() + line.context, line.context_length);
  return split.ok && body == split.rest && context == split.context;
}

void ClassCounters::grow_index() {
  index_.assign(index_.empty() ? 64 : index_.size() * 2, 0);
  const size_t mask = index_.size() - 1;
  for (size_t s = 0; s < lines_by_slot_.size(); ++s) {
    size_t at = lines_by_slot_[s].hash & mask;
    while (index_[at] != 0) at = (at + 1) & mask;
    index_[at] = static_cast<int32_t>(s) + 1;
  }
}

// Appends the slot's line, after an `m` line when its context differs from the latest one.
// A call site of another class (not made by this rewriter) keeps its whole key, under the
// kind in capitals.
void ClassCounters::append_line(char kind, std::string_view key, const SiteKey& split,
                                size_t hash) {
  Line line;
  line.kind = kind;
  line.hash = hash;
  line.compact = split.ok;
  if (split.ok) {
    std::string_view latest(lines_.data() + context_offset_, context_length_);
    if (!has_context_ || latest != split.context) {
      lines_.append("m ");
      context_offset_ = static_cast<uint32_t>(lines_.size());
      context_length_ = static_cast<uint32_t>(split.context.size());
      has_context_ = true;
      lines_.append(split.context).push_back('\n');
    }
    line.context = context_offset_;
    line.context_length = context_length_;
    key = split.rest;
  }
  line.offset = static_cast<uint32_t>(lines_.size());
  line.length = static_cast<uint32_t>(key.size() + 2);
  char written = is_call_site(kind) && !split.ok ? static_cast<char>(kind - 'a' + 'A') : kind;
  lines_.append(1, written).append(1, ' ').append(key).push_back('\n');
  lines_by_slot_.push_back(line);
}

int32_t ClassCounters::slot(char kind, std::string_view key) {
  if (lines_by_slot_.size() * 2 >= index_.size()) grow_index();
  const size_t mask = index_.size() - 1;
  const size_t hash = hash_of(kind, key);
  const SiteKey split = split_site_key(kind, key);
  size_t at = hash & mask;
  for (; index_[at] != 0; at = (at + 1) & mask) {
    int32_t s = index_[at] - 1;
    if (line_is(lines_by_slot_[static_cast<size_t>(s)], kind, key, split)) return s;
  }
  const auto added = static_cast<int32_t>(lines_by_slot_.size());
  // A key with a line break (names may hold one) cannot be a line: such an event calls the
  // runtime with its key instead.
  if (added >= kMaxSlots || key.find('\n') != std::string_view::npos) return -1;
  append_line(kind, key, split, hash);
  index_[at] = added + 1;
  return added;
}

// `counts(); push slot;` and then what counts it. The sequence stays in the method rather than in
// a per-class helper (`push slot; invokestatic helper`, 3-4 bytes less per event): the helper
// made C2 build more nodes per event, so large methods reached NodeCountInliningCutoff and
// stopped inlining more often (h2, PrintInlining: 1,073 cut-offs against 441), and h2's Full
// @1000 ran 1.2-1.35x slower per iteration in steady state (docs/classfile-bench.md).
Result<uint16_t> ClassCounters::event_method(ConstantPool& pool, uint16_t& cached,
                                             std::string_view owner, std::string_view name,
                                             std::string_view desc) {
  if (refs_pool_ != pool.id()) {
    refs_pool_ = pool.id();
    accessor_ref_ = increment_ref_ = virtual_site_ref_ = 0;
  }
  if (cached != 0) return cached;
  auto ref = pool.add_methodref(owner, name, desc);
  if (ref) cached = *ref;
  return ref;
}

Status ClassCounters::emit_slot_call(ConstantPool& pool, char kind, std::string_view key,
                                     bool virtual_site, std::vector<Insn>& out) {
  if (!usable_) return Error::plain("the class has no counters of its own");
  int32_t s = slot(kind, key);
  if (s < 0)
    return Error::plain("no slot: the class's counters are full, or the key holds a line break");
  auto accessor = event_method(pool, accessor_ref_, class_name_, kCountsField, kAccessorDesc);
  if (!accessor) return accessor.error();
  auto target = virtual_site
                    ? event_method(pool, virtual_site_ref_, runtime_class_,
                                   runtime_api::kCallSiteVirtual, runtime_api::kReceiverCountsDesc)
                    : event_method(pool, increment_ref_, kCountsClass, "getAndIncrement", "(I)J");
  if (!target) return target.error();
  out.push_back(Insn::make(op::kInvokestatic, *accessor));
  out.push_back(push_int(s));
  if (virtual_site) {
    out.push_back(Insn::make(op::kInvokestatic, *target));
  } else {
    out.push_back(Insn::make(op::kInvokevirtual, *target));
    out.push_back(Insn::make(op::kPop2));
  }
  return Ok{};
}

Status ClassCounters::emit_increment(ConstantPool& pool, char kind, std::string_view key,
                                     std::vector<Insn>& out) {
  return emit_slot_call(pool, kind, key, /*virtual_site=*/false, out);
}

Status ClassCounters::emit_virtual_site(ConstantPool& pool, std::string_view key,
                                        std::vector<Insn>& out) {
  return emit_slot_call(pool, 'v', key, /*virtual_site=*/true, out);
}

std::string ClassCounters::table() const {
  return "duplex-counters 2\nclass " + class_key_ + "\n" + lines_;
}

namespace {

// Adds `private static synthetic NAME DESC` with the code of `ir` to the class.
Status add_method(ClassFile& cf, const char* name, const char* desc, CodeIR& ir,
                  const std::string& class_name) {
  ir.had_stack_map_table = cf.has_stack_map_frames();
  MethodContext ctx{class_name, name, desc, kMemberAccess, cf.major_version};
  auto assembled = assemble_code(ir, cf.pool, ctx);
  if (!assembled) return assembled.error();
  return cf.append_method(kMemberAccess, name, desc, assembled->code_attribute);
}

}  // namespace

Status ClassCounters::install(ClassFile& cf) const {
  if (!usable_ || lines_by_slot_.empty()) return Ok{};
  ConstantPool& pool = cf.pool;
  auto field = pool.add_fieldref(class_name_, kCountsField, kCountsDesc);
  auto create =
      pool.add_methodref(runtime_class_, runtime_api::kCounters, runtime_api::kCountersDesc);
  auto concat =
      pool.add_methodref("java/lang/String", "concat", "(Ljava/lang/String;)Ljava/lang/String;");
  auto array_class = pool.add_class(kCountsClass);
  for (const auto* r : {&field, &create, &concat, &array_class}) {
    if (!*r) return r->error();
  }
  auto init = pool.add_methodref(class_name_, kCountsInit, kAccessorDesc);
  if (!init) return init.error();
  // The accessor: getstatic f; dup; ifnonnull done; pop; invokestatic init; done: areturn.
  // C2 inlines it at every event, with its first-call path (taken once, so not a trap): that
  // path is one call of a method run once, which C2 leaves as a call, instead of the table's
  // strings and the registration, which took nodes at every event and made large methods
  // reach NodeCountInliningCutoff sooner.
  CodeIR ir;
  LabelId done = ir.new_label();
  ir.labels[done].frame = Frame{{}, {VType{VTag::kObject, *array_class}}};
  ir.insns.push_back(Insn::make(op::kGetstatic, *field));
  ir.insns.push_back(Insn::make(op::kDup));
  ir.insns.push_back(Insn::make_branch(op::kIfnonnull, done));
  ir.insns.push_back(Insn::make(op::kPop));
  ir.insns.push_back(Insn::make(op::kInvokestatic, *init));
  ir.insns.push_back(Insn::make_label(done));
  ir.insns.push_back(Insn::make(kAreturn));
  ir.max_locals = 0;
  ir.max_stack = 2;
  if (auto s = add_method(cf, kCountsField, kAccessorDesc, ir, class_name_); !s) return s;

  // The first call: <table>; counters(table); dup; putstatic f; areturn. Racing first calls
  // may each register an array; all of them are counted.
  CodeIR first;
  std::vector<std::string> parts = parts_of(table());
  for (size_t i = 0; i < parts.size(); ++i) {
    auto str = pool.add_string(parts[i]);
    if (!str) return str.error();
    first.insns.push_back(Insn::make(op::kLdc, *str));
    if (i > 0) first.insns.push_back(Insn::make(op::kInvokevirtual, *concat));
  }
  first.insns.push_back(Insn::make(op::kInvokestatic, *create));
  first.insns.push_back(Insn::make(op::kDup));
  first.insns.push_back(Insn::make(op::kPutstatic, *field));
  first.insns.push_back(Insn::make(kAreturn));
  first.max_locals = 0;
  first.max_stack = 2;
  if (auto s = add_method(cf, kCountsInit, kAccessorDesc, first, class_name_); !s) return s;

  return cf.append_field(kMemberAccess, kCountsField, kCountsDesc);
}

}  // namespace duplex
