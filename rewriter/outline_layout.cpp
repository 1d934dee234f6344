#include "rewriter/outline_layout.h"

#include <algorithm>
#include <optional>

#include "classfile/class_file.h"
#include "classfile/descriptors.h"
#include "classfile/frames.h"
#include "classfile/opcodes.h"
#include "rewriter/runtime_api.h"
#include "rewriter/sampled_calls.h"
#include "rewriter/value_insns.h"

namespace duplex {
namespace {

// The JVM's slot limit for a method's parameters (JVMS 4.3.3), `this` excluded: the twin is
// static, so every parameter counts.
constexpr uint32_t kMaxParameterSlots = 255;

std::optional<VType> type_at(const Frame& f, uint16_t slot) {
  for (const auto& [s, t] : locals_by_slot(f)) {
    if (s == slot) return t;
  }
  return std::nullopt;
}

// Gives the reference local at `slot` of `f` the type `t` (nothing if no local starts there).
void set_local(Frame& f, uint16_t slot, VType t) {
  uint32_t at = 0;
  for (VType& local : f.locals) {
    if (at == slot) {
      if (local.tag == VTag::kObject) local = t;
      return;
    }
    at += local.is_wide() ? 2 : 1;
  }
}

class OutlinePlanner {
 public:
  OutlinePlanner(const MethodView& m, const Cfg& cfg, const DupPlan& plan, ConstantPool& pool,
                 std::set<std::string>& taken, std::string_view suffix)
      : m_(m), cfg_(cfg), plan_(plan), pool_(pool), taken_(taken), suffix_(suffix) {
    layout_.cold_param = suffix == kTwinSuffix;
  }

  Result<OutlineLayout> run() {
    if (auto s = check_method(); !s) return s.error();
    if (auto s = collect_entries(); !s) return s.error();
    if (auto s = assign_params(); !s) return s.error();
    if (auto s = build_descriptor(); !s) return s.error();
    if (auto s = choose_name(); !s) return s.error();
    return std::move(layout_);
  }

 private:
  Status check_method() {
    const MethodContext& ctx = m_.context;
    if (m_.cls.access_flags & access::kInterface)
      return Error::plain("an interface method is not outlined");
    if (ctx.method_name == "<init>" || ctx.method_name == "<clinit>")
      return Error::plain("constructors and initializers are not outlined");
    if (ctx.major_version < 50) return Error::plain("class files before version 50 have no frames");
    // A monitor entered in the method cannot be exited in the twin: HotSpot ties a monitor to
    // the frame that entered it (the twin's monitorexit would throw, and javac's handler that
    // covers itself would retry forever).
    for (const Insn& insn : m_.code.insns) {
      if (insn.opcode == op::kMonitorenter || insn.opcode == op::kMonitorexit)
        return Error::plain("a synchronized block (monitors stay with the frame that took them)");
    }
    return Ok{};
  }

  // `<name>$duplex`, or `<name>$<k>$duplex` when an overload's twin or a method of the class
  // already has that name and descriptor.
  Status choose_name() {
    std::string name;
    std::string key;  // name + descriptor, as `taken_` holds them
    for (int k = 1; k < 1000; ++k) {
      name.assign(m_.context.method_name);
      if (k > 1) name.append("$").append(std::to_string(k));
      name.append(suffix_);
      key.assign(name).append(layout_.twin_descriptor);
      if (taken_.count(key)) continue;
      layout_.twin_name = std::move(name);
      taken_.insert(std::move(key));
      return Ok{};
    }
    return Error::plain("no free name for the twin");
  }

  // The method entry, then every block a checked edge enters, each with its frame.
  Status collect_entries() {
    const MethodContext& ctx = m_.context;
    auto initial =
        initial_frame(pool_, ctx.class_name, ctx.method_name, ctx.descriptor, ctx.access_flags);
    if (!initial) return initial.error();
    layout_.entries.push_back({-1, std::move(initial.value())});
    std::vector<uint8_t> seen(cfg_.blocks.size(), 0);
    for (uint32_t b = 0; b < cfg_.blocks.size(); ++b) {
      for (size_t e = 0; e < cfg_.blocks[b].succs.size(); ++e) {
        uint32_t to = cfg_.blocks[b].succs[e].to;
        if (!plan_.check_edge[b][e] || seen[to]) continue;
        seen[to] = 1;
        auto frame = frame_at_block(to);
        if (!frame) return frame.error();
        layout_.entries.push_back({static_cast<int32_t>(to), std::move(frame.value())});
      }
    }
    for (const OutlineEntry& entry : layout_.entries) {
      if (!entry.frame.stack.empty())
        return Error::plain("a checked edge carries values on the operand stack");
      for (const VType& t : entry.frame.locals) {
        if (t.tag == VTag::kUninitialized || t.tag == VTag::kUninitializedThis)
          return Error::plain("an uninitialized object is live at a checked edge");
      }
    }
    return Ok{};
  }

  Result<Frame> frame_at_block(uint32_t b) const {
    const BasicBlock& block = cfg_.blocks[b];
    const CodeIR& code = m_.code;
    for (uint32_t i = block.begin; i < block.end && code.insns[i].is_label(); ++i) {
      const auto& f = code.labels[code.insns[i].label()].frame;
      if (f) return *f;
    }
    // A block entered by fall-through only (a Partial-Duplication crossing) has no frame in
    // the class file: simulate one on a copy of the code.
    if (block.begin >= block.end || !code.insns[block.begin].is_label())
      return Error::plain("no label at a checked block");
    CodeIR copy = code;
    LabelId l = code.insns[block.begin].label();
    if (auto s = compute_missing_frames(copy, pool_, m_.context, {l}); !s) return s.error();
    if (!copy.labels[l].frame) return Error::plain("no frame at a checked block");
    return *copy.labels[l].frame;
  }

  struct SlotClaim {
    bool claimed = false;
    bool second_half = false;  // the upper slot of a long or double claimed below
    VTag kind = VTag::kInteger;
    std::optional<uint32_t> declared;  // reference slots: the one class all entries agree on
    bool mixed_classes = false;
  };

  Status assign_params() {
    uint16_t top = 0;
    for (const OutlineEntry& e : layout_.entries) {
      for (const auto& [s, t] : locals_by_slot(e.frame))
        top = std::max<uint16_t>(top, static_cast<uint16_t>(s + slots_of(kind_of(t))));
    }
    std::vector<SlotClaim> claims(top);
    std::vector<OutlineParam> secondary;
    layout_.params.reserve(top);
    for (const OutlineEntry& e : layout_.entries) {
      for (const auto& [s, t] : locals_by_slot(e.frame)) claim(claims, secondary, s, t);
    }
    auto object = pool_.add_class("java/lang/Object");
    if (!object) return object.error();
    for (uint16_t s = 0; s < top; ++s) {
      const SlotClaim& c = claims[s];
      if (c.second_half) continue;
      OutlineParam p{s, c.claimed ? c.kind : VTag::kInteger, 0, true, s};
      if (p.kind == VTag::kObject) {
        bool exact = c.declared && !c.mixed_classes;
        if (exact && !shown_by_method(*c.declared)) p.cast_to = static_cast<uint16_t>(*c.declared);
        p.declared_class = static_cast<uint16_t>(exact && !p.cast_to ? *c.declared : *object);
      }
      layout_.params.push_back(p);
    }
    uint32_t next = top;
    for (OutlineParam& p : secondary) {
      if (p.kind == VTag::kObject) p.declared_class = *object;
      p.twin_slot = static_cast<uint16_t>(next);
      next += slots_of(p.kind);
      layout_.params.push_back(p);
    }
    uint32_t slots = next + 1 + (layout_.cold_param ? 1 : 0);  // the id, the cold parameter
    if (slots > kMaxParameterSlots)
      return Error::plain("the live locals need " + std::to_string(slots) +
                          " parameter slots (at most 255)");
    layout_.id_slot = static_cast<uint16_t>(next);
    layout_.twin_max_locals = std::max<uint16_t>(m_.code.max_locals, slots);
    return Ok{};
  }

  // A twin is one of its class's declared methods, and reflection resolves the types its
  // signature names, so a twin names only what its method's own descriptor names, never the
  // class itself: any other parameter is declared as an Object and cast back where the twin
  // starts. Why: Groovy 2.4 builds the metadata of a closure class from its methods' parameter
  // types, and a parameter of the class being described sent it back into building that same
  // class, without end (a StackOverflowError in every Groovy program; twins took `this`); and
  // getDeclaredMethods() threw NoClassDefFoundError where a twin's local was of a type from an
  // optional dependency the original's signatures never named (kotlin-gradle-plugin without
  // Gradle).
  bool shown_by_method(uint32_t class_index) const {
    auto name = pool_.class_name(static_cast<uint16_t>(class_index));
    if (!name || *name == m_.context.class_name) return false;
    const std::string& desc = m_.context.descriptor;
    if (name->front() == '[') return desc.find(*name) != std::string::npos;
    for (size_t at = desc.find(*name); at != std::string::npos; at = desc.find(*name, at + 1)) {
      if (at > 0 && desc[at - 1] == 'L' && at + name->size() < desc.size() &&
          desc[at + name->size()] == ';')
        return true;
    }
    return false;
  }

  static void claim(std::vector<SlotClaim>& claims, std::vector<OutlineParam>& secondary,
                    uint16_t s, const VType& t) {
    VTag kind = kind_of(t);
    bool wide = slots_of(kind) == 2;
    SlotClaim& c = claims[s];
    bool fits = !c.claimed && !c.second_half && (!wide || !claims[s + 1].claimed);
    if (fits) {
      c.claimed = true;
      c.kind = kind;
      if (wide) claims[s + 1] = {true, true, kind, std::nullopt, false};
    } else if (!(c.claimed && !c.second_half && c.kind == kind)) {
      auto same = [&](const OutlineParam& p) { return p.slot == s && p.kind == kind; };
      if (std::none_of(secondary.begin(), secondary.end(), same))
        secondary.push_back({s, kind, 0, false, 0});
      return;
    }
    if (kind != VTag::kObject || t.tag != VTag::kObject) return;
    if (!c.declared) c.declared = t.data;
    if (*c.declared != t.data) c.mixed_classes = true;
  }

  Status build_descriptor() {
    std::string_view ret = return_type(m_.context.descriptor);
    if (ret.empty()) return Error::plain("bad method descriptor");
    std::string& d = layout_.twin_descriptor;
    d.assign("(");
    for (const OutlineParam& p : layout_.params) {
      switch (p.kind) {
        case VTag::kInteger:
          d += 'I';
          break;
        case VTag::kFloat:
          d += 'F';
          break;
        case VTag::kLong:
          d += 'J';
          break;
        case VTag::kDouble:
          d += 'D';
          break;
        default: {
          auto name = pool_.class_name(p.declared_class);
          if (!name) return Error::plain("bad Class entry in a frame");
          if (name->front() == '[') {
            d.append(*name);
          } else {
            d.append("L").append(*name).append(";");
          }
        }
      }
    }
    d.append("I");
    if (layout_.cold_param) d.append(runtime_api::kColdParamDesc);
    d.append(")").append(ret);
    return Ok{};
  }

  const MethodView& m_;
  const Cfg& cfg_;
  const DupPlan& plan_;
  ConstantPool& pool_;
  std::set<std::string>& taken_;
  std::string_view suffix_;
  OutlineLayout layout_;
};

}  // namespace

int32_t OutlineLayout::entry_of_block(int32_t block) const {
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].block == block) return static_cast<int32_t>(i);
  }
  return -1;
}

void take_existing_twin_names(const ClassFile& cf, std::set<std::string>& taken) {
  for (const Member& m : cf.methods) {
    std::string_view name = cf.member_name(m);
    if (name.ends_with(kTwinSuffix) || name.ends_with(kSampledTwinSuffix))
      taken.insert(std::string(name).append(cf.member_descriptor(m)));
  }
}

Result<OutlineLayout> plan_outline(const MethodView& method, const Cfg& cfg, const DupPlan& plan,
                                   ConstantPool& pool, std::set<std::string>& taken,
                                   std::string_view suffix) {
  return OutlinePlanner(method, cfg, plan, pool, taken, suffix).run();
}

Status emit_twin_call(const OutlineLayout& layout, size_t e, uint16_t twin_methodref,
                      std::vector<Insn>& out) {
  if (e >= layout.entries.size()) return Error::plain("no such outline entry");
  const Frame& frame = layout.entries[e].frame;
  for (const OutlineParam& p : layout.params) {
    auto t = type_at(frame, p.slot);
    bool passes = t && kind_of(*t) == p.kind && t->tag != VTag::kNull;
    // A primary parameter whose slot holds another kind here gets a zero; the value goes
    // in that kind's extra parameter.
    out.push_back(passes ? local_insn(false, p.kind, p.slot) : zero_of(p.kind));
  }
  out.push_back(push_int(static_cast<int32_t>(e)));
  if (layout.cold_param) out.push_back(Insn::make(op::kAconstNull));
  out.push_back(Insn::make(op::kInvokestatic, twin_methodref));
  return Ok{};
}

void emit_twin_start_casts(const OutlineLayout& layout, Frame& frame, std::vector<Insn>& out) {
  for (const OutlineParam& p : layout.params) {
    if (!p.cast_to) continue;
    out.push_back(local_insn(false, VTag::kObject, p.twin_slot));
    out.push_back(Insn::make(op::kCheckcast, p.cast_to));
    out.push_back(local_insn(true, VTag::kObject, p.twin_slot));
    set_local(frame, p.twin_slot, VType{VTag::kObject, p.cast_to});
  }
}

void emit_twin_prologue(const OutlineLayout& layout, size_t e, std::vector<Insn>& out) {
  for (const auto& [slot, t] : locals_by_slot(layout.entries[e].frame)) {
    VTag kind = kind_of(t);
    if (t.tag == VTag::kNull) {  // only null itself is assignable to the Null type
      out.push_back(Insn::make(op::kAconstNull));
      out.push_back(local_insn(true, kind, slot));
      continue;
    }
    // The primary parameter of the slot if it has this kind, else the kind's extra one.
    const OutlineParam* from = nullptr;
    for (const OutlineParam& p : layout.params) {
      if (p.slot != slot || p.kind != kind) continue;
      from = &p;
      if (p.primary) break;
    }
    if (!from) continue;  // cannot happen: every (slot, kind) of an entry has a parameter
    // A parameter cast back where the twin starts holds its class already.
    uint32_t holds = from->cast_to ? from->cast_to : from->declared_class;
    bool cast = kind == VTag::kObject && t.data != holds;
    if (from->twin_slot == slot && !cast) continue;  // already in place with its type
    out.push_back(local_insn(false, kind, from->twin_slot));
    if (cast) out.push_back(Insn::make(op::kCheckcast, static_cast<int32_t>(t.data)));
    out.push_back(local_insn(true, kind, slot));
  }
}

}  // namespace duplex
