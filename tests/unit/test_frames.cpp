// Frame computation by forward simulation (frames.h): hand-built methods for each rule, and
// real methods whose StackMapTable frames are erased one at a time and recomputed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "classfile/constant_pool.h"
#include "classfile/frames.h"
#include "classfile/opcodes.h"
#include "test_support.h"

using namespace duplex;
namespace fs = std::filesystem;

namespace {

// ---- Building methods by hand ----

struct Method {
  ConstantPool pool;
  CodeIR ir;
  MethodContext ctx;

  Method(std::string cls, std::string name, std::string desc, uint16_t flags, uint16_t locals) {
    ctx.class_name = std::move(cls);
    ctx.method_name = std::move(name);
    ctx.descriptor = std::move(desc);
    ctx.access_flags = flags;
    ctx.major_version = 52;
    ir.max_locals = locals;
  }
  LabelId label() { return ir.new_label(); }
  void place(LabelId l) { ir.insns.push_back(Insn::make_label(l)); }
  void op(uint8_t o, int32_t a = 0, int32_t b = 0) { ir.insns.push_back(Insn::make(o, a, b)); }
  void branch(uint8_t o, LabelId t) { ir.insns.push_back(Insn::make_branch(o, t)); }
  int32_t cls(const char* name) { return pool.add_class(name).value(); }
  int32_t string(const char* text) { return pool.add_string(text).value(); }
  int32_t method(const char* owner, const char* name, const char* desc) {
    return pool.add_methodref(owner, name, desc).value();
  }
  int32_t field(const char* owner, const char* name, const char* desc) {
    return pool.add_fieldref(owner, name, desc).value();
  }
  Status compute(std::vector<LabelId> needed) {
    return compute_missing_frames(ir, pool, ctx, needed);
  }
  const Frame& frame(LabelId l) const { return *ir.labels[l].frame; }
  VType object(const char* name) { return VType{VTag::kObject, pool.add_class(name).value()}; }
};

constexpr VType kTop{VTag::kTop, 0};
constexpr VType kInt{VTag::kInteger, 0};
constexpr VType kFloat{VTag::kFloat, 0};
constexpr VType kLong{VTag::kLong, 0};
constexpr VType kDouble{VTag::kDouble, 0};
constexpr VType kNull{VTag::kNull, 0};
constexpr VType kUninitThis{VTag::kUninitializedThis, 0};

VType uninit(LabelId l) {
  return VType{VTag::kUninitialized, l};
}

// ---- Comparing frames by name ----

// A frame in slot form with class names spelled out, trailing Top locals dropped, so frames
// whose Object entries use different Class entries for one name compare equal.
std::vector<std::string> spell(std::span<const VType> list, const ConstantPool& pool, bool trim) {
  std::vector<std::string> out;
  for (const VType& v : list) {
    // One letter per tag (Top Int Float Double Long Null uninitialized-this), then the detail.
    std::string& e = out.emplace_back(1, "TIFDJNuLU"[static_cast<int>(v.tag)]);
    if (v.tag == VTag::kObject) e.append(pool.class_name(v.data).value_or("?"));
    if (v.tag == VTag::kUninitialized) e.append(std::to_string(v.data));
    if (v.is_wide()) out.push_back("T");
  }
  while (trim && !out.empty() && out.back() == "T") out.pop_back();
  return out;
}

struct Spelled {
  std::vector<std::string> locals, stack;
  bool operator==(const Spelled&) const = default;
};

Spelled spell(const Frame& f, const ConstantPool& pool) {
  return Spelled{spell(f.locals, pool, true), spell(f.stack, pool, false)};
}

bool is_reference(const std::string& s) {
  return s[0] == 'L' || s[0] == 'N';
}

// Without a class hierarchy, a recomputed frame may still be more precise than javac's: a
// local javac declared as a supertype, a local javac dropped at the end of its scope. It
// must never disagree on anything else.
bool compatible(const Spelled& original, const Spelled& computed) {
  if (original.stack.size() != computed.stack.size()) return false;
  auto slot_ok = [](const std::string& o, const std::string& c) {
    return o == c || o == "T" || (o[0] == 'L' && is_reference(c));
  };
  for (size_t i = 0; i < original.stack.size(); ++i) {
    if (original.stack[i] == "T" ? computed.stack[i] != "T"
                                 : !slot_ok(original.stack[i], computed.stack[i]))
      return false;
  }
  for (size_t i = 0; i < original.locals.size(); ++i) {
    std::string c = i < computed.locals.size() ? computed.locals[i] : "T";
    if (!slot_ok(original.locals[i], c)) return false;
  }
  return true;
}

// Where paths that disagree on a local meet, the solver leaves it Top if nothing reads it
// before writing it (javac keeps its declared type while it is in scope): compatible otherwise.
bool compatible_but_dead_locals(const Spelled& original, const Spelled& computed) {
  Spelled c = computed;
  for (size_t i = 0; i < c.locals.size() && i < original.locals.size(); ++i) {
    if (c.locals[i] == "T") c.locals[i] = original.locals[i];
  }
  while (c.locals.size() < original.locals.size())
    c.locals.push_back(original.locals[c.locals.size()]);
  return compatible(original, c);
}

// ---- Real methods ----

struct Tally {
  size_t classes = 0, methods = 0, frames = 0, exact = 0, merges = 0;
  size_t scope_only = 0;    // javac dropped locals whose scope ended
  size_t more_precise = 0;  // javac's frame also has declared supertypes
  size_t dead_top = 0;      // locals left Top where paths disagreed and nothing reads them
  size_t fallthrough_only = 0, fallthrough_exact = 0;
  size_t failures = 0;
  double seconds = 0;  // inside compute_missing_frames

  void print(const char* what) const {
    std::cout << "[frames] " << what << ": " << classes << " classes, " << methods << " methods, "
              << frames << " frames erased and recomputed in " << seconds << " s: " << exact
              << " exact, " << scope_only << " exact up to locals out of javac's scope, "
              << more_precise << " more precise than javac's declared types, " << dead_top
              << " with locals Top where paths disagree and nothing reads them, " << merges
              << " merge points rejected (no hierarchy); fall-through-only labels: "
              << fallthrough_only << " (" << fallthrough_exact << " exact); " << failures
              << " failures\n";
  }
};

// The computed frame with its locals cut to the original's length.
Spelled cut_locals(Spelled c, size_t n) {
  if (c.locals.size() > n) c.locals.resize(n);
  while (!c.locals.empty() && c.locals.back() == "T") c.locals.pop_back();
  return c;
}

// Labels reached by a jump, a switch or as a handler, per position: a run of labels at one
// offset counts as one point.
std::set<LabelId> jumped_to(const CodeIR& ir) {
  std::set<LabelId> direct;
  for (const Insn& in : ir.insns) {
    if (!in.is_label() && in.target != kNoLabel) direct.insert(in.target);
    if (!in.is_label() && is_switch(static_cast<uint8_t>(in.opcode)))
      for (LabelId t : ir.switches[in.switch_index].targets) direct.insert(t);
  }
  for (const TryCatch& tc : ir.try_catches) direct.insert(tc.handler);
  std::set<LabelId> out;
  for (size_t i = 0; i < ir.insns.size();) {
    size_t j = i;
    bool hit = false;
    while (j < ir.insns.size() && ir.insns[j].is_label())
      hit |= direct.count(ir.insns[j++].label());
    for (size_t k = i; k < j && hit; ++k) out.insert(ir.insns[k].label());
    i = j == i ? i + 1 : j;
  }
  return out;
}

void recompute_one(CodeIR& ir, ClassFile& cf, const MethodContext& ctx, LabelId l, bool jumped,
                   Tally& t) {
  Frame original = *ir.labels[l].frame;
  ir.labels[l].frame.reset();
  auto t0 = std::chrono::steady_clock::now();
  Status st = compute_missing_frames(ir, cf.pool, ctx, {l});
  t.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ++t.frames;
  if (!jumped) ++t.fallthrough_only;
  if (!st) {
    bool merge = st.error().reason.find("cannot merge frames") != std::string::npos ||
                 st.error().reason.find("exception handler reached") != std::string::npos;
    if (merge && jumped) {
      ++t.merges;
    } else {
      ++t.failures;
      UNSCOPED_INFO(st.error().message());
    }
  } else {
    Spelled o = spell(original, cf.pool), c = spell(*ir.labels[l].frame, cf.pool);
    if (o == c) {
      ++t.exact;
      if (!jumped) ++t.fallthrough_exact;
    } else if (cut_locals(c, o.locals.size()) == o) {
      ++t.scope_only;
    } else if (compatible(o, c)) {
      ++t.more_precise;
    } else if (compatible_but_dead_locals(o, c)) {
      ++t.dead_top;
    } else {
      ++t.failures;
      UNSCOPED_INFO(ctx.class_name << "." << ctx.method_id() << " label " << l
                                   << ": recomputed frame disagrees with the original");
    }
  }
  ir.labels[l].frame = std::move(original);
}

void recompute_class(const std::vector<uint8_t>& bytes, Tally& t) {
  auto cf = ClassFile::parse(bytes);
  if (!cf) {
    ++t.failures;
    UNSCOPED_INFO(cf.error().message());
    return;
  }
  ++t.classes;
  for (const Member& m : cf->methods) {
    if (!cf->find_attribute(m.attributes, "Code")) continue;
    auto ir = build_code_ir(*cf, m);
    if (!ir) {
      ++t.failures;
      UNSCOPED_INFO(ir.error().message());
      continue;
    }
    if (!ir->had_stack_map_table) continue;
    MethodContext ctx = MethodContext::of(*cf, m);
    std::set<LabelId> jumped = jumped_to(*ir);
    ++t.methods;
    for (LabelId l = 0; l < ir->labels.size(); ++l) {
      if (ir->labels[l].frame) recompute_one(*ir, *cf, ctx, l, jumped.count(l) > 0, t);
    }
  }
}

}  // namespace

// ---- Descriptors ----

TEST_CASE("descriptor and parameter slots", "[frames]") {
  CHECK(descriptor_slots("V") == 0);
  CHECK(descriptor_slots("I") == 1);
  CHECK(descriptor_slots("J") == 2);
  CHECK(descriptor_slots("D") == 2);
  CHECK(descriptor_slots("Ljava/lang/String;") == 1);
  CHECK(descriptor_slots("[J") == 1);
  CHECK(descriptor_slots("(I)J") == 2);
  CHECK(descriptor_slots("") == 0);
  CHECK(parameter_slots("()V") == 0);
  CHECK(parameter_slots("(IJD[JLjava/lang/Object;[[Ljava/lang/String;)V") == 8);
  CHECK(parameter_slots("(Z)[I") == 1);
  CHECK(parameter_slots("") == -1);
  CHECK(parameter_slots("I") == -1);
  CHECK(parameter_slots("(I") == -1);
  CHECK(parameter_slots("(L;)V") == -1);
  CHECK(parameter_slots("(Ljava/lang/String)V") == -1);
  CHECK(parameter_slots("(X)V") == -1);
  CHECK(parameter_slots("([)V") == -1);
  CHECK(parameter_slots("(I)") == -1);
  CHECK(parameter_slots("(I)VV") == -1);
  CHECK(parameter_slots("(I)Q") == -1);
  // Class names may hold ')': the parameters end where their types do.
  CHECK(descriptor_slots("(JLp/Odd)V;)Lp/Odd)V;") == 1);
  CHECK(descriptor_slots("(Lp/Odd)J;)V") == 0);
  CHECK(descriptor_slots("(Lp/Odd)V;)D") == 2);
  size_t close = 0;
  CHECK(parameter_slots("(JLp/Odd)V;)Lp/Odd)V;", close) == 3);
  CHECK(close == 11);
  CHECK(parameter_slots("(Lp/Odd)J;)V") == 1);
}

// ---- Hand-built methods ----

TEST_CASE("constructor: this is UninitializedThis until super()", "[frames]") {
  Method m("t/C", "<init>", "(I)V", 0, 2);
  LabelId l1 = m.label(), l2 = m.label();
  m.op(0x2a);  // aload_0
  m.op(op::kIload0 + 1);
  m.branch(op::kIfeq, l1);
  m.op(op::kNop);
  m.place(l1);
  m.op(op::kInvokespecial, m.method("java/lang/Object", "<init>", "()V"));
  m.place(l2);
  m.op(op::kReturn);
  REQUIRE(m.compute({l1, l2}).ok());
  CHECK(m.frame(l1) == Frame{{kUninitThis, kInt}, {kUninitThis}});
  CHECK(m.frame(l2) == Frame{{m.object("t/C"), kInt}, {}});
}

TEST_CASE("new + dup with a branch among the arguments", "[frames]") {
  Method m("t/C", "make", "(I)Ljava/lang/Object;", access::kStatic, 1);
  LabelId l1 = m.label(), l2 = m.label();
  m.op(op::kNew, m.cls("t/Foo"));  // no label in front: one must be created
  m.op(op::kDup);
  m.op(op::kIconst1);
  m.op(op::kIload0);
  m.branch(op::kIfeq, l1);
  m.op(op::kNop);
  m.place(l1);
  m.op(op::kIconst1 + 1);
  m.op(op::kInvokespecial, m.method("t/Foo", "<init>", "(II)V"));
  m.place(l2);
  m.op(0xb0);  // areturn
  REQUIRE(m.compute({l1, l2}).ok());
  REQUIRE(m.ir.insns[0].is_label());
  CHECK(m.ir.insns[1].opcode == op::kNew);
  LabelId at_new = m.ir.insns[0].label();
  CHECK(m.frame(l1) == Frame{{kInt}, {uninit(at_new), uninit(at_new), kInt}});
  CHECK(m.frame(l2) == Frame{{kInt}, {m.object("t/Foo")}});
  CHECK_FALSE(m.ir.labels[at_new].frame.has_value());
}

TEST_CASE("an Uninitialized entry from a frame is initialised to the new's class", "[frames]") {
  Method m("t/C", "make", "()V", access::kStatic, 1);
  LabelId at_new = m.label(), framed = m.label(), l1 = m.label();
  m.place(at_new);
  m.op(op::kNew, m.cls("t/Foo"));
  m.op(op::kDup);
  m.op(op::kAconstNull);
  m.op(0x4b);  // astore_0
  m.place(framed);
  m.ir.labels[framed].frame = Frame{{kNull}, {uninit(at_new), uninit(at_new)}};
  m.op(op::kInvokespecial, m.method("t/Foo", "<init>", "()V"));
  m.op(0x4b);  // astore_0
  m.place(l1);
  m.op(op::kReturn);
  REQUIRE(m.compute({l1}).ok());
  CHECK(m.frame(l1) == Frame{{m.object("t/Foo")}, {}});
  CHECK(m.frame(framed) == Frame{{kNull}, {uninit(at_new), uninit(at_new)}});
}

TEST_CASE("a label reached with two different states is an error", "[frames]") {
  Method m("t/C", "m", "(I)V", access::kStatic, 1);
  LabelId l1 = m.label(), l2 = m.label();
  m.op(op::kIload0);
  m.branch(op::kIfeq, l1);
  m.op(op::kIconst0);
  m.branch(op::kGoto, l2);
  m.place(l1);
  m.op(op::kFconst0);
  m.place(l2);
  m.op(op::kPop);
  m.op(op::kReturn);
  auto st = m.compute({l2});
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().class_name == "t/C");
  CHECK(st.error().method == "m(I)V");
  CHECK_THAT(st.error().message(),
             Catch::Contains("cannot merge frames without a class hierarchy at label 1"));
  CHECK_FALSE(m.ir.labels[l2].frame.has_value());
}

// Paths that put different types in a local meet at `join`; `use` says what follows.
Status compute_after_disagreeing_local(Method& m, LabelId join, const std::function<void()>& use) {
  LabelId other = m.label();
  m.op(op::kIload0);
  m.branch(op::kIfeq, other);
  m.op(op::kIconst0);
  m.op(0x3c);
  m.branch(op::kGoto, join);
  m.place(other);
  m.op(op::kAconstNull);
  m.op(0x4c);  // astore_1
  m.place(join);
  use();
  return m.compute({join});
}

TEST_CASE("a label where a local differs gets it as Top when nothing reads it", "[frames]") {
  Method m("t/C", "m", "(I)V", access::kStatic, 3);
  LabelId join = m.label();
  Status st = compute_after_disagreeing_local(m, join, [&] {
    m.op(0x05);
    m.op(0x3c);  // written before any read
    m.op(op::kReturn);
  });
  REQUIRE(st.ok());
  CHECK(m.frame(join) == Frame{{kInt}, {}});
}

TEST_CASE("a local the paths disagree on may not be read after they meet", "[frames]") {
  Method m("t/C", "m", "(I)I", access::kStatic, 3);
  LabelId join = m.label(), later = m.label();
  Status st = compute_after_disagreeing_local(m, join, [&] {
    m.op(op::kNop);
    m.place(later);  // not a needed label: the read is found all the same
    m.op(0x1b);
    m.op(op::kIreturn);
  });
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.error().reason,
             Catch::Contains("cannot merge frames without a class hierarchy: local 1"));
}

TEST_CASE("a local the paths disagree on may not reach a frame that needs it", "[frames]") {
  Method m("t/C", "m", "(I)I", access::kStatic, 3);
  LabelId join = m.label(), framed = m.label();
  Status st = compute_after_disagreeing_local(m, join, [&] {
    m.op(op::kNop);
    m.place(framed);
    m.ir.labels[framed].frame = Frame{{kInt, kInt}, {}};
    m.op(0x1b);
    m.op(op::kIreturn);
  });
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.error().reason, Catch::Contains("whose frame needs it"));
}

TEST_CASE("null and a class type meet at the class type", "[frames]") {
  Method m("t/C", "m", "(I)Ljava/lang/String;", access::kStatic, 2);
  LabelId other = m.label(), join = m.label();
  m.op(op::kIload0);
  m.branch(op::kIfeq, other);
  m.op(op::kLdc, m.string("s"));
  m.op(0x4c);  // astore_1
  m.branch(op::kGoto, join);
  m.place(other);
  m.op(op::kAconstNull);
  m.op(0x4c);  // astore_1
  m.place(join);
  m.op(0x2b);  // aload_1
  m.op(0xb0);
  REQUIRE(m.compute({join}).ok());
  CHECK(m.frame(join) == Frame{{kInt, m.object("java/lang/String")}, {}});
}

TEST_CASE("a label reached with equal states merges, loops included", "[frames]") {
  Method m("t/C", "m", "(I)V", access::kStatic, 1);
  LabelId head = m.label(), l1 = m.label(), l2 = m.label();
  m.place(head);
  m.op(op::kIinc, 0, -1);
  m.op(op::kIload0);
  m.branch(op::kIfne, head);
  m.op(op::kIload0);
  m.branch(op::kIfeq, l1);
  m.op(op::kIconst0);
  m.branch(op::kGoto, l2);
  m.place(l1);
  m.op(op::kIconst1);
  m.place(l2);
  m.op(op::kPop);
  m.op(op::kReturn);
  REQUIRE(m.compute({head, l1, l2}).ok());
  CHECK(m.frame(head) == Frame{{kInt}, {}});
  CHECK(m.frame(l1) == Frame{{kInt}, {}});
  CHECK(m.frame(l2) == Frame{{kInt}, {kInt}});
}

TEST_CASE("long and double locals take two slots", "[frames]") {
  Method m("t/C", "m", "(JD)V", access::kStatic, 6);
  LabelId l0 = m.label(), l1 = m.label(), l2 = m.label(), l3 = m.label(), l4 = m.label();
  m.place(l0);
  m.op(op::kIconst1);
  m.op(op::kIstore0 + 3);  // into the second half of the double: the double dies
  m.place(l1);
  m.op(op::kLconst0);
  m.op(0x40);  // lstore_1: into the second half of the long at 0
  m.place(l2);
  m.op(op::kDconst1);
  m.op(op::kDstore, 4);
  m.place(l3);
  m.op(0x1f);  // lload_1
  m.op(0x8a);  // l2d
  m.op(0x4a);  // dstore_3: over the int at 3 and the double's first half at 4
  m.place(l4);
  m.op(op::kReturn);
  REQUIRE(m.compute({l0, l1, l2, l3, l4}).ok());
  CHECK(m.frame(l0) == Frame{{kLong, kDouble}, {}});
  CHECK(m.frame(l1) == Frame{{kLong, kTop, kInt}, {}});
  CHECK(m.frame(l2) == Frame{{kTop, kLong, kInt}, {}});
  CHECK(m.frame(l3) == Frame{{kTop, kLong, kInt, kDouble}, {}});
  CHECK(m.frame(l4) == Frame{{kTop, kLong, kDouble}, {}});
}

TEST_CASE("stack instructions follow the category-2 forms", "[frames]") {
  Method m("t/C", "m", "()V", access::kStatic, 0);
  LabelId l1 = m.label(), l2 = m.label(), l3 = m.label(), l4 = m.label();
  m.op(op::kLconst0);
  m.op(op::kIconst1);
  m.op(op::kDupX2);  // form 2: long, int -> int, long, int
  m.place(l1);
  m.op(op::kPop);
  m.op(op::kDup2X1);  // form 2: int, long -> long, int, long
  m.place(l2);
  m.op(op::kPop2);
  m.op(op::kPop);
  m.op(op::kDconst0);
  m.op(op::kDup2X2);  // form 4: long, double -> double, long, double
  m.place(l3);
  m.op(op::kPop2);
  m.op(op::kPop2);
  m.op(op::kPop2);
  m.op(op::kIconst0);
  m.op(op::kFconst0);
  m.op(op::kSwap);
  m.op(op::kDup2);  // form 1: two ints
  m.place(l4);
  m.op(op::kReturn);
  REQUIRE(m.compute({l1, l2, l3, l4}).ok());
  CHECK(m.frame(l1).stack == FrameStack{kInt, kLong, kInt});
  CHECK(m.frame(l2).stack == FrameStack{kLong, kInt, kLong});
  CHECK(m.frame(l3).stack == FrameStack{kDouble, kLong, kDouble});
  CHECK(m.frame(l4).stack == FrameStack{kFloat, kInt, kFloat, kInt});
}

TEST_CASE("stack instructions may not split a long or double", "[frames]") {
  for (uint8_t bad : {op::kDup, op::kSwap, op::kPop, op::kDupX1, op::kDup2X1}) {
    Method m("t/C", "m", "()V", access::kStatic, 0);
    LabelId l1 = m.label();
    m.op(op::kLconst0);
    if (bad == op::kSwap || bad == op::kDupX1) m.op(op::kIconst0);
    if (bad == op::kDup2X1) m.op(op::kLconst0);
    m.op(bad);
    m.place(l1);
    m.op(op::kReturn);
    INFO(opcode_info(bad).name);
    auto st = m.compute({l1});
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.error().reason, Catch::Contains("long or double"));
  }
}

TEST_CASE("array loads give the element type", "[frames]") {
  Method m("t/C", "m", "([Ljava/lang/String;[[I)V", access::kStatic, 2);
  LabelId l1 = m.label();
  m.op(0x2a);  // aload_0
  m.op(op::kIconst0);
  m.op(0x32);  // aaload
  m.op(0x2b);  // aload_1
  m.op(op::kIconst0);
  m.op(0x32);
  m.op(op::kAconstNull);
  m.op(op::kIconst0);
  m.op(0x32);
  m.op(0x2b);
  m.op(op::kIconst0);
  m.op(0x32);
  m.op(op::kIconst0);
  m.op(op::kIaload);
  m.place(l1);
  m.op(op::kReturn);
  REQUIRE(m.compute({l1}).ok());
  CHECK(m.frame(l1).stack == FrameStack{m.object("java/lang/String"), m.object("[I"), kNull, kInt});
}

TEST_CASE("constants, fields, invokes and object instructions", "[frames]") {
  Method m("t/C", "m", "()V", access::kStatic, 0);
  auto mh = m.pool.add(
      CpEntry{CpTag::kMethodHandle, 6, static_cast<uint16_t>(m.method("t/C", "m", "()V"))});
  auto mt = m.pool.add(CpEntry{CpTag::kMethodType, m.pool.add_utf8("()V").value()});
  auto condy_nt = m.pool.add_name_and_type("c", "[J").value();
  auto condy = m.pool.add(CpEntry{CpTag::kDynamic, 0, condy_nt});
  auto indy_nt = m.pool.add_name_and_type("run", "(IJ)Ljava/lang/Runnable;").value();
  auto indy = m.pool.add(CpEntry{CpTag::kInvokeDynamic, 0, indy_nt});
  REQUIRE((mh.ok() && mt.ok() && condy.ok() && indy.ok()));
  LabelId l1 = m.label(), l2 = m.label(), l3 = m.label();
  m.op(op::kLdc, m.pool.add_integer(7).value());
  m.op(op::kLdc, m.pool.add_float_bits(0x3f800000).value());
  m.op(op::kLdcW, m.pool.add_string("s").value());
  m.op(op::kLdcW, m.cls("t/D"));
  m.op(op::kLdcW, mh.value());
  m.op(op::kLdcW, mt.value());
  m.op(op::kLdc2W, m.pool.add_long(1).value());
  m.op(op::kLdc2W, m.pool.add_double_bits(0).value());
  m.op(op::kLdcW, condy.value());
  m.place(l1);
  m.op(op::kPop);
  m.op(op::kPop2);
  m.op(op::kPop2);
  m.op(op::kPop);
  m.op(op::kPop);
  m.op(op::kPop);
  m.op(op::kPop);
  m.op(op::kPop);
  m.op(op::kPop);
  m.op(op::kGetstatic, m.field("t/C", "j", "J"));
  m.op(op::kIconst0);
  m.op(op::kDupX2);
  m.op(op::kPop);
  m.op(op::kInvokedynamic, indy.value());
  m.op(op::kCheckcast, m.cls("java/lang/Object"));
  m.op(op::kGetfield, m.field("t/D", "d", "[[D"));
  m.op(op::kArraylength);
  m.op(op::kAnewarray, m.cls("java/lang/String"));
  m.op(op::kIconst1);
  m.op(op::kAnewarray, m.cls("[I"));
  m.op(op::kIconst1);
  m.op(op::kNewarray, 11);  // T_LONG
  m.op(op::kIconst1);
  m.op(op::kIconst1);
  m.op(op::kMultianewarray, m.cls("[[Z"), 2);
  m.op(op::kInstanceof, m.cls("t/D"));
  m.op(op::kInvokestatic, m.method("t/C", "f", "(I)D"));
  m.place(l2);
  m.op(op::kPop2);
  m.op(op::kInvokevirtual, m.method("java/lang/Object", "hashCode", "()I"));
  m.op(op::kPop);
  m.op(op::kPop);
  m.op(op::kPop);
  m.op(op::kIconst0);
  m.op(op::kNop);
  m.op(op::kPutstatic, m.field("t/C", "i", "I"));
  m.place(l3);
  m.op(op::kReturn);
  REQUIRE(m.compute({l1, l2, l3}).ok());
  CHECK(m.frame(l1).stack ==
        FrameStack{kInt, kFloat, m.object("java/lang/String"), m.object("java/lang/Class"),
                   m.object("java/lang/invoke/MethodHandle"),
                   m.object("java/lang/invoke/MethodType"), kLong, kDouble, m.object("[J")});
  CHECK(m.frame(l2).stack ==
        FrameStack{m.object("[Ljava/lang/String;"), m.object("[[I"), m.object("[J"), kDouble});
  CHECK(m.frame(l3) == Frame{});
}

TEST_CASE("a handler without a frame gets the range's locals and the catch type", "[frames]") {
  Method m("t/C", "m", "()V", access::kStatic, 1);
  LabelId start = m.label(), end = m.label(), handler = m.label(), other = m.label();
  m.op(op::kIconst0);
  m.op(op::kIstore0);
  m.place(start);
  m.op(op::kIconst1);
  m.op(op::kIstore0);  // the handler sees the locals from before each instruction
  m.place(end);
  m.op(op::kReturn);
  m.place(handler);
  m.op(0x4b);  // astore_0
  m.op(op::kReturn);
  m.place(other);
  m.op(0x4b);
  m.op(op::kReturn);
  m.ir.try_catches.push_back(TryCatch{start, end, handler, 0});
  m.ir.try_catches.push_back(
      TryCatch{start, end, other, static_cast<uint16_t>(m.cls("java/io/IOException"))});
  REQUIRE(m.compute({handler, other}).ok());
  CHECK(m.frame(handler) == Frame{{kInt}, {m.object("java/lang/Throwable")}});
  CHECK(m.frame(other) == Frame{{kInt}, {m.object("java/io/IOException")}});
}

TEST_CASE("a handler reached with different locals gets them as Top", "[frames]") {
  Method m("t/C", "m", "()V", access::kStatic, 1);
  LabelId start = m.label(), end = m.label(), handler = m.label();
  m.place(start);
  m.op(op::kIconst1);
  m.op(op::kIstore0);
  m.op(op::kNop);  // throws nothing, but the rule is per instruction in the range
  m.place(end);
  m.op(op::kReturn);
  m.place(handler);
  m.op(op::kAthrow);
  m.ir.try_catches.push_back(TryCatch{start, end, handler, 0});
  REQUIRE(m.compute({handler}).ok());
  CHECK(m.frame(handler) == Frame{{}, {m.object("java/lang/Throwable")}});
}

TEST_CASE("a handler that reads a local the paths disagree on is an error", "[frames]") {
  Method m("t/C", "m", "(I)I", access::kStatic, 1);
  LabelId start = m.label(), end = m.label(), handler = m.label();
  m.place(start);
  m.op(op::kFconst0);
  m.op(0x43);  // fstore_0: the handler sees local 0 as an int, then as a float
  m.op(op::kNop);
  m.place(end);
  m.op(op::kIconst0);
  m.op(op::kIreturn);
  m.place(handler);
  m.op(op::kPop);
  m.op(op::kIload0);
  m.op(op::kIreturn);
  m.ir.try_catches.push_back(TryCatch{start, end, handler, 0});
  auto st = m.compute({handler});
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.error().reason,
             Catch::Contains("cannot merge frames without a class hierarchy: local 0"));
}

TEST_CASE("explicit frames are used and never overwritten", "[frames]") {
  Method m("t/C", "m", "(Ljava/lang/Object;)V", access::kStatic, 1);
  LabelId framed = m.label(), same_offset = m.label(), l1 = m.label();
  m.op(op::kAconstNull);
  m.op(0x4b);  // astore_0
  m.place(framed);
  m.place(same_offset);
  // The frame says String (as if declared so); simulation continues from it.
  Frame declared{{m.object("java/lang/String")}, {}};
  m.ir.labels[framed].frame = declared;
  m.op(0x2a);  // aload_0
  m.place(l1);
  m.op(op::kPop);
  m.op(op::kReturn);
  REQUIRE(m.compute({framed, same_offset, l1}).ok());
  CHECK(m.frame(framed) == declared);
  CHECK(m.frame(same_offset) == declared);
  CHECK(m.frame(l1) == Frame{{m.object("java/lang/String")}, {m.object("java/lang/String")}});
}

TEST_CASE("unreachable labels and jsr are errors", "[frames]") {
  {
    Method m("t/C", "m", "()V", access::kStatic, 0);
    LabelId dead = m.label();
    m.op(op::kReturn);
    m.place(dead);
    m.op(op::kReturn);
    auto st = m.compute({dead});
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.error().reason, Catch::Contains("unreachable"));
  }
  {
    Method m("t/C", "m", "()V", access::kStatic, 1);
    LabelId sub = m.label(), after = m.label();
    m.branch(op::kJsr, sub);
    m.place(after);
    m.op(op::kReturn);
    m.place(sub);
    m.op(op::kAstore, 0);
    m.op(op::kRet, 0);
    auto st = m.compute({after});
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.error().reason, Catch::Contains("jsr/ret not supported"));
  }
}

TEST_CASE("switch cases and their join get frames", "[frames]") {
  Method m("t/C", "m", "(I)I", access::kStatic, 1);
  LabelId dflt = m.label(), c1 = m.label(), c2 = m.label(), join = m.label();
  m.op(op::kIload0);
  Insn sw = Insn::make_branch(op::kTableswitch, dflt);
  sw.switch_index = 0;
  m.ir.switches.push_back(SwitchTable{5, {}, {c1, c2}});
  m.ir.insns.push_back(sw);
  m.place(c1);
  m.op(op::kIconst1);
  m.branch(op::kGoto, join);
  m.place(c2);
  m.op(op::kIconst0 + 2);
  m.branch(op::kGoto, join);
  m.place(dflt);
  m.op(op::kIconst0);
  m.place(join);
  m.op(op::kIreturn);
  REQUIRE(m.compute({dflt, c1, c2, join}).ok());
  CHECK(m.frame(c1) == Frame{{kInt}, {}});
  CHECK(m.frame(dflt) == Frame{{kInt}, {}});
  CHECK(m.frame(join) == Frame{{kInt}, {kInt}});
}

TEST_CASE("simulation starts at the nearest frame before the needed label", "[frames]") {
  // Code before the framed label would fail to simulate (jsr); it must not be looked at.
  Method m("t/C", "m", "()V", access::kStatic, 2);
  LabelId sub = m.label(), framed = m.label(), l1 = m.label();
  m.branch(op::kJsr, sub);
  m.op(op::kReturn);
  m.place(sub);
  m.op(op::kAstore, 1);
  m.op(op::kRet, 1);
  m.place(framed);
  m.ir.labels[framed].frame = Frame{{m.object("java/lang/String")}, {}};
  m.op(0x2a);  // aload_0
  m.op(op::kInvokevirtual, m.method("java/lang/String", "length", "()I"));
  m.place(l1);
  m.op(op::kReturn);
  REQUIRE(m.compute({l1}).ok());
  CHECK(m.frame(l1) == Frame{{m.object("java/lang/String")}, {kInt}});
}

TEST_CASE("malformed code gives errors, not crashes", "[frames]") {
  auto attempt = [](auto build) {
    Method m("t/C", "m", "()V", access::kStatic, 1);
    LabelId l1 = m.label();
    build(m);
    m.place(l1);
    m.op(op::kReturn);
    return m.compute({l1});
  };
  CHECK_FALSE(attempt([](Method& m) { m.branch(op::kGoto, 77); }).ok());
  CHECK_FALSE(attempt([](Method& m) { m.branch(op::kIfeq, kNoLabel); }).ok());
  CHECK_FALSE(attempt([](Method& m) {
                m.op(op::kIconst0);
                m.op(op::kLookupswitch);
              }).ok());
  CHECK_FALSE(attempt([](Method& m) { m.op(0xca); }).ok());  // breakpoint
  CHECK_FALSE(attempt([](Method& m) { m.op(op::kIload, -1); }).ok());
  CHECK_FALSE(attempt([](Method& m) { m.op(op::kIload, 0); }).ok());  // unset local
  CHECK_FALSE(attempt([](Method& m) { m.op(op::kPop); }).ok());       // underflow
  CHECK_FALSE(attempt([](Method& m) { m.op(op::kLdc, 9999); }).ok());
  CHECK_FALSE(attempt([](Method& m) { m.op(op::kInvokestatic, 9999); }).ok());
  CHECK_FALSE(attempt([](Method& m) { m.op(op::kNewarray, 3); }).ok());
  CHECK_FALSE(attempt([](Method& m) {
                m.op(op::kAconstNull);
                m.op(op::kInvokespecial, m.method("t/D", "<init>", "()V"));
              }).ok());
  CHECK_FALSE(attempt([](Method& m) {
                m.op(op::kIconst0);
                m.op(op::kNewarray, 10);
                m.op(op::kIconst0);
                m.op(0x32);  // aaload from int[]
              }).ok());
  Method m("t/C", "m", "()V", access::kStatic, 1);
  CHECK_FALSE(m.compute({42}).ok());
  LabelId unplaced = m.label();
  m.op(op::kReturn);
  CHECK_FALSE(m.compute({unplaced}).ok());
}

TEST_CASE("nothing to compute leaves the IR alone", "[frames]") {
  Method m("t/C", "m", "()V", access::kStatic, 0);
  LabelId l1 = m.label();
  m.place(l1);
  m.ir.labels[l1].frame = Frame{{kInt}, {}};  // deliberately odd: must be kept
  m.op(op::kReturn);
  REQUIRE(m.compute({l1}).ok());
  CHECK(m.frame(l1) == Frame{{kInt}, {}});
  REQUIRE(m.compute({}).ok());
}

// ---- Real methods: erase each frame, recompute it, compare ----

TEST_CASE("recomputed frames of real JDK methods agree with javac's", "[frames]") {
  test::TempDir dir;
  REQUIRE(test::extract_jmod("java.base", dir.path()));
  std::vector<fs::path> classes;
  // A few core packages by default; DUPLEX_FRAMES_ALL=1 checks the whole module.
  if (std::getenv("DUPLEX_FRAMES_ALL")) {
    for (const auto& e : fs::recursive_directory_iterator(dir.path() / "classes"))
      if (e.path().extension() == ".class") classes.push_back(e.path());
  } else {
    for (const char* pkg : {"java/lang", "java/util", "java/io", "java/time", "java/math"}) {
      for (const auto& e : fs::directory_iterator(dir.path() / "classes" / pkg))
        if (e.path().extension() == ".class") classes.push_back(e.path());
    }
  }
  std::sort(classes.begin(), classes.end());
  Tally t;
  for (const fs::path& p : classes) recompute_class(test::read_file(p), t);
  t.print("java.base");
  CHECK(t.failures == 0);
  CHECK(t.methods > 1000);
  CHECK(t.exact > t.frames / 2);
}

TEST_CASE("recomputed frames of the Java fixtures agree with javac's", "[frames]") {
  if (!fs::exists(DUPLEX_FIXTURES_DIR)) {
    WARN("fixtures not built: " DUPLEX_FIXTURES_DIR);
    return;
  }
  Tally t;
  for (const auto& e : fs::recursive_directory_iterator(DUPLEX_FIXTURES_DIR))
    if (e.path().extension() == ".class") recompute_class(test::read_file(e.path()), t);
  t.print("fixtures");
  CHECK(t.failures == 0);
}

TEST_CASE("max_stack counts code no path reaches, from its frames", "[frames][max_stack]") {
  // HotSpot type-checks every frame's code, reachable or not: a duplicated exception handler
  // whose try range was not kept (Partial-Duplication) is such code.
  Method m("C", "m", "()I", access::kStatic, 0);
  LabelId dead = m.label();
  m.op(op::kIconst0);
  m.op(op::kIreturn);
  m.place(dead);
  m.ir.labels[dead].frame = Frame{{}, {kInt, kLong}};  // three slots already on the stack
  m.op(op::kIconst1);
  m.op(op::kIconst1);
  m.op(op::kPop2);
  m.op(op::kPop2);
  m.op(op::kIreturn);
  auto max = compute_max_stack(m.ir, m.pool, m.ctx);
  REQUIRE(max.ok());
  CHECK(*max == 5);
}
