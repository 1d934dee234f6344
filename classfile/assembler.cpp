// Lays a CodeIR out as a Code attribute.
//
// Layout: one pass over the instructions sizes each one from its operands (wide prefix,
// ldc_w), assigns offsets (switch padding follows from the offset), places the labels and
// records what the later steps need, so that they need not walk the instructions again:
// where each label stands, the runs of consecutive labels (a frame describes a run), the
// short branches and the instructions with targets. Short branches whose displacement does
// not fit s2 are widened and the offsets recomputed; widening only ever turns on, so the loop
// ends after at most one pass per branch, and code under 32 KiB needs no check at all.
//
// max_stack comes from a walk over the code (stack_depth.h) that reuses the label positions.
//
// Frames: when the class needs a StackMapTable, label runs that need a frame (branch
// targets, handlers, code after an unconditional transfer or a relaxed conditional) but have
// none get one from compute_missing_frames. Labels are added to the IR where such a position
// has none, because frames live on labels.
//
// All per-instruction state is kept in flat per-thread vectors parallel to CodeIR::insns.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "classfile/assembler.h"
#include "classfile/attributes.h"
#include "classfile/bytes.h"
#include "classfile/frames.h"
#include "classfile/opcodes.h"
#include "classfile/scratch.h"
#include "classfile/stack_depth.h"

namespace duplex {
namespace {

constexpr uint32_t kMaxCodeLength = 65535;
constexpr int32_t kUnplaced = -1;

// Extra bytes a widened short branch takes: goto/jsr -> goto_w/jsr_w, and a conditional
// becomes `if<!cond> +8; goto_w target`.
uint32_t widening_growth(uint8_t opcode) {
  return is_conditional_branch(opcode) ? 5 : 2;
}

uint32_t switch_padding(int64_t offset) {
  return static_cast<uint32_t>((4 - (offset + 1) % 4) % 4);
}

bool in_range(int64_t v, int64_t lo, int64_t hi) {
  return v >= lo && v <= hi;
}

uint8_t opcode_of(const Insn& insn) {
  return static_cast<uint8_t>(insn.opcode);
}

int32_t clamp_offset(int64_t off) {
  return static_cast<int32_t>(std::min<int64_t>(off, INT32_MAX));
}

// Writes bytecode into space already sized by layout: the exact length is known, so the
// writes need no bounds checks, and the position stays in a register rather than being
// reloaded after every byte store (bytes alias everything).
struct CodeWriter {
  uint8_t* p;
  void u1(uint32_t v) { *p++ = static_cast<uint8_t>(v); }
  void u2(uint32_t v) {
    p[0] = static_cast<uint8_t>(v >> 8);
    p[1] = static_cast<uint8_t>(v);
    p += 2;
  }
  void u4(uint32_t v) {
    u2(v >> 16);
    u2(v & 0xFFFF);
  }
};

// The final tables, in offsets, gathered before anything is written.
struct Tables {
  std::vector<ExceptionTableEntry> exceptions;
  std::vector<int32_t> exception_index;  // by TryCatch: index in `exceptions`, -1 if dropped
  std::vector<LineNumberEntry> lines;
  std::vector<LocalVariableEntry> locals;
  std::vector<LocalVariableEntry> local_types;
  ByteWriter stack_map;
  std::vector<uint8_t> visible_annotations;
  std::vector<uint8_t> invisible_annotations;

  void clear() {
    exceptions.clear();
    exception_index.clear();
    lines.clear();
    locals.clear();
    local_types.clear();
    stack_map.clear();
    visible_annotations.clear();
    invisible_annotations.clear();
  }
};

// Attribute names, looked up in the pool through a per-thread cache (see name_index).
enum NameSlot : uint8_t {
  kLineNumberTable,
  kLocalVariableTable,
  kLocalVariableTypeTable,
  kStackMapTable,
  kVisibleTypeAnnotations,
  kInvisibleTypeAnnotations,
  kNameSlots,
};
constexpr std::string_view kNames[kNameSlots] = {"LineNumberTable",
                                                 "LocalVariableTable",
                                                 "LocalVariableTypeTable",
                                                 "StackMapTable",
                                                 "RuntimeVisibleTypeAnnotations",
                                                 "RuntimeInvisibleTypeAnnotations"};

// The slot whose name has this length (the names' lengths all differ), or -1.
struct SlotByLength {
  int8_t slot[32];
  constexpr SlotByLength() : slot{} {
    for (auto& s : slot) s = -1;
    for (int i = 0; i < kNameSlots; ++i) slot[kNames[i].size()] = static_cast<int8_t>(i);
  }
};
constexpr SlotByLength kSlotByLength;

// The attribute names' indices in the last pool seen on this thread, found by one scan of
// the pool per class (the first Utf8 of each name, 0 when absent), since every method of a
// class asks for the same few names.
struct NameCache {
  uint64_t pool_id = 0;
  uint16_t index[kNameSlots] = {};

  void scan(const ConstantPool& pool) {
    pool_id = pool.id();
    std::fill(std::begin(index), std::end(index), uint16_t{0});
    for (uint32_t i = 1; i < pool.count(); ++i) {
      const CpEntry* e = pool.entry(i);
      if (e == nullptr || e->tag != CpTag::kUtf8 || e->utf8.size() >= 32) continue;
      int slot = kSlotByLength.slot[e->utf8.size()];
      if (slot >= 0 && index[slot] == 0 && e->utf8 == kNames[slot]) {
        index[slot] = static_cast<uint16_t>(i);
      }
    }
  }
};

Result<uint16_t> name_index(ConstantPool& pool, NameSlot slot) {
  thread_local NameCache cache;
  if (cache.pool_id != pool.id()) cache.scan(pool);
  if (cache.index[slot] != 0) return cache.index[slot];
  auto added = pool.add_utf8(kNames[slot]);
  if (added) cache.index[slot] = added.value();
  return added;
}

// A run of consecutive labels in the instruction list: they stand at one offset, and a frame
// there describes them all.
struct LabelRun {
  uint32_t first = 0;           // index of the first label
  uint32_t end = 0;             // one past the last label: the instruction they stand before
  bool after_transfer = false;  // follows an instruction after which control cannot fall
};

// Per-thread buffers reused across methods: assembling runs on every method of large jars, and
// these would otherwise be a handful of allocations per method. Nothing survives between
// calls except capacity.
struct Scratch {
  std::vector<uint32_t> size;
  std::vector<uint8_t> widened;
  std::vector<uint32_t> short_branches;
  std::vector<uint32_t> targeted;
  std::vector<uint32_t> label_pos;
  std::vector<LabelRun> runs;
  std::vector<size_t> insert_at;
  std::vector<uint8_t> need_frame;
  std::vector<FrameAt> frames;
  std::vector<Frame> relocated;  // copies of frames holding Uninitialized types
  std::vector<LabelId> missing;
  std::vector<CodeTypeAnnotation> annotations;
  std::vector<uint8_t> code;  // the bytecode, written as layout goes
  Tables tables;
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// Scratch sized by the largest method a thread assembled is let go after a rare huge one
// (see code_ir_builder.cpp's trim).
[[gnu::noinline]] void trim(Scratch& s) {
  constexpr size_t kKeep = 256 * 1024;
  if (s.size.capacity() * sizeof(uint32_t) > kKeep) s.size = {};
  if (s.widened.capacity() > kKeep) s.widened = {};
  if (s.label_pos.capacity() * sizeof(uint32_t) > kKeep) s.label_pos = {};
  if (s.runs.capacity() * sizeof(LabelRun) > kKeep) s.runs = {};
}

// The method being assembled. `context` is the caller's MethodContext if it has one; a
// MethodContext is only built when one is needed (frame computation), since it copies the
// names.
struct MethodNames {
  std::string_view class_name;
  std::string_view method_name;
  std::string_view descriptor;
  uint16_t access_flags = 0;
  uint16_t major_version = 0;
  const MethodContext* context = nullptr;
};

// Spares for AssembledCode's offset tables, which outlive the assembler (see ~AssembledCode).
using OffsetSpares = scratch::PerThread<scratch::SpareStack<int32_t>>;
// The Code attribute's body is copied into its class (ClassFile::set_attribute_data), so its
// buffer goes back to the thread when the result is destroyed, as the offset tables do.
using BodySpares = scratch::PerThread<scratch::SpareStack<uint8_t>>;

class Assembler {
 public:
  Assembler(CodeIR& ir, ConstantPool& pool, const MethodNames& m) : ir_(ir), pool_(pool), m_(m) {
    if (auto* s = OffsetSpares::get()) {
      s->take(offset_);
      s->take(label_offset_);
    }
  }
  Result<AssembledCode> run();

 private:
  // Layout.
  Status layout();
  Status size_and_place();
  Status place_label(const Insn& insn, size_t index, int64_t off);
  struct Placed {
    uint32_t size;     // without switch padding
    uint32_t padding;  // switch padding
  };
  Result<Placed> place_slow(Insn& insn, size_t i, int64_t off);
  Result<uint32_t> base_size(const Insn& insn, size_t index);
  Result<uint32_t> local_size(const Insn& insn, size_t index);
  Result<uint32_t> switch_size(const Insn& insn, size_t index);
  Status fix_invokeinterface_count(Insn& insn, size_t index);
  Status check_label(LabelId id, const Insn& insn, size_t index);
  void record_sizes();
  void place();
  Status check_targets_placed() const;
  bool widen();
  Error insn_error(const Insn& insn, size_t index, std::string reason) const;

  // Frames.
  bool wants_frames() const;
  bool original_code_branches() const;
  void insert_labels_before(const std::vector<size_t>& positions);
  bool label_trampolines();
  void mark_frame_needs();
  Status gather_frames(std::vector<LabelId>* missing, std::vector<FrameAt>* out);
  Status frame_group(const LabelRun& run, std::vector<LabelId>* missing, std::vector<FrameAt>* out);
  Result<const Frame*> relocated(const Frame& frame);
  Status relocate_frame(Frame& frame) const;
  Status compute_frames(const std::vector<LabelId>& missing);
  Status build_stack_map(Tables& t);

  // Tables.
  int32_t offset_of(LabelId id) const {
    return id < label_offset_.size() ? label_offset_[id] : kUnplaced;
  }
  Status build_exceptions(Tables& t);
  Status build_lines(Tables& t);
  Status build_locals(const std::vector<LocalVar>& in, std::vector<LocalVariableEntry>& out,
                      const char* what);
  void build_annotations(const Tables& t, const std::vector<CodeTypeAnnotationIR>& in,
                         std::vector<uint8_t>& out, const char* what);
  bool relocate_annotation(const Tables& t, const CodeTypeAnnotationIR& in,
                           CodeTypeAnnotation& out) const;

  // Output.
  void emit_code(CodeWriter& w) const;
  void emit_insn(CodeWriter& w, const Insn& insn, size_t index) const;
  void emit_branch(CodeWriter& w, const Insn& insn, size_t index, int32_t disp) const;
  void emit_local(CodeWriter& w, const Insn& insn, uint32_t size) const;
  void emit_plain(CodeWriter& w, const Insn& insn) const;
  void emit_unresolved(CodeWriter& w, const Insn& insn, uint32_t size) const;
  void emit_unresolved_switch(CodeWriter& w, const Insn& insn) const;
  void resolve_targets();
  void emit_switch(CodeWriter& w, const Insn& insn, size_t index) const;
  Status attribute_header(ByteWriter& w, int slot, size_t length);
  Status write_locals(ByteWriter& w, int slot, const std::vector<LocalVariableEntry>& vars);
  Status write_tables(ByteWriter& w, const Tables& t, uint32_t& count);
  Status write_all(const Tables& t, uint16_t max_stack, AssembledCode& out);

  CodeIR& ir_;
  ConstantPool& pool_;
  const MethodNames& m_;
  Scratch& scratch_ = scratch();
  // By insn: bytes without padding or widening; only for code past 32 KiB (record_sizes).
  std::vector<uint32_t>& size_ = scratch_.size;
  std::vector<uint8_t>& widened_ = scratch_.widened;  // by insn: short branch in its long form
  std::vector<int32_t> offset_;                       // by insn: bytecode offset, -1 for labels
  std::vector<int32_t> label_offset_;                 // by label
  std::vector<uint32_t>& label_pos_ = scratch_.label_pos;  // by label: index in insns
  std::vector<LabelRun>& runs_ = scratch_.runs;            // in code order
  std::vector<size_t>& insert_at_ = scratch_.insert_at;    // transfers followed by no label
  std::vector<uint32_t>& short_branches_ = scratch_.short_branches;  // branches with s2 offsets
  std::vector<uint32_t>& targeted_ = scratch_.targeted;     // branches and switches, by insn index
  std::vector<uint8_t>& need_frame_ = scratch_.need_frame;  // by label
  bool frames_ = false;                                     // the class needs a StackMapTable
  bool emitted_ = false;  // scratch_.code holds the final bytecode (see layout)
  int64_t length_ = 0;
  size_t relocated_used_ = 0;  // entries of scratch_.relocated filled for this method
  std::vector<std::string> notes_;
};

Error Assembler::insn_error(const Insn& insn, size_t index, std::string reason) const {
  if (insn.original_offset < 0) reason += " (inserted instruction #" + std::to_string(index) + ")";
  return Error::at_code(insn.original_offset, std::move(reason));
}

Status Assembler::check_label(LabelId id, const Insn& insn, size_t index) {
  if (id >= ir_.labels.size()) return insn_error(insn, index, "branch to an unknown label");
  return Ok{};
}

Result<uint32_t> Assembler::local_size(const Insn& insn, size_t index) {
  if (!in_range(insn.a, 0, 65535)) return insn_error(insn, index, "local index out of range");
  if (opcode_info(opcode_of(insn)).shape == OperandShape::kLocal) {
    return (insn.wide || insn.a > 255) ? 4u : 2u;
  }
  if (!in_range(insn.b, -32768, 32767)) return insn_error(insn, index, "iinc increment too big");
  bool wide = insn.wide || insn.a > 255 || !in_range(insn.b, -128, 127);
  return wide ? 6u : 3u;
}

Result<uint32_t> Assembler::switch_size(const Insn& insn, size_t index) {
  if (insn.switch_index >= ir_.switches.size()) {
    return insn_error(insn, index, "switch names a missing table");
  }
  if (auto s = check_label(insn.target, insn, index); !s) return s.error();
  const SwitchTable& t = ir_.switches[insn.switch_index];
  for (LabelId id : t.targets) {
    if (auto s = check_label(id, insn, index); !s) return s.error();
  }
  uint64_t n = t.targets.size();
  if (insn.opcode == op::kTableswitch) {
    if (n == 0 || t.low + static_cast<int64_t>(n) - 1 > INT32_MAX) {
      return insn_error(insn, index, "tableswitch with a bad key range");
    }
    return static_cast<uint32_t>(std::min<uint64_t>(13 + 4 * n, UINT32_MAX / 2));
  }
  if (t.keys.size() != n) return insn_error(insn, index, "lookupswitch keys and targets differ");
  for (size_t k = 1; k < n; ++k) {
    if (t.keys[k - 1] >= t.keys[k]) {
      return insn_error(insn, index, "lookupswitch keys are not strictly increasing");
    }
  }
  return static_cast<uint32_t>(std::min<uint64_t>(9 + 8 * n, UINT32_MAX / 2));
}

// The count operand is redundant with the descriptor, so inserted code may leave it 0.
Status Assembler::fix_invokeinterface_count(Insn& insn, size_t index) {
  if (insn.b == 0) {
    auto m = pool_.member_ref(static_cast<uint32_t>(insn.a));
    int slots = m ? parameter_slots(m->descriptor) : -1;
    if (slots < 0) return insn_error(insn, index, "invokeinterface names a bad method");
    insn.b = slots + 1;
  }
  if (!in_range(insn.b, 1, 255)) return insn_error(insn, index, "invokeinterface count");
  return Ok{};
}

Result<uint32_t> Assembler::base_size(const Insn& insn, size_t index) {
  if (insn.is_label()) return 0u;
  const OpcodeInfo& info = opcode_info(opcode_of(insn));
  if (insn.opcode > 0xFF) return insn_error(insn, index, "opcode out of range");
  bool pool_ok = in_range(insn.a, 1, 65535);
  switch (info.shape) {
    case OperandShape::kNone:
      return 1u;
    case OperandShape::kByte:
      if (insn.opcode == op::kBipush ? !in_range(insn.a, -128, 127) : !in_range(insn.a, 0, 255))
        return insn_error(insn, index, "byte operand out of range");
      return 2u;
    case OperandShape::kShort:
      if (!in_range(insn.a, -32768, 32767)) return insn_error(insn, index, "sipush operand");
      return 3u;
    case OperandShape::kLocal:
    case OperandShape::kIinc:
      return local_size(insn, index);
    case OperandShape::kCpByte:
      if (!pool_ok) return insn_error(insn, index, "pool index out of range");
      return insn.a > 255 ? 3u : 2u;  // written as ldc_w
    case OperandShape::kCp:
    case OperandShape::kInvokeInterface:
    case OperandShape::kInvokeDynamic:
    case OperandShape::kMultiANewArray:
      if (!pool_ok) return insn_error(insn, index, "pool index out of range");
      if (info.shape == OperandShape::kMultiANewArray && !in_range(insn.b, 1, 255))
        return insn_error(insn, index, "multianewarray dimensions out of range");
      return info.length;
    case OperandShape::kBranch:
    case OperandShape::kBranchWide:
      if (auto s = check_label(insn.target, insn, index); !s) return s.error();
      return info.length;
    case OperandShape::kTableSwitch:
    case OperandShape::kLookupSwitch:
      return switch_size(insn, index);
    case OperandShape::kWide:
    case OperandShape::kInvalid:
      break;
  }
  return insn_error(insn, index, "opcode " + std::to_string(insn.opcode) + " cannot be assembled");
}

// Sizes every instruction and places it at the offset the short forms give, checking labels
// on the way: one pass, since an offset depends only on the instructions before it. It also
// records the label positions and runs, the branches, and (when frames are wanted) the
// transfers of control that no label follows.
// How layout sizes and writes an opcode's common form, in one look-up.
enum LayoutClass : uint8_t {
  kLayoutNone,    // the opcode alone
  kLayoutLocal,   // u1 local index
  kLayoutCp,      // u2 pool index
  kLayoutLdc,     // ldc: u1 index, or ldc_w for a larger one
  kLayoutByte,    // newarray's u1
  kLayoutBipush,  // s1
  kLayoutShort,   // sipush's s2
  kLayoutIinc,
  kLayoutBranch,  // s2 displacement
  kLayoutSlow,    // everything else: base_size and emit_unresolved
};

struct LayoutTable {
  LayoutClass cls[256];
  bool ends[256];  // ends_block
  LayoutTable() {
    for (int o = 0; o < 256; ++o) {
      auto u = static_cast<uint8_t>(o);
      ends[o] = ends_block(u);
      switch (opcode_info(u).shape) {
        case OperandShape::kNone:
          cls[o] = kLayoutNone;
          break;
        case OperandShape::kLocal:
          cls[o] = kLayoutLocal;
          break;
        case OperandShape::kCp:
          cls[o] = kLayoutCp;
          break;
        case OperandShape::kCpByte:
          cls[o] = kLayoutLdc;
          break;
        case OperandShape::kByte:
          cls[o] = u == op::kBipush ? kLayoutBipush : kLayoutByte;
          break;
        case OperandShape::kShort:
          cls[o] = kLayoutShort;
          break;
        case OperandShape::kIinc:
          cls[o] = kLayoutIinc;
          break;
        case OperandShape::kBranch:
          cls[o] = kLayoutBranch;
          break;
        default:
          cls[o] = kLayoutSlow;
          break;
      }
    }
  }
};
const LayoutTable kLayout;  // from the constant-initialised opcode table

Status Assembler::size_and_place() {
  size_t n = ir_.insns.size();
  widened_.assign(n, 0);
  offset_.resize(n);
  label_offset_.assign(ir_.labels.size(), kUnplaced);
  label_pos_.assign(ir_.labels.size(), UINT32_MAX);
  runs_.clear();
  insert_at_.clear();
  short_branches_.clear();
  targeted_.clear();
  // Sized for the common forms (at most 3 bytes each); place_slow grows it for the others.
  std::vector<uint8_t>& code = scratch_.code;
  size_t room = std::min<size_t>(3 * n + 16, kMaxCodeLength + 1);
  if (code.size() < room) code.resize(room);
  // Locals only: the stores below are to bytes, which the compiler would otherwise assume
  // might change any member.
  Insn* insns = ir_.insns.data();
  int32_t* offsets = offset_.data();
  uint8_t* out = code.data();
  size_t code_room = code.size();  // bytes `out` may take
  const size_t label_count = ir_.labels.size();
  int64_t off = 0;
  bool transfer = false;  // the last instruction cannot fall through
  const bool frames = frames_;
  int32_t* label_offsets = label_offset_.data();
  uint32_t* label_pos = label_pos_.data();
  LabelRun* last_run = nullptr;
  for (size_t i = 0; i < n; ++i) {
    Insn& insn = insns[i];
    uint32_t o = insn.opcode;
    if (o == Insn::kLabel) {
      LabelId id = insn.label();
      if (id >= label_count || label_offsets[id] != kUnplaced) {
        return place_label(insn, i, off);  // the error
      }
      label_offsets[id] = clamp_offset(off);
      label_pos[id] = static_cast<uint32_t>(i);
      offsets[i] = kUnplaced;
      // Consecutive labels form one run: a frame there describes them all.
      if (last_run != nullptr && last_run->end == i) {
        last_run->end = static_cast<uint32_t>(i + 1);
      } else {
        auto at = static_cast<uint32_t>(i);
        last_run = &runs_.emplace_back(LabelRun{at, at + 1, transfer});
      }
      transfer = false;
      continue;
    }
    if (transfer && frames) insert_at_.push_back(i);
    offsets[i] = clamp_offset(off);
    // The common forms, written straight away when they fit below the limit (code past it
    // fails after layout anyway, so it need not be written).
    uint8_t* p = out + off;
    LayoutClass cls = o > 0xFF || insn.wide || off + 3 > static_cast<int64_t>(code_room)
                          ? kLayoutSlow
                          : kLayout.cls[o];
    int32_t a = insn.a;
    uint32_t size = 0;
    switch (cls) {
      case kLayoutNone:
        p[0] = static_cast<uint8_t>(o);
        size = 1;
        break;
      case kLayoutLocal:
      case kLayoutByte:
        if (!in_range(a, 0, 255)) break;
        p[0] = static_cast<uint8_t>(o);
        p[1] = static_cast<uint8_t>(a);
        size = 2;
        break;
      case kLayoutBipush:
        if (!in_range(a, -128, 127)) break;
        p[0] = static_cast<uint8_t>(o);
        p[1] = static_cast<uint8_t>(a);
        size = 2;
        break;
      case kLayoutLdc:
        if (in_range(a, 1, 255)) {
          p[0] = static_cast<uint8_t>(o);
          p[1] = static_cast<uint8_t>(a);
          size = 2;
          break;
        }
        if (!in_range(a, 256, 65535)) break;
        o = op::kLdcW;
        [[fallthrough]];
      case kLayoutCp:
        if (!in_range(a, 1, 65535)) break;
        p[0] = static_cast<uint8_t>(o);
        p[1] = static_cast<uint8_t>(a >> 8);
        p[2] = static_cast<uint8_t>(a);
        size = 3;
        break;
      case kLayoutShort:
        if (!in_range(a, -32768, 32767)) break;
        p[0] = static_cast<uint8_t>(o);
        p[1] = static_cast<uint8_t>(a >> 8);
        p[2] = static_cast<uint8_t>(a);
        size = 3;
        break;
      case kLayoutIinc:
        if (!in_range(a, 0, 255) || !in_range(insn.b, -128, 127)) break;
        p[0] = static_cast<uint8_t>(o);
        p[1] = static_cast<uint8_t>(a);
        p[2] = static_cast<uint8_t>(insn.b);
        size = 3;
        break;
      case kLayoutBranch:
        if (insn.target >= label_count) break;
        p[0] = static_cast<uint8_t>(o);
        p[1] = p[2] = 0;  // resolve_targets writes the displacement
        size = 3;
        short_branches_.push_back(static_cast<uint32_t>(i));
        targeted_.push_back(static_cast<uint32_t>(i));
        break;
      case kLayoutSlow:
        break;
    }
    if (size == 0) {
      auto placed = place_slow(insn, i, off);
      if (!placed) return placed.error();
      size = placed->size + placed->padding;
      out = code.data();  // place_slow may have grown the buffer
      code_room = code.size();
    }
    off += size;
    transfer = kLayout.ends[o & 0xFF];
  }
  length_ = off;
  return Ok{};
}

// size_and_place for the forms without a quick path: sizes (and checks) the instruction and
// writes it (short form, targets unresolved).
Result<Assembler::Placed> Assembler::place_slow(Insn& insn, size_t i, int64_t off) {
  if (insn.opcode == op::kInvokeinterface) {
    if (auto s = fix_invokeinterface_count(insn, i); !s) return s.error();
  }
  auto checked = base_size(insn, i);
  if (!checked) return checked.error();
  uint32_t size = checked.value();
  uint8_t o = opcode_of(insn);
  OperandShape shape = opcode_info(o).shape;
  uint32_t padding = 0;
  if (shape == OperandShape::kBranch) {
    short_branches_.push_back(static_cast<uint32_t>(i));
    targeted_.push_back(static_cast<uint32_t>(i));
  } else if (shape == OperandShape::kTableSwitch || shape == OperandShape::kLookupSwitch) {
    padding = switch_padding(off);
    targeted_.push_back(static_cast<uint32_t>(i));
  } else if (shape == OperandShape::kBranchWide) {
    targeted_.push_back(static_cast<uint32_t>(i));
  }
  if (off + size + padding <= kMaxCodeLength) {
    std::vector<uint8_t>& code = scratch_.code;
    size_t end = static_cast<size_t>(off) + size + padding;
    // Room for this one, and for the common forms after it.
    if (end + 16 > code.size()) code.resize(std::min<size_t>(2 * end + 16, kMaxCodeLength + 16));
    CodeWriter w{code.data() + off};
    emit_unresolved(w, insn, size);
  }
  return Placed{size, padding};
}

Status Assembler::place_label(const Insn& insn, size_t index, int64_t off) {
  if (insn.label() >= ir_.labels.size()) return insn_error(insn, index, "unknown label placed");
  int32_t& at = label_offset_[insn.label()];
  if (at != kUnplaced) {
    return Error::plain("label L" + std::to_string(insn.label()) + " is placed twice");
  }
  at = clamp_offset(off);
  label_pos_[insn.label()] = static_cast<uint32_t>(index);
  return Ok{};
}

// Offsets again under the current widening decisions (labels are known to be sound).
void Assembler::place() {
  int64_t off = 0;
  for (size_t i = 0; i < ir_.insns.size(); ++i) {
    const Insn& insn = ir_.insns[i];
    if (insn.is_label()) {
      label_offset_[insn.label()] = clamp_offset(off);
      continue;
    }
    offset_[i] = clamp_offset(off);
    off += size_[i];
    if (is_switch(opcode_of(insn))) off += switch_padding(offset_[i]);
    if (widened_[i]) off += widening_growth(opcode_of(insn));
  }
  length_ = off;
}

Status Assembler::check_targets_placed() const {
  for (uint32_t i : targeted_) {
    const Insn& insn = ir_.insns[i];
    bool placed = label_offset_[insn.target] != kUnplaced;
    if (placed && is_switch(opcode_of(insn))) {
      for (LabelId t : ir_.switches[insn.switch_index].targets) {
        placed = placed && label_offset_[t] != kUnplaced;
      }
    }
    if (!placed) return insn_error(insn, i, "branch to a label that is never placed");
  }
  return Ok{};
}

bool Assembler::widen() {
  bool changed = false;
  for (uint32_t i : short_branches_) {
    if (widened_[i]) continue;
    int64_t d = int64_t{label_offset_[ir_.insns[i].target]} - offset_[i];
    if (!in_range(d, -32768, 32767)) {
      widened_[i] = 1;
      changed = true;
    }
  }
  return changed;
}

// The verifier wants a frame on any instruction that follows an unconditional transfer, and
// frames live on labels: such an instruction with no label before it gets one, and the
// layout is redone (labels take no bytes, but every index after them moves).
Status Assembler::layout() {
  Status placed = size_and_place();
  // Even when placing failed: an error names instructions by their index after the insertion.
  if (!insert_at_.empty()) {
    insert_labels_before(insert_at_);
    placed = size_and_place();
  }
  if (!placed) return placed;
  if (auto s = check_targets_placed(); !s) return s;
  // Below 32 KiB every displacement fits s2, so the code written by size_and_place only needs
  // its targets; above 64 KiB the code fails anyway.
  emitted_ = length_ < 32768;
  if (emitted_) {
    resolve_targets();
    return Ok{};
  }
  record_sizes();
  while (length_ <= kMaxCodeLength && widen()) place();
  return Ok{};
}

// Sizes by instruction (short forms, no padding), which only code past 32 KiB needs: its
// layout widens branches and is emitted from the IR. size_and_place checked every instruction
// already, so base_size cannot fail here.
void Assembler::record_sizes() {
  size_t n = ir_.insns.size();
  size_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    auto size = base_size(ir_.insns[i], i);
    size_[i] = size ? size.value() : 0;
  }
}

// Writes the displacements size_and_place left as zeros.
void Assembler::resolve_targets() {
  uint8_t* code = scratch_.code.data();
  const int32_t* labels = label_offset_.data();
  for (uint32_t i : targeted_) {
    const Insn& insn = ir_.insns[i];
    int32_t at = offset_[i];
    CodeWriter w{code + at + 1};
    int32_t disp = labels[insn.target] - at;
    OperandShape shape = opcode_info(opcode_of(insn)).shape;
    if (shape == OperandShape::kBranch) {
      w.u2(static_cast<uint32_t>(disp));
      continue;
    }
    if (shape == OperandShape::kBranchWide) {
      w.u4(static_cast<uint32_t>(disp));
      continue;
    }
    w.p += switch_padding(at);
    w.u4(static_cast<uint32_t>(disp));
    const SwitchTable& t = ir_.switches[insn.switch_index];
    bool lookup = insn.opcode == op::kLookupswitch;
    w.p += lookup ? 4 : 8;  // npairs, or low and high
    for (LabelId target : t.targets) {
      if (lookup) w.p += 4;  // the key
      w.u4(static_cast<uint32_t>(labels[target] - at));
    }
  }
}

// ---- frames ----

// Version 50 may omit the StackMapTable: the JVM then fails over to the old, inferencing
// verifier, for the whole class. javac omits the table where a method has no branch targets, so
// such a method gets frames once edits add branches (forward simulation from the entry frame is
// exact there): otherwise one edited constructor sends its class to the old verifier, which took
// 5-8 times as long on rewritten classes (docs/design/hotspot-costs.md, section 11). A method
// whose own code branches without a table relied on the fallback, and keeps it: its merge
// points' frames could not be computed without the class hierarchy.
bool Assembler::wants_frames() const {
  if (m_.major_version != 50) return m_.major_version > 50;
  return ir_.had_stack_map_table || !original_code_branches();
}

// Any original instruction (not inserted: it has an original offset) that jumps, or any
// original handler (its label stood in the original code). An inserted handler covers inserted
// code only, whose frames forward simulation gets exactly.
bool Assembler::original_code_branches() const {
  for (const TryCatch& tc : ir_.try_catches) {
    if (tc.handler >= ir_.labels.size() || ir_.labels[tc.handler].original_offset >= 0) return true;
  }
  for (const Insn& insn : ir_.insns) {
    if (insn.original_offset < 0 || insn.is_label()) continue;
    auto o = static_cast<uint8_t>(insn.opcode);
    if (is_conditional_branch(o) || is_unconditional_jump(o) || is_switch(o) || o == op::kJsr ||
        o == op::kJsrW || o == op::kRet) {
      return true;
    }
  }
  return false;
}

// Inserts one new label before each insns[pos] (positions ascending) in a single rebuild;
// each new label needs a frame.
void Assembler::insert_labels_before(const std::vector<size_t>& positions) {
  if (positions.empty()) return;
  std::vector<Insn> out;
  out.reserve(ir_.insns.size() + positions.size());
  size_t next = 0;
  for (size_t i = 0; i < ir_.insns.size(); ++i) {
    if (next < positions.size() && positions[next] == i) {
      LabelId id = ir_.new_label();
      need_frame_.push_back(1);
      out.push_back(Insn::make_label(id));
      ++next;
    }
    out.push_back(ir_.insns[i]);
  }
  ir_.insns = std::move(out);
}

// A relaxed conditional jumps over a goto_w to its fall-through, which becomes a branch target
// and so needs a frame. Returns true when labels were inserted (and layout must be redone).
bool Assembler::label_trampolines() {
  std::vector<size_t> positions;
  for (uint32_t i : short_branches_) {
    if (!widened_[i] || !is_conditional_branch(opcode_of(ir_.insns[i]))) continue;
    const Insn& next = ir_.insns[i + 1];  // exists: a conditional cannot end the code
    if (next.is_label()) {
      need_frame_[next.label()] = 1;
    } else {
      positions.push_back(i + 1);
    }
  }
  insert_labels_before(positions);
  return !positions.empty();
}

void Assembler::mark_frame_needs() {
  for (uint32_t i : targeted_) {
    const Insn& insn = ir_.insns[i];
    need_frame_[insn.target] = 1;
    if (!is_switch(opcode_of(insn))) continue;
    for (LabelId t : ir_.switches[insn.switch_index].targets) need_frame_[t] = 1;
  }
  for (const TryCatch& tc : ir_.try_catches) {
    if (tc.handler < need_frame_.size()) need_frame_[tc.handler] = 1;
  }
}

// Uninitialized entries hold the label at their `new`; the class file wants its offset.
Status Assembler::relocate_frame(Frame& frame) const {
  for (std::span<VType> list : frame.lists()) {
    for (VType& v : list) {
      if (v.tag != VTag::kUninitialized) continue;
      int32_t off = offset_of(v.data);
      if (off == kUnplaced || off >= length_) {
        return Error::plain("frame names an Uninitialized label L" + std::to_string(v.data) +
                            " that is not placed at an instruction");
      }
      v.data = static_cast<uint32_t>(off);
    }
  }
  return Ok{};
}

// A frame as the class file wants it: one holding Uninitialized types (which name the label
// at their `new`) is copied with offsets in their place; others are used as they are.
Result<const Frame*> Assembler::relocated(const Frame& frame) {
  auto uninit = [](const VType& v) { return v.tag == VTag::kUninitialized; };
  if (std::none_of(frame.locals.begin(), frame.locals.end(), uninit) &&
      std::none_of(frame.stack.begin(), frame.stack.end(), uninit)) {
    return &frame;
  }
  std::vector<Frame>& copies = scratch_.relocated;
  if (relocated_used_ == copies.size()) copies.emplace_back();  // capacity reserved: no move
  Frame& copy = copies[relocated_used_++];
  copy.locals.assign(frame.locals.begin(), frame.locals.end());
  copy.stack.assign(frame.stack.begin(), frame.stack.end());
  if (auto s = relocate_frame(copy); !s) return s.error();
  return &copy;
}

// The labels of one run share one offset: they must agree on a frame.
Status Assembler::frame_group(const LabelRun& run, std::vector<LabelId>* missing,
                              std::vector<FrameAt>* out) {
  const Frame* frame = nullptr;
  // Code after a transfer needs a frame unless nothing follows the labels.
  bool needed = run.after_transfer && run.end < ir_.insns.size();
  for (size_t i = run.first; i < run.end; ++i) {
    LabelId id = ir_.insns[i].label();
    needed = needed || need_frame_[id];
    const auto& f = ir_.labels[id].frame;
    if (!f) continue;
    if (frame != nullptr && *frame != *f) {
      return Error::at_code(run.end < ir_.insns.size() ? offset_[run.end] : length_,
                            "two labels at one offset carry different frames");
    }
    frame = &*f;
  }
  if (run.end == ir_.insns.size()) {  // the end of the code: nothing to describe
    if (needed) return Error::at_code(length_, "branch or handler at the end of the code");
    if (frame != nullptr && out != nullptr)
      notes_.push_back("dropped a frame at the end of the code");
    return Ok{};
  }
  if (frame == nullptr && needed && missing != nullptr) {
    missing->push_back(ir_.insns[run.first].label());
    return Ok{};
  }
  if (out == nullptr) return Ok{};
  if (frame == nullptr) {
    if (needed) return Error::at_code(offset_[run.end], "no frame could be computed");
    return Ok{};
  }
  auto written = relocated(*frame);
  if (!written) return written.error();
  out->push_back(FrameAt{static_cast<uint32_t>(offset_[run.end]), written.value()});
  return Ok{};
}

// Walks the label runs in code order; either lists labels still lacking a needed frame
// (`missing`) or produces the frames to encode (`out`).
Status Assembler::gather_frames(std::vector<LabelId>* missing, std::vector<FrameAt>* out) {
  if (out != nullptr) {
    out->clear();
    relocated_used_ = 0;
    // Relocated copies are pointed to: no reallocation while gathering.
    if (scratch_.relocated.capacity() < runs_.size()) scratch_.relocated.reserve(runs_.size());
  }
  for (const LabelRun& run : runs_) {
    if (auto s = frame_group(run, missing, out); !s) return s;
  }
  return Ok{};
}

Status Assembler::compute_frames(const std::vector<LabelId>& missing) {
  if (m_.context != nullptr) return compute_missing_frames(ir_, pool_, *m_.context, missing);
  MethodContext ctx{std::string(m_.class_name), std::string(m_.method_name),
                    std::string(m_.descriptor), m_.access_flags, m_.major_version};
  return compute_missing_frames(ir_, pool_, ctx, missing);
}

Status Assembler::build_stack_map(Tables& t) {
  // One pass gathers the frames present and lists the missing ones; only when some are
  // missing (inserted code) are they computed and the frames gathered again.
  std::vector<LabelId>& missing = scratch_.missing;
  missing.clear();
  std::vector<FrameAt>& frames = scratch_.frames;
  size_t notes_before = notes_.size();
  if (auto s = gather_frames(&missing, &frames); !s) return s;
  if (!missing.empty()) {
    size_t count = ir_.insns.size();
    if (auto s = compute_frames(missing); !s) return s;
    // Frame computation may insert labels before `new` instructions (Uninitialized types
    // name them). Labels take no bytes, so offsets stay; the per-insn tables must be redone.
    if (ir_.insns.size() != count) {
      need_frame_.resize(ir_.labels.size(), 0);
      if (auto s = layout(); !s) return s;
    }
    notes_.resize(notes_before);
    if (auto s = gather_frames(nullptr, &frames); !s) return s;
  }
  if (frames.empty()) return Ok{};
  auto initial =
      initial_frame_ref(pool_, m_.class_name, m_.method_name, m_.descriptor, m_.access_flags);
  if (!initial) return initial.error();
  return write_stack_map_table(t.stack_map, frames, *initial.value());
}

// ---- tables ----

Status Assembler::build_exceptions(Tables& t) {
  t.exception_index.assign(ir_.try_catches.size(), -1);
  for (size_t k = 0; k < ir_.try_catches.size(); ++k) {
    const TryCatch& tc = ir_.try_catches[k];
    int32_t start = offset_of(tc.start), end = offset_of(tc.end), handler = offset_of(tc.handler);
    if (start == kUnplaced || end == kUnplaced || handler == kUnplaced) {
      return Error::plain("try/catch #" + std::to_string(k) + " uses a label never placed");
    }
    if (start > end) return Error::at_code(start, "try/catch range ends before it starts");
    if (handler >= length_) return Error::at_code(handler, "handler at the end of the code");
    if (start == end) {
      notes_.push_back("dropped empty try/catch range #" + std::to_string(k));
      continue;
    }
    t.exception_index[k] = static_cast<int32_t>(t.exceptions.size());
    t.exceptions.push_back(ExceptionTableEntry{static_cast<uint16_t>(start),
                                               static_cast<uint16_t>(end),
                                               static_cast<uint16_t>(handler), tc.catch_type});
  }
  return Ok{};
}

Status Assembler::build_lines(Tables& t) {
  for (const LineNumber& ln : ir_.line_numbers) {
    int32_t off = offset_of(ln.label);
    if (off == kUnplaced) return Error::plain("line number on a label never placed");
    // An entry left at the end of the code describes no instruction.
    if (off >= length_) continue;
    t.lines.push_back(LineNumberEntry{static_cast<uint16_t>(off), ln.line});
  }
  return Ok{};
}

Status Assembler::build_locals(const std::vector<LocalVar>& in,
                               std::vector<LocalVariableEntry>& out, const char* what) {
  for (const LocalVar& v : in) {
    int32_t start = offset_of(v.start), end = offset_of(v.end);
    if (start == kUnplaced || end == kUnplaced) {
      return Error::plain(std::string(what) + " uses a label never placed");
    }
    if (start > end) return Error::at_code(start, std::string(what) + " ends before it starts");
    // The JVM rejects a range starting at the end of the code.
    if (start >= length_) continue;
    out.push_back(LocalVariableEntry{static_cast<uint16_t>(start),
                                     static_cast<uint16_t>(end - start), v.name_index,
                                     v.descriptor_index, v.index});
  }
  return Ok{};
}

bool Assembler::relocate_annotation(const Tables& t, const CodeTypeAnnotationIR& in,
                                    CodeTypeAnnotation& out) const {
  out = in.raw;
  uint8_t type = in.raw.target_type;
  if (type == 0x40 || type == 0x41) {
    if (in.ranges.size() != out.ranges.size()) return false;
    for (size_t r = 0; r < in.ranges.size(); ++r) {
      int32_t start = offset_of(in.ranges[r].first), end = offset_of(in.ranges[r].second);
      if (start == kUnplaced || end == kUnplaced || start > end || start >= length_) return false;
      out.ranges[r].start_pc = static_cast<uint16_t>(start);
      out.ranges[r].length = static_cast<uint16_t>(end - start);
    }
  } else if (type == 0x42) {
    if (in.raw.exception_table_index >= t.exception_index.size()) return false;
    int32_t index = t.exception_index[in.raw.exception_table_index];
    if (index < 0) return false;
    out.exception_table_index = static_cast<uint16_t>(index);
  } else if (type >= 0x43 && type <= 0x4B) {
    int32_t off = offset_of(in.insn);
    if (off == kUnplaced || off >= length_) return false;
    out.offset = static_cast<uint16_t>(off);
  }
  return true;
}

void Assembler::build_annotations(const Tables& t, const std::vector<CodeTypeAnnotationIR>& in,
                                  std::vector<uint8_t>& out, const char* what) {
  if (in.empty()) return;
  std::vector<CodeTypeAnnotation>& kept = scratch_.annotations;
  kept.clear();
  for (size_t k = 0; k < in.size(); ++k) {
    CodeTypeAnnotation a;
    if (relocate_annotation(t, in[k], a)) {
      kept.push_back(std::move(a));
    } else {
      notes_.push_back(std::string("dropped ") + what + " #" + std::to_string(k) +
                       ": its code position no longer exists");
    }
  }
  if (!kept.empty()) out = encode_code_type_annotations(kept);
}

// ---- output ----

void Assembler::emit_switch(CodeWriter& w, const Insn& insn, size_t index) const {
  int32_t at = offset_[index];
  const SwitchTable& t = ir_.switches[insn.switch_index];
  w.u1(insn.opcode);
  for (uint32_t p = switch_padding(at); p > 0; --p) w.u1(0);
  w.u4(static_cast<uint32_t>(label_offset_[insn.target] - at));
  if (insn.opcode == op::kTableswitch) {
    w.u4(static_cast<uint32_t>(t.low));
    w.u4(static_cast<uint32_t>(t.low + static_cast<int32_t>(t.targets.size()) - 1));
  } else {
    w.u4(static_cast<uint32_t>(t.targets.size()));
  }
  for (size_t k = 0; k < t.targets.size(); ++k) {
    if (insn.opcode == op::kLookupswitch) w.u4(static_cast<uint32_t>(t.keys[k]));
    w.u4(static_cast<uint32_t>(label_offset_[t.targets[k]] - at));
  }
}

// Writes a short branch; a widened one takes its long form (see widening_growth).
void Assembler::emit_branch(CodeWriter& w, const Insn& insn, size_t index, int32_t disp) const {
  uint8_t o = opcode_of(insn);
  if (!widened_[index]) {
    w.u1(o);
    w.u2(static_cast<uint32_t>(disp));
  } else if (!is_conditional_branch(o)) {
    w.u1(o == op::kJsr ? op::kJsrW : op::kGotoW);
    w.u4(static_cast<uint32_t>(disp));
  } else {
    // The inverted test skips itself (3 bytes) and the goto_w (5 bytes).
    w.u1(invert_condition(o));
    w.u2(8);
    w.u1(op::kGotoW);
    w.u4(static_cast<uint32_t>(disp - 3));
  }
}

// Loads, stores, ret and iinc: the size says whether the wide form was chosen.
void Assembler::emit_local(CodeWriter& w, const Insn& insn, uint32_t size) const {
  bool iinc = insn.opcode == op::kIinc;
  bool wide = size == (iinc ? 6u : 4u);
  if (wide) w.u1(op::kWide);
  w.u1(insn.opcode);
  if (wide) {
    w.u2(static_cast<uint32_t>(insn.a));
    if (iinc) w.u2(static_cast<uint32_t>(insn.b));
  } else {
    w.u1(static_cast<uint32_t>(insn.a));
    if (iinc) w.u1(static_cast<uint32_t>(insn.b));
  }
}

void Assembler::emit_insn(CodeWriter& w, const Insn& insn, size_t index) const {
  const OpcodeInfo& info = opcode_info(opcode_of(insn));
  auto a = static_cast<uint32_t>(insn.a);
  switch (info.shape) {
    case OperandShape::kLocal:
    case OperandShape::kIinc:
      return emit_local(w, insn, size_[index]);
    case OperandShape::kBranch:
    case OperandShape::kBranchWide: {
      int32_t disp = label_offset_[insn.target] - offset_[index];
      if (info.shape == OperandShape::kBranch) return emit_branch(w, insn, index, disp);
      w.u1(insn.opcode);
      w.u4(static_cast<uint32_t>(disp));
      return;
    }
    case OperandShape::kTableSwitch:
    case OperandShape::kLookupSwitch:
      return emit_switch(w, insn, index);
    case OperandShape::kCpByte:
      if (size_[index] == 3) {  // an index past 255 needs ldc_w
        w.u1(op::kLdcW);
        w.u2(a);
        return;
      }
      break;
    default:
      break;
  }
  emit_plain(w, insn);
}

// The forms whose bytes are the opcode and its operands as they stand.
void Assembler::emit_plain(CodeWriter& w, const Insn& insn) const {
  const OpcodeInfo& info = opcode_info(opcode_of(insn));
  auto a = static_cast<uint32_t>(insn.a);
  w.u1(insn.opcode);
  switch (info.shape) {
    case OperandShape::kByte:
    case OperandShape::kCpByte:
      w.u1(a);
      break;
    case OperandShape::kShort:
    case OperandShape::kCp:
      w.u2(a);
      break;
    case OperandShape::kInvokeInterface:
      w.u2(a);
      w.u1(static_cast<uint32_t>(insn.b));
      w.u1(0);
      break;
    case OperandShape::kInvokeDynamic:
      w.u2(a);
      w.u2(0);
      break;
    case OperandShape::kMultiANewArray:
      w.u2(a);
      w.u1(static_cast<uint32_t>(insn.b));
      break;
    default:
      break;  // no operands
  }
}

void Assembler::emit_code(CodeWriter& w) const {
  for (size_t i = 0; i < ir_.insns.size(); ++i) {
    if (!ir_.insns[i].is_label()) emit_insn(w, ir_.insns[i], i);
  }
}

// Writes an instruction of `size` bytes in its short form, with zeros for every branch or
// switch displacement (resolve_targets fills them in) and for switch padding.
void Assembler::emit_unresolved(CodeWriter& w, const Insn& insn, uint32_t size) const {
  const OpcodeInfo& info = opcode_info(opcode_of(insn));
  auto a = static_cast<uint32_t>(insn.a);
  switch (info.shape) {
    case OperandShape::kNone:
      w.u1(insn.opcode);
      return;
    case OperandShape::kLocal:
    case OperandShape::kIinc:
      return emit_local(w, insn, size);
    case OperandShape::kBranch:
    case OperandShape::kBranchWide:
      w.u1(insn.opcode);
      for (uint32_t k = 1; k < size; ++k) w.u1(0);
      return;
    case OperandShape::kTableSwitch:
    case OperandShape::kLookupSwitch:
      return emit_unresolved_switch(w, insn);
    case OperandShape::kCpByte:
      if (size == 3) {  // an index past 255 needs ldc_w
        w.u1(op::kLdcW);
        w.u2(a);
        return;
      }
      break;
    default:
      break;
  }
  emit_plain(w, insn);
}

void Assembler::emit_unresolved_switch(CodeWriter& w, const Insn& insn) const {
  const uint8_t* start = w.p;
  const SwitchTable& t = ir_.switches[insn.switch_index];
  w.u1(insn.opcode);
  // The padding follows from the offset, which the writer does not know: it is written with
  // the table, by zeros here and by resolve_targets' skip.
  uint32_t padding = switch_padding(static_cast<int64_t>(start - scratch_.code.data()));
  for (uint32_t p = 0; p < padding; ++p) w.u1(0);
  w.u4(0);
  if (insn.opcode == op::kTableswitch) {
    w.u4(static_cast<uint32_t>(t.low));
    w.u4(static_cast<uint32_t>(t.low + static_cast<int32_t>(t.targets.size()) - 1));
  } else {
    w.u4(static_cast<uint32_t>(t.targets.size()));
  }
  for (size_t k = 0; k < t.targets.size(); ++k) {
    if (insn.opcode == op::kLookupswitch) w.u4(static_cast<uint32_t>(t.keys[k]));
    w.u4(0);
  }
}

Status Assembler::attribute_header(ByteWriter& w, int slot, size_t length) {
  auto index = name_index(pool_, static_cast<NameSlot>(slot));
  if (!index) return index.error();
  w.u2(index.value());
  w.u4(static_cast<uint32_t>(length));
  return Ok{};
}

Status Assembler::write_locals(ByteWriter& w, int slot,
                               const std::vector<LocalVariableEntry>& vars) {
  if (auto s = attribute_header(w, slot, 2 + 10 * vars.size()); !s) return s;
  w.u2(static_cast<uint32_t>(vars.size()));
  for (const auto& v : vars) {
    w.u2(v.start_pc);
    w.u2(v.length);
    w.u2(v.name_index);
    w.u2(v.descriptor_index);
    w.u2(v.index);
  }
  return Ok{};
}

Status Assembler::write_tables(ByteWriter& w, const Tables& t, uint32_t& count) {
  if (!t.lines.empty()) {
    ++count;
    if (auto s = attribute_header(w, kLineNumberTable, 2 + 4 * t.lines.size()); !s) return s;
    w.u2(static_cast<uint32_t>(t.lines.size()));
    for (const auto& l : t.lines) {
      w.u2(l.start_pc);
      w.u2(l.line);
    }
  }
  if (!t.locals.empty()) {
    ++count;
    if (auto s = write_locals(w, kLocalVariableTable, t.locals); !s) return s;
  }
  if (!t.local_types.empty()) {
    ++count;
    if (auto s = write_locals(w, kLocalVariableTypeTable, t.local_types); !s) return s;
  }
  const std::pair<int, std::span<const uint8_t>> blobs[] = {
      {kStackMapTable, t.stack_map.view()},
      {kVisibleTypeAnnotations, t.visible_annotations},
      {kInvisibleTypeAnnotations, t.invisible_annotations}};
  for (const auto& [slot, body] : blobs) {
    if (body.empty()) continue;
    ++count;
    if (auto s = attribute_header(w, slot, body.size()); !s) return s;
    w.bytes(body);
  }
  return Ok{};
}

Status Assembler::write_all(const Tables& t, uint16_t max_stack, AssembledCode& out) {
  std::vector<uint8_t> spare;
  if (auto* s = BodySpares::get()) s->take(spare);
  ByteWriter w(std::move(spare));
  // The exact size (attribute headers are 6 bytes), so the buffer is allocated once.
  w.reserve(static_cast<size_t>(length_) + 12 + t.exceptions.size() * 8 +
            (t.lines.empty() ? 0 : 8 + t.lines.size() * 4) +
            (t.locals.empty() ? 0 : 8 + t.locals.size() * 10) +
            (t.local_types.empty() ? 0 : 8 + t.local_types.size() * 10) +
            (t.stack_map.size() == 0 ? 0 : 6 + t.stack_map.size()) +
            (t.visible_annotations.empty() ? 0 : 6 + t.visible_annotations.size()) +
            (t.invisible_annotations.empty() ? 0 : 6 + t.invisible_annotations.size()));
  w.u2(max_stack);
  w.u2(ir_.max_locals);
  w.u4(static_cast<uint32_t>(length_));
  uint8_t* code = w.append(static_cast<size_t>(length_));
  CodeWriter cw{code};
  if (emitted_) {
    std::memcpy(code, scratch_.code.data(), static_cast<size_t>(length_));
    cw.p += length_;
  } else {
    emit_code(cw);
  }
  // Sizes and emission follow the same rules; a mismatch would be a bug here, not bad input.
  if (cw.p != code + length_) return Error::plain("internal error: emitted code length differs");
  w.u2(static_cast<uint32_t>(t.exceptions.size()));
  for (const auto& e : t.exceptions) {
    w.u2(e.start_pc);
    w.u2(e.end_pc);
    w.u2(e.handler_pc);
    w.u2(e.catch_type);
  }
  size_t count_at = w.size();
  w.u2(0);
  uint32_t count = 0;
  if (auto s = write_tables(w, t, count); !s) return s;
  w.patch_u2(count_at, count);
  out.code_attribute = w.take();
  return Ok{};
}

Status check_counts(const Tables& t) {
  if (t.exceptions.size() > 65535 || t.lines.size() > 65535 || t.locals.size() > 65535 ||
      t.local_types.size() > 65535) {
    return Error::plain("a code table has more than 65535 entries");
  }
  return Ok{};
}

Result<AssembledCode> Assembler::run() {
  frames_ = wants_frames();
  need_frame_.assign(ir_.labels.size(), 0);
  if (auto s = layout(); !s) return s.error();
  if (frames_ && label_trampolines()) {
    if (auto s = layout(); !s) return s.error();
  }
  if (length_ > kMaxCodeLength) {
    return Error::plain("code is " + std::to_string(length_) + " bytes; the limit is 65535");
  }
  if (length_ == 0) return Error::plain("empty code");
  auto max_stack = max_stack_depth(ir_, pool_, label_pos_);
  if (!max_stack) return max_stack.error();
  Tables& t = scratch_.tables;
  t.clear();
  if (frames_) {
    mark_frame_needs();
    if (auto s = build_stack_map(t); !s) return s.error();
  }
  if (auto s = build_exceptions(t); !s) return s.error();
  if (auto s = build_lines(t); !s) return s.error();
  if (auto s = build_locals(ir_.local_variables, t.locals, "local variable"); !s) return s.error();
  if (auto s = build_locals(ir_.local_variable_types, t.local_types, "local variable type"); !s)
    return s.error();
  if (auto s = check_counts(t); !s) return s.error();
  build_annotations(t, ir_.visible_type_annotations, t.visible_annotations,
                    "visible type annotation");
  build_annotations(t, ir_.invisible_type_annotations, t.invisible_annotations,
                    "invisible type annotation");
  for (const Attribute& a : ir_.unknown_attributes) {
    auto name = pool_.utf8(a.name_index);
    notes_.push_back("dropped Code attribute " + std::string(name ? *name : "<bad name>") +
                     ": it may hold offsets this library cannot relocate");
  }
  AssembledCode out;
  if (auto s = write_all(t, max_stack.value(), out); !s) return s.error();
  out.code_length = static_cast<uint32_t>(length_);
  out.label_offsets = std::move(label_offset_);
  out.insn_offsets = std::move(offset_);
  out.notes = std::move(notes_);
  return out;
}

Result<AssembledCode> assemble(CodeIR& ir, ConstantPool& pool, const MethodNames& m) {
  Assembler assembler(ir, pool, m);
  auto r = assembler.run();
  if (ir.insns.size() > 16 * 1024) trim(scratch());  // after a huge method
  if (!r) {
    return std::move(
        r.error().in(m.class_name, std::string(m.method_name) + std::string(m.descriptor)));
  }
  return r;
}

}  // namespace

AssembledCode::~AssembledCode() {
  if (code_attribute.capacity() != 0) {
    if (auto* s = BodySpares::existing()) s->give_back(code_attribute);
  }
  if (label_offsets.capacity() == 0 && insn_offsets.capacity() == 0) return;  // moved from
  if (auto* s = OffsetSpares::existing()) {
    s->give_back(label_offsets);
    s->give_back(insn_offsets);
  }
}

Result<AssembledCode> assemble_code(CodeIR& ir, ConstantPool& pool, const MethodContext& ctx) {
  MethodNames m{ctx.class_name,   ctx.method_name,   ctx.descriptor,
                ctx.access_flags, ctx.major_version, &ctx};
  return assemble(ir, pool, m);
}

Result<AssembledCode> replace_code(ClassFile& cf, Member& method, CodeIR& ir) {
  MethodNames m{cf.pool.class_name(cf.this_class).value_or("<unknown>"),
                cf.member_name(method),
                cf.member_descriptor(method),
                method.access_flags,
                cf.major_version,
                nullptr};
  auto r = assemble(ir, cf.pool, m);
  if (!r) return r;
  Attribute* code = cf.find_attribute(method.attributes, "Code");
  if (code == nullptr) {
    auto name = cf.pool.add_utf8("Code");
    if (!name) {
      return std::move(
          name.error().in(m.class_name, std::string(m.method_name) + std::string(m.descriptor)));
    }
    method.attributes.push_back(Attribute{name.value(), {}, {}});
    code = &method.attributes.back();
  }
  cf.set_attribute_data(*code, r->code_attribute);
  r->code_attribute.clear();
  return r;
}

}  // namespace duplex
