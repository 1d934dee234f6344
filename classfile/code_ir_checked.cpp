// The checked IR builder: builds the label-based CodeIR of a method from its Code attribute
// and, for code the JVM would refuse, says exactly what is wrong and where. build_code_ir
// (code_ir_builder.cpp) takes a faster route for well-formed code and comes here for the
// rest, so the errors are this file's.
//
// Two passes over the bytecode: the first decodes every instruction, with branch and switch
// targets held as raw offsets and every instruction start recorded; the tables (exceptions,
// line numbers, locals, frames, type annotations) are then decoded and each offset they name
// is checked and marked. Labels get ids in offset order, and the instructions are copied into
// the IR with a label before each marked offset and targets turned into label ids.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "classfile/code_ir_checked.h"

#include "classfile/attributes.h"
#include "classfile/code_ir.h"
#include "classfile/code_rules.h"
#include "classfile/frames.h"
#include "classfile/opcodes.h"

namespace duplex {

namespace {

// Marks an offset that needs a label before ids are assigned.
constexpr LabelId kWanted = kNoLabel - 1;

// Builder::starts_ flags, by offset.
constexpr uint8_t kStart = 1;     // an instruction begins here
constexpr uint8_t kHasFrame = 2;  // the StackMapTable has a frame here

std::string tag_list(uint32_t tags) {
  std::string out;
  for (unsigned t = 1; t < 32; ++t) {
    if (!(tags & (1u << t))) continue;
    if (!out.empty()) out += " or ";
    out += cp_tag_name(static_cast<CpTag>(t));
  }
  return out;
}

std::string hex(uint32_t v) {
  static const char* kDigits = "0123456789abcdef";
  std::string s = "0x";
  s += kDigits[(v >> 4) & 0xF];
  s += kDigits[v & 0xF];
  return s;
}

bool is_type_annotation_localvar(uint8_t t) {
  return t == 0x40 || t == 0x41;
}
bool is_type_annotation_catch(uint8_t t) {
  return t == 0x42;
}
bool is_type_annotation_insn(uint8_t t) {
  return t >= 0x43 && t <= 0x4B;
}

// The attributes of a Code attribute, decoded but still in offsets.
struct RawTables {
  std::vector<LineNumberEntry> lines;
  std::vector<LocalVariableEntry> locals;
  std::vector<LocalVariableEntry> local_types;
  std::vector<OffsetFrame> frames;
  std::vector<CodeTypeAnnotation> visible;
  std::vector<CodeTypeAnnotation> invisible;

  void clear() {
    lines.clear();
    locals.clear();
    local_types.clear();
    frames.clear();
    visible.clear();
    invisible.clear();
  }
};

// Per-thread buffers for building: the IR is built for every edited method, and these would
// otherwise cost a dozen allocations per method. Only capacity survives between methods.
struct Scratch {
  CodeAttribute code;
  RawTables tables;
  std::vector<Insn> decoded;      // the instructions, targets still as offsets (a prefix)
  std::vector<uint32_t> jumps;    // indices in `decoded` of branches, switches and block ends
  std::vector<uint8_t> starts;    // by offset: kStart, kHasFrame
  std::vector<LabelId> label_at;  // by offset 0..len: kNoLabel, kWanted, then the label id
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

class Builder {
 public:
  Builder(ClassFile& cf, const MethodRef& m, const Attribute& attr, Scratch& scratch)
      : cf_(cf),
        m_(m),
        attr_(attr),
        code_(scratch.code),
        t_(scratch.tables),
        decoded_(scratch.decoded),
        jumps_(scratch.jumps),
        starts_(scratch.starts),
        label_at_(scratch.label_at) {}

  Result<CodeIR> run();

 private:
  Status decode_instructions();
  Status decode_one(ByteReader& in, uint32_t at, Insn& insn);
  Status decode_operands(ByteReader& in, uint32_t at, OperandShape shape, Insn& insn);
  Status decode_switch(ByteReader& in, uint32_t at, Insn& insn);
  Status decode_wide(ByteReader& in, uint32_t at, Insn& insn);
  Status read_branch(uint32_t at, int64_t target, Insn& insn);

  Status check_operands() const;
  Status check_insn_operands(const Insn& insn) const;
  Status check_pool_ref(const Insn& insn) const;
  [[gnu::cold]] Error pool_ref_error(const Insn& insn, const CpEntry* e, uint32_t allowed) const;
  const CpEntry* parsed_entry(uint32_t index) const {
    return index < m_.pool_limit ? cf_.pool.entry(index) : nullptr;
  }
  bool is_parsed_utf8(uint32_t index) const {
    const CpEntry* e = parsed_entry(index);
    return e && e->tag == CpTag::kUtf8;
  }

  Status decode_tables();
  Status decode_frames(const Attribute& a);
  Status decode_type_annotations(const Attribute& a, std::vector<CodeTypeAnnotation>& out);

  Status mark(int64_t offset, bool allow_end, const char* what);
  [[gnu::cold]] Error mark_error(int64_t offset, bool allow_end, const char* what) const;
  Status mark_branches();
  Status mark_tables();
  Status mark_local_vars(const std::vector<LocalVariableEntry>& vars, const char* what);
  Status mark_frame_types(const Frame& f);
  Status mark_type_annotation(const CodeTypeAnnotation& a);
  Status check_local_vars(const std::vector<LocalVariableEntry>& vars, bool types) const;
  Status check_required_frames();
  Status check_frame_sizes() const;

  void assign_labels();
  void place_labels();
  void resolve_tables();
  void resolve_local_vars(const std::vector<LocalVariableEntry>& in, std::vector<LocalVar>& out);
  void resolve_frame_types(Frame& f);
  void resolve_type_annotations(std::vector<CodeTypeAnnotation>& in,
                                std::vector<CodeTypeAnnotationIR>& out);
  LabelId at(uint32_t offset) const { return label_at_[offset]; }
  // Marks an offset (already checked) as needing a label, counting the distinct ones.
  void want(uint32_t offset) {
    LabelId& l = label_at_[offset];
    wanted_ += l != kWanted ? 1 : 0;
    l = kWanted;
  }

  ClassFile& cf_;
  const MethodRef& m_;
  const Attribute& attr_;  // the Code attribute
  CodeAttribute& code_;
  RawTables& t_;
  std::vector<Insn>& decoded_;
  std::vector<uint32_t>& jumps_;
  std::vector<uint8_t>& starts_;
  std::vector<LabelId>& label_at_;
  uint32_t len_ = 0;
  size_t count_ = 0;  // instructions in decoded_
  // The first instruction whose operands failed the quick checks of decoding, if any.
  static constexpr size_t kNoBad = SIZE_MAX;
  size_t first_bad_ = kNoBad;
  CodeIR ir_;
  size_t wanted_ = 0;  // offsets marked kWanted
};

Status Builder::read_branch(uint32_t at, int64_t target, Insn& insn) {
  if (target < 0 || target >= len_) {
    return Error::at_code(at, "branch target " + std::to_string(target) + " out of range");
  }
  insn.target = static_cast<LabelId>(target);
  return Ok{};
}

// Switch operands: padding to a multiple of four, then the default and the table.
Status Builder::decode_switch(ByteReader& in, uint32_t at, Insn& insn) {
  bool nonzero_padding = false;
  for (uint32_t i = (4 - (at + 1) % 4) % 4; i > 0; --i) nonzero_padding |= in.u1() != 0;
  // Before version 51 the JVM refuses non-zero padding; the assembler would write zeros.
  if (nonzero_padding && m_.major_version < 51 && !in.failed()) {
    return Error::at_code(at, "switch padding bytes are not zero (required before version 51)");
  }
  int64_t dflt = at + static_cast<int64_t>(in.s4());
  SwitchTable table;
  int64_t count = 0;
  if (insn.opcode == op::kTableswitch) {
    table.low = in.s4();
    int32_t high = in.s4();
    if (!in.failed() && high < table.low) return Error::at_code(at, "tableswitch high < low");
    count = static_cast<int64_t>(high) - table.low + 1;
  } else {
    count = in.s4();
    if (count < 0) return Error::at_code(at, "lookupswitch with negative npairs");
  }
  // Bounds the allocation by the bytes actually present.
  int64_t entry_size = insn.opcode == op::kTableswitch ? 4 : 8;
  if (in.failed() || count * entry_size > static_cast<int64_t>(in.remaining())) {
    return Error::at_code(at, "switch runs past the end of the code");
  }
  if (auto s = read_branch(at, dflt, insn); !s) return s;
  table.targets.reserve(static_cast<size_t>(count));
  if (insn.opcode == op::kLookupswitch) table.keys.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    if (insn.opcode == op::kLookupswitch) table.keys.push_back(in.s4());
    int64_t target = at + static_cast<int64_t>(in.s4());
    if (target < 0 || target >= len_) {
      return Error::at_code(at, "switch target " + std::to_string(target) + " out of range");
    }
    table.targets.push_back(static_cast<LabelId>(target));
  }
  insn.switch_index = static_cast<uint32_t>(ir_.switches.size());
  ir_.switches.push_back(std::move(table));
  return Ok{};
}

// `wide` modifies the next instruction, which must be a load, store, ret or iinc.
Status Builder::decode_wide(ByteReader& in, uint32_t at, Insn& insn) {
  insn.opcode = in.u1();
  insn.wide = true;
  OperandShape shape = opcode_info(static_cast<uint8_t>(insn.opcode)).shape;
  if (shape == OperandShape::kLocal) {
    insn.a = in.u2();
  } else if (shape == OperandShape::kIinc) {
    insn.a = in.u2();
    insn.b = in.s2();
  } else if (!in.failed()) {
    return Error::at_code(at, "wide prefix before " +
                                  std::string(opcode_info(static_cast<uint8_t>(insn.opcode)).name));
  }
  return Ok{};
}

Status Builder::decode_operands(ByteReader& in, uint32_t at, OperandShape shape, Insn& insn) {
  switch (shape) {
    case OperandShape::kNone:
      return Ok{};
    case OperandShape::kByte:
      insn.a = insn.opcode == op::kBipush ? static_cast<int8_t>(in.u1()) : in.u1();
      return Ok{};
    case OperandShape::kShort:
      insn.a = in.s2();
      return Ok{};
    case OperandShape::kLocal:
    case OperandShape::kCpByte:
      insn.a = in.u1();
      return Ok{};
    case OperandShape::kIinc:
      insn.a = in.u1();
      insn.b = static_cast<int8_t>(in.u1());
      return Ok{};
    case OperandShape::kCp:
      insn.a = in.u2();
      return Ok{};
    case OperandShape::kBranch: {
      int64_t target = at + static_cast<int64_t>(in.s2());
      return in.failed() ? Status(Ok{}) : read_branch(at, target, insn);
    }
    case OperandShape::kBranchWide: {
      int64_t target = at + static_cast<int64_t>(in.s4());
      return in.failed() ? Status(Ok{}) : read_branch(at, target, insn);
    }
    case OperandShape::kInvokeInterface:
    case OperandShape::kMultiANewArray:
      insn.a = in.u2();
      insn.b = in.u1();
      // The assembler writes a zero here: a non-zero byte must not come out "repaired".
      if (shape == OperandShape::kInvokeInterface && in.u1() != 0 && !in.failed()) {
        return Error::at_code(at, "invokeinterface's fourth operand byte is not zero");
      }
      return Ok{};
    case OperandShape::kInvokeDynamic:
      insn.a = in.u2();
      // The JVM rejects non-zero bytes here; reassembly would zero them and so "repair" a
      // class the JVM refuses. Refuse it too.
      if (in.u2() != 0 && !in.failed()) {
        return Error::at_code(at, "invokedynamic's two reserved bytes are not zero");
      }
      return Ok{};
    case OperandShape::kTableSwitch:
    case OperandShape::kLookupSwitch:
      return decode_switch(in, at, insn);
    case OperandShape::kWide:
      return decode_wide(in, at, insn);
    case OperandShape::kInvalid:
      break;
  }
  return Error::at_code(at, "unknown opcode " + hex(insn.opcode));
}

Status Builder::decode_one(ByteReader& in, uint32_t at, Insn& insn) {
  insn.opcode = in.u1();
  insn.original_offset = static_cast<int32_t>(at);
  OperandShape shape = opcode_info(static_cast<uint8_t>(insn.opcode)).shape;
  if (auto s = decode_operands(in, at, shape, insn); !s) return s;
  if (in.failed()) return Error::at_code(at, "instruction runs past the end of the code");
  return Ok{};
}

// What check_operands looks at, by opcode: a pool index, or a local (with its size).
struct OperandCheck {
  bool pool[256] = {};
  bool local[256] = {};
  constexpr OperandCheck() {
    for (int o = 0; o < 256; ++o) {
      auto u = static_cast<uint8_t>(o);
      pool[o] = allowed_tags(u, 0xFFFF) != 0;
      local[o] = (u >= op::kIload && u <= op::kAload3) || (u >= op::kIstore && u <= op::kAstore3) ||
                 u == op::kIinc || u == op::kRet;
    }
  }
};
constexpr OperandCheck kOperandCheck;

// How the decoder reads an opcode, in one look-up. The common fixed-length forms are decoded
// straight from the bytes; kSlow leaves the instruction to decode_one (switches, wide, the
// longer invoke forms, undefined opcodes).
enum DecodeClass : uint8_t {
  kNoOperand,
  kImplicitLocal,  // xload_<n>, xstore_<n>: the local is in the opcode
  kLocalU1,        // xload, xstore, ret
  kIincU1,
  kByteOperand,  // bipush (signed), newarray
  kShortOperand,
  kPoolU1,  // ldc
  kPoolU2,
  kBranch16,
  kSlow,
};

struct DecodeInfo {
  DecodeClass cls = kSlow;
  uint8_t length = 0;
  uint8_t local = 0;  // kImplicitLocal: the local's index
  uint8_t slots = 0;  // locals used: 1, or 2 for long and double
  bool ends = false;  // ends_block
};

struct DecodeTable {
  DecodeInfo info[256];
  DecodeTable() {
    for (int o = 0; o < 256; ++o) info[o] = make(static_cast<uint8_t>(o));
  }
  static DecodeInfo make(uint8_t o) {
    const OpcodeInfo& oi = opcode_info(o);
    DecodeInfo d;
    d.length = oi.length;
    d.ends = ends_block(o);
    Insn probe = Insn::make(o);
    LocalUse use = local_use(probe);
    d.slots = static_cast<uint8_t>(use.slots);
    switch (oi.shape) {
      case OperandShape::kNone:
        d.cls = use.slots != 0 ? kImplicitLocal : kNoOperand;
        d.local = static_cast<uint8_t>(use.index);
        break;
      case OperandShape::kLocal:
        d.cls = kLocalU1;
        break;
      case OperandShape::kIinc:
        d.cls = kIincU1;
        break;
      case OperandShape::kByte:
        d.cls = kByteOperand;
        break;
      case OperandShape::kShort:
        d.cls = kShortOperand;
        break;
      case OperandShape::kCpByte:
        d.cls = kPoolU1;
        break;
      case OperandShape::kCp:
        d.cls = kPoolU2;
        break;
      case OperandShape::kBranch:
        d.cls = kBranch16;
        break;
      default:
        d.cls = kSlow;
        break;
    }
    return d;
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

// Decodes every instruction into `decoded_`, with targets still as offsets, and lists the
// instructions later passes look at (anything with a target, and every block end). Operands
// are checked on the way (see check_operands); a failure is only remembered, since a decoding
// error later in the code takes precedence.
Status Builder::decode_instructions() {
  const uint32_t len = len_;
  starts_.assign(len + 1, 0);
  starts_[len] = kStart;  // the end position is a valid (exclusive) range end
  if (decoded_.size() < len) decoded_.resize(len);  // at most one instruction per byte
  jumps_.clear();
  // Locals only in the loop: its byte stores could alias any member, which the compiler would
  // then reload after every one.
  uint8_t* starts = starts_.data();
  Insn* out = decoded_.data();
  size_t count = 0;
  size_t first_bad = kNoBad;
  const uint8_t* code = code_.code.data();
  const uint32_t* allowed = kAllowedTags.for_major(m_.major_version);
  const uint32_t max_locals = code_.max_locals;
  const uint32_t parsed = m_.pool_limit;
  const ConstantPool& pool = cf_.pool;
  for (uint32_t pos = 0; pos < len;) {
    starts[pos] = kStart;
    uint8_t o = code[pos];
    const DecodeInfo& d = kDecode.info[o];
    Insn& insn = out[count];
    insn = Insn{};
    insn.opcode = o;
    insn.original_offset = static_cast<int32_t>(pos);
    bool ok = true;
    uint32_t length = d.length;
    DecodeClass cls = pos + length <= len ? d.cls : kSlow;  // truncated: decode_one reports it
    const uint8_t* b = code + pos;
    switch (cls) {
      case kNoOperand:
        break;
      case kImplicitLocal:
        ok = d.local + d.slots <= max_locals;
        break;
      case kLocalU1:
        insn.a = b[1];
        ok = b[1] + d.slots <= max_locals;
        break;
      case kIincU1:
        insn.a = b[1];
        insn.b = static_cast<int8_t>(b[2]);
        ok = b[1] + 1u <= max_locals;
        break;
      case kByteOperand:
        insn.a = o == op::kBipush ? static_cast<int8_t>(b[1]) : b[1];
        break;
      case kShortOperand:
        insn.a = static_cast<int16_t>(b[1] << 8 | b[2]);
        break;
      case kPoolU1:
      case kPoolU2: {
        uint32_t index = cls == kPoolU1 ? b[1] : static_cast<uint32_t>(b[1] << 8 | b[2]);
        insn.a = static_cast<int32_t>(index);
        const CpEntry* e = index < parsed ? pool.entry(index) : nullptr;
        // A Dynamic constant needs the size check of check_pool_ref.
        ok = e != nullptr && (allowed[o] & tag_bit(e->tag)) && e->tag != CpTag::kDynamic;
        break;
      }
      case kBranch16: {
        int64_t target = int64_t{pos} + static_cast<int16_t>(b[1] << 8 | b[2]);
        if (target >= 0 && target < len) {
          insn.target = static_cast<LabelId>(target);
          break;
        }
        [[fallthrough]];  // decode_one reports it
      }
      case kSlow: {
        ByteReader in(code_.code);
        in.seek(pos);
        insn = Insn{};
        if (auto s = decode_one(in, pos, insn); !s) return s;
        length = static_cast<uint32_t>(in.pos()) - pos;
        auto so = static_cast<uint8_t>(insn.opcode);
        ok = !(kOperandCheck.pool[so] || kOperandCheck.local[so]) || check_insn_operands(insn).ok();
        break;
      }
    }
    if (!ok && first_bad == kNoBad) first_bad = count;
    if (insn.target != kNoLabel || kDecode.info[insn.opcode & 0xFF].ends) jumps_.push_back(count);
    ++count;
    pos += length;
  }
  count_ = count;
  first_bad_ = first_bad;
  // The verifier rejects code whose last instruction can fall through past the end.
  const Insn& last = out[count - 1];
  if (!ends_block(static_cast<uint8_t>(last.opcode))) {
    return Error::at_code(last.original_offset, "code falls off the end");
  }
  return Ok{};
}

// Every pool index an instruction names must be an entry of the kind the JVM accepts, in the
// pool as parsed (the rewriter appends entries, which must not make a bad index good), and
// every local it uses must be below max_locals, as must the parameters (the rewriter may
// raise max_locals, which must not make a bad index good either). Decoding checked the
// instructions quickly; the full checks run from the first one that failed, for the message.
Status Builder::check_operands() const {
  int params = parameter_slots(m_.descriptor);
  if (params >= 0) params += (m_.access_flags & access::kStatic) ? 0 : 1;
  if (params > code_.max_locals) {
    return Error::at_code(0, "the parameters take " + std::to_string(params) +
                                 " local slots, past max_locals " +
                                 std::to_string(code_.max_locals));
  }
  for (size_t i = first_bad_; i < count_; ++i) {
    const Insn& insn = decoded_[i];
    auto o = static_cast<uint8_t>(insn.opcode);
    if (!kOperandCheck.pool[o] && !kOperandCheck.local[o]) continue;
    if (auto s = check_insn_operands(insn); !s) return s;
  }
  return Ok{};
}

Status Builder::check_insn_operands(const Insn& insn) const {
  if (auto s = check_pool_ref(insn); !s) return s;
  LocalUse use = local_use(insn);
  if (use.slots != 0 && use.index + use.slots > code_.max_locals) {
    return Error::at_code(insn.original_offset,
                          std::string(opcode_info(static_cast<uint8_t>(insn.opcode)).name) +
                              " uses local " + std::to_string(use.index) + ", past max_locals " +
                              std::to_string(code_.max_locals));
  }
  return Ok{};
}

Status Builder::check_pool_ref(const Insn& insn) const {
  auto o = static_cast<uint8_t>(insn.opcode);
  uint32_t allowed = allowed_tags(o, m_.major_version);
  if (allowed == 0) return Ok{};
  auto index = static_cast<uint32_t>(insn.a);
  const CpEntry* e = parsed_entry(index);
  if (e == nullptr || !(allowed & tag_bit(e->tag))) return pool_ref_error(insn, e, allowed);
  if (e->tag == CpTag::kDynamic) {
    auto nt = cf_.pool.name_and_type(e->b);
    bool wide = nt && !nt->second.empty() && (nt->second[0] == 'J' || nt->second[0] == 'D');
    if (!nt || wide != (o == op::kLdc2W)) return pool_ref_error(insn, e, allowed);
  }
  if (o == op::kInvokeinterface) {
    auto m = cf_.pool.member_ref(index);
    int slots = m ? parameter_slots(m->descriptor) : -1;
    if (slots < 0 || insn.b != slots + 1) {
      return Error::at_code(
          insn.original_offset,
          "invokeinterface count " + std::to_string(insn.b) + " does not match its descriptor");
    }
  }
  return Ok{};
}

// The message for a pool index check_pool_ref refused; kept out of line, since building the
// text costs more than the check and nearly every index is good.
Error Builder::pool_ref_error(const Insn& insn, const CpEntry* e, uint32_t allowed) const {
  auto o = static_cast<uint8_t>(insn.opcode);
  int64_t at = insn.original_offset;
  std::string what = std::string(opcode_info(o).name) + " names pool #" + std::to_string(insn.a);
  if (e == nullptr) {
    return Error::at_code(
        at, what + ", not an entry of the pool (count " + std::to_string(m_.pool_limit) + ")");
  }
  if (!(allowed & tag_bit(e->tag))) {
    return Error::at_code(at,
                          what + " (" + cp_tag_name(e->tag) + "), expected " + tag_list(allowed));
  }
  return Error::at_code(at, what + " (Dynamic), of the wrong size");
}

// From version 51 the type checker is the only verifier: it needs a frame at every branch
// target, every handler and every instruction after an unconditional jump, return, athrow
// or switch. The assembler would compute missing frames and so "repair" such a method.
Status Builder::check_required_frames() {
  if (m_.major_version < 51) return Ok{};
  for (const auto& f : t_.frames) starts_[f.offset] |= kHasFrame;  // offsets checked by mark
  auto has = [this](uint32_t offset) { return (starts_[offset] & kHasFrame) != 0; };
  auto missing = [](int64_t at, const std::string& what) {
    return Error::at_code(
        at, "no StackMapTable frame at " + what + " (required from class version 51)");
  };
  for (uint32_t i : jumps_) {
    const Insn& insn = decoded_[i];
    int64_t at = insn.original_offset;
    if (insn.target != kNoLabel && !has(insn.target)) {
      return missing(at, "branch target " + std::to_string(insn.target));
    }
    auto o = static_cast<uint8_t>(insn.opcode);
    if (is_switch(o)) {
      for (LabelId target : ir_.switches[insn.switch_index].targets) {
        if (!has(target)) return missing(at, "switch target " + std::to_string(target));
      }
    }
    if (ends_block(o) && i + 1 < count_) {
      int64_t next = decoded_[i + 1].original_offset;
      if (!has(static_cast<uint32_t>(next))) {
        return missing(next, "the instruction after " + std::string(opcode_info(o).name));
      }
    }
  }
  for (const auto& e : code_.exception_table) {
    if (!has(e.handler_pc)) return missing(e.handler_pc, "exception handler");
  }
  return Ok{};
}

// Indices the JVM's format checker validates; the rewriter copies them, and may raise
// max_locals or grow the pool, so a bad one must be refused here rather than repaired.
Status Builder::check_local_vars(const std::vector<LocalVariableEntry>& vars, bool types) const {
  const char* table = types ? "LocalVariableTypeTable" : "LocalVariableTable";
  for (const auto& v : vars) {
    if (!is_parsed_utf8(v.name_index) || !is_parsed_utf8(v.descriptor_index)) {
      return Error::at_code(v.start_pc, std::string(table) + " entry for local " +
                                            std::to_string(v.index) +
                                            ": name or descriptor is not a Utf8 entry");
    }
    uint32_t last = v.index;
    if (!types) {
      std::string_view d = cf_.pool.utf8(v.descriptor_index).value_or("");
      if (d == "J" || d == "D") ++last;
    }
    if (last >= code_.max_locals) {
      return Error::at_code(v.start_pc, std::string(table) + " names local " +
                                            std::to_string(v.index) + ", past max_locals " +
                                            std::to_string(code_.max_locals));
    }
  }
  return Ok{};
}

Status Builder::mark(int64_t offset, bool allow_end, const char* what) {
  if (offset >= 0 && (offset < len_ || (offset == len_ && allow_end)) && starts_[offset]) {
    want(static_cast<uint32_t>(offset));
    return Ok{};
  }
  return mark_error(offset, allow_end, what);
}

Error Builder::mark_error(int64_t offset, bool allow_end, const char* what) const {
  if (offset < 0 || offset > len_ || (offset == len_ && !allow_end)) {
    return Error::at_code(offset, std::string(what) + " out of range");
  }
  return Error::at_code(offset, std::string(what) + " is not on an instruction boundary");
}

Status Builder::mark_branches() {
  for (uint32_t i : jumps_) {
    const Insn& insn = decoded_[i];
    uint32_t at = static_cast<uint32_t>(insn.original_offset);
    bool has_target = insn.target != kNoLabel;
    if (has_target && !starts_[insn.target]) {
      return Error::at_code(at, "branch target " + std::to_string(insn.target) +
                                    " is in the middle of an instruction");
    }
    if (has_target) want(insn.target);
    if (!is_switch(static_cast<uint8_t>(insn.opcode))) continue;
    for (LabelId t : ir_.switches[insn.switch_index].targets) {
      if (!starts_[t]) {
        return Error::at_code(
            at, "switch target " + std::to_string(t) + " is in the middle of an instruction");
      }
      want(t);
    }
  }
  return Ok{};
}

Status Builder::mark_local_vars(const std::vector<LocalVariableEntry>& vars, const char* what) {
  for (const auto& v : vars) {
    if (auto s = mark(v.start_pc, false, what); !s) return s;
    if (auto s = mark(int64_t{v.start_pc} + v.length, true, what); !s) return s;
  }
  return Ok{};
}

Status Builder::mark_frame_types(const Frame& f) {
  for (std::span<const VType> list : f.lists()) {
    for (const VType& v : list) {
      if (v.tag != VTag::kUninitialized) continue;
      if (v.data >= len_ || !starts_[v.data] || code_.code[v.data] != op::kNew) {
        return Error::at_code(v.data, "Uninitialized frame entry does not name a `new`");
      }
      want(v.data);
    }
  }
  return Ok{};
}

Status Builder::mark_type_annotation(const CodeTypeAnnotation& a) {
  if (is_type_annotation_localvar(a.target_type)) {
    for (const auto& r : a.ranges) {
      if (auto s = mark(r.start_pc, false, "type annotation range"); !s) return s;
      if (auto s = mark(int64_t{r.start_pc} + r.length, true, "type annotation range"); !s)
        return s;
    }
  } else if (is_type_annotation_catch(a.target_type)) {
    if (a.exception_table_index >= code_.exception_table.size()) {
      return Error::at_code(-1, "type annotation names a missing exception table entry");
    }
  } else if (is_type_annotation_insn(a.target_type)) {
    return mark(a.offset, false, "type annotation offset");
  }
  return Ok{};
}

Status Builder::mark_tables() {
  for (const auto& e : code_.exception_table) {
    if (e.start_pc >= e.end_pc) return Error::at_code(e.start_pc, "empty exception range");
    if (e.catch_type != 0) {
      const CpEntry* c = parsed_entry(e.catch_type);
      if (c == nullptr || c->tag != CpTag::kClass) {
        return Error::at_code(e.handler_pc, "exception handler's catch_type #" +
                                                std::to_string(e.catch_type) +
                                                " is not a Class entry");
      }
    }
    if (auto s = mark(e.start_pc, false, "exception range start"); !s) return s;
    if (auto s = mark(e.end_pc, true, "exception range end"); !s) return s;
    if (auto s = mark(e.handler_pc, false, "exception handler"); !s) return s;
  }
  for (const auto& l : t_.lines) {
    if (auto s = mark(l.start_pc, false, "line number"); !s) return s;
  }
  if (auto s = mark_local_vars(t_.locals, "local variable range"); !s) return s;
  if (auto s = mark_local_vars(t_.local_types, "local variable type range"); !s) return s;
  if (auto s = check_local_vars(t_.locals, false); !s) return s;
  if (auto s = check_local_vars(t_.local_types, true); !s) return s;
  for (const auto& f : t_.frames) {
    if (auto s = mark(f.offset, false, "stack map frame"); !s) return s;
    if (auto s = mark_frame_types(f.frame); !s) return s;
  }
  for (const auto* list : {&t_.visible, &t_.invisible}) {
    for (const auto& a : *list) {
      if (auto s = mark_type_annotation(a); !s) return s;
    }
  }
  return Ok{};
}

// From version 51 HotSpot refuses a frame whose locals need more slots than max_locals or
// whose stack needs more than max_stack ("StackMapTable format error: bad type array size";
// version 50 falls back to the old verifier instead). Rewritten code would carry the frame
// into methods that use the slots it names, so such a method is refused here.
Status Builder::check_frame_sizes() const {
  if (m_.major_version < 51) return Ok{};
  for (const auto& f : t_.frames) {
    uint32_t locals = slot_count(f.frame.locals), stack = slot_count(f.frame.stack);
    if (locals > code_.max_locals) {
      return Error::at_code(f.offset, "StackMapTable frame holds " + std::to_string(locals) +
                                          " local slots, past max_locals " +
                                          std::to_string(code_.max_locals));
    }
    if (stack > code_.max_stack) {
      return Error::at_code(f.offset, "StackMapTable frame holds " + std::to_string(stack) +
                                          " stack slots, past max_stack " +
                                          std::to_string(code_.max_stack));
    }
  }
  return Ok{};
}

// Ids follow offsets, so labels read in code order in disassembly and tests. Every marked
// offset is an instruction start or the end of the code.
void Builder::assign_labels() {
  ir_.labels.resize(wanted_);
  LabelId next = 0;
  auto assign = [&](uint32_t off) {
    if (label_at_[off] != kWanted) return;
    ir_.labels[next].original_offset = static_cast<int32_t>(off);
    label_at_[off] = next++;
  };
  for (size_t i = 0; i < count_; ++i) assign(static_cast<uint32_t>(decoded_[i].original_offset));
  assign(len_);
}

// Copies the instructions into the IR, each label just before the instruction at its offset;
// targets become label ids on the way. The vector is sized once, exactly.
void Builder::place_labels() {
  auto& insns = ir_.insns;
  insns.resize(count_ + ir_.labels.size());
  Insn* out = insns.data();
  const LabelId* at = label_at_.data();
  const Insn* in = decoded_.data();
  for (size_t i = 0; i < count_; ++i) {
    const Insn& d = in[i];
    LabelId here = at[d.original_offset];
    if (here != kNoLabel) *out++ = Insn::make_label(here);
    *out = d;
    if (d.target != kNoLabel) out->target = at[d.target];
    ++out;
  }
  if (at[len_] != kNoLabel) *out = Insn::make_label(at[len_]);
  for (auto& table : ir_.switches) {
    for (LabelId& t : table.targets) t = at[t];
  }
}

void Builder::resolve_local_vars(const std::vector<LocalVariableEntry>& in,
                                 std::vector<LocalVar>& out) {
  out.reserve(in.size());
  for (const auto& v : in) {
    out.push_back(LocalVar{at(v.start_pc), at(v.start_pc + v.length), v.name_index,
                           v.descriptor_index, v.index});
  }
}

void Builder::resolve_frame_types(Frame& f) {
  for (std::span<VType> list : f.lists()) {
    for (VType& v : list) {
      if (v.tag == VTag::kUninitialized) v.data = at(v.data);
    }
  }
}

void Builder::resolve_type_annotations(std::vector<CodeTypeAnnotation>& in,
                                       std::vector<CodeTypeAnnotationIR>& out) {
  out.reserve(in.size());
  for (auto& a : in) {
    CodeTypeAnnotationIR ann;
    if (is_type_annotation_localvar(a.target_type)) {
      for (const auto& r : a.ranges)
        ann.ranges.emplace_back(at(r.start_pc), at(r.start_pc + r.length));
    } else if (is_type_annotation_insn(a.target_type)) {
      ann.insn = at(a.offset);
    }
    ann.raw = std::move(a);
    out.push_back(std::move(ann));
  }
}

void Builder::resolve_tables() {
  ir_.try_catches.reserve(code_.exception_table.size());
  for (const auto& e : code_.exception_table) {
    ir_.try_catches.push_back(
        TryCatch{at(e.start_pc), at(e.end_pc), at(e.handler_pc), e.catch_type});
  }
  ir_.line_numbers.reserve(t_.lines.size());
  for (const auto& l : t_.lines) ir_.line_numbers.push_back(LineNumber{at(l.start_pc), l.line});
  resolve_local_vars(t_.locals, ir_.local_variables);
  resolve_local_vars(t_.local_types, ir_.local_variable_types);
  for (auto& f : t_.frames) {
    resolve_frame_types(f.frame);
    ir_.labels[at(f.offset)].frame = std::move(f.frame);
  }
  resolve_type_annotations(t_.visible, ir_.visible_type_annotations);
  resolve_type_annotations(t_.invisible, ir_.invisible_type_annotations);
}

Status Builder::decode_frames(const Attribute& a) {
  if (ir_.had_stack_map_table) return Error::at_code(-1, "more than one StackMapTable");
  ir_.had_stack_map_table = true;
  auto initial =
      initial_frame_ref(cf_.pool, m_.class_name, m_.method_name, m_.descriptor, m_.access_flags);
  if (!initial) return initial.error();
  if (auto s = decode_stack_map_table_into(a.data, *initial.value(), t_.frames); !s) return s;
  for (const OffsetFrame& f : t_.frames) {
    if (const VType* bad = bad_frame_class(f.frame, cf_.pool, m_.pool_limit, *initial.value())) {
      return Error::at_code(f.offset, "StackMapTable frame names pool #" +
                                          std::to_string(bad->data) + ", not a Class entry");
    }
  }
  return Ok{};
}

Status Builder::decode_type_annotations(const Attribute& a, std::vector<CodeTypeAnnotation>& out) {
  auto annos = decode_code_type_annotations(a.data);
  if (!annos) return annos.error();
  for (auto& x : annos.value()) out.push_back(std::move(x));
  return Ok{};
}

Status Builder::decode_tables() {
  for (const Attribute& a : code_.attributes) {
    // The JVM refuses a bad name (ClassFormatError); the assembler would drop the attribute.
    if (!is_parsed_utf8(a.name_index)) {
      size_t body = cf_.file_offset_of(a.data);
      std::string why =
          "Code attribute name #" + std::to_string(a.name_index) + " is not a Utf8 entry";
      return body >= 6 ? Error::at_file(static_cast<int64_t>(body - 6), std::move(why))
                       : Error::plain(std::move(why));
    }
    std::string_view name = cf_.attribute_name(a);
    Status s = Ok{};
    if (name == "LineNumberTable") {
      s = append_line_numbers(a.data, t_.lines);
    } else if (name == "LocalVariableTable") {
      s = append_local_variables(a.data, t_.locals);
    } else if (name == "LocalVariableTypeTable") {
      s = append_local_variables(a.data, t_.local_types);
    } else if (name == "StackMapTable" && m_.major_version >= 50) {
      // Before version 50 the JVM ignores this attribute, so it is carried as unknown.
      s = decode_frames(a);
    } else if (name == "RuntimeVisibleTypeAnnotations") {
      s = decode_type_annotations(a, t_.visible);
    } else if (name == "RuntimeInvisibleTypeAnnotations") {
      s = decode_type_annotations(a, t_.invisible);
    } else {
      // Kept past this call: the view needs the Code attribute's owner.
      Attribute& kept = ir_.unknown_attributes.emplace_back(a);
      kept.owned = attr_.owned;
    }
    if (!s) return s;
  }
  return Ok{};
}

Result<CodeIR> Builder::run() {
  if (auto s = decode_code_into(attr_, code_); !s) return s.error();
  len_ = static_cast<uint32_t>(code_.code.size());
  ir_.max_stack = code_.max_stack;
  ir_.max_locals = code_.max_locals;
  t_.clear();
  if (auto s = decode_instructions(); !s) return s.error();
  if (auto s = check_operands(); !s) return s.error();
  if (auto s = decode_tables(); !s) return s.error();
  label_at_.assign(len_ + 1, kNoLabel);
  if (auto s = mark_branches(); !s) return s.error();
  if (auto s = mark_tables(); !s) return s.error();
  if (auto s = check_required_frames(); !s) return s.error();
  if (auto s = check_frame_sizes(); !s) return s.error();
  assign_labels();
  place_labels();
  resolve_tables();
  return std::move(ir_);
}

}  // namespace

Result<CodeIR> build_code_ir_checked(ClassFile& cf, const Member& method, CodeSource source) {
  MethodRef m = MethodRef::of(cf, method, source);
  auto fail = [&](Error e) {
    return std::move(e.in(m.class_name, std::string(m.method_name) + std::string(m.descriptor)));
  };
  const Attribute* attr = cf.find_attribute(method.attributes, "Code");
  if (attr == nullptr) return fail(Error::plain("method has no Code attribute"));
  Builder builder(cf, m, *attr, scratch());
  auto ir = builder.run();
  if (!ir) return fail(ir.error());
  return ir;
}

}  // namespace duplex
