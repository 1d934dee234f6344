// A javap-like disassembler. The output is meant for golden tests, so it is stable: no
// pointers, no timestamps, no locale-dependent number formatting, one line per item. It
// never fails: every damaged part prints as <bad ...> and the rest of the class continues.
//
// Instructions are decoded straight from the code bytes (not through the IR builder) so that
// the disassembler still works on code the builder rejects — which is exactly the code one
// wants to look at when something went wrong.
#include "classfile/disassembler.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "classfile/attributes.h"
#include "classfile/bytes.h"
#include "classfile/opcodes.h"

namespace duplex {
namespace {

// ---------------------------------------------------------------------------------------
// Text helpers

std::string hex(uint32_t value, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, value);
  return buf;
}

// Escapes control characters (and, when quoting, quotes and backslashes) so that every item
// stays on one line whatever the class file holds.
std::string escape(std::string_view utf8, bool quoting) {
  std::string out;
  out.reserve(utf8.size() + 2);
  for (char c : utf8) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else if (quoting && (c == '"' || c == '\\')) {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

// Shortest round-trip text (std::to_chars is locale-independent), with Java's names for the
// special values.
template <class F>
std::string format_floating(F value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, r.ptr);
}

std::string java_version(uint16_t major) {
  if (major >= 49) return "Java " + std::to_string(major - 44);
  if (major >= 45) return "Java 1." + std::to_string(major - 44);
  return "unknown Java version";
}

// ---------------------------------------------------------------------------------------
// Access flags: the same bit means different things on classes, fields and methods.

enum class FlagKind { kClass, kField, kMethod };

struct FlagName {
  uint16_t bit;
  const char* name;
};

constexpr FlagName kClassFlags[] = {
    {0x0001, "public"},     {0x0010, "final"},    {0x0020, "super"},
    {0x0200, "interface"},  {0x0400, "abstract"}, {0x1000, "synthetic"},
    {0x2000, "annotation"}, {0x4000, "enum"},     {0x8000, "module"},
};
constexpr FlagName kFieldFlags[] = {
    {0x0001, "public"},    {0x0002, "private"},   {0x0004, "protected"},
    {0x0008, "static"},    {0x0010, "final"},     {0x0040, "volatile"},
    {0x0080, "transient"}, {0x1000, "synthetic"}, {0x4000, "enum"},
};
constexpr FlagName kMethodFlags[] = {
    {0x0001, "public"}, {0x0002, "private"},      {0x0004, "protected"}, {0x0008, "static"},
    {0x0010, "final"},  {0x0020, "synchronized"}, {0x0040, "bridge"},    {0x0080, "varargs"},
    {0x0100, "native"}, {0x0400, "abstract"},     {0x0800, "strict"},    {0x1000, "synthetic"},
};

std::string format_flags(uint16_t flags, FlagKind kind) {
  std::span<const FlagName> names = kMethodFlags;
  if (kind == FlagKind::kClass) names = kClassFlags;
  if (kind == FlagKind::kField) names = kFieldFlags;
  std::string out = hex(flags, 4);
  for (const FlagName& f : names) {
    if (flags & f.bit) {
      out += ' ';
      out += f.name;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Constant-pool rendering. Every accessor checks index and tag and falls back to <bad ...>.

const char* const kRefKindNames[] = {
    "<bad reference kind>", "REF_getField",        "REF_getStatic",    "REF_putField",
    "REF_putStatic",        "REF_invokeVirtual",   "REF_invokeStatic", "REF_invokeSpecial",
    "REF_newInvokeSpecial", "REF_invokeInterface",
};

class PoolText {
 public:
  explicit PoolText(const ConstantPool& pool) : pool_(pool) {}

  std::string utf8(uint32_t index) const {
    auto s = pool_.utf8(index);
    if (!s) return "<bad utf8 #" + std::to_string(index) + ">";
    return escape(modified_utf8_to_utf8(*s), false);
  }
  std::string quoted(uint32_t index) const {
    auto s = pool_.utf8(index);
    if (!s) return "<bad utf8 #" + std::to_string(index) + ">";
    return '"' + escape(modified_utf8_to_utf8(*s), true) + '"';
  }
  std::string class_name(uint32_t index) const {
    auto s = pool_.class_name(index);
    if (!s) return "<bad class #" + std::to_string(index) + ">";
    return escape(modified_utf8_to_utf8(*s), false);
  }
  // owner.name:desc for fields, owner.name(args)ret for methods.
  std::string member(uint32_t index) const {
    auto m = pool_.member_ref(index);
    if (!m) return "<bad member reference #" + std::to_string(index) + ">";
    return member_text(m->owner, m->name, m->descriptor);
  }
  std::string name_and_type(uint32_t index) const {
    auto nt = pool_.name_and_type(index);
    if (!nt) return "<bad name-and-type #" + std::to_string(index) + ">";
    return name_desc(nt->first, nt->second);
  }
  // #bootstrap:name(desc) for invokedynamic and Dynamic constants.
  std::string dynamic(uint32_t index) const {
    auto d = pool_.dynamic_ref(index);
    if (!d) return "<bad dynamic reference #" + std::to_string(index) + ">";
    return "#" + std::to_string(d->bootstrap_index) + ":" + name_desc(d->name, d->descriptor);
  }
  std::string method_handle(uint32_t index) const {
    const CpEntry* e = pool_.entry(index);
    if (!e || e->tag != CpTag::kMethodHandle) {
      return "<bad method handle #" + std::to_string(index) + ">";
    }
    const char* kind = e->a >= 1 && e->a <= 9 ? kRefKindNames[e->a] : kRefKindNames[0];
    return std::string(kind) + " " + member(e->b);
  }

  // A loadable constant with its type: `int 42`, `String "hi"`, `Class java/lang/Object`.
  std::string constant(uint32_t index) const {
    const CpEntry* e = pool_.entry(index);
    if (!e) return "<bad constant #" + std::to_string(index) + ">";
    switch (e->tag) {
      case CpTag::kInteger:
        return "int " + number(*e);
      case CpTag::kFloat:
        return "float " + number(*e);
      case CpTag::kLong:
        return "long " + number(*e);
      case CpTag::kDouble:
        return "double " + number(*e);
      case CpTag::kString:
        return "String " + quoted(e->a);
      case CpTag::kClass:
        return "Class " + class_name(index);
      case CpTag::kMethodType:
        return "MethodType " + utf8(e->a);
      case CpTag::kMethodHandle:
        return "MethodHandle " + method_handle(index);
      case CpTag::kDynamic:
        return "Dynamic " + dynamic(index);
      default:
        return "<bad constant #" + std::to_string(index) + ">";
    }
  }

  // The value of a numeric entry, without its type.
  static std::string number(const CpEntry& e) {
    switch (e.tag) {
      case CpTag::kInteger:
        return std::to_string(static_cast<int32_t>(static_cast<uint32_t>(e.bits)));
      case CpTag::kFloat:
        return format_floating(std::bit_cast<float>(static_cast<uint32_t>(e.bits)));
      case CpTag::kLong:
        return std::to_string(static_cast<int64_t>(e.bits));
      case CpTag::kDouble:
        return format_floating(std::bit_cast<double>(e.bits));
      default:
        return "<bad number>";
    }
  }

  // The body of a `#n = Tag ...` line of the pool listing.
  std::string entry_detail(uint32_t index) const;

  const ConstantPool& pool() const { return pool_; }

 private:
  std::string display(std::string_view modified) const {
    return escape(modified_utf8_to_utf8(modified), false);
  }
  std::string name_desc(std::string_view name, std::string_view desc) const {
    // A method descriptor starts with '(' and reads well glued to the name; a field's
    // descriptor needs a separator.
    std::string sep = !desc.empty() && desc.front() == '(' ? "" : ":";
    return display(name) + sep + display(desc);
  }
  std::string member_text(std::string_view owner, std::string_view name,
                          std::string_view desc) const {
    return display(owner) + "." + name_desc(name, desc);
  }

  const ConstantPool& pool_;
};

std::string ref(uint32_t index) {
  return "#" + std::to_string(index);
}

std::string PoolText::entry_detail(uint32_t index) const {
  const CpEntry* e = pool_.entry(index);
  if (!e) return "<bad entry>";
  switch (e->tag) {
    case CpTag::kUtf8:
      return quoted(index);
    case CpTag::kInteger:
    case CpTag::kFloat:
    case CpTag::kLong:
    case CpTag::kDouble:
      return number(*e);
    case CpTag::kClass:
    case CpTag::kModule:
    case CpTag::kPackage:
    case CpTag::kMethodType:
      return ref(e->a) + " " + utf8(e->a);
    case CpTag::kString:
      return ref(e->a) + " " + quoted(e->a);
    case CpTag::kFieldref:
    case CpTag::kMethodref:
    case CpTag::kInterfaceMethodref:
      return ref(e->a) + "." + ref(e->b) + " " + member(index);
    case CpTag::kNameAndType:
      return ref(e->a) + ":" + ref(e->b) + " " + name_and_type(index);
    case CpTag::kMethodHandle:
      return method_handle(index);
    case CpTag::kDynamic:
    case CpTag::kInvokeDynamic:
      return dynamic(index);
    default:
      return "<bad entry>";
  }
}

// ---------------------------------------------------------------------------------------
// Instruction operands shared by the bytecode and the IR listings.

const char* array_type_name(int32_t atype) {
  static const char* const kNames[] = {"boolean", "char",  "float", "double",
                                       "byte",    "short", "int",   "long"};
  return atype >= 4 && atype <= 11 ? kNames[atype - 4] : nullptr;
}

// The text of a pool operand, chosen by what the instruction does with it.
std::string pool_operand(const PoolText& pool, uint8_t opcode, uint32_t index) {
  std::string out = ref(index) + " ";
  switch (opcode) {
    case op::kLdc:
    case op::kLdcW:
    case op::kLdc2W:
      return out + pool.constant(index);
    case op::kGetstatic:
    case op::kPutstatic:
    case op::kGetfield:
    case op::kPutfield:
    case op::kInvokevirtual:
    case op::kInvokespecial:
    case op::kInvokestatic:
    case op::kInvokeinterface:
      return out + pool.member(index);
    case op::kInvokedynamic:
      return out + pool.dynamic(index);
    default:  // new, anewarray, checkcast, instanceof, multianewarray
      return out + pool.class_name(index);
  }
}

// Operands of every shape except branches and switches (whose targets the two listings
// print differently: offsets versus labels). `a` and `b` mean what they mean in Insn.
std::string plain_operands(const PoolText& pool, uint8_t opcode, int32_t a, int32_t b) {
  switch (opcode_info(opcode).shape) {
    case OperandShape::kByte:
      if (opcode == op::kNewarray) {
        const char* name = array_type_name(a);
        return name ? std::string(" ") + name : " <bad array type " + std::to_string(a) + ">";
      }
      return " " + std::to_string(a);
    case OperandShape::kShort:
    case OperandShape::kLocal:
      return " " + std::to_string(a);
    case OperandShape::kIinc:
      return " " + std::to_string(a) + ", " + std::to_string(b);
    case OperandShape::kCpByte:
    case OperandShape::kCp:
    case OperandShape::kInvokeDynamic:
      return " " + pool_operand(pool, opcode, static_cast<uint32_t>(a));
    case OperandShape::kInvokeInterface:
    case OperandShape::kMultiANewArray:
      return " " + pool_operand(pool, opcode, static_cast<uint32_t>(a)) + ", " + std::to_string(b);
    default:
      return {};
  }
}

// ---------------------------------------------------------------------------------------
// Verification types, for StackMapTable frames (offsets) and IR frames (labels).

template <class UninitText>
std::string vtype_text(const PoolText& pool, const VType& t, UninitText uninit) {
  switch (t.tag) {
    case VTag::kTop:
      return "top";
    case VTag::kInteger:
      return "int";
    case VTag::kFloat:
      return "float";
    case VTag::kDouble:
      return "double";
    case VTag::kLong:
      return "long";
    case VTag::kNull:
      return "null";
    case VTag::kUninitializedThis:
      return "uninitialized_this";
    case VTag::kObject:
      return pool.class_name(t.data);
    case VTag::kUninitialized:
      return "Uninitialized(" + uninit(t.data) + ")";
  }
  return "<bad verification type " + std::to_string(static_cast<int>(t.tag)) + ">";
}

template <class UninitText>
std::string frame_text(const PoolText& pool, const Frame& f, UninitText uninit) {
  auto list = [&](std::span<const VType> types) {
    std::string out = "[";
    for (size_t i = 0; i < types.size(); ++i) {
      if (i) out += ", ";
      out += vtype_text(pool, types[i], uninit);
    }
    return out + "]";
  };
  return "locals=" + list(f.locals) + " stack=" + list(f.stack);
}

// ---------------------------------------------------------------------------------------
// Decoding instructions from code bytes.

struct DecodedInsn {
  uint32_t offset = 0;
  uint32_t length = 0;
  uint8_t opcode = 0;  // the modified opcode when `wide`
  bool wide = false;
  int32_t a = 0;
  int32_t b = 0;
  int64_t target = 0;                              // branch target; switch default
  int32_t low = 0;                                 // tableswitch
  std::vector<std::pair<int32_t, int64_t>> cases;  // switch: key, absolute target
  std::string bad;  // set when the instruction is damaged; decoding stops there
};

void skip_switch_padding(ByteReader& in) {
  // Switch operands start at the next multiple of four from the start of the code.
  while (in.pos() % 4 != 0 && !in.failed()) in.u1();
}

// A count of table entries is only believable if the bytes for them are there; checking
// first keeps a damaged count from making us allocate or loop billions of times.
bool fits(const ByteReader& in, int64_t count, int64_t entry_size) {
  return count >= 0 && count * entry_size <= static_cast<int64_t>(in.remaining());
}

void decode_tableswitch(ByteReader& in, DecodedInsn& d) {
  skip_switch_padding(in);
  d.target = d.offset + static_cast<int64_t>(in.s4());
  d.low = in.s4();
  int32_t high = in.s4();
  if (in.failed()) return;
  int64_t count = static_cast<int64_t>(high) - d.low + 1;
  if (high < d.low || !fits(in, count, 4)) {
    d.bad = "tableswitch " + std::to_string(d.low) + ".." + std::to_string(high) +
            " does not fit the code";
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    d.cases.emplace_back(static_cast<int32_t>(d.low + i), d.offset + static_cast<int64_t>(in.s4()));
  }
}

void decode_lookupswitch(ByteReader& in, DecodedInsn& d) {
  skip_switch_padding(in);
  d.target = d.offset + static_cast<int64_t>(in.s4());
  int32_t npairs = in.s4();
  if (in.failed()) return;
  if (!fits(in, npairs, 8)) {
    d.bad = "lookupswitch with " + std::to_string(npairs) + " pairs does not fit the code";
    return;
  }
  for (int32_t i = 0; i < npairs; ++i) {
    int32_t key = in.s4();
    d.cases.emplace_back(key, d.offset + static_cast<int64_t>(in.s4()));
  }
}

void decode_wide(ByteReader& in, DecodedInsn& d) {
  d.wide = true;
  uint8_t modified = in.u1();
  if (in.failed()) {
    d.bad = "truncated wide";
    return;
  }
  d.opcode = modified;
  OperandShape shape = opcode_info(d.opcode).shape;
  if (shape == OperandShape::kLocal) {
    d.a = in.u2();
  } else if (shape == OperandShape::kIinc) {
    d.a = in.u2();
    d.b = in.s2();
  } else {
    d.bad =
        "wide before " + std::string(opcode_info(d.opcode).name) + " (" + hex(d.opcode, 2) + ")";
  }
}

void decode_operands(ByteReader& in, DecodedInsn& d) {
  switch (opcode_info(d.opcode).shape) {
    case OperandShape::kNone:
      break;
    case OperandShape::kByte:
      d.a = d.opcode == op::kNewarray ? in.u1() : static_cast<int8_t>(in.u1());
      break;
    case OperandShape::kShort:
      d.a = in.s2();
      break;
    case OperandShape::kLocal:
    case OperandShape::kCpByte:
      d.a = in.u1();
      break;
    case OperandShape::kIinc:
      d.a = in.u1();
      d.b = static_cast<int8_t>(in.u1());
      break;
    case OperandShape::kCp:
      d.a = in.u2();
      break;
    case OperandShape::kBranch:
      d.target = d.offset + static_cast<int64_t>(in.s2());
      break;
    case OperandShape::kBranchWide:
      d.target = d.offset + static_cast<int64_t>(in.s4());
      break;
    case OperandShape::kInvokeInterface:
      d.a = in.u2();
      d.b = in.u1();
      in.u1();  // the reserved zero byte
      break;
    case OperandShape::kInvokeDynamic:
      d.a = in.u2();
      in.u2();  // the reserved zero bytes
      break;
    case OperandShape::kMultiANewArray:
      d.a = in.u2();
      d.b = in.u1();
      break;
    case OperandShape::kTableSwitch:
      decode_tableswitch(in, d);
      break;
    case OperandShape::kLookupSwitch:
      decode_lookupswitch(in, d);
      break;
    case OperandShape::kWide:
      decode_wide(in, d);
      break;
    case OperandShape::kInvalid:
      d.bad = "opcode " + hex(d.opcode, 2);
      break;
  }
}

DecodedInsn decode_insn(std::span<const uint8_t> code, uint32_t at) {
  DecodedInsn d;
  d.offset = at;
  ByteReader in(code);
  in.seek(at);
  d.opcode = in.u1();
  decode_operands(in, d);
  if (in.failed() && d.bad.empty()) {
    d.bad = "truncated " + std::string(opcode_info(d.opcode).name);
  }
  d.length = static_cast<uint32_t>(in.pos() - at);
  return d;
}

// Decodes up to the end of the code or the first damaged instruction (whose length, and so
// where the next instruction starts, cannot be trusted).
std::vector<DecodedInsn> decode_all(std::span<const uint8_t> code) {
  std::vector<DecodedInsn> out;
  uint32_t at = 0;
  while (at < code.size()) {
    out.push_back(decode_insn(code, at));
    if (!out.back().bad.empty() || out.back().length == 0) break;
    at += out.back().length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// The class listing.

std::string pad_offset(uint32_t offset) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%5u", offset);
  return buf;
}

class ClassDisassembler {
 public:
  ClassDisassembler(const ClassFile& cf, const DisasmOptions& options)
      : cf_(cf), options_(options), pool_(cf.pool) {}

  std::string run() {
    header();
    if (options_.constant_pool) constant_pool();
    fields();
    methods();
    class_attributes();
    return std::move(out_);
  }

 private:
  void line(int indent, std::string_view text) {
    out_.append(static_cast<size_t>(indent), ' ');
    out_ += text;
    out_ += '\n';
  }
  std::string attr_name(const Attribute& a) const { return pool_.utf8(a.name_index); }
  static std::string bad(std::string_view what, const Error& e) {
    return "<bad " + std::string(what) + ": " + escape(e.message(), false) + ">";
  }

  void header();
  void constant_pool();
  void fields();
  void field(const Member& f);
  void methods();
  void method(const Member& m);
  void member_attribute(const Member& m, const Attribute& a, bool is_method);
  void u2_attribute(int indent, const Attribute& a, const std::string& name, bool as_constant);
  void code(const Member& m, const Attribute& a);
  void instructions(std::span<const uint8_t> code);
  void instruction(const DecodedInsn& d, const std::vector<bool>& starts, size_t code_size);
  void exception_table(const std::vector<ExceptionTableEntry>& table);
  void code_attribute(const Member& m, const Attribute& a);
  void line_numbers(const Attribute& a);
  void local_variables(const Attribute& a, const std::string& name);
  void stack_map(const Member& m, const Attribute& a);
  void exceptions(const Attribute& a);
  void class_attributes();
  void bootstrap_methods(const Attribute& a);
  void other_attribute(int indent, const Attribute& a);

  const ClassFile& cf_;
  const DisasmOptions& options_;
  PoolText pool_;
  // initial_frame() adds Class entries to a pool; the class is const, so frames are
  // computed against a private copy, made once per class and only when needed.
  std::optional<ConstantPool> scratch_pool_;
  std::string out_;
};

void ClassDisassembler::header() {
  line(0, "class " + pool_.class_name(cf_.this_class));
  line(2, "version: " + std::to_string(cf_.major_version) + "." +
              std::to_string(cf_.minor_version) + " (" + java_version(cf_.major_version) + ")");
  line(2, "flags: " + format_flags(cf_.access_flags, FlagKind::kClass));
  line(2, "this_class: " + ref(cf_.this_class) + " " + pool_.class_name(cf_.this_class));
  line(2, "super_class: " + ref(cf_.super_class) + " " +
              (cf_.super_class == 0 ? std::string("none") : pool_.class_name(cf_.super_class)));
  line(2, "interfaces: " + std::to_string(cf_.interfaces.size()));
  for (uint16_t i : cf_.interfaces) line(4, ref(i) + " " + pool_.class_name(i));
}

void ClassDisassembler::constant_pool() {
  line(0, "constant pool: " + std::to_string(cf_.pool.count()) + " slots");
  for (uint32_t i = 1; i < cf_.pool.count(); ++i) {
    CpTag tag = cf_.pool.tag(i);
    if (tag == CpTag::kUnusable) continue;  // the second slot of a Long or Double
    line(2, ref(i) + " = " + cp_tag_name(tag) + " " + pool_.entry_detail(i));
  }
}

void ClassDisassembler::fields() {
  line(0, "fields: " + std::to_string(cf_.fields.size()));
  for (const Member& f : cf_.fields) field(f);
}

void ClassDisassembler::field(const Member& f) {
  line(2, "field " + pool_.utf8(f.name_index) + " " + pool_.utf8(f.descriptor_index));
  line(4, "flags: " + format_flags(f.access_flags, FlagKind::kField));
  for (const Attribute& a : f.attributes) member_attribute(f, a, false);
}

void ClassDisassembler::methods() {
  line(0, "methods: " + std::to_string(cf_.methods.size()));
  for (const Member& m : cf_.methods) method(m);
}

void ClassDisassembler::method(const Member& m) {
  line(2, "method " + pool_.utf8(m.name_index) + pool_.utf8(m.descriptor_index));
  line(4, "flags: " + format_flags(m.access_flags, FlagKind::kMethod));
  for (const Attribute& a : m.attributes) member_attribute(m, a, true);
}

void ClassDisassembler::member_attribute(const Member& m, const Attribute& a, bool is_method) {
  std::string name = attr_name(a);
  if (is_method && name == "Code") {
    code(m, a);
  } else if (is_method && name == "Exceptions") {
    exceptions(a);
  } else if (!is_method && name == "ConstantValue") {
    u2_attribute(4, a, name, true);
  } else if (name == "Signature") {
    u2_attribute(4, a, name, false);
  } else {
    other_attribute(4, a);
  }
}

// ConstantValue, Signature and SourceFile are a single u2 pool index.
void ClassDisassembler::u2_attribute(int indent, const Attribute& a, const std::string& name,
                                     bool as_constant) {
  if (a.data.size() != 2) {
    line(indent, name + ": <bad length " + std::to_string(a.data.size()) + ">");
    return;
  }
  uint32_t index = static_cast<uint32_t>(a.data[0]) << 8 | a.data[1];
  line(indent, name + ": " + (as_constant ? pool_.constant(index) : pool_.utf8(index)));
}

void ClassDisassembler::exceptions(const Attribute& a) {
  auto list = decode_exceptions(a.data);
  if (!list) {
    line(4, "Exceptions: " + bad("Exceptions", list.error()));
    return;
  }
  std::string text = "Exceptions:";
  for (uint16_t i : *list) {
    text += ' ';
    text += pool_.class_name(i);
  }
  line(4, text);
}

void ClassDisassembler::code(const Member& m, const Attribute& a) {
  auto decoded = decode_code(a);
  if (!decoded) {
    line(4, "Code: " + bad("Code", decoded.error()));
    return;
  }
  const CodeAttribute& c = *decoded;
  line(4, "Code: max_stack=" + std::to_string(c.max_stack) + " max_locals=" +
              std::to_string(c.max_locals) + " code_length=" + std::to_string(c.code.size()));
  instructions(c.code);
  exception_table(c.exception_table);
  for (const Attribute& inner : c.attributes) code_attribute(m, inner);
}

void ClassDisassembler::instructions(std::span<const uint8_t> code) {
  std::vector<DecodedInsn> insns = decode_all(code);
  // Branch targets must land on an instruction start; a first pass records the starts.
  std::vector<bool> starts(code.size(), false);
  for (const DecodedInsn& d : insns) {
    if (d.bad.empty()) starts[d.offset] = true;
  }
  for (const DecodedInsn& d : insns) instruction(d, starts, code.size());
}

std::string target_text(int64_t target, const std::vector<bool>& starts) {
  bool ok = target >= 0 && target < static_cast<int64_t>(starts.size()) &&
            starts[static_cast<size_t>(target)];
  return ok ? std::to_string(target) : "<bad target " + std::to_string(target) + ">";
}

void ClassDisassembler::instruction(const DecodedInsn& d, const std::vector<bool>& starts,
                                    size_t code_size) {
  std::string prefix = pad_offset(d.offset) + ": ";
  if (!d.bad.empty()) {
    size_t rest = code_size - d.offset;
    line(4, prefix + "<bad " + d.bad + "; " + std::to_string(rest) + " bytes not decoded>");
    return;
  }
  const OpcodeInfo& info = opcode_info(d.opcode);
  std::string text = prefix + (d.wide ? "wide " : "") + info.name;
  switch (info.shape) {
    case OperandShape::kBranch:
    case OperandShape::kBranchWide:
      line(4, text + " " + target_text(d.target, starts));
      return;
    case OperandShape::kTableSwitch:
    case OperandShape::kLookupSwitch: {
      std::string range = info.shape == OperandShape::kTableSwitch
                              ? " " + std::to_string(d.low) + ".." +
                                    std::to_string(d.low + static_cast<int64_t>(d.cases.size()) - 1)
                              : " " + std::to_string(d.cases.size()) + " cases";
      line(4, text + range + " default " + target_text(d.target, starts));
      for (const auto& [key, target] : d.cases) {
        line(15, "case " + std::to_string(key) + " -> " + target_text(target, starts));
      }
      return;
    }
    default:
      line(4, text + plain_operands(pool_, d.opcode, d.a, d.b));
  }
}

void ClassDisassembler::exception_table(const std::vector<ExceptionTableEntry>& table) {
  if (table.empty()) return;
  line(4, "exception table:");
  for (const ExceptionTableEntry& e : table) {
    std::string type = e.catch_type == 0 ? "any" : pool_.class_name(e.catch_type);
    line(6, "from " + std::to_string(e.start_pc) + " to " + std::to_string(e.end_pc) + " target " +
                std::to_string(e.handler_pc) + " type " + type);
  }
}

void ClassDisassembler::code_attribute(const Member& m, const Attribute& a) {
  std::string name = attr_name(a);
  if (name == "LineNumberTable") {
    line_numbers(a);
  } else if (name == "LocalVariableTable" || name == "LocalVariableTypeTable") {
    local_variables(a, name);
  } else if (name == "StackMapTable") {
    // --no-frames leaves the frames out entirely, so golden files do not depend on them.
    if (options_.frames) stack_map(m, a);
  } else {
    other_attribute(4, a);
  }
}

void ClassDisassembler::line_numbers(const Attribute& a) {
  auto entries = decode_line_numbers(a.data);
  if (!entries) {
    line(4, "LineNumberTable: " + bad("LineNumberTable", entries.error()));
    return;
  }
  line(4, "LineNumberTable:");
  for (const LineNumberEntry& e : *entries) {
    line(6, "line " + std::to_string(e.line) + ": " + std::to_string(e.start_pc));
  }
}

void ClassDisassembler::local_variables(const Attribute& a, const std::string& name) {
  auto entries = decode_local_variables(a.data);
  if (!entries) {
    line(4, name + ": " + bad(name, entries.error()));
    return;
  }
  line(4, name + ":");
  for (const LocalVariableEntry& e : *entries) {
    line(6, "start " + std::to_string(e.start_pc) + " length " + std::to_string(e.length) +
                " slot " + std::to_string(e.index) + " " + pool_.utf8(e.name_index) + " " +
                pool_.utf8(e.descriptor_index));
  }
}

void ClassDisassembler::stack_map(const Member& m, const Attribute& a) {
  if (!scratch_pool_) scratch_pool_ = cf_.pool;
  auto cls = cf_.pool.class_name(cf_.this_class);
  auto name = cf_.pool.utf8(m.name_index);
  auto desc = cf_.pool.utf8(m.descriptor_index);
  if (!cls || !name || !desc) {
    line(4, "StackMapTable: <bad method or class name>");
    return;
  }
  auto initial = initial_frame(*scratch_pool_, *cls, *name, *desc, m.access_flags);
  if (!initial) {
    line(4, "StackMapTable: " + bad("entry frame", initial.error()));
    return;
  }
  auto frames = decode_stack_map_table(a.data, *initial);
  if (!frames) {
    line(4, "StackMapTable: " + bad("StackMapTable", frames.error()));
    return;
  }
  PoolText scratch(*scratch_pool_);
  auto uninit = [](uint32_t offset) { return std::to_string(offset); };
  line(4, "StackMapTable: " + std::to_string(frames->size()) + " frames");
  for (const OffsetFrame& f : *frames) {
    line(6, "frame @" + std::to_string(f.offset) + " " + frame_text(scratch, f.frame, uninit));
  }
}

void ClassDisassembler::class_attributes() {
  line(0, "attributes: " + std::to_string(cf_.attributes.size()));
  for (const Attribute& a : cf_.attributes) {
    std::string name = attr_name(a);
    if (name == "SourceFile" || name == "Signature") {
      u2_attribute(2, a, name, false);
    } else if (name == "BootstrapMethods") {
      bootstrap_methods(a);
    } else {
      other_attribute(2, a);
    }
  }
}

void ClassDisassembler::bootstrap_methods(const Attribute& a) {
  auto methods = decode_bootstrap_methods(a.data);
  if (!methods) {
    line(2, "BootstrapMethods: " + bad("BootstrapMethods", methods.error()));
    return;
  }
  line(2, "BootstrapMethods: " + std::to_string(methods->size()));
  for (size_t i = 0; i < methods->size(); ++i) {
    const BootstrapMethod& bm = (*methods)[i];
    line(4, std::to_string(i) + ": " + pool_.method_handle(bm.method_handle));
    for (uint16_t arg : bm.arguments) line(8, "arg " + pool_.constant(arg));
  }
}

void ClassDisassembler::other_attribute(int indent, const Attribute& a) {
  line(indent, attr_name(a) + " (" + std::to_string(a.data.size()) + " bytes)");
}

// ---------------------------------------------------------------------------------------
// The IR listing.

class IrDisassembler {
 public:
  IrDisassembler(const ClassFile& cf, const CodeIR& ir) : pool_(cf.pool), ir_(ir) {}

  std::string run() {
    line(0, "max_stack=" + std::to_string(ir_.max_stack) +
                " max_locals=" + std::to_string(ir_.max_locals));
    for (const LineNumber& ln : ir_.line_numbers) lines_at_[ln.label].push_back(ln.line);
    for (const Insn& insn : ir_.insns) instruction(insn);
    try_catches();
    local_variables("LocalVariableTable", ir_.local_variables);
    local_variables("LocalVariableTypeTable", ir_.local_variable_types);
    annotations("RuntimeVisibleTypeAnnotations", ir_.visible_type_annotations);
    annotations("RuntimeInvisibleTypeAnnotations", ir_.invisible_type_annotations);
    for (const Attribute& a : ir_.unknown_attributes) {
      line(0, "unknown attribute " + pool_.utf8(a.name_index) + " (" +
                  std::to_string(a.data.size()) + " bytes)");
    }
    return std::move(out_);
  }

 private:
  void line(int indent, std::string_view text) {
    out_.append(static_cast<size_t>(indent), ' ');
    out_ += text;
    out_ += '\n';
  }
  std::string label(LabelId id) const {
    if (id >= ir_.labels.size()) return "<bad label " + std::to_string(id) + ">";
    // Appended rather than "L" + to_string(id): GCC 12 warns falsely (-Wrestrict) on that
    // form once this is inlined into annotations().
    std::string text = "L";
    text += std::to_string(id);
    return text;
  }
  void label_line(LabelId id);
  void instruction(const Insn& insn);
  void switch_lines(const Insn& insn, const OpcodeInfo& info);
  void try_catches();
  void local_variables(const char* title, const std::vector<LocalVar>& vars);
  void annotations(const char* title, const std::vector<CodeTypeAnnotationIR>& annos);

  PoolText pool_;
  const CodeIR& ir_;
  std::map<LabelId, std::vector<uint16_t>> lines_at_;  // ordered: output must be stable
  std::string out_;
};

void IrDisassembler::label_line(LabelId id) {
  line(0, label(id) + ":");
  if (auto it = lines_at_.find(id); it != lines_at_.end()) {
    for (uint16_t n : it->second) line(4, "line " + std::to_string(n));
  }
  if (id < ir_.labels.size() && ir_.labels[id].frame) {
    auto uninit = [this](uint32_t l) { return label(l); };
    line(4, "frame " + frame_text(pool_, *ir_.labels[id].frame, uninit));
  }
}

void IrDisassembler::instruction(const Insn& insn) {
  if (insn.is_label()) {
    label_line(insn.label());
    return;
  }
  if (insn.opcode > 0xff) {
    line(4, "<bad pseudo-opcode " + std::to_string(insn.opcode) + ">");
    return;
  }
  auto opcode = static_cast<uint8_t>(insn.opcode);
  const OpcodeInfo& info = opcode_info(opcode);
  std::string text = std::string(insn.wide ? "wide " : "") + info.name;
  switch (info.shape) {
    case OperandShape::kBranch:
    case OperandShape::kBranchWide:
      line(4, text + " " + label(insn.target));
      return;
    case OperandShape::kTableSwitch:
    case OperandShape::kLookupSwitch:
      switch_lines(insn, info);
      return;
    case OperandShape::kInvalid:
    case OperandShape::kWide:
      line(4, "<bad opcode " + hex(opcode, 2) + ">");
      return;
    default:
      line(4, text + plain_operands(pool_, opcode, insn.a, insn.b));
  }
}

void IrDisassembler::switch_lines(const Insn& insn, const OpcodeInfo& info) {
  if (insn.switch_index >= ir_.switches.size()) {
    line(4, std::string(info.name) + " <bad switch " + std::to_string(insn.switch_index) + ">");
    return;
  }
  const SwitchTable& table = ir_.switches[insn.switch_index];
  bool is_table = info.shape == OperandShape::kTableSwitch;
  std::string head =
      is_table ? std::to_string(table.low) + ".." +
                     std::to_string(table.low + static_cast<int64_t>(table.targets.size()) - 1)
               : std::to_string(table.targets.size()) + " cases";
  line(4, std::string(info.name) + " " + head + " default " + label(insn.target));
  for (size_t i = 0; i < table.targets.size(); ++i) {
    int64_t key = is_table                ? table.low + static_cast<int64_t>(i)
                  : i < table.keys.size() ? table.keys[i]
                                          : INT64_MIN;
    std::string key_text = key == INT64_MIN ? "<bad key>" : std::to_string(key);
    line(8, "case " + key_text + " -> " + label(table.targets[i]));
  }
}

void IrDisassembler::try_catches() {
  for (const TryCatch& t : ir_.try_catches) {
    std::string type = t.catch_type == 0 ? "any" : pool_.class_name(t.catch_type);
    line(0, "try " + label(t.start) + ".." + label(t.end) + " handler " + label(t.handler) +
                " type " + type);
  }
}

void IrDisassembler::local_variables(const char* title, const std::vector<LocalVar>& vars) {
  if (vars.empty()) return;
  line(0, std::string(title) + ":");
  for (const LocalVar& v : vars) {
    line(2, label(v.start) + ".." + label(v.end) + " slot " + std::to_string(v.index) + " " +
                pool_.utf8(v.name_index) + " " + pool_.utf8(v.descriptor_index));
  }
}

void IrDisassembler::annotations(const char* title,
                                 const std::vector<CodeTypeAnnotationIR>& annos) {
  if (annos.empty()) return;
  line(0, std::string(title) + ": " + std::to_string(annos.size()));
  for (const CodeTypeAnnotationIR& a : annos) {
    std::string text = "target " + hex(a.raw.target_type, 2);
    // Appending piecewise rather than `" " + label(...)` sidesteps a GCC 12 -Wrestrict
    // false alarm.
    for (const auto& [start, end] : a.ranges) {
      text += ' ';
      text += label(start);
      text += "..";
      text += label(end);
    }
    if (a.insn != kNoLabel) {
      text += " at ";
      text += label(a.insn);
    }
    line(2, text);
  }
}

}  // namespace

std::string disassemble(const ClassFile& cf, const DisasmOptions& options) {
  return ClassDisassembler(cf, options).run();
}

std::string disassemble_ir(const ClassFile& cf, const CodeIR& ir) {
  return IrDisassembler(cf, ir).run();
}

}  // namespace duplex
