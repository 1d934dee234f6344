// Frames for labels that have none, by forward type simulation (JVMS 4.10.1) without a class
// hierarchy.
//
// The code is cut into blocks at every run of labels. A block whose run carries a frame has a
// known entry state; so does the method entry. Only the blocks that can reach a needed label
// without passing a framed block are simulated ("relevant" blocks), so the cost is close to
// the code between the needed labels and the frames before them, plus one cheap linear scan.
//
// Inside the simulation the state is in slot form (a Long or Double takes its slot and a Top
// after it, on the stack as in the locals), which makes the stack instructions plain slot
// shuffles. Object types carry an interned class NAME rather than a pool index, so that two
// Class entries naming the same class compare equal and pool entries are only added for types
// that end up in an emitted frame.
#include "classfile/frames.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "classfile/descriptors.h"
#include "classfile/opcodes.h"
#include "classfile/scratch.h"
#include "classfile/text_hash.h"

namespace duplex {

// ---- Descriptors ----

int descriptor_slots(std::string_view d) {
  // Accept a whole method descriptor too: its return type is what lands on the stack.
  if (!d.empty() && d[0] == '(') d = return_type(d);
  if (d.empty() || d[0] == 'V') return 0;
  return (d[0] == 'J' || d[0] == 'D') ? 2 : 1;
}

int parameter_slots(std::string_view d, size_t& close) {
  if (d.empty() || d[0] != '(') return -1;
  size_t p = 1;
  int slots = 0;
  while (p < d.size() && d[p] != ')') {
    size_t n = field_type_length(d, p);
    if (n == 0) return -1;
    slots += (n == 1 && (d[p] == 'J' || d[p] == 'D')) ? 2 : 1;
    p += n;
  }
  if (p >= d.size()) return -1;
  std::string_view ret = d.substr(p + 1);
  if (ret != "V" && (ret.empty() || field_type_length(ret, 0) != ret.size())) return -1;
  close = p;
  return slots;
}

int parameter_slots(std::string_view d) {
  size_t close = 0;
  return parameter_slots(d, close);
}

namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;
// Uninitialized data for a `new` that has no label in front of it yet: the bit plus the insn
// index. A label is only created for it if the type ends up in an emitted frame.
constexpr uint32_t kMarkerBit = 0x80000000u;

constexpr VType kTopT{VTag::kTop, 0};
constexpr VType kIntT{VTag::kInteger, 0};
constexpr VType kFloatT{VTag::kFloat, 0};
constexpr VType kLongT{VTag::kLong, 0};
constexpr VType kDoubleT{VTag::kDouble, 0};
constexpr VType kNullT{VTag::kNull, 0};

bool is_reference(const VType& v) {
  return v.tag == VTag::kObject || v.tag == VTag::kNull || v.tag == VTag::kUninitialized ||
         v.tag == VTag::kUninitializedThis;
}

// Slot form. Inline room for most methods' states, which the solver copies from block to block.
struct State {
  SmallVector<VType, 12> locals;
  SmallVector<VType, 6> stack;
  std::array<std::span<VType>, 2> lists() { return {locals, stack}; }
};

template <class List>
void push_slots(List& slots, VType v) {
  slots.push_back(v);
  if (v.is_wide()) slots.push_back(kTopT);
}

// Two paths into one block that disagree on a local: the local becomes Top there (or the class
// type, when the other path holds null), which needs no class hierarchy and is all the verifier
// could assume of it without one. Sound only because the solver then follows the code on to the
// next known frames (Solver::widened_): a read of such a local, or a known frame that declares
// it, is an error. Uninitialized values are never merged away: the paths would disagree on what
// has been constructed. Locals past a state's end count as Top (a state may grow past
// max_locals).
enum class LocalsMerge { kSame, kWidened, kImpossible };

constexpr const char* kNoMerge = "cannot merge frames without a class hierarchy at ";
constexpr const char* kNoHandlerMerge = "exception handler reached with different states at ";

// A local a merge widened to Top, then needed (`where`: by a read, or by a known frame): the
// merge is what failed.
std::string widened_local_needed(uint32_t local, const std::string& where) {
  return "cannot merge frames without a class hierarchy: local " + std::to_string(local) +
         " differs on paths that meet before " + where;
}

bool is_uninitialized(const VType& v) {
  return v.tag == VTag::kUninitialized || v.tag == VTag::kUninitializedThis;
}

LocalsMerge merge_locals_into(SmallVector<VType, 12>& into, std::span<const VType> other) {
  LocalsMerge result = LocalsMerge::kSame;
  size_t n = std::max(into.size(), other.size());
  for (size_t i = 0; i < n; ++i) {
    VType x = i < into.size() ? into[i] : kTopT;
    VType y = i < other.size() ? other[i] : kTopT;
    if (x == y || x.tag == VTag::kTop) continue;
    if (is_uninitialized(x) || is_uninitialized(y)) return LocalsMerge::kImpossible;
    // null is assignable to any class type: the two meet at the class type.
    if (x.tag == VTag::kObject && y.tag == VTag::kNull) continue;
    result = LocalsMerge::kWidened;
    into[i] = x.tag == VTag::kNull && y.tag == VTag::kObject ? y : kTopT;
  }
  return result;
}

// Class names interned to small ids, so Object types compare by name with ==. One table per
// thread, kept from method to method: the same few hundred names (java/lang/String, the
// class's own) recur in every method, and interning them again for each method was a third
// of the solver's allocations.
class Names {
 public:
  // The thread's table. Cleared when it has grown past kMax names, which is why a Solver takes
  // it once, at its start, and ids never outlive a solve.
  static Names& of_this_thread() {
    thread_local Names names;
    if (names.names_.size() > kMax) {
      names.ids_.clear();
      names.names_.clear();
    }
    return names;
  }

  uint32_t id(std::string_view name) {
    auto it = ids_.find(name);
    if (it != ids_.end()) return it->second;
    auto id = static_cast<uint32_t>(names_.size());
    // A deque: `name` may view an earlier name, and no name moves when one is added.
    const std::string& owned = names_.emplace_back(name);
    ids_.emplace(owned, id);
    return id;
  }
  const std::string& name(uint32_t id) const { return names_[id]; }

 private:
  static constexpr size_t kMax = 8192;
  std::unordered_map<std::string_view, uint32_t, TextHash> ids_;
  std::deque<std::string> names_;
};

// A run of labels and the real instructions up to the next label.
struct Block {
  uint32_t begin = 0;            // index of the first label of the run (or of the insn)
  uint32_t first = 0;            // index of the first real instruction
  uint32_t end = 0;              // one past the last instruction
  const Frame* frame = nullptr;  // explicit frame at this offset, if any label has one
  LabelId label = kNoLabel;      // the run's last label: the one directly before `first`
};

enum class Flow { kNext, kStop };

// The solver's lists, kept per thread from solve to solve (classfile/scratch.h): a rewritten
// method needs a solve or two, and growing these lists anew each time was most of the
// solver's allocations.
struct SolverSpares {
  std::vector<Block> blocks;
  std::vector<uint32_t> label_block;
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  std::vector<char> relevant;
  std::vector<std::optional<State>> in;
  std::vector<uint32_t> work;
};

SolverSpares& solver_spares() {
  thread_local SolverSpares spares;
  return spares;
}

class Solver {
 public:
  Solver(CodeIR& ir, ConstantPool& pool, const MethodContext& ctx)
      : ir_(ir), pool_(pool), ctx_(ctx) {
    exchange_lists(/*taking=*/true);
  }
  ~Solver() { exchange_lists(/*taking=*/false); }
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  Status run(const std::vector<LabelId>& needed);

 private:
  void exchange_lists(bool taking) {
    SolverSpares& s = solver_spares();
    scratch::exchange(blocks_, s.blocks, taking);
    scratch::exchange(label_block_, s.label_block, taking);
    scratch::exchange(edges_, s.edges, taking);
    scratch::exchange(relevant_, s.relevant, taking);
    scratch::exchange(in_, s.in, taking);
    scratch::exchange(work_, s.work, taking);
  }

  Status classify(const std::vector<LabelId>& needed, std::vector<uint32_t>& targets,
                  std::vector<std::pair<LabelId, Frame>>& out);
  Status solve(const std::vector<uint32_t>& targets);

  // Layout and reachability.
  Status split_blocks();
  Status collect_edges();
  Status add_edge(uint32_t from, LabelId target);
  void mark_relevant(const std::vector<uint32_t>& targets);
  bool falls_through(const Block& b) const;

  // Worklist simulation.
  Status seed();
  Status simulate(uint32_t block);
  Status deliver(uint32_t block, const State& s);
  Status deliver_handler(uint32_t block, std::span<const VType> locals, VType exc);
  Status merge_into(uint32_t block, std::span<const VType> locals, const char* what);
  Error refused_merge(uint32_t block, const char* what) const;
  Status fits_known_frame(uint32_t block, std::span<const VType> locals);
  Result<std::vector<std::pair<uint32_t, VType>>> handlers_of(uint32_t block);

  // One instruction.
  Result<Flow> step(uint32_t index, State& s);
  Status step_const(const Insn& in, State& s);
  Status step_ldc(const Insn& in, State& s);
  Status step_load(VTag tag, uint32_t n, State& s);
  Error wrong_local(uint32_t n, const VType& v, const char* what) const;
  Status step_store(VTag tag, uint32_t n, State& s);
  Status step_iinc(uint32_t n, State& s);
  Status step_array_load(uint8_t op, State& s);
  Status dup_slots(State& s, size_t count, size_t depth);
  Status step_stack(uint8_t op, State& s);
  Status step_arith(uint8_t op, State& s);
  Status step_convert(uint8_t op, State& s);
  Result<Flow> step_branch(const Insn& in, State& s);
  Result<Flow> step_switch(const Insn& in, State& s);
  Status step_field(const Insn& in, State& s);
  Status step_invoke(const Insn& in, State& s);
  Status step_init(const VType& receiver, State& s);
  Status step_object(const Insn& in, uint32_t index, State& s);
  Status step_array(const Insn& in, State& s);

  // Operand-stack helpers.
  Status pop(State& s, size_t slots);
  Result<VType> pop_value(State& s);
  Status check_cut(const State& s, size_t depth);
  void push(State& s, VType v) { push_slots(s.stack, v); }

  // Types.
  VType object(std::string_view name) { return VType{VTag::kObject, names_.id(name)}; }
  Result<VType> class_type(uint32_t pool_index);
  Result<VType> descriptor_type(std::string_view d);
  Result<VType> element_type(const VType& array);
  Result<uint32_t> new_insn_of(const VType& uninit);
  Result<uint32_t> canonical_label(LabelId label);

  // Frame conversion.
  Result<State> import(const Frame& f);
  Result<VType> import_type(const VType& v);
  Result<Frame> export_state(const State& s);
  template <class List>
  Status export_slots(std::span<const VType> slots, List& out);
  Result<VType> export_type(const VType& v);
  void materialize_markers(std::vector<std::pair<LabelId, Frame>>& out);

  // Errors.
  Error error_at(uint32_t index, std::string reason) const;
  Error error_at_label(LabelId label, std::string reason) const;
  std::string label_text(LabelId label) const;

  CodeIR& ir_;
  ConstantPool& pool_;
  const MethodContext& ctx_;
  Names& names_ = Names::of_this_thread();
  std::vector<Block> blocks_;
  std::vector<uint32_t> label_block_;  // by LabelId: block index, kNone if not placed
  std::vector<std::pair<uint32_t, uint32_t>> edges_;  // (to, from), to frameless blocks only
  std::vector<char> relevant_;
  std::vector<std::optional<State>> in_;  // entry state of relevant blocks
  std::vector<uint32_t> work_;
  uint32_t cur_ = 0;  // the instruction being simulated, for error messages
  // A merge made a local Top (merge_locals_into). From then on the solver also follows the code
  // it would otherwise not need up to the next known frames, so that a read of such a local is
  // an error, and a known frame that needs one is refused.
  bool widened_ = false;
};

// ---- Errors ----

std::string Solver::label_text(LabelId label) const {
  std::string t = "label " + std::to_string(label);
  int32_t off = label < ir_.labels.size() ? ir_.labels[label].original_offset : -1;
  t += off >= 0 ? " (offset " + std::to_string(off) + ")" : " (inserted code)";
  return t;
}

Error Solver::error_at(uint32_t index, std::string reason) const {
  const Insn& in = ir_.insns[index];
  std::string what = in.is_label() ? "" : std::string(opcode_info(in.opcode & 0xFF).name) + ": ";
  Error e = Error::at_code(in.original_offset, what + std::move(reason));
  e.in(ctx_.class_name, ctx_.method_id());
  return e;
}

Error Solver::error_at_label(LabelId label, std::string reason) const {
  int32_t off = label < ir_.labels.size() ? ir_.labels[label].original_offset : -1;
  Error e = Error::at_code(off, std::move(reason));
  e.in(ctx_.class_name, ctx_.method_id());
  return e;
}

// ---- Layout ----

Status Solver::split_blocks() {
  const auto& insns = ir_.insns;
  label_block_.assign(ir_.labels.size(), kNone);
  uint32_t n = static_cast<uint32_t>(insns.size());
  for (uint32_t i = 0; i < n;) {
    Block b;
    b.begin = i;
    for (; i < n && insns[i].is_label(); ++i) {
      LabelId l = insns[i].label();
      if (l >= ir_.labels.size()) return error_at(i, "label id out of range");
      label_block_[l] = static_cast<uint32_t>(blocks_.size());
      if (!b.frame && ir_.labels[l].frame) b.frame = &*ir_.labels[l].frame;
      b.label = l;
    }
    b.first = i;
    while (i < n && !insns[i].is_label()) ++i;
    b.end = i;
    blocks_.push_back(b);
  }
  return Ok{};
}

bool Solver::falls_through(const Block& b) const {
  if (b.first == b.end) return true;
  return !ends_block(static_cast<uint8_t>(ir_.insns[b.end - 1].opcode));
}

Status Solver::add_edge(uint32_t from, LabelId target) {
  if (target >= label_block_.size() || label_block_[target] == kNone)
    return error_at(cur_, "jump to a label that is not placed");
  uint32_t to = label_block_[target];
  if (!blocks_[to].frame) edges_.emplace_back(to, from);
  return Ok{};
}

// Every edge into a frameless block: those blocks' states come from their predecessors.
Status Solver::collect_edges() {
  for (uint32_t b = 0; b < blocks_.size(); ++b) {
    for (uint32_t i = blocks_[b].first; i < blocks_[b].end; ++i) {
      const Insn& in = ir_.insns[i];
      cur_ = i;
      if (in.target != kNoLabel) {
        if (Status st = add_edge(b, in.target); !st) return st;
      }
      if (!is_switch(static_cast<uint8_t>(in.opcode))) continue;
      if (in.switch_index >= ir_.switches.size()) return error_at(i, "bad switch table index");
      for (LabelId t : ir_.switches[in.switch_index].targets) {
        if (Status st = add_edge(b, t); !st) return st;
      }
    }
    if (falls_through(blocks_[b]) && b + 1 < blocks_.size() && !blocks_[b + 1].frame)
      edges_.emplace_back(b + 1, b);
  }
  for (const TryCatch& tc : ir_.try_catches) {
    auto block_of = [&](LabelId l) { return l < label_block_.size() ? label_block_[l] : kNone; };
    uint32_t h = block_of(tc.handler), from = block_of(tc.start);
    uint32_t to = tc.end == kNoLabel ? static_cast<uint32_t>(blocks_.size()) : block_of(tc.end);
    if (h == kNone || from == kNone || to == kNone)
      return error_at_label(tc.handler, "try/catch label is not placed");
    if (blocks_[h].frame) continue;
    for (uint32_t b = from; b < to; ++b) edges_.emplace_back(h, b);
  }
  std::sort(edges_.begin(), edges_.end());
  return Ok{};
}

// Backwards from the needed blocks, stopping at blocks with frames: only these blocks'
// states can influence the needed frames.
void Solver::mark_relevant(const std::vector<uint32_t>& targets) {
  relevant_.assign(blocks_.size(), 0);
  std::vector<uint32_t> queue;
  for (uint32_t t : targets) {
    if (!relevant_[t]) queue.push_back(t);
    relevant_[t] = 1;
  }
  while (!queue.empty()) {
    uint32_t b = queue.back();
    queue.pop_back();
    auto it = std::lower_bound(edges_.begin(), edges_.end(), std::make_pair(b, 0u));
    for (; it != edges_.end() && it->first == b; ++it) {
      uint32_t p = it->second;
      if (relevant_[p]) continue;
      relevant_[p] = 1;
      if (!blocks_[p].frame) queue.push_back(p);
    }
  }
}

// ---- Types ----

Result<VType> Solver::class_type(uint32_t pool_index) {
  auto name = pool_.class_name(pool_index);
  if (!name) return error_at(cur_, "bad Class index " + std::to_string(pool_index));
  return object(*name);
}

Result<VType> Solver::descriptor_type(std::string_view d) {
  size_t n = field_type_length(d, 0);
  if (n == 0) return error_at(cur_, "bad type descriptor '" + std::string(d) + "'");
  switch (d[0]) {
    case 'F':
      return kFloatT;
    case 'J':
      return kLongT;
    case 'D':
      return kDoubleT;
    case 'L':
      return object(d.substr(1, n - 2));
    case '[':
      return object(d.substr(0, n));
    default:
      return kIntT;  // B C I S Z
  }
}

// aaload: "[Ljava/lang/String;" gives java/lang/String, "[[I" gives "[I", null gives null.
Result<VType> Solver::element_type(const VType& array) {
  if (array.tag == VTag::kNull) return kNullT;
  if (array.tag != VTag::kObject) return error_at(cur_, "array operand is not an array");
  std::string_view name = names_.name(array.data);
  if (name.size() < 2 || name[0] != '[') return error_at(cur_, "operand is not an array type");
  std::string_view elem = name.substr(1);
  if (elem[0] == '[') return object(elem);
  if (elem[0] == 'L' && elem.size() > 2 && elem.back() == ';')
    return object(elem.substr(1, elem.size() - 2));
  return error_at(cur_, "aaload from a primitive array");
}

// The label that stands directly before the instruction `label` is placed at.
Result<uint32_t> Solver::canonical_label(LabelId label) {
  if (label >= label_block_.size() || label_block_[label] == kNone)
    return error_at(cur_, "Uninitialized type names a label that is not placed");
  return blocks_[label_block_[label]].label;
}

// The index of the `new` instruction an Uninitialized type stands for.
Result<uint32_t> Solver::new_insn_of(const VType& uninit) {
  uint32_t index = kNone;
  if (uninit.data & kMarkerBit) {
    index = uninit.data & ~kMarkerBit;
  } else if (uninit.data < label_block_.size() && label_block_[uninit.data] != kNone) {
    index = blocks_[label_block_[uninit.data]].first;
  }
  if (index >= ir_.insns.size() || ir_.insns[index].opcode != op::kNew)
    return error_at(cur_, "Uninitialized type does not name a new instruction");
  return index;
}

// ---- Frame conversion ----

Result<VType> Solver::import_type(const VType& v) {
  if (v.tag == VTag::kObject) return class_type(v.data);
  if (v.tag != VTag::kUninitialized) return v;
  auto l = canonical_label(v.data);
  if (!l) return l.error();
  return VType{VTag::kUninitialized, *l};
}

Result<State> Solver::import(const Frame& f) {
  State s;
  for (const VType& v : f.locals) {
    auto t = import_type(v);
    if (!t) return t.error();
    push_slots(s.locals, *t);
  }
  if (s.locals.size() < ir_.max_locals) s.locals.resize(ir_.max_locals, kTopT);
  for (const VType& v : f.stack) {
    auto t = import_type(v);
    if (!t) return t.error();
    push_slots(s.stack, *t);
  }
  return s;
}

Result<VType> Solver::export_type(const VType& v) {
  if (v.tag != VTag::kObject) return v;
  auto index = pool_.add_class(names_.name(v.data));
  if (!index) return index.error();
  return VType{VTag::kObject, *index};
}

template <class List>
Status Solver::export_slots(std::span<const VType> slots, List& out) {
  for (size_t i = 0; i < slots.size(); ++i) {
    auto t = export_type(slots[i]);
    if (!t) return t.error();
    out.push_back(*t);
    if (slots[i].is_wide()) ++i;
  }
  return Ok{};
}

// Slot form to list form: the Top after a Long or Double is implied; trailing Tops dropped.
Result<Frame> Solver::export_state(const State& s) {
  Frame f;
  if (Status st = export_slots(s.locals, f.locals); !st) return st.error();
  if (Status st = export_slots(s.stack, f.stack); !st) return st.error();
  while (!f.locals.empty() && f.locals.back().tag == VTag::kTop) f.locals.pop_back();
  return f;
}

// The insn indices of the unlabelled `new`s the frames refer to, sorted and unique.
std::vector<uint32_t> marked_news(const std::vector<std::pair<LabelId, Frame>>& out) {
  std::vector<uint32_t> marked;
  for (const auto& [label, f] : out) {
    for (std::span<const VType> list : f.lists())
      for (const VType& v : list)
        if (v.tag == VTag::kUninitialized && (v.data & kMarkerBit))
          marked.push_back(v.data & ~kMarkerBit);
  }
  std::sort(marked.begin(), marked.end());
  marked.erase(std::unique(marked.begin(), marked.end()), marked.end());
  return marked;
}

// Gives each `new` that an emitted frame refers to by marker a label of its own, placed just
// before it, and points the frames at it.
void Solver::materialize_markers(std::vector<std::pair<LabelId, Frame>>& out) {
  std::vector<uint32_t> marked = marked_news(out);
  if (marked.empty()) return;
  std::unordered_map<uint32_t, LabelId> label_of;
  std::vector<Insn> insns;
  insns.reserve(ir_.insns.size() + marked.size());
  size_t next = 0;
  for (uint32_t i = 0; i < ir_.insns.size(); ++i) {
    if (next < marked.size() && marked[next] == i) {
      LabelId l = ir_.new_label();
      label_of[kMarkerBit | i] = l;
      insns.push_back(Insn::make_label(l));
      ++next;
    }
    insns.push_back(ir_.insns[i]);
  }
  ir_.insns = std::move(insns);
  for (auto& [label, f] : out) {
    for (std::span<VType> list : f.lists())
      for (VType& v : list)
        if (v.tag == VTag::kUninitialized && (v.data & kMarkerBit)) v.data = label_of[v.data];
  }
}

// ---- Worklist ----

Status Solver::deliver(uint32_t block, const State& s) {
  if (blocks_[block].frame) return widened_ ? fits_known_frame(block, s.locals) : Ok{};
  if (!relevant_[block]) {
    if (!widened_) return Ok{};
    relevant_[block] = 1;  // a Top local may flow here: follow it
  }
  auto& in = in_[block];
  if (!in) {
    in = s;
    work_.push_back(block);
    return Ok{};
  }
  if (!(in->stack == s.stack)) return refused_merge(block, kNoMerge);
  return merge_into(block, s.locals, kNoMerge);
}

Error Solver::refused_merge(uint32_t block, const char* what) const {
  return error_at_label(blocks_[block].label, what + label_text(blocks_[block].label));
}

// Widens the entry state of `block` where `locals` disagree with it, and simulates it again.
Status Solver::merge_into(uint32_t block, std::span<const VType> locals, const char* what) {
  switch (merge_locals_into(in_[block]->locals, locals)) {
    case LocalsMerge::kSame:
      return Ok{};
    case LocalsMerge::kWidened:
      widened_ = true;
      work_.push_back(block);
      return Ok{};
    case LocalsMerge::kImpossible:
      break;
  }
  return refused_merge(block, what);
}

// A state reaching a block whose frame is known must not lack a local the frame declares.
Status Solver::fits_known_frame(uint32_t block, std::span<const VType> locals) {
  auto known = import(*blocks_[block].frame);
  if (!known) return known.error();
  for (size_t i = 0; i < known->locals.size(); ++i) {
    if (known->locals[i].tag == VTag::kTop) continue;
    if (i < locals.size() && locals[i].tag != VTag::kTop) continue;
    return error_at_label(
        blocks_[block].label,
        widened_local_needed(static_cast<uint32_t>(i),
                             label_text(blocks_[block].label) + ", whose frame needs it"));
  }
  return Ok{};
}

Status Solver::deliver_handler(uint32_t block, std::span<const VType> locals, VType exc) {
  if (blocks_[block].frame) return widened_ ? fits_known_frame(block, locals) : Ok{};
  auto& in = in_[block];
  if (!in) {
    State s;
    s.locals.assign(locals.begin(), locals.end());
    s.stack.push_back(exc);
    return deliver(block, s);
  }
  if (in->stack.size() != 1 || !(in->stack[0] == exc)) return refused_merge(block, kNoHandlerMerge);
  return merge_into(block, locals, kNoHandlerMerge);
}

// The frameless relevant handlers whose ranges cover `block`, with their catch types; once a
// local was widened, every handler (those with frames are then checked against them).
Result<std::vector<std::pair<uint32_t, VType>>> Solver::handlers_of(uint32_t block) {
  std::vector<std::pair<uint32_t, VType>> out;
  for (const TryCatch& tc : ir_.try_catches) {
    uint32_t h = label_block_[tc.handler];
    if (!widened_ && (blocks_[h].frame || !relevant_[h])) continue;
    uint32_t to = tc.end == kNoLabel ? static_cast<uint32_t>(blocks_.size()) : label_block_[tc.end];
    if (block < label_block_[tc.start] || block >= to) continue;
    auto exc = tc.catch_type == 0 ? Result<VType>(object("java/lang/Throwable"))
                                  : class_type(tc.catch_type);
    if (!exc) return exc.error();
    out.emplace_back(h, *exc);
  }
  return out;
}

Status Solver::simulate(uint32_t block) {
  const Block& b = blocks_[block];
  State s = *in_[block];
  auto handlers = handlers_of(block);
  if (!handlers) return handlers.error();
  for (uint32_t i = b.first; i < b.end; ++i) {
    // A handler sees the locals from before the instruction (JVMS 4.10.1.6, stores included).
    for (const auto& [h, exc] : *handlers) {
      if (Status st = deliver_handler(h, s.locals, exc); !st) return st;
    }
    auto flow = step(i, s);
    if (!flow) return flow.error();
    if (*flow == Flow::kStop) return Ok{};
  }
  if (block + 1 < blocks_.size()) return deliver(block + 1, s);
  return Ok{};
}

Status Solver::seed() {
  in_.assign(blocks_.size(), std::nullopt);
  for (uint32_t b = 0; b < blocks_.size(); ++b) {
    if (!relevant_[b] || !blocks_[b].frame) continue;
    auto s = import(*blocks_[b].frame);
    if (!s) return s.error();
    in_[b] = std::move(*s);
    work_.push_back(b);
  }
  if (blocks_.empty() || !relevant_[0] || blocks_[0].frame) return Ok{};
  auto f =
      initial_frame(pool_, ctx_.class_name, ctx_.method_name, ctx_.descriptor, ctx_.access_flags);
  if (!f) return Error(f.error()).in(ctx_.class_name, ctx_.method_id());
  auto s = import(*f);
  if (!s) return s.error();
  return deliver(0, *s);
}

// Sorts the needed labels: those at the offset of a framed label share its frame (`out`);
// the others are simulation targets.
Status Solver::classify(const std::vector<LabelId>& needed, std::vector<uint32_t>& targets,
                        std::vector<std::pair<LabelId, Frame>>& out) {
  for (LabelId l : needed) {
    if (l >= ir_.labels.size()) return error_at_label(l, "needed label does not exist");
    if (ir_.labels[l].frame) continue;
    if (label_block_[l] == kNone) return error_at_label(l, label_text(l) + " is not placed");
    const Block& b = blocks_[label_block_[l]];
    if (b.frame) out.emplace_back(l, *b.frame);
    if (!b.frame) targets.push_back(label_block_[l]);
  }
  return Ok{};
}

Status Solver::solve(const std::vector<uint32_t>& targets) {
  if (Status st = collect_edges(); !st) return st;
  mark_relevant(targets);
  if (Status st = seed(); !st) return st;
  while (!work_.empty()) {
    uint32_t b = work_.back();
    work_.pop_back();
    if (Status st = simulate(b); !st) return st;
  }
  return Ok{};
}

Status Solver::run(const std::vector<LabelId>& needed) {
  if (Status st = split_blocks(); !st) return st;
  std::vector<uint32_t> targets;
  std::vector<std::pair<LabelId, Frame>> out;
  if (Status st = classify(needed, targets, out); !st) return st;
  if (!targets.empty()) {
    if (Status st = solve(targets); !st) return st;
  }
  for (LabelId l : needed) {
    uint32_t b = label_block_[l];
    if (ir_.labels[l].frame || blocks_[b].frame) continue;
    if (!in_[b]) return error_at_label(l, label_text(l) + " is unreachable; no frame to compute");
    auto f = export_state(*in_[b]);
    if (!f) return f.error();
    out.emplace_back(l, std::move(*f));
  }
  // Nothing in the IR changes until every frame is known, so a failure leaves it untouched.
  materialize_markers(out);
  for (auto& [l, f] : out) ir_.labels[l].frame = std::move(f);
  return Ok{};
}

// ---- Operand stack ----

// Cutting the stack `depth` slots below the top must not split a Long or Double: the slot just
// above the cut must not be a second half (on the stack, Top only ever is one).
Status Solver::check_cut(const State& s, size_t depth) {
  if (depth > s.stack.size()) return error_at(cur_, "operand stack underflow");
  if (depth > 0 && s.stack[s.stack.size() - depth].tag == VTag::kTop)
    return error_at(cur_, "splits a long or double on the operand stack");
  return Ok{};
}

Status Solver::pop(State& s, size_t slots) {
  if (Status st = check_cut(s, slots); !st) return st;
  s.stack.resize(s.stack.size() - slots);
  return Ok{};
}

// Pops one value of either category.
Result<VType> Solver::pop_value(State& s) {
  if (s.stack.empty()) return error_at(cur_, "operand stack underflow");
  size_t n = s.stack.back().tag == VTag::kTop ? 2 : 1;
  if (n > s.stack.size()) return error_at(cur_, "operand stack underflow");
  VType v = s.stack[s.stack.size() - n];
  s.stack.resize(s.stack.size() - n);
  return v;
}

// ---- Instructions ----

// Load/store kinds by (opcode - base) / 4; kObject stands for "any reference".
constexpr VTag kKinds[5] = {VTag::kInteger, VTag::kLong, VTag::kFloat, VTag::kDouble,
                            VTag::kObject};
constexpr uint32_t kMaxLocal = 0xFFFF;

Status Solver::step_const(const Insn& in, State& s) {
  uint8_t op = static_cast<uint8_t>(in.opcode);
  if (op == op::kAconstNull) push(s, kNullT);
  if (op >= op::kIconstM1 && op <= op::kIconst5) push(s, kIntT);
  if (op == op::kLconst0 || op == op::kLconst1) push(s, kLongT);
  if (op >= op::kFconst0 && op <= op::kFconst2) push(s, kFloatT);
  if (op == op::kDconst0 || op == op::kDconst1) push(s, kDoubleT);
  if (op == op::kBipush || op == op::kSipush) push(s, kIntT);
  return Ok{};
}

Status Solver::step_ldc(const Insn& in, State& s) {
  Result<VType> t = kTopT;
  switch (pool_.tag(static_cast<uint32_t>(in.a))) {
    case CpTag::kInteger:
      t = kIntT;
      break;
    case CpTag::kFloat:
      t = kFloatT;
      break;
    case CpTag::kLong:
      t = kLongT;
      break;
    case CpTag::kDouble:
      t = kDoubleT;
      break;
    case CpTag::kString:
      t = object("java/lang/String");
      break;
    case CpTag::kClass:
      t = object("java/lang/Class");
      break;
    case CpTag::kMethodType:
      t = object("java/lang/invoke/MethodType");
      break;
    case CpTag::kMethodHandle:
      t = object("java/lang/invoke/MethodHandle");
      break;
    case CpTag::kDynamic: {
      auto ref = pool_.dynamic_ref(static_cast<uint32_t>(in.a));
      if (!ref) return error_at(cur_, "bad Dynamic constant");
      t = descriptor_type(ref->descriptor);
      break;
    }
    default:
      return error_at(cur_, "constant " + std::to_string(in.a) + " cannot be loaded");
  }
  if (!t) return t.error();
  push(s, *t);
  return Ok{};
}

Status Solver::step_load(VTag tag, uint32_t n, State& s) {
  if (n >= s.locals.size()) return error_at(cur_, "local " + std::to_string(n) + " is unset");
  VType v = s.locals[n];
  bool ok = tag == VTag::kObject ? is_reference(v) : v.tag == tag;
  if (!ok) return wrong_local(n, v, "has the wrong type");
  push(s, tag == VTag::kObject ? v : VType{tag, 0});
  return Ok{};
}

// A store kills a wide value whose second half it overwrites; a wide store also takes n + 1.
Status Solver::step_store(VTag tag, uint32_t n, State& s) {
  auto v = pop_value(s);
  if (!v) return v.error();
  bool ok = tag == VTag::kObject ? is_reference(*v) : v->tag == tag;
  if (!ok) return error_at(cur_, "stored value has the wrong type");
  if (n >= kMaxLocal) return error_at(cur_, "local index out of range");
  size_t need = n + (v->is_wide() ? 2 : 1);
  if (s.locals.size() < need) s.locals.resize(need, kTopT);
  if (n > 0 && s.locals[n - 1].is_wide()) s.locals[n - 1] = kTopT;
  s.locals[n] = *v;
  if (v->is_wide()) s.locals[n + 1] = kTopT;
  return Ok{};
}

// A local read with the wrong type; a Top one after a widening merge is that merge's failure.
Error Solver::wrong_local(uint32_t n, const VType& v, const char* what) const {
  if (widened_ && v.tag == VTag::kTop) {
    return error_at(cur_, widened_local_needed(n, "this read"));
  }
  return error_at(cur_, "local " + std::to_string(n) + " " + what);
}

Status Solver::step_iinc(uint32_t n, State& s) {
  if (n >= s.locals.size()) return error_at(cur_, "local " + std::to_string(n) + " is not an int");
  if (s.locals[n].tag != VTag::kInteger) return wrong_local(n, s.locals[n], "is not an int");
  return Ok{};
}

Status Solver::step_array_load(uint8_t op, State& s) {
  if (Status st = pop(s, 1); !st) return st;
  auto array = pop_value(s);
  if (!array) return array.error();
  static constexpr VType kResult[8] = {kIntT, kLongT, kFloatT, kDoubleT,
                                       kTopT, kIntT,  kIntT,   kIntT};
  if (op != 0x32) {
    push(s, kResult[op - 0x2e]);
    return Ok{};
  }
  auto elem = element_type(*array);
  if (!elem) return elem.error();
  push(s, *elem);
  return Ok{};
}

// Copies the top `count` slots to `depth` slots below the top; the cuts must not split a
// Long or Double, which is the whole of the category rules in slot form.
Status Solver::dup_slots(State& s, size_t count, size_t depth) {
  if (Status st = check_cut(s, count); !st) return st;
  if (Status st = check_cut(s, depth); !st) return st;
  s.stack.insert(s.stack.end() - static_cast<ptrdiff_t>(depth),
                 s.stack.end() - static_cast<ptrdiff_t>(count), s.stack.end());
  return Ok{};
}

Status Solver::step_stack(uint8_t op, State& s) {
  switch (op) {
    case op::kPop:
      return pop(s, 1);
    case op::kPop2:
      return pop(s, 2);
    case op::kDup:
      return dup_slots(s, 1, 0);
    case op::kDupX1:
      return dup_slots(s, 1, 2);
    case op::kDupX2:
      return dup_slots(s, 1, 3);
    case op::kDup2:
      return dup_slots(s, 2, 0);
    case op::kDup2X1:
      return dup_slots(s, 2, 3);
    case op::kDup2X2:
      return dup_slots(s, 2, 4);
    default:
      break;  // swap
  }
  if (Status st = check_cut(s, 1); !st) return st;
  if (Status st = check_cut(s, 2); !st) return st;
  std::swap(s.stack[s.stack.size() - 1], s.stack[s.stack.size() - 2]);
  return Ok{};
}

// iadd..drem, ineg..dneg, shifts, and/or/xor.
Status Solver::step_arith(uint8_t op, State& s) {
  static constexpr VType kByKind[4] = {kIntT, kLongT, kFloatT, kDoubleT};
  VType t;
  size_t popped;
  if (op <= 0x73) {
    t = kByKind[(op - 0x60) % 4];
    popped = t.is_wide() ? 4 : 2;
  } else if (op <= 0x77) {
    t = kByKind[op - 0x74];
    popped = t.is_wide() ? 2 : 1;
  } else {
    bool shift = op <= 0x7d;
    t = (op - (shift ? 0x78 : 0x7e)) % 2 ? kLongT : kIntT;
    // A shift's distance is an int whatever the shifted value is.
    popped = shift ? (t.is_wide() ? 3 : 2) : (t.is_wide() ? 4 : 2);
  }
  if (Status st = pop(s, popped); !st) return st;
  push(s, t);
  return Ok{};
}

// i2l..i2s and the compares lcmp..dcmpg.
Status Solver::step_convert(uint8_t op, State& s) {
  static constexpr VType kFrom[20] = {
      kIntT,    kIntT,    kIntT, kLongT, kLongT, kLongT, kFloatT, kFloatT, kFloatT,  kDoubleT,
      kDoubleT, kDoubleT, kIntT, kIntT,  kIntT,  kLongT, kFloatT, kFloatT, kDoubleT, kDoubleT};
  static constexpr VType kTo[20] = {kLongT, kFloatT,  kDoubleT, kIntT,  kFloatT, kDoubleT, kIntT,
                                    kLongT, kDoubleT, kIntT,    kLongT, kFloatT, kIntT,    kIntT,
                                    kIntT,  kIntT,    kIntT,    kIntT,  kIntT,   kIntT};
  size_t i = op - 0x85;
  size_t width = kFrom[i].is_wide() ? 2 : 1;
  if (Status st = pop(s, i >= 15 ? 2 * width : width); !st) return st;
  push(s, kTo[i]);
  return Ok{};
}

Result<Flow> Solver::step_branch(const Insn& in, State& s) {
  uint8_t op = static_cast<uint8_t>(in.opcode);
  if (op == op::kJsr || op == op::kJsrW)
    return error_at(cur_, "jsr/ret not supported in frame computation");
  bool two = op >= op::kIfIcmpeq && op <= op::kIfAcmpne;
  bool jump = is_unconditional_jump(op);
  if (in.target == kNoLabel) return error_at(cur_, "branch without a target");
  if (!jump) {
    if (Status st = pop(s, two ? 2 : 1); !st) return st.error();
  }
  if (Status st = deliver(label_block_[in.target], s); !st) return st.error();
  return jump ? Flow::kStop : Flow::kNext;
}

Result<Flow> Solver::step_switch(const Insn& in, State& s) {
  if (in.target == kNoLabel) return error_at(cur_, "switch without a default target");
  if (Status st = pop(s, 1); !st) return st.error();
  if (Status st = deliver(label_block_[in.target], s); !st) return st.error();
  for (LabelId t : ir_.switches[in.switch_index].targets) {
    if (Status st = deliver(label_block_[t], s); !st) return st.error();
  }
  return Flow::kStop;
}

Status Solver::step_field(const Insn& in, State& s) {
  uint8_t op = static_cast<uint8_t>(in.opcode);
  auto ref = pool_.member_ref(static_cast<uint32_t>(in.a));
  if (!ref) return error_at(cur_, "bad field reference");
  bool is_static = op == op::kGetstatic || op == op::kPutstatic;
  if (op == op::kGetstatic || op == op::kGetfield) {
    auto t = descriptor_type(ref->descriptor);
    if (!t) return t.error();
    if (!is_static) {
      if (Status st = pop(s, 1); !st) return st;
    }
    push(s, *t);
    return Ok{};
  }
  int slots = descriptor_slots(ref->descriptor);
  return pop(s, static_cast<size_t>(slots) + (is_static ? 0 : 1));
}

Status Solver::step_invoke(const Insn& in, State& s) {
  uint8_t op = static_cast<uint8_t>(in.opcode);
  std::string_view name, desc;
  if (op == op::kInvokedynamic) {
    auto ref = pool_.dynamic_ref(static_cast<uint32_t>(in.a));
    if (!ref) return error_at(cur_, "bad InvokeDynamic reference");
    name = ref->name;
    desc = ref->descriptor;
  } else {
    auto ref = pool_.member_ref(static_cast<uint32_t>(in.a));
    if (!ref) return error_at(cur_, "bad method reference");
    name = ref->name;
    desc = ref->descriptor;
  }
  size_t close = 0;
  int params = parameter_slots(desc, close);
  if (params < 0) return error_at(cur_, "bad method descriptor '" + std::string(desc) + "'");
  if (Status st = pop(s, static_cast<size_t>(params)); !st) return st;
  if (op != op::kInvokestatic && op != op::kInvokedynamic) {
    auto receiver = pop_value(s);
    if (!receiver) return receiver.error();
    if (op == op::kInvokespecial && name == "<init>") {
      if (Status st = step_init(*receiver, s); !st) return st;
    }
  }
  std::string_view ret = desc.substr(close + 1);
  if (ret == "V") return Ok{};
  auto t = descriptor_type(ret);
  if (!t) return t.error();
  push(s, *t);
  return Ok{};
}

// <init> turns every copy of the receiver, in the locals and on the stack, into the class.
Status Solver::step_init(const VType& receiver, State& s) {
  Result<VType> init = kTopT;
  if (receiver.tag == VTag::kUninitializedThis) {
    init = object(ctx_.class_name);
  } else if (receiver.tag == VTag::kUninitialized) {
    auto index = new_insn_of(receiver);
    if (!index) return index.error();
    init = class_type(static_cast<uint32_t>(ir_.insns[*index].a));
  } else {
    return error_at(cur_, "<init> called on an initialised object");
  }
  if (!init) return init.error();
  for (std::span<VType> slots : s.lists())
    for (VType& v : slots)
      if (v == receiver) v = *init;
  return Ok{};
}

// new, arraylength, checkcast, instanceof, monitorenter/exit.
Status Solver::step_object(const Insn& in, uint32_t index, State& s) {
  uint8_t op = static_cast<uint8_t>(in.opcode);
  if (op == op::kNew) {
    bool labelled = index > 0 && ir_.insns[index - 1].is_label();
    push(s, VType{VTag::kUninitialized,
                  labelled ? ir_.insns[index - 1].label() : (kMarkerBit | index)});
    return Ok{};
  }
  if (Status st = pop(s, 1); !st) return st;
  if (op == op::kArraylength || op == op::kInstanceof) push(s, kIntT);
  if (op != op::kCheckcast) return Ok{};
  auto t = class_type(static_cast<uint32_t>(in.a));
  if (!t) return t.error();
  push(s, *t);
  return Ok{};
}

// newarray, anewarray, multianewarray.
Status Solver::step_array(const Insn& in, State& s) {
  uint8_t op = static_cast<uint8_t>(in.opcode);
  if (op == op::kMultianewarray) {
    if (in.b < 1) return error_at(cur_, "multianewarray with no dimensions");
    if (Status st = pop(s, static_cast<size_t>(in.b)); !st) return st;
    auto t = class_type(static_cast<uint32_t>(in.a));
    if (!t) return t.error();
    push(s, *t);
    return Ok{};
  }
  if (Status st = pop(s, 1); !st) return st;
  if (op == op::kNewarray) {
    static constexpr const char* kArrays[8] = {"[Z", "[C", "[F", "[D", "[B", "[S", "[I", "[J"};
    if (in.a < 4 || in.a > 11) return error_at(cur_, "bad newarray type");
    push(s, object(kArrays[in.a - 4]));
    return Ok{};
  }
  auto elem = pool_.class_name(static_cast<uint32_t>(in.a));
  if (!elem) return error_at(cur_, "bad Class index");
  std::string name =
      elem->starts_with('[') ? "[" + std::string(*elem) : "[L" + std::string(*elem) + ";";
  push(s, object(name));
  return Ok{};
}

Result<Flow> Solver::step(uint32_t index, State& s) {
  cur_ = index;
  const Insn& in = ir_.insns[index];
  if (in.opcode > 0xFF) return error_at(index, "bad opcode");
  auto op = static_cast<uint8_t>(in.opcode);
  auto next = [](const Status& st) -> Result<Flow> {
    if (!st) return st.error();
    return Flow::kNext;
  };
  auto local = static_cast<uint32_t>(in.a);
  if (op == op::kNop) return Flow::kNext;
  if (op >= op::kLdc && op <= op::kLdc2W) return next(step_ldc(in, s));
  if (op <= op::kSipush) return next(step_const(in, s));
  if (op <= op::kAload) return next(step_load(kKinds[op - op::kIload], local, s));
  if (op <= op::kAload3) return next(step_load(kKinds[(op - 0x1a) / 4], (op - 0x1a) % 4, s));
  if (op <= op::kSaload) return next(step_array_load(op, s));
  if (op <= op::kAstore) return next(step_store(kKinds[op - op::kIstore], local, s));
  if (op <= op::kAstore3) return next(step_store(kKinds[(op - 0x3b) / 4], (op - 0x3b) % 4, s));
  if (op <= op::kSastore) return next(pop(s, (op == 0x50 || op == 0x52) ? 4 : 3));
  if (op <= op::kSwap) return next(step_stack(op, s));
  if (op < op::kIinc) return next(step_arith(op, s));
  if (op == op::kIinc) return next(step_iinc(local, s));
  if (op < op::kIfeq) return next(step_convert(op, s));
  if (op <= op::kJsr || (op >= op::kIfnull && op <= op::kJsrW)) return step_branch(in, s);
  if (op == op::kRet) return error_at(index, "jsr/ret not supported in frame computation");
  if (is_switch(op)) return step_switch(in, s);
  if (is_return(op) || op == op::kAthrow) return Flow::kStop;
  if (op <= op::kPutfield) return next(step_field(in, s));
  if (op <= op::kInvokedynamic) return next(step_invoke(in, s));
  if (op == op::kNewarray || op == op::kAnewarray || op == op::kMultianewarray)
    return next(step_array(in, s));
  if (op <= op::kMonitorexit) return next(step_object(in, index, s));
  return error_at(index, "not a valid opcode");
}

}  // namespace

Status compute_missing_frames(CodeIR& ir, ConstantPool& pool, const MethodContext& ctx,
                              const std::vector<LabelId>& needed) {
  bool missing = false;
  for (LabelId l : needed) missing = missing || l >= ir.labels.size() || !ir.labels[l].frame;
  if (!missing) return Ok{};
  Solver solver(ir, pool, ctx);
  return solver.run(needed);
}

}  // namespace duplex
