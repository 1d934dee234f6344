#include "rewriter/class_counters.h"

#include <functional>

#include "classfile/assembler.h"
#include "classfile/opcodes.h"
#include "rewriter/jdk_packages.h"
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
  c.runtime_class_ = std::string(runtime_class);
  c.major_version_ = cf.major_version;
  // The counters are AtomicLongArrays, which run on java.lang, java.lang.invoke and
  // jdk.internal code: a rewritten JDK class among those would count inside its own counting.
  // JDK classes therefore keep the runtime calls (which take care never to recurse).
  c.usable_ = (cf.access_flags & access::kInterface) == 0 && !in_jdk_package(c.class_name_) &&
              !has_member(cf, cf.fields, kCountsField) && !has_member(cf, cf.methods, kCountsField);
  return c;
}

namespace {

size_t hash_of(char kind, std::string_view key) {
  return std::hash<std::string_view>{}(key)*31 + static_cast<unsigned char>(kind);
}

}  // namespace

bool ClassCounters::line_is(const Line& line, char kind, std::string_view key) const {
  std::string_view text(lines_.data() + line.offset, line.length);
  return text.size() == key.size() + 2 && text[0] == kind && text.substr(2) == key;
}

void ClassCounters::grow_index() {
  index_.assign(index_.empty() ? 64 : index_.size() * 2, 0);
  const size_t mask = index_.size() - 1;
  for (size_t s = 0; s < lines_by_slot_.size(); ++s) {
    const Line& line = lines_by_slot_[s];
    std::string_view text(lines_.data() + line.offset, line.length);
    size_t at = hash_of(text[0], text.substr(2)) & mask;
    while (index_[at] != 0) at = (at + 1) & mask;
    index_[at] = static_cast<int32_t>(s) + 1;
  }
}

int32_t ClassCounters::slot(char kind, std::string_view key) {
  if (lines_by_slot_.size() * 2 >= index_.size()) grow_index();
  const size_t mask = index_.size() - 1;
  size_t at = hash_of(kind, key) & mask;
  for (; index_[at] != 0; at = (at + 1) & mask) {
    int32_t s = index_[at] - 1;
    if (line_is(lines_by_slot_[static_cast<size_t>(s)], kind, key)) return s;
  }
  const auto added = static_cast<int32_t>(lines_by_slot_.size());
  if (added >= kMaxSlots) return -1;
  Line line{static_cast<uint32_t>(lines_.size()), static_cast<uint32_t>(key.size() + 2)};
  lines_.append(1, kind).append(1, ' ').append(key).push_back('\n');
  lines_by_slot_.push_back(line);
  index_[at] = added + 1;
  return added;
}

Status ClassCounters::emit_increment(ConstantPool& pool, char kind, std::string_view key,
                                     std::vector<Insn>& out) {
  if (!usable_) return Error::plain("the class has no counters of its own");
  int32_t s = slot(kind, key);
  if (s < 0) return Error::plain("the class's counters are full");
  auto accessor = pool.add_methodref(class_name_, kCountsField, kAccessorDesc);
  if (!accessor) return accessor.error();
  auto increment = pool.add_methodref(kCountsClass, "getAndIncrement", "(I)J");
  if (!increment) return increment.error();
  for (Insn i : {Insn::make(op::kInvokestatic, *accessor), push_int(s),
                 Insn::make(op::kInvokevirtual, *increment), Insn::make(op::kPop2)}) {
    out.push_back(i);
  }
  return Ok{};
}

std::string ClassCounters::table() const {
  return "duplex-counters 1\nclass " + class_name_ + "\n" + lines_;
}

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
  // getstatic f; dup; ifnonnull done; pop; <table>; counters(table); dup; putstatic f;
  // done: areturn. Racing first calls may each register an array; all of them are counted.
  CodeIR ir;
  LabelId done = ir.new_label();
  ir.labels[done].frame = Frame{{}, {VType{VTag::kObject, *array_class}}};
  ir.insns.push_back(Insn::make(op::kGetstatic, *field));
  ir.insns.push_back(Insn::make(op::kDup));
  ir.insns.push_back(Insn::make_branch(op::kIfnonnull, done));
  ir.insns.push_back(Insn::make(op::kPop));
  std::vector<std::string> parts = parts_of(table());
  for (size_t i = 0; i < parts.size(); ++i) {
    auto str = pool.add_string(parts[i]);
    if (!str) return str.error();
    ir.insns.push_back(Insn::make(op::kLdc, *str));
    if (i > 0) ir.insns.push_back(Insn::make(op::kInvokevirtual, *concat));
  }
  ir.insns.push_back(Insn::make(op::kInvokestatic, *create));
  ir.insns.push_back(Insn::make(op::kDup));
  ir.insns.push_back(Insn::make(op::kPutstatic, *field));
  ir.insns.push_back(Insn::make_label(done));
  ir.insns.push_back(Insn::make(kAreturn));
  ir.max_locals = 0;
  ir.max_stack = 2;
  ir.had_stack_map_table = major_version_ >= 50;
  MethodContext ctx{class_name_, kCountsField, kAccessorDesc, kMemberAccess, major_version_};
  auto assembled = assemble_code(ir, pool, ctx);
  if (!assembled) return assembled.error();

  auto name = pool.add_utf8(kCountsField);
  auto field_desc = pool.add_utf8(kCountsDesc);
  auto method_desc = pool.add_utf8(kAccessorDesc);
  auto code = pool.add_utf8("Code");
  for (const auto* r : {&name, &field_desc, &method_desc, &code}) {
    if (!*r) return r->error();
  }
  Member f;
  f.access_flags = kMemberAccess;
  f.name_index = *name;
  f.descriptor_index = *field_desc;
  cf.fields.push_back(std::move(f));
  Member m;
  m.access_flags = kMemberAccess;
  m.name_index = *name;
  m.descriptor_index = *method_desc;
  Attribute attr;
  attr.name_index = *code;
  attr.set_data(std::move(assembled->code_attribute));
  m.attributes.push_back(std::move(attr));
  cf.methods.push_back(std::move(m));
  return Ok{};
}

}  // namespace duplex
