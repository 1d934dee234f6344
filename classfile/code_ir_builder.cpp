// Builds the label-based CodeIR of a method from its Code attribute.
//
// The IR is built for every method the rewriter looks at, so this is the fast route: one
// table-driven pass decodes and checks the instructions, the tables are decoded straight
// from their bytes, every offset anything names is marked in one flat array (instruction
// start, frame, label wanted), label ids go to the marked offsets in offset order, and one
// pass copies the instructions into the IR with the labels in place. It answers only yes or
// no: anything it does not accept (malformed code, and the rare forms it leaves out: the wide
// prefix, type annotations) goes to the checked builder (code_ir_checked.cpp), which builds
// the same IR or says what is wrong. Accepting exactly what the checked builder accepts, in
// the same order of pool additions, is this file's contract; the unit tests' malformed
// classes and the corpus check hold it to that.
#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "classfile/attributes.h"
#include "classfile/code_ir.h"
#include "classfile/code_ir_checked.h"
#include "classfile/code_rules.h"
#include "classfile/frames.h"
#include "classfile/opcodes.h"

namespace duplex {

MethodContext MethodContext::of(const ClassFile& cf, const Member& method) {
  MethodContext ctx;
  ctx.assign(cf, method);
  return ctx;
}

void MethodContext::assign(const ClassFile& cf, const Member& method) {
  class_name.assign(cf.pool.class_name(cf.this_class).value_or("<unknown>"));
  method_name.assign(cf.member_name(method));
  descriptor.assign(cf.member_descriptor(method));
  access_flags = method.access_flags;
  major_version = cf.major_version;
}

namespace {

// Marks by bytecode offset (0..code length), in one word: flags and, once assigned, the id
// of the label at the offset.
constexpr uint32_t kStartBit = 1u << 31;  // an instruction begins here (or the code ends)
constexpr uint32_t kFrameBit = 1u << 30;  // the StackMapTable has a frame here
constexpr uint32_t kWantBit = 1u << 29;   // a label is needed here
constexpr uint32_t kIdMask = kWantBit - 1;

// How the decoder reads an opcode.
enum DecodeClass : uint8_t {
  kNoOperand,
  kImplicitLocal,  // xload_<n>, xstore_<n>: the local is in the opcode
  kLocalU1,        // xload, xstore, ret
  kIincU1,
  kNewarray,
  kBipush,
  kSipush,
  kLdc,        // u1 pool index
  kPoolU2,     // u2 pool index
  kBranch16,   // s2 displacement
  kBranch32,   // s4 displacement
  kInterface,  // invokeinterface
  kDynamicCall,
  kMultiNew,
  kSwitch,
  kRefuse,  // wide, undefined opcodes: the checked builder's
};

// Eight bytes, aligned: the decoding loops index the table with a shift rather than a
// multiply-add.
struct alignas(8) DecodeInfo {
  DecodeClass cls = kRefuse;
  uint8_t length = 0;  // for fixed-length forms
  uint8_t local = 0;   // kImplicitLocal: the local's index
  uint8_t slots = 0;   // locals the instruction uses: 1, or 2 for long and double
  bool ends = false;   // ends_block
};
static_assert(sizeof(DecodeInfo) == 8);

DecodeClass class_of(uint8_t o, OperandShape shape, const LocalUse& use) {
  switch (shape) {
    case OperandShape::kNone:
      return use.slots != 0 ? kImplicitLocal : kNoOperand;
    case OperandShape::kLocal:
      return kLocalU1;
    case OperandShape::kIinc:
      return kIincU1;
    case OperandShape::kByte:
      return o == op::kBipush ? kBipush : kNewarray;
    case OperandShape::kShort:
      return kSipush;
    case OperandShape::kCpByte:
      return kLdc;
    case OperandShape::kCp:
      return kPoolU2;
    case OperandShape::kBranch:
      return kBranch16;
    case OperandShape::kBranchWide:
      return kBranch32;
    case OperandShape::kInvokeInterface:
      return kInterface;
    case OperandShape::kInvokeDynamic:
      return kDynamicCall;
    case OperandShape::kMultiANewArray:
      return kMultiNew;
    case OperandShape::kTableSwitch:
    case OperandShape::kLookupSwitch:
      return kSwitch;
    default:
      return kRefuse;
  }
}

struct DecodeTable {
  DecodeInfo info[256];
  DecodeTable() {
    for (int i = 0; i < 256; ++i) {
      auto o = static_cast<uint8_t>(i);
      LocalUse use = local_use(Insn::make(o));
      DecodeInfo& d = info[i];
      d.cls = class_of(o, opcode_info(o).shape, use);
      d.length = opcode_info(o).length;
      d.local = static_cast<uint8_t>(use.index);
      d.slots = static_cast<uint8_t>(use.slots);
      d.ends = ends_block(o);
    }
  }
};
// Built at start-up from the opcode table (constant-initialised, so already there).
const DecodeTable kDecode;

// allowed_tags by opcode for each range of class versions it distinguishes.
struct AllowedTags {
  uint32_t tags[5][256];
  AllowedTags() {
    constexpr uint16_t kMajors[5] = {45, 49, 51, 52, 55};
    for (int m = 0; m < 5; ++m)
      for (int o = 0; o < 256; ++o) tags[m][o] = allowed_tags(static_cast<uint8_t>(o), kMajors[m]);
  }
  const uint32_t* for_major(uint16_t major) const {
    int m = major >= 55 ? 4 : major >= 52 ? 3 : major >= 51 ? 2 : major >= 49 ? 1 : 0;
    return tags[m];
  }
};
const AllowedTags kAllowedTags;

uint16_t be16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] << 8 | p[1]);
}
int32_t be32(const uint8_t* p) {
  return static_cast<int32_t>(static_cast<uint32_t>(p[0]) << 24 |
                              static_cast<uint32_t>(p[1]) << 16 | static_cast<uint32_t>(p[2]) << 8 |
                              p[3]);
}

// Per-thread buffers: only their capacity survives from method to method.
struct Scratch {
  CodeAttribute code;
  std::vector<uint32_t> mark;    // by offset 0..len
  std::vector<Insn> decoded;     // a prefix: the instructions, targets still as offsets
  std::vector<uint32_t> jumps;   // indices in `decoded` with a target, or ending a block
  std::vector<uint32_t> wanted;  // offsets with kWantBit, in the order they were marked
  std::vector<LineNumberEntry> lines;
  std::vector<LocalVariableEntry> locals;
  std::vector<LocalVariableEntry> local_types;
  std::vector<OffsetFrame> frames;
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// Scratch sized by the largest method a thread built: a rare huge one (a 64 KiB method takes
// about 2 MB here) is not kept for the rest of the thread's life, which matters in the agent,
// where any application thread may load classes.
constexpr size_t kTrimAbove = 16 * 1024;  // bytecode length past which trim looks

[[gnu::noinline]] void trim(Scratch& s) {
  constexpr size_t kKeep = 256 * 1024;
  if (s.decoded.capacity() * sizeof(Insn) > kKeep) s.decoded = {};
  if (s.mark.capacity() * sizeof(uint32_t) > kKeep) s.mark = {};
}

// The decoding loops' view of the method, copied into locals: the loops' byte and word stores
// could alias any member.
struct DecodeLocals {
  uint32_t len;
  const uint32_t* allowed;  // pool tags each opcode accepts
  uint32_t max_locals;
  uint32_t parsed;  // the pool count as parsed
  const ConstantPool* pool;
};

class FastBuilder {
 public:
  FastBuilder(ClassFile& cf, const MethodRef& m, const Attribute& attr, Scratch& s, CodeIR& ir)
      : cf_(cf), m_(m), attr_(attr), s_(s), ir_(ir) {}

  // False when the method is for the checked builder.
  bool run();

 private:
  bool decode();
  template <bool kDirect>
  bool operands(const DecodeInfo& d, uint8_t o, uint32_t pos, const uint8_t* b, Insn& insn,
                uint32_t& length, const DecodeLocals& v);
  bool decode_switch(uint32_t pos, Insn& insn, uint32_t& length);
  bool pool_ok(uint8_t o, uint32_t index) const;
  bool interface_count_ok(const Insn& insn) const;
  bool tables(bool defer_frames);
  bool line_numbers(std::span<const uint8_t> body);
  bool local_variables(std::span<const uint8_t> body, std::vector<LocalVariableEntry>& out);
  bool frames(const Attribute& a);
  bool mark_all();
  bool locals_ok(const std::vector<LocalVariableEntry>& vars, bool types) const;
  bool frames_required() const;
  void assign_labels();
  void place();
  void resolve();
  void relabel_uninitialized(Frame& frame) const;

  // Marks an offset (an instruction start, or the end of the code if allow_end) as needing
  // a label; false if it is neither.
  bool want(int64_t offset, bool allow_end) {
    if (offset < 0 || offset > len_ || (offset == len_ && !allow_end)) return false;
    uint32_t& m = mark_[offset];
    if (!(m & kStartBit)) return false;
    if (!(m & kWantBit)) {
      m |= kWantBit;
      s_.wanted.push_back(static_cast<uint32_t>(offset));
    }
    return true;
  }
  LabelId at(uint32_t offset) const { return mark_[offset] & kIdMask; }
  bool is_parsed_utf8(uint32_t index) const {
    const CpEntry* e = index < parsed_ ? cf_.pool.entry(index) : nullptr;
    return e && e->tag == CpTag::kUtf8;
  }

  // The one-pass route for version 51 and later (see run).
  bool run_direct();
  bool premark();
  bool premark_frames(std::span<const uint8_t> body);
  bool premark(int64_t offset, bool allow_end, uint32_t bit = 0);
  // Out of line: inlined into build_code_ir, its loop kept its state on the stack.
  [[gnu::noinline]] bool decode_direct();
  bool resolve_direct_target(LabelId& target) const;
  bool frames_direct();

  ClassFile& cf_;
  const MethodRef& m_;
  const Attribute& attr_;
  Scratch& s_;
  CodeIR& ir_;
  const Attribute* smt_ = nullptr;  // the StackMapTable, when its decoding waits
  uint32_t len_ = 0;
  uint32_t parsed_ = 0;  // the pool count as parsed
  uint32_t* mark_ = nullptr;
  size_t count_ = 0;   // instructions in s_.decoded
  size_t placed_ = 0;  // frames decoded onto labels (frames_direct)
};

bool FastBuilder::pool_ok(uint8_t o, uint32_t index) const {
  const CpEntry* e = index < parsed_ ? cf_.pool.entry(index) : nullptr;
  // A Dynamic constant needs the checked builder's size check.
  return e != nullptr && (kAllowedTags.for_major(m_.major_version)[o] & tag_bit(e->tag)) &&
         e->tag != CpTag::kDynamic;
}

// The count operand must match the descriptor, or reassembly would "repair" it.
bool FastBuilder::interface_count_ok(const Insn& insn) const {
  auto m = cf_.pool.member_ref(static_cast<uint32_t>(insn.a));
  int slots = m ? parameter_slots(m->descriptor) : -1;
  return slots >= 0 && insn.b == slots + 1;
}

// Switch operands: padding, the default, then the table; targets stay offsets.
bool FastBuilder::decode_switch(uint32_t pos, Insn& insn, uint32_t& length) {
  const uint8_t* code = s_.code.code.data();
  uint32_t p = pos + 1;
  uint32_t padding = (4 - (pos + 1) % 4) % 4;
  if (p + padding + 12 > len_) return false;
  for (uint32_t i = 0; i < padding; ++i) {
    // Before version 51 the JVM refuses non-zero padding; reassembly would write zeros.
    if (code[p + i] != 0 && m_.major_version < 51) return false;
  }
  p += padding;
  int64_t dflt = int64_t{pos} + be32(code + p);
  SwitchTable table;
  int64_t count = 0;
  bool lookup = insn.opcode == op::kLookupswitch;
  if (!lookup) {
    table.low = be32(code + p + 4);
    int32_t high = be32(code + p + 8);
    if (high < table.low) return false;
    count = int64_t{high} - table.low + 1;
    p += 12;
  } else {
    count = be32(code + p + 4);
    if (count < 0) return false;
    p += 8;
  }
  int64_t entry = lookup ? 8 : 4;
  if (count * entry > int64_t{len_} - p) return false;
  if (dflt < 0 || dflt >= len_) return false;
  insn.target = static_cast<LabelId>(dflt);
  table.targets.reserve(static_cast<size_t>(count));
  if (lookup) table.keys.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i, p += static_cast<uint32_t>(entry)) {
    if (lookup) table.keys.push_back(be32(code + p));
    int64_t target = int64_t{pos} + be32(code + p + entry - 4);
    if (target < 0 || target >= len_) return false;
    table.targets.push_back(static_cast<LabelId>(target));
  }
  insn.switch_index = static_cast<uint32_t>(ir_.switches.size());
  ir_.switches.push_back(std::move(table));
  length = p - pos;
  return true;
}

// Decodes one instruction's operands into `insn` and checks them (pool references, locals,
// targets); false if the checked builder must take the method. Both decoding loops share it:
// kDirect resolves targets to the labels the tables already placed (decode_direct), otherwise
// targets stay offsets (decode). Inlined, so that the loops keep their locals in registers.
template <bool kDirect>
[[gnu::always_inline]] inline bool FastBuilder::operands(const DecodeInfo& d, uint8_t o,
                                                         uint32_t pos, const uint8_t* b, Insn& insn,
                                                         uint32_t& length, const DecodeLocals& v) {
  switch (d.cls) {
    case kNoOperand:
      break;
    case kImplicitLocal:
      return d.local + d.slots <= v.max_locals;
    case kLocalU1:
      insn.a = b[1];
      return b[1] + d.slots <= v.max_locals;
    case kIincU1:
      insn.a = b[1];
      insn.b = static_cast<int8_t>(b[2]);
      return b[1] + 1u <= v.max_locals;
    case kNewarray:
      insn.a = b[1];
      break;
    case kBipush:
      insn.a = static_cast<int8_t>(b[1]);
      break;
    case kSipush:
      insn.a = static_cast<int16_t>(be16(b + 1));
      break;
    case kLdc:
    case kPoolU2: {
      uint32_t index = d.cls == kLdc ? b[1] : be16(b + 1);
      insn.a = static_cast<int32_t>(index);
      const CpEntry* e = index < v.parsed ? v.pool->entry(index) : nullptr;
      // A Dynamic constant needs the checked builder's size check.
      return e != nullptr && (v.allowed[o] & tag_bit(e->tag)) && e->tag != CpTag::kDynamic;
    }
    case kBranch16:
    case kBranch32: {
      int64_t target =
          int64_t{pos} + (d.cls == kBranch16 ? static_cast<int16_t>(be16(b + 1)) : be32(b + 1));
      insn.target = static_cast<LabelId>(target);
      if constexpr (kDirect) return target >= 0 && resolve_direct_target(insn.target);
      return target >= 0 && target < v.len;
    }
    case kInterface:
      insn.a = be16(b + 1);
      insn.b = b[3];
      return b[4] == 0 && pool_ok(o, be16(b + 1)) && interface_count_ok(insn);
    case kDynamicCall:
      insn.a = be16(b + 1);
      return b[3] == 0 && b[4] == 0 && pool_ok(o, be16(b + 1));
    case kMultiNew:
      insn.a = be16(b + 1);
      insn.b = b[3];
      return pool_ok(o, be16(b + 1));
    case kSwitch:
      if (!decode_switch(pos, insn, length)) return false;
      if constexpr (kDirect) {
        if (!resolve_direct_target(insn.target)) return false;
        for (LabelId& t : ir_.switches[insn.switch_index].targets) {
          if (!resolve_direct_target(t)) return false;
        }
      }
      return true;
    case kRefuse:
      return false;
  }
  return true;
}

// Decodes and checks every instruction (pool references, locals), marking where each starts.
bool FastBuilder::decode() {
  std::vector<Insn>& decoded = s_.decoded;
  if (decoded.size() < len_) decoded.resize(len_);  // at most one instruction per byte
  s_.jumps.clear();
  // Locals only in the loop: its byte and word stores could alias any member.
  const uint8_t* code = s_.code.code.data();
  const uint32_t len = len_;
  const uint32_t* allowed = kAllowedTags.for_major(m_.major_version);
  const uint32_t max_locals = s_.code.max_locals;
  const uint32_t parsed = parsed_;
  const ConstantPool& pool = cf_.pool;
  const DecodeLocals v{len, allowed, max_locals, parsed, &pool};
  uint32_t* mark = mark_;
  Insn* out = decoded.data();
  size_t count = 0;
  for (uint32_t pos = 0; pos < len;) {
    mark[pos] = kStartBit;
    uint8_t o = code[pos];
    const DecodeInfo& d = kDecode.info[o];
    Insn& insn = out[count];
    insn = Insn::make(o);
    insn.original_offset = static_cast<int32_t>(pos);
    uint32_t length = d.length;
    if (d.cls != kSwitch && pos + length > len) return false;  // truncated (or length 0)
    const uint8_t* b = code + pos;
    if (!operands<false>(d, o, pos, b, insn, length, v)) return false;
    if (insn.target != kNoLabel || d.ends) s_.jumps.push_back(static_cast<uint32_t>(count));
    ++count;
    pos += length;
  }
  count_ = count;
  // The verifier rejects code whose last instruction can fall through past the end; and the
  // parameters must fit max_locals.
  if (!ends_block(static_cast<uint8_t>(out[count - 1].opcode))) return false;
  int params = parameter_slots(m_.descriptor);
  if (params >= 0) params += (m_.access_flags & access::kStatic) ? 0 : 1;
  return params <= static_cast<int>(max_locals);
}

bool FastBuilder::line_numbers(std::span<const uint8_t> body) {
  if (body.size() < 2 || body.size() != 2 + 4 * size_t{be16(body.data())}) return false;
  const uint8_t* p = body.data() + 2;
  for (size_t n = be16(body.data()); n > 0; --n, p += 4) {
    s_.lines.push_back(LineNumberEntry{be16(p), be16(p + 2)});
  }
  return true;
}

bool FastBuilder::local_variables(std::span<const uint8_t> body,
                                  std::vector<LocalVariableEntry>& out) {
  if (body.size() < 2 || body.size() != 2 + 10 * size_t{be16(body.data())}) return false;
  const uint8_t* p = body.data() + 2;
  for (size_t n = be16(body.data()); n > 0; --n, p += 10) {
    out.push_back(LocalVariableEntry{be16(p), be16(p + 2), be16(p + 4), be16(p + 6), be16(p + 8)});
  }
  return true;
}

bool FastBuilder::frames(const Attribute& a) {
  if (ir_.had_stack_map_table) return false;  // more than one
  ir_.had_stack_map_table = true;
  auto initial =
      initial_frame_ref(cf_.pool, m_.class_name, m_.method_name, m_.descriptor, m_.access_flags);
  if (!initial) return false;
  if (!decode_stack_map_table_into(a.data, *initial.value(), s_.frames).ok()) return false;
  // A type naming no Class entry: the checked builder's decode_frames says so.
  for (const OffsetFrame& f : s_.frames) {
    if (bad_frame_class(f.frame, cf_.pool, parsed_, *initial.value())) return false;
  }
  return true;
}

// The attributes of the Code attribute, in their order (the entry frame, which may add pool
// entries, is computed where the checked builder computes it).
bool FastBuilder::tables(bool defer_frames) {
  smt_ = nullptr;
  for (const Attribute& a : s_.code.attributes) {
    if (!is_parsed_utf8(a.name_index)) return false;
    std::string_view name = cf_.pool.entry(a.name_index)->utf8;
    bool ok = true;
    if (name == "LineNumberTable") {
      ok = line_numbers(a.data);
    } else if (name == "LocalVariableTable") {
      ok = local_variables(a.data, s_.locals);
    } else if (name == "LocalVariableTypeTable") {
      ok = local_variables(a.data, s_.local_types);
    } else if (name == "StackMapTable" && m_.major_version >= 50) {
      // Before version 50 the JVM ignores this attribute, so it is carried as unknown.
      if (!defer_frames) {
        ok = frames(a);
      } else {
        ok = smt_ == nullptr;  // more than one is the checked builder's
        smt_ = &a;
      }
    } else if (name == "RuntimeVisibleTypeAnnotations" ||
               name == "RuntimeInvisibleTypeAnnotations") {
      ok = false;  // rare: the checked builder relocates them
    } else {
      // Kept past this call: the view needs the Code attribute's owner.
      Attribute& kept = ir_.unknown_attributes.emplace_back(a);
      kept.owned = attr_.owned;
    }
    if (!ok) return false;
  }
  return true;
}

// Names and indices the JVM's format checker validates in the local variable tables.
bool FastBuilder::locals_ok(const std::vector<LocalVariableEntry>& vars, bool types) const {
  for (const auto& v : vars) {
    if (!is_parsed_utf8(v.name_index) || !is_parsed_utf8(v.descriptor_index)) return false;
    uint32_t last = v.index;
    if (!types) {
      std::string_view d = cf_.pool.entry(v.descriptor_index)->utf8;
      if (d == "J" || d == "D") ++last;
    }
    if (last >= s_.code.max_locals) return false;
  }
  return true;
}

// Every offset named anywhere must be an instruction start (or the end, for range ends).
bool FastBuilder::mark_all() {
  for (uint32_t i : s_.jumps) {
    const Insn& insn = s_.decoded[i];
    if (insn.target != kNoLabel && !want(insn.target, false)) return false;
    if (!is_switch(static_cast<uint8_t>(insn.opcode))) continue;
    for (LabelId t : ir_.switches[insn.switch_index].targets) {
      if (!want(t, false)) return false;
    }
  }
  for (const auto& e : s_.code.exception_table) {
    if (e.start_pc >= e.end_pc) return false;
    if (e.catch_type != 0) {
      const CpEntry* c = e.catch_type < parsed_ ? cf_.pool.entry(e.catch_type) : nullptr;
      if (c == nullptr || c->tag != CpTag::kClass) return false;
    }
    if (!want(e.start_pc, false) || !want(e.end_pc, true) || !want(e.handler_pc, false)) {
      return false;
    }
  }
  for (const auto& l : s_.lines) {
    if (!want(l.start_pc, false)) return false;
  }
  for (const auto* vars : {&s_.locals, &s_.local_types}) {
    for (const auto& v : *vars) {
      if (!want(v.start_pc, false) || !want(int64_t{v.start_pc} + v.length, true)) return false;
    }
  }
  if (!locals_ok(s_.locals, false) || !locals_ok(s_.local_types, true)) return false;
  for (const auto& f : s_.frames) {
    if (!want(f.offset, false)) return false;
    mark_[f.offset] |= kFrameBit;
    for (std::span<const VType> list : f.frame.lists()) {
      for (const VType& v : list) {
        if (v.tag != VTag::kUninitialized) continue;
        if (v.data >= len_ || s_.code.code[v.data] != op::kNew || !want(v.data, false)) {
          return false;
        }
      }
    }
  }
  return true;
}

// From version 51 a frame is needed at every branch target, handler, and instruction after
// an unconditional transfer (the assembler would otherwise compute one and "repair" it).
bool FastBuilder::frames_required() const {
  if (m_.major_version < 51) return true;
  auto has = [this](uint32_t offset) { return (mark_[offset] & kFrameBit) != 0; };
  for (uint32_t i : s_.jumps) {
    const Insn& insn = s_.decoded[i];
    if (insn.target != kNoLabel && !has(insn.target)) return false;
    auto o = static_cast<uint8_t>(insn.opcode);
    if (is_switch(o)) {
      for (LabelId t : ir_.switches[insn.switch_index].targets) {
        if (!has(t)) return false;
      }
    }
    if (ends_block(o) && i + 1 < count_ && !has(s_.decoded[i + 1].original_offset)) return false;
  }
  for (const auto& e : s_.code.exception_table) {
    if (!has(e.handler_pc)) return false;
  }
  return true;
}

// Ids follow offsets, so labels read in code order in disassembly and tests.
void FastBuilder::assign_labels() {
  std::vector<uint32_t>& wanted = s_.wanted;
  if (wanted.size() > 16) {
    std::sort(wanted.begin(), wanted.end());
  } else {  // the usual few labels, mostly in order already
    for (size_t i = 1; i < wanted.size(); ++i) {
      uint32_t v = wanted[i];
      size_t j = i;
      for (; j > 0 && wanted[j - 1] > v; --j) wanted[j] = wanted[j - 1];
      wanted[j] = v;
    }
  }
  ir_.labels.resize(wanted.size());
  for (size_t id = 0; id < wanted.size(); ++id) {
    mark_[wanted[id]] |= static_cast<uint32_t>(id);
    ir_.labels[id].original_offset = static_cast<int32_t>(wanted[id]);
  }
}

// Copies the instructions into the IR, each label just before the instruction at its
// offset; targets become label ids on the way. The vector is sized once, exactly.
void FastBuilder::place() {
  auto& insns = ir_.insns;
  insns.resize(count_ + ir_.labels.size());
  Insn* out = insns.data();
  const uint32_t* mark = mark_;
  const Insn* in = s_.decoded.data();
  for (size_t i = 0; i < count_; ++i) {
    const Insn& d = in[i];
    uint32_t m = mark[d.original_offset];
    if (m & kWantBit) *out++ = Insn::make_label(m & kIdMask);
    *out = d;
    if (d.target != kNoLabel) out->target = mark[d.target] & kIdMask;
    ++out;
  }
  if (mark[len_] & kWantBit) *out = Insn::make_label(mark[len_] & kIdMask);
  for (auto& table : ir_.switches) {
    for (LabelId& t : table.targets) t = at(t);
  }
}

void FastBuilder::resolve() {
  ir_.try_catches.reserve(s_.code.exception_table.size());
  for (const auto& e : s_.code.exception_table) {
    ir_.try_catches.push_back(
        TryCatch{at(e.start_pc), at(e.end_pc), at(e.handler_pc), e.catch_type});
  }
  ir_.line_numbers.reserve(s_.lines.size());
  for (const auto& l : s_.lines) ir_.line_numbers.push_back(LineNumber{at(l.start_pc), l.line});
  auto locals = [this](const std::vector<LocalVariableEntry>& in, std::vector<LocalVar>& out) {
    out.reserve(in.size());
    for (const auto& v : in) {
      out.push_back(LocalVar{at(v.start_pc), at(v.start_pc + v.length), v.name_index,
                             v.descriptor_index, v.index});
    }
  };
  locals(s_.locals, ir_.local_variables);
  locals(s_.local_types, ir_.local_variable_types);
  for (auto& f : s_.frames) {
    relabel_uninitialized(f.frame);
    ir_.labels[at(f.offset)].frame = std::move(f.frame);
  }
}

// An Uninitialized type names its `new` by offset in the class file, by label in the IR.
void FastBuilder::relabel_uninitialized(Frame& frame) const {
  for (std::span<VType> list : frame.lists()) {
    for (VType& v : list) {
      if (v.tag == VTag::kUninitialized) v.data = at(v.data);
    }
  }
}

bool FastBuilder::run() {
  if (!decode_code_into(attr_, s_.code).ok()) return false;
  len_ = static_cast<uint32_t>(s_.code.code.size());
  parsed_ = m_.pool_limit;
  ir_.max_stack = s_.code.max_stack;
  ir_.max_locals = s_.code.max_locals;
  s_.mark.assign(len_ + 1, 0);
  mark_ = s_.mark.data();
  mark_[len_] = kStartBit;  // the end is a valid (exclusive) range end
  s_.wanted.clear();
  s_.lines.clear();
  s_.locals.clear();
  s_.local_types.clear();
  s_.frames.clear();
  // From version 51 every branch target carries a frame, so the tables name every label
  // before a single instruction is decoded, and one pass can build the instruction list.
  if (m_.major_version >= 51) return run_direct();
  if (!decode() || !tables(false) || !mark_all() || !frames_required()) return false;
  assign_labels();
  place();
  resolve();
  return true;
}

// ---- the one-pass route (version 51 and later) ----

// Marks an offset named by a table before the instructions are known: whether it is an
// instruction start is checked as the decoding passes it (decode_direct).
bool FastBuilder::premark(int64_t offset, bool allow_end, uint32_t bit) {
  if (offset < 0 || offset > len_ || (offset == len_ && !allow_end)) return false;
  uint32_t& m = mark_[offset];
  if (!(m & kWantBit)) {
    m |= kWantBit;
    s_.wanted.push_back(static_cast<uint32_t>(offset));
  }
  m |= bit;
  return true;
}

// The offsets of the StackMapTable's frames and of the `new`s its Uninitialized types name,
// read without the entry frame (which may add pool entries, so it waits for the
// instructions to be checked: frames_direct). False where decoding would fail.
bool FastBuilder::premark_frames(std::span<const uint8_t> body) {
  const uint8_t* p = body.data();
  const uint8_t* end = p + body.size();
  auto u2 = [&](uint32_t& v) {
    if (end - p < 2) return false;
    v = static_cast<uint32_t>(p[0] << 8 | p[1]);
    p += 2;
    return true;
  };
  auto vtypes = [&](uint32_t n) {
    for (; n > 0; --n) {
      if (p >= end || *p > static_cast<uint8_t>(VTag::kUninitialized)) return false;
      auto tag = static_cast<VTag>(*p++);
      if (tag != VTag::kObject && tag != VTag::kUninitialized) continue;
      uint32_t data = 0;
      if (!u2(data)) return false;
      if (tag == VTag::kUninitialized &&
          (data >= len_ || s_.code.code[data] != op::kNew || !premark(data, false))) {
        return false;
      }
    }
    return true;
  };
  uint32_t count = 0;
  if (!u2(count)) return false;
  int64_t offset = -1;
  for (; count > 0; --count) {
    if (p >= end) return false;
    uint8_t type = *p++;
    uint32_t delta = type;
    if (type >= 64 && type <= 127) {
      delta = type - 64u;
      if (!vtypes(1)) return false;
    } else if (type >= 128 && type <= 246) {
      return false;  // reserved
    } else if (type >= 247) {
      if (!u2(delta)) return false;
      uint32_t n = 0;
      if (type == 247 && !vtypes(1)) return false;
      if (type >= 252 && type <= 254 && !vtypes(type - 251u)) return false;
      if (type == 255 && (!u2(n) || !vtypes(n) || !u2(n) || !vtypes(n))) return false;
    }
    offset += int64_t{delta} + 1;
    if (!premark(offset, false, kFrameBit)) return false;
  }
  return p == end;
}

// Marks every offset the tables name, then numbers the labels in offset order.
bool FastBuilder::premark() {
  const uint8_t* code = s_.code.code.data();
  for (const auto& e : s_.code.exception_table) {
    if (e.start_pc >= e.end_pc) return false;
    if (e.catch_type != 0) {
      const CpEntry* c = e.catch_type < parsed_ ? cf_.pool.entry(e.catch_type) : nullptr;
      if (c == nullptr || c->tag != CpTag::kClass) return false;
    }
    if (!premark(e.start_pc, false) || !premark(e.end_pc, true) || !premark(e.handler_pc, false)) {
      return false;
    }
  }
  for (const auto& l : s_.lines) {
    if (!premark(l.start_pc, false)) return false;
  }
  for (const auto* vars : {&s_.locals, &s_.local_types}) {
    for (const auto& v : *vars) {
      if (!premark(v.start_pc, false) || !premark(int64_t{v.start_pc} + v.length, true)) {
        return false;
      }
    }
  }
  if (!locals_ok(s_.locals, false) || !locals_ok(s_.local_types, true)) return false;
  if (smt_ != nullptr && !premark_frames(smt_->data)) return false;
  // A handler needs a frame (the checked builder's frames_required).
  for (const auto& e : s_.code.exception_table) {
    if (!(mark_[e.handler_pc] & kFrameBit)) return false;
  }
  (void)code;
  assign_labels();
  return true;
}

// A target offset becomes its label's id; every branch target has a frame from version 51.
bool FastBuilder::resolve_direct_target(LabelId& target) const {
  if (target >= len_) return false;
  uint32_t m = mark_[target];
  if ((m & (kWantBit | kFrameBit)) != (kWantBit | kFrameBit)) return false;
  target = m & kIdMask;
  return true;
}

// Decodes and checks every instruction straight into the final list, with each label in
// place before the instruction at its offset and targets as label ids.
bool FastBuilder::decode_direct() {
  std::vector<Insn>& out_vec = s_.decoded;
  size_t capacity = size_t{len_} + ir_.labels.size();
  if (out_vec.size() < capacity) out_vec.resize(capacity);
  const uint8_t* code = s_.code.code.data();
  const uint32_t len = len_;
  const uint32_t* allowed = kAllowedTags.for_major(m_.major_version);
  const uint32_t max_locals = s_.code.max_locals;
  const uint32_t parsed = parsed_;
  const ConstantPool& pool = cf_.pool;
  const DecodeLocals v{len, allowed, max_locals, parsed, &pool};
  const uint32_t* mark = mark_;
  Insn* out = out_vec.data();
  size_t count = 0;
  size_t labels = 0;  // placed so far: a label marked inside an instruction is never placed
  bool after_transfer = false;
  for (uint32_t pos = 0; pos < len;) {
    uint32_t m = mark[pos];
    if (m & kWantBit) {
      out[count++] = Insn::make_label(m & kIdMask);
      ++labels;
    }
    // After an unconditional transfer the next instruction needs a frame.
    if (after_transfer && !(m & kFrameBit)) return false;
    uint8_t o = code[pos];
    const DecodeInfo& d = kDecode.info[o];
    Insn& insn = out[count];
    insn = Insn::make(o);
    insn.original_offset = static_cast<int32_t>(pos);
    uint32_t length = d.length;
    if (d.cls != kSwitch && pos + length > len) return false;  // truncated (or length 0)
    const uint8_t* b = code + pos;
    if (!operands<true>(d, o, pos, b, insn, length, v)) return false;
    after_transfer = d.ends;
    ++count;
    pos += length;
  }
  // The label at the end of the code; every label marked must have found its place.
  if (mark[len] & kWantBit) {
    out[count++] = Insn::make_label(mark[len] & kIdMask);
    ++labels;
  }
  if (labels != s_.wanted.size()) return false;
  // The verifier rejects code whose last instruction can fall through past the end; and the
  // parameters must fit max_locals.
  if (!after_transfer) return false;
  int params = parameter_slots(m_.descriptor);
  if (params >= 0) params += (m_.access_flags & access::kStatic) ? 0 : 1;
  if (params > static_cast<int>(max_locals)) return false;
  ir_.insns.assign(out, out + count);
  return true;
}

// The frames, decoded with the entry frame now that the instructions passed their checks
// (the entry frame may add pool entries, which the checked builder only does past them),
// straight onto their labels: premark_frames gave every frame offset its label.
bool FastBuilder::frames_direct() {
  if (smt_ == nullptr) return true;
  if (ir_.had_stack_map_table) return false;  // more than one
  ir_.had_stack_map_table = true;
  auto initial =
      initial_frame_ref(cf_.pool, m_.class_name, m_.method_name, m_.descriptor, m_.access_flags);
  if (!initial) return false;
  placed_ = 0;
  auto place = [](void* self, uint32_t offset) -> Frame* {
    auto& b = *static_cast<FastBuilder*>(self);
    if (offset >= b.len_ || !(b.mark_[offset] & kFrameBit)) return nullptr;
    ++b.placed_;
    return &b.ir_.labels[b.mark_[offset] & kIdMask].frame.emplace();
  };
  if (!decode_stack_map_table_placed(smt_->data, *initial.value(), place, this)) return false;
  size_t marked = 0;
  for (uint32_t off : s_.wanted) marked += (mark_[off] & kFrameBit) ? 1 : 0;
  if (marked != placed_) return false;
  for (LabelInfo& label : ir_.labels) {
    if (!label.frame) continue;
    // A frame past max_locals or max_stack: the checked builder's check_frame_sizes.
    if (slot_count(label.frame->locals) > s_.code.max_locals) return false;
    if (slot_count(label.frame->stack) > s_.code.max_stack) return false;
    // A type naming no Class entry: the checked builder's decode_frames.
    if (bad_frame_class(*label.frame, cf_.pool, parsed_, *initial.value())) return false;
    relabel_uninitialized(*label.frame);
  }
  return true;
}

bool FastBuilder::run_direct() {
  if (!tables(true) || !premark() || !decode_direct() || !frames_direct()) return false;
  resolve();
  return true;
}

}  // namespace

Result<CodeIR> build_code_ir(ClassFile& cf, const Member& method, CodeSource source) {
  const Attribute* attr = cf.find_attribute(method.attributes, "Code");
  if (attr != nullptr) {
    MethodRef m = MethodRef::of(cf, method, source);
    CodeIR ir;
    Scratch& s = scratch();
    bool built = FastBuilder(cf, m, *attr, s, ir).run();
    if (s.mark.size() > kTrimAbove) trim(s);  // only after a huge method
    if (built) return ir;
  }
  return build_code_ir_checked(cf, method, source);
}

}  // namespace duplex
