// StackMapTable (JVMS 4.7.4): decoding to absolute offsets and full frames, encoding back
// with the most compact frame kinds, and the implicit entry frame (JVMS 4.10.1.6).
//
// Frames are kept in the class file's list form, where a Long or Double is a single entry.
// chop_frame and append_frame count entries in that form too, so all comparisons between
// consecutive frames are done on the lists exactly as given. The encoder never drops or adds
// Top entries: a frame whose locals end in Top is written with those Tops, so decoding gives
// back the very same lists.
#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include "classfile/attributes.h"
#include "classfile/bytes.h"
#include "classfile/text_hash.h"

namespace duplex {

namespace {

// Frame type ranges (JVMS 4.7.4).
constexpr uint8_t kSameMax = 63;
constexpr uint8_t kSameLocals1Min = 64;
constexpr uint8_t kSameLocals1Max = 127;
constexpr uint8_t kReservedMax = 246;
constexpr uint8_t kSameLocals1Extended = 247;
constexpr uint8_t kChopMin = 248;  // chops 3
constexpr uint8_t kSameExtended = 251;
constexpr uint8_t kAppendMax = 254;  // appends 3
constexpr uint8_t kFull = 255;

Error truncated(const ByteReader& in) {
  return Error::at_file(static_cast<int64_t>(in.failure_offset()), "truncated StackMapTable");
}

// ---- decoding ----

Result<VType> read_vtype(ByteReader& in) {
  size_t at = in.absolute_pos();
  uint8_t tag = in.u1();
  if (in.failed()) return truncated(in);
  if (tag > static_cast<uint8_t>(VTag::kUninitialized)) {
    return Error::at_file(static_cast<int64_t>(at),
                          "bad verification type tag " + std::to_string(tag));
  }
  VType v{static_cast<VTag>(tag), 0};
  // Object carries a Class index, Uninitialized the offset of its `new`.
  if (v.tag == VTag::kObject || v.tag == VTag::kUninitialized) v.data = in.u2();
  if (in.failed()) return truncated(in);
  return v;
}

template <class List>  // FrameLocals or FrameStack
Status read_vtypes(ByteReader& in, size_t count, List& out) {
  for (size_t i = 0; i < count; ++i) {
    auto v = read_vtype(in);
    if (!v) return v.error();
    out.push_back(v.value());
  }
  return Ok{};
}

// Reads one frame's body after its type byte. `frame` starts as a copy of the previous
// frame with the stack cleared. Returns the offset_delta.
Result<uint32_t> read_frame_body(ByteReader& in, uint8_t type, size_t type_at, Frame& frame) {
  if (type <= kSameMax) return uint32_t{type};
  if (type <= kSameLocals1Max) {
    if (auto s = read_vtypes(in, 1, frame.stack); !s) return s.error();
    return uint32_t{type} - kSameLocals1Min;
  }
  if (type <= kReservedMax) {
    return Error::at_file(static_cast<int64_t>(type_at),
                          "reserved stack map frame type " + std::to_string(type));
  }
  uint32_t delta = in.u2();
  if (in.failed()) return truncated(in);
  if (type == kSameLocals1Extended) {
    if (auto s = read_vtypes(in, 1, frame.stack); !s) return s.error();
  } else if (type < kSameExtended) {
    size_t chop = kSameExtended - type;
    if (chop > frame.locals.size()) {
      return Error::at_file(static_cast<int64_t>(type_at),
                            "chop_frame removes more locals than the previous frame has");
    }
    frame.locals.resize(frame.locals.size() - chop);
  } else if (type > kSameExtended && type <= kAppendMax) {
    if (auto s = read_vtypes(in, type - kSameExtended, frame.locals); !s) return s.error();
  } else if (type == kFull) {
    frame.locals.clear();
    if (auto s = read_vtypes(in, in.u2(), frame.locals); !s) return s.error();
    if (auto s = read_vtypes(in, in.u2(), frame.stack); !s) return s.error();
  }
  // type == kSameExtended needs nothing more.
  return delta;
}

}  // namespace

namespace {

// One verification type at p (before end): false if it is not there whole.
template <class List>
inline bool quick_vtype(const uint8_t*& p, const uint8_t* end, List& out) {
  if (p >= end || *p > static_cast<uint8_t>(VTag::kUninitialized)) return false;
  VType v{static_cast<VTag>(*p++), 0};
  if (v.tag == VTag::kObject || v.tag == VTag::kUninitialized) {
    if (end - p < 2) return false;
    v.data = static_cast<uint32_t>(p[0] << 8 | p[1]);
    p += 2;
  }
  out.push_back(v);
  return true;
}

template <class List>
bool quick_vtypes(const uint8_t*& p, const uint8_t* end, size_t count, List& out) {
  if (count > static_cast<size_t>(end - p)) return false;  // a type takes at least a byte
  out.reserve(out.size() + count);
  for (size_t i = 0; i < count; ++i) {
    if (!quick_vtype(p, end, out)) return false;
  }
  return true;
}

// A well-formed table, read straight from the bytes (every method with branches has one):
// each frame is built where place(offset) says (an empty Frame), starting from the previous
// frame's locals. False on anything the checked decoder reports, or when place refuses (null).
template <class Place>
bool quick_frames(std::span<const uint8_t> body, const Frame& initial, Place&& place) {
  const uint8_t* p = body.data();
  const uint8_t* end = p + body.size();
  if (end - p < 2) return false;
  size_t count = static_cast<size_t>(p[0] << 8 | p[1]);
  p += 2;
  auto u2 = [&](uint32_t& v) {
    if (end - p < 2) return false;
    v = static_cast<uint32_t>(p[0] << 8 | p[1]);
    p += 2;
    return true;
  };
  const Frame* prev = &initial;
  int64_t prev_offset = -1;
  for (size_t i = 0; i < count; ++i) {
    if (p >= end) return false;
    uint8_t type = *p++;
    uint32_t delta = type;
    if (type > kSameMax && type <= kSameLocals1Max) {
      delta = type - kSameLocals1Min;
    } else if (type > kSameLocals1Max && type <= kReservedMax) {
      return false;
    } else if (type > kReservedMax && !u2(delta)) {
      return false;
    }
    // The first frame sits at offset_delta; each later one at previous + offset_delta + 1.
    int64_t offset = prev_offset + delta + 1;
    Frame* f = place(static_cast<uint32_t>(offset));
    if (f == nullptr) return false;
    f->locals = prev->locals;
    if (type <= kSameMax) {
      // same_frame
    } else if (type <= kSameLocals1Max || type == kSameLocals1Extended) {
      if (!quick_vtype(p, end, f->stack)) return false;
    } else if (type < kSameExtended) {
      size_t chop = kSameExtended - type;
      if (chop > f->locals.size()) return false;
      f->locals.resize(f->locals.size() - chop);
    } else if (type > kSameExtended && type <= kAppendMax) {
      if (!quick_vtypes(p, end, type - kSameExtended, f->locals)) return false;
    } else if (type == kFull) {
      uint32_t n = 0;
      f->locals.clear();
      if (!u2(n) || !quick_vtypes(p, end, n, f->locals) || !u2(n) ||
          !quick_vtypes(p, end, n, f->stack)) {
        return false;
      }
    }
    prev = f;
    prev_offset = offset;
  }
  return p == end;
}

bool quick_frames(std::span<const uint8_t> body, const Frame& initial,
                  std::vector<OffsetFrame>& frames) {
  frames.clear();
  // A frame takes at least a byte, so the vector never grows past this while `prev` points
  // into it.
  size_t count = body.size() < 2 ? 0 : static_cast<size_t>(body[0] << 8 | body[1]);
  frames.reserve(std::min(count, body.size()));
  return quick_frames(body, initial, [&frames](uint32_t offset) {
    return &frames.emplace_back(OffsetFrame{offset, {}}).frame;
  });
}

}  // namespace

Status decode_stack_map_table_into(std::span<const uint8_t> body, const Frame& initial,
                                   std::vector<OffsetFrame>& frames, size_t file_offset) {
  if (quick_frames(body, initial, frames)) return Ok{};
  ByteReader in(body, file_offset);
  frames.clear();
  uint16_t count = in.u2();
  if (in.failed()) return truncated(in);
  frames.reserve(std::min<size_t>(count, in.remaining()));  // a frame takes at least a byte
  for (uint32_t i = 0; i < count; ++i) {
    const Frame& prev = frames.empty() ? initial : frames.back().frame;
    size_t type_at = in.absolute_pos();
    uint8_t type = in.u1();
    if (in.failed()) return truncated(in);
    OffsetFrame f{0, Frame{prev.locals, {}}};
    auto delta = read_frame_body(in, type, type_at, f.frame);
    if (!delta) return delta.error();
    // The first frame sits at offset_delta; each later one at previous + offset_delta + 1,
    // which keeps offsets strictly increasing by construction.
    f.offset = frames.empty() ? delta.value() : frames.back().offset + delta.value() + 1;
    frames.push_back(std::move(f));
  }
  if (!in.at_end()) {
    return Error::at_file(static_cast<int64_t>(in.absolute_pos()),
                          std::to_string(in.remaining()) + " trailing bytes after StackMapTable");
  }
  return Ok{};
}

bool decode_stack_map_table_placed(std::span<const uint8_t> body, const Frame& initial,
                                   Frame* (*place)(void* context, uint32_t offset), void* context) {
  return quick_frames(body, initial,
                      [place, context](uint32_t offset) { return place(context, offset); });
}

Result<std::vector<OffsetFrame>> decode_stack_map_table(std::span<const uint8_t> body,
                                                        const Frame& initial, size_t file_offset) {
  std::vector<OffsetFrame> frames;
  if (auto s = decode_stack_map_table_into(body, initial, frames, file_offset); !s) {
    return s.error();
  }
  return frames;
}

// ---- encoding ----

namespace {

Status write_vtype(ByteWriter& out, const VType& v) {
  if (v.tag > VTag::kUninitialized) return Error::plain("bad verification type tag in frame");
  out.u1(static_cast<uint8_t>(v.tag));
  if (v.tag == VTag::kObject || v.tag == VTag::kUninitialized) {
    if (v.data > 0xFFFF) return Error::plain("verification type operand does not fit a u2");
    out.u2(v.data);
  }
  return Ok{};
}

Status write_vtypes(ByteWriter& out, std::span<const VType> list, size_t from = 0) {
  for (size_t i = from; i < list.size(); ++i) {
    if (auto s = write_vtype(out, list[i]); !s) return s;
  }
  return Ok{};
}

// True when `shorter` is a proper-or-equal prefix of `longer` (entry by entry, list form).
bool is_prefix(std::span<const VType> shorter, std::span<const VType> longer) {
  if (shorter.size() > longer.size()) return false;
  for (size_t i = 0; i < shorter.size(); ++i) {
    if (!(shorter[i] == longer[i])) return false;
  }
  return true;
}

Status write_full(ByteWriter& out, const Frame& f, uint32_t delta) {
  if (f.locals.size() > 0xFFFF || f.stack.size() > 0xFFFF) {
    return Error::plain("stack map frame has more than 65535 entries");
  }
  out.u1(kFull);
  out.u2(delta);
  out.u2(static_cast<uint32_t>(f.locals.size()));
  if (auto s = write_vtypes(out, f.locals); !s) return s;
  out.u2(static_cast<uint32_t>(f.stack.size()));
  return write_vtypes(out, f.stack);
}

// Frames with an empty stack: same, chop or append when the locals allow it.
Status write_empty_stack(ByteWriter& out, const Frame& f, const Frame& prev, uint32_t delta) {
  size_t have = prev.locals.size();
  size_t want = f.locals.size();
  if (f.locals == prev.locals) {
    if (delta <= kSameMax) {
      out.u1(delta);
    } else {
      out.u1(kSameExtended);
      out.u2(delta);
    }
    return Ok{};
  }
  if (want < have && have - want <= 3 && is_prefix(f.locals, prev.locals)) {
    out.u1(kSameExtended - (have - want));
    out.u2(delta);
    return Ok{};
  }
  if (want > have && want - have <= 3 && is_prefix(prev.locals, f.locals)) {
    out.u1(kSameExtended + (want - have));
    out.u2(delta);
    return write_vtypes(out, f.locals, have);
  }
  return write_full(out, f, delta);
}

Status write_frame(ByteWriter& out, const Frame& f, const Frame& prev, uint32_t delta) {
  if (f.stack.empty()) return write_empty_stack(out, f, prev, delta);
  if (f.stack.size() == 1 && f.locals == prev.locals) {
    if (delta <= kSameLocals1Max - kSameLocals1Min) {
      out.u1(kSameLocals1Min + delta);
    } else {
      out.u1(kSameLocals1Extended);
      out.u2(delta);
    }
    return write_vtype(out, f.stack[0]);
  }
  return write_full(out, f, delta);
}

}  // namespace

Status write_stack_map_table(ByteWriter& out, std::span<const FrameAt> frames,
                             const Frame& initial) {
  if (frames.size() > 0xFFFF) return Error::plain("more than 65535 stack map frames");
  out.u2(static_cast<uint32_t>(frames.size()));
  const Frame* prev = &initial;
  for (size_t i = 0; i < frames.size(); ++i) {
    uint32_t offset = frames[i].offset;
    if (i > 0 && frames[i - 1].offset >= offset) {
      return Error::plain("stack map frame offsets are not strictly increasing at frame " +
                          std::to_string(i));
    }
    uint32_t base = i == 0 ? 0 : frames[i - 1].offset + 1;  // inverse of decoding's rule
    if (offset - base > 0xFFFF) return Error::plain("stack map frame offset delta exceeds u2");
    if (auto s = write_frame(out, *frames[i].frame, *prev, offset - base); !s) return s.error();
    prev = frames[i].frame;
  }
  return Ok{};
}

Result<std::vector<uint8_t>> encode_stack_map_table(const std::vector<OffsetFrame>& frames,
                                                    const Frame& initial) {
  std::vector<FrameAt> at;
  at.reserve(frames.size());
  for (const OffsetFrame& f : frames) at.push_back(FrameAt{f.offset, &f.frame});
  ByteWriter out;
  if (auto s = write_stack_map_table(out, at, initial); !s) return s.error();
  return out.take();
}

// ---- initial frame ----

namespace {

// A parsed field type; reference types keep the name their Class entry will have (arrays by
// their descriptor, per JVMS 4.4.1).
struct ParsedType {
  VTag tag = VTag::kTop;
  std::string_view class_name;
};

Result<ParsedType> parse_class_type(std::string_view desc, size_t& pos) {
  size_t semi = desc.find(';', pos);
  if (semi == std::string_view::npos || semi == pos) {
    return Error::plain("unterminated or empty class type");
  }
  std::string_view name = desc.substr(pos, semi - pos);
  if (name.find_first_of(".[") != std::string_view::npos) {
    return Error::plain("bad class name " + std::string(name));
  }
  pos = semi + 1;
  return ParsedType{VTag::kObject, name};
}

Result<VTag> primitive_tag(char c) {
  switch (c) {
    case 'Z':
    case 'B':
    case 'C':
    case 'S':
    case 'I':
      return VTag::kInteger;
    case 'F':
      return VTag::kFloat;
    case 'J':
      return VTag::kLong;
    case 'D':
      return VTag::kDouble;
    default:
      return Error::plain(std::string("bad type character '") + c + "'");
  }
}

// Parses one field type at `pos` in `desc`, advancing `pos`. Touches no pool, so a descriptor
// can be checked completely before anything is added.
Result<ParsedType> parse_field_type(std::string_view desc, size_t& pos) {
  size_t start = pos;
  while (pos < desc.size() && desc[pos] == '[') ++pos;
  size_t dims = pos - start;
  if (dims > 255) return Error::plain("array type with more than 255 dimensions");
  if (pos >= desc.size()) return Error::plain("ends inside a type");
  char c = desc[pos++];
  ParsedType t;
  if (c == 'L') {
    auto ct = parse_class_type(desc, pos);
    if (!ct) return ct.error();
    t = ct.value();
  } else {
    auto tag = primitive_tag(c);
    if (!tag) return tag.error();
    t.tag = tag.value();
  }
  if (dims > 0) t = ParsedType{VTag::kObject, desc.substr(start, pos - start)};
  return t;
}

Status check_return_type(std::string_view ret) {
  if (ret == "V") return Ok{};
  size_t pos = 0;
  auto t = parse_field_type(ret, pos);
  if (!t) return t.error();
  if (pos != ret.size()) return Error::plain("junk after the return type");
  return Ok{};
}

// Checks the whole descriptor and returns its parameter types. They are read type by type up
// to the ')' after the last one: a class name may hold ')' (JVMS 4.2.2).
Result<std::vector<ParsedType>> parse_parameters(std::string_view descriptor) {
  if (descriptor.empty() || descriptor[0] != '(') return Error::plain("does not start with '('");
  std::vector<ParsedType> out;
  size_t pos = 1;
  while (pos < descriptor.size() && descriptor[pos] != ')') {
    auto t = parse_field_type(descriptor, pos);
    if (!t) return t.error();
    out.push_back(t.value());
  }
  if (pos >= descriptor.size()) return Error::plain("no ')'");
  if (auto s = check_return_type(descriptor.substr(pos + 1)); !s) return s.error();
  return out;
}

// One field type of `desc` at `pos` as parse_field_type reads it, without building an error:
// false wherever parse_field_type fails.
bool quick_field_type(std::string_view desc, size_t& pos, ParsedType& t) {
  size_t start = pos;
  while (pos < desc.size() && desc[pos] == '[') ++pos;
  if (pos - start > 255 || pos >= desc.size()) return false;
  char c = desc[pos++];
  switch (c) {
    case 'Z':
    case 'B':
    case 'C':
    case 'S':
    case 'I':
      t.tag = VTag::kInteger;
      break;
    case 'F':
      t.tag = VTag::kFloat;
      break;
    case 'J':
      t.tag = VTag::kLong;
      break;
    case 'D':
      t.tag = VTag::kDouble;
      break;
    case 'L': {
      size_t semi = desc.find(';', pos);
      if (semi == std::string_view::npos || semi == pos) return false;
      std::string_view name = desc.substr(pos, semi - pos);
      // Two memchr scans: a byte loop testing both characters cost more, per parameter of
      // every entry frame.
      if (name.find('.') != std::string_view::npos || name.find('[') != std::string_view::npos) {
        return false;
      }
      t = ParsedType{VTag::kObject, name};
      pos = semi + 1;
      break;
    }
    default:
      return false;
  }
  if (pos - start > 1 && desc[start] == '[')
    t = ParsedType{VTag::kObject, desc.substr(start, pos - start)};
  return true;
}

// parse_parameters for a well-formed descriptor, into `out`: entry frames are computed for
// most methods, and building Results per parameter would cost more than the parse. False
// when parse_parameters would fail (it is then asked for the reason).
bool quick_parameters(std::string_view d, std::vector<ParsedType>& out) {
  out.clear();
  if (d.empty() || d[0] != '(') return false;
  ParsedType t;
  size_t close = 1;
  while (close < d.size() && d[close] != ')') {
    if (!quick_field_type(d, close, t)) return false;
    out.push_back(t);
  }
  if (close >= d.size()) return false;
  std::string_view ret = d.substr(close + 1);
  if (ret == "V") return true;
  size_t pos = 0;
  return quick_field_type(ret, pos, t) && pos == ret.size();
}

Result<VType> to_vtype(ConstantPool& pool, const ParsedType& t) {
  if (t.tag != VTag::kObject) return VType{t.tag, 0};
  auto idx = pool.add_class(t.class_name);
  if (!idx) return idx.error();
  return VType{VTag::kObject, idx.value()};
}

// Entry frames by descriptor, per thread: building a method's IR and assembling it both need
// the entry frame, every method of a class needs one, and many share a descriptor; computing
// one costs a descriptor parse and a pool look-up per reference parameter. A frame depends on
// the pool, the descriptor, whether the method is static, and on `this` (the class, or
// UninitializedThis in a constructor). Since a pool only ever grows and its look-ups answer
// the same entry for the same name once it exists, a frame stays right for as long as the
// pool id matches; a new class (a new pool) simply overwrites the slots.
enum class ThisKind : uint8_t { kNone, kClass, kUninitialized };

struct EntryFrameCache {
  struct Slot {
    uint64_t pool_id = 0;
    ThisKind kind = ThisKind::kNone;
    std::string descriptor;
    std::string class_name;  // only compared for ThisKind::kClass
    Frame frame;
  };
  static constexpr size_t kSlots = 64;
  Slot slots[kSlots];

  Slot& slot(std::string_view descriptor, ThisKind kind) {
    size_t h = static_cast<size_t>(text_hash(descriptor)) + static_cast<size_t>(kind);
    return slots[h % kSlots];
  }
  static bool matches(const Slot& s, const ConstantPool& pool, std::string_view descriptor,
                      ThisKind kind, std::string_view class_name) {
    return s.pool_id == pool.id() && s.kind == kind && s.descriptor == descriptor &&
           (kind != ThisKind::kClass || s.class_name == class_name);
  }
};

EntryFrameCache& entry_frame_cache() {
  thread_local EntryFrameCache cache;
  return cache;
}

ThisKind this_kind(std::string_view class_name, std::string_view method_name,
                   uint16_t access_flags) {
  if ((access_flags & access::kStatic) != 0) return ThisKind::kNone;
  // In a constructor `this` is uninitialized until super() or this() runs, except in
  // Object's, which has no superclass constructor to call.
  if (method_name == "<init>" && class_name != "java/lang/Object") return ThisKind::kUninitialized;
  return ThisKind::kClass;
}

// The entry frame, into `frame` (whose vectors keep their capacity from call to call).
Status compute_initial_frame(ConstantPool& pool, std::string_view class_name, ThisKind kind,
                             std::string_view descriptor, Frame& frame) {
  thread_local std::vector<ParsedType> params;
  if (!quick_parameters(descriptor, params)) {
    auto failed = parse_parameters(descriptor);
    std::string reason =
        failed ? "internal error: descriptor parsers disagree" : std::move(failed.error().reason);
    return Error::plain("bad method descriptor " + std::string(descriptor) + ": " + reason);
  }
  size_t slots = kind == ThisKind::kNone ? 0 : 1;
  for (const auto& t : params) slots += (t.tag == VTag::kLong || t.tag == VTag::kDouble) ? 2 : 1;
  // JVMS 4.3.3: the parameters, `this` included, may take at most 255 local slots.
  if (slots > 255) {
    return Error::plain("bad method descriptor " + std::string(descriptor) +
                        ": more than 255 parameter slots");
  }
  frame.locals.clear();
  frame.stack.clear();
  if (kind == ThisKind::kUninitialized) frame.locals.push_back(VType{VTag::kUninitializedThis, 0});
  if (kind == ThisKind::kClass) {
    auto self = to_vtype(pool, ParsedType{VTag::kObject, class_name});
    if (!self) return self.error();
    frame.locals.push_back(self.value());
  }
  for (const auto& t : params) {
    auto v = to_vtype(pool, t);
    if (!v) return v.error();
    frame.locals.push_back(v.value());
  }
  return Ok{};
}

}  // namespace

Result<const Frame*> initial_frame_ref(ConstantPool& pool, std::string_view class_name,
                                       std::string_view method_name, std::string_view descriptor,
                                       uint16_t access_flags) {
  ThisKind kind = this_kind(class_name, method_name, access_flags);
  EntryFrameCache::Slot& slot = entry_frame_cache().slot(descriptor, kind);
  if (EntryFrameCache::matches(slot, pool, descriptor, kind, class_name)) return &slot.frame;
  slot.pool_id = 0;  // until the frame is complete
  if (auto s = compute_initial_frame(pool, class_name, kind, descriptor, slot.frame); !s) {
    return s.error();
  }
  slot.pool_id = pool.id();
  slot.kind = kind;
  slot.descriptor.assign(descriptor);
  slot.class_name.assign(kind == ThisKind::kClass ? class_name : std::string_view());
  return &slot.frame;
}

Result<Frame> initial_frame(ConstantPool& pool, std::string_view class_name,
                            std::string_view method_name, std::string_view descriptor,
                            uint16_t access_flags) {
  auto frame = initial_frame_ref(pool, class_name, method_name, descriptor, access_flags);
  if (!frame) return frame.error();
  return *frame.value();
}

}  // namespace duplex
