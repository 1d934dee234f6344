#include "rewriter/twin_nest.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "classfile/attributes.h"
#include "classfile/bytes.h"
#include "classfile/class_index.h"
#include "classfile/code_walk.h"
#include "classfile/descriptors.h"
#include "classfile/opcodes.h"
#include "classfile/pool_use.h"
#include "rewriter/caller_sensitive.h"
#include "rewriter/outline_layout.h"
#include "rewriter/runtime_api.h"
#include "rewriter/sampled_calls.h"

namespace duplex {
namespace {

constexpr uint16_t kNestVersion = 55;  // Java 11: NestHost and NestMembers
constexpr uint8_t kRefInvokeSpecial = 7;

uint32_t be_u2(std::span<const uint8_t> b, size_t at) {
  return (b[at] << 8) | b[at + 1];
}
std::string_view package_of(std::string_view internal_name) {
  size_t slash = internal_name.rfind('/');
  return slash == std::string_view::npos ? std::string_view{} : internal_name.substr(0, slash);
}

std::string bridge_descriptor(uint8_t opcode, const MemberRef& ref, std::string_view host);

// The classes a bridge of `cf` may name. getDeclaredMethods() resolves every class a class's
// method signatures name, so a class none of them named before may be one that a program runs
// without (an optional dependency: NoClassDefFoundError where the original's reflection worked),
// as a twin's locals did (rewriter/outline_layout.cpp, shown_by_method). Safe are the classes
// its signatures name already, the class itself and the JDK's `java/` packages. A class index
// would not tell more: it holds the --classpath jars too, which may be such dependencies.
class SignatureClasses {
 public:
  explicit SignatureClasses(const ClassFile& cf) : own_(cf.name()) {
    for (const Member& m : cf.methods) {
      // getDeclaredMethods() lists neither constructors nor the static initializer, so the
      // types only those name are not resolved by it.
      if (cf.member_name(m).starts_with('<')) continue;
      auto [params, result] = method_descriptor_types(cf.member_descriptor(m));
      for (std::string_view p : params) add(p);
      add(result);
    }
  }

  // True when a method of the class may name `type` (a field descriptor).
  bool shown(std::string_view type) const {
    std::string_view name = named_class(type);
    return name.empty() || name == own_ || name.starts_with("java/") || classes_.contains(name);
  }

 private:
  void add(std::string_view type) {
    if (std::string_view name = named_class(type); !name.empty()) classes_.emplace(name);
  }

  std::string own_;
  std::set<std::string, std::less<>> classes_;
};

// Reads what a twin's code names and says whether a nestmate could run it instead of the host,
// and which of its instructions need a bridge.
class TwinCheck {
 public:
  TwinCheck(const ClassFile& host, const ClassIndex* index, const TwinClassPlan& plan)
      : host_(host), name_(host.name()), shown_(host) {
    if (plan.access == TwinAccess::kPackage) gather_privates(plan);
    for (const Member& f : host.fields) {
      if (f.access_flags & access::kFinal) finals_.insert(signature(f));
    }
    if (auto super = host.pool.class_name(host.super_class)) super_name_ = *super;
    if (const Attribute* bsm = host.find_attribute(host.attributes, "BootstrapMethods")) {
      if (auto decoded = decode_bootstrap_methods(bsm->data)) bootstraps_ = std::move(*decoded);
    }
    if (index) {
      gather_inherited_protected(*index);
    } else {  // only the rules without an index ask what the host declares
      for (const Member& f : host.fields) declared_.insert(signature(f));
      for (const Member& m : host.methods) declared_.insert(signature(m));
    }
  }

  TwinVerdict judge(const AddedMethod& twin) {
    TwinVerdict verdict;
    if (twin.access_flags & access::kSynchronized) {
      verdict.stays = "it is synchronized (on its class)";
      return verdict;
    }
    if (twin.name.ends_with(kSampledTwinSuffix)) {
      // SampledCalls (runtime) links a sampled call to the twin among the callee's own methods.
      verdict.stays = "a caller-sampled twin, which the runtime looks for in its method's class";
      return verdict;
    }
    Attribute view;
    view.data = twin.code_attribute;
    auto code = decode_code(view);
    if (!code) {
      verdict.stays = "its Code attribute is malformed";
      return verdict;
    }
    size_t pc = 0;
    std::vector<std::pair<size_t, size_t>> loops;  // [target, branch] of each backward branch
    bool well_formed = for_each_instruction(code->code, [&](uint8_t opcode, auto insn) {
      if (!verdict.stays) verdict.stays = instruction_stays(opcode, insn, pc, verdict.bridges);
      // A backward branch closes a loop (jsr calls a subroutine, never a loop).
      bool jump = opcode != op::kJsr && opcode != op::kJsrW;
      if (auto target = branch_target(insn, pc); jump && target && *target <= pc)
        loops.emplace_back(*target, pc);
      pc += insn.size();
    });
    if (!well_formed) verdict.stays = "its code is malformed";
    if (!verdict.stays) verdict.stays = private_access_in_loop(verdict.bridges, loops);
    if (verdict.stays) verdict.bridges.clear();
    return verdict;
  }

 private:
  // With a class index (place_twins_lazily has refused hosts whose superclasses it does not
  // all know): the superclasses, and the members that only a subclass may reach, those
  // declared protected in a superclass of another package. Only these can stop a nestmate of
  // the same package from running what the host runs; constructors are kept apart, since
  // `new` never reaches a protected one from another package.
  void gather_inherited_protected(const ClassIndex& index) {
    exact_ = true;
    for (const std::string& a : index.ancestry_from(super_name_).chain) {
      ancestors_.insert(a);
      if (package_of(a) == package_of(name_)) continue;
      const IndexedClass* c = index.find(a);
      if (!c) {  // java/lang/Object without its class file
        for (std::string_view sig : kObjectProtected) {
          protected_elsewhere_.insert(std::string(sig));
          protected_names_.insert(std::string(name_of_signature(sig)));
        }
        continue;
      }
      for (const std::string& sig : c->protected_members) {
        if (sig.starts_with("<init>:")) {
          protected_constructors_.insert(a + '.' + sig);
        } else {
          protected_elsewhere_.insert(sig);
          protected_names_.insert(std::string(name_of_signature(sig)));
        }
      }
    }
  }

  // "name:descriptor" -> name: a name may hold ':', so it ends where a whole descriptor
  // follows.
  static std::string_view name_of_signature(std::string_view sig) {
    return sig.substr(0, descriptor_colon(sig, 0, /*methods=*/true));
  }

  // Without a nest: the host's private members that the twin class must reach through a
  // bridge. The private static members the rewriter added (past the original counts) become
  // package-private when the twins move (move_twins_to_twin_class), so they are not among them.
  void gather_privates(const TwinClassPlan& plan) {
    auto gather = [&](const std::vector<Member>& members, size_t original) {
      for (size_t i = 0; i < members.size(); ++i) {
        const Member& m = members[i];
        if (!(m.access_flags & access::kPrivate)) continue;
        if (i >= original && (m.access_flags & access::kStatic)) continue;
        privates_.insert(signature(m));
      }
    };
    gather(host_.fields, plan.original_fields);
    gather(host_.methods, plan.original_methods);
  }

  // Without a nest, a private field or static method of the host reached inside a loop of the
  // twin's code keeps the twin in its class: after a sample the rest of the activation runs in
  // the twin (runtime-contract.md, "Exit checks"), interpreted in a short run, where a bridge is
  // a call at every iteration (bcprov's digests: Full @1000 whole runs 11 points dearer with
  // them; docs/design/lazy-twins.md, section 11). Calls of private instance methods need a
  // bridge in a nest too (invokespecial) and do not count.
  std::optional<std::string> private_access_in_loop(
      const std::vector<BridgeSite>& bridges,
      const std::vector<std::pair<size_t, size_t>>& loops) const {
    if (privates_.empty() || loops.empty()) return std::nullopt;
    for (const BridgeSite& b : bridges) {
      if (b.opcode == op::kInvokespecial) continue;
      auto ref = host_.pool.member_ref(b.ref);
      if (!ref || !private_in_host(*ref)) continue;
      for (auto [start, end] : loops) {
        if (b.pc >= start && b.pc <= end)
          return "a private member of the class reached in a loop (a bridge call at every "
                 "iteration while the twin runs interpreted)";
      }
    }
    return std::nullopt;
  }

  // Without a nest: `ref` names one of the host's private members.
  bool private_in_host(const MemberRef& ref) const {
    if (privates_.empty() || ref.owner != name_) return false;
    return privates_.contains(key_of(ref));
  }

  // Exact mode: the member may resolve to a protected member of a superclass in another
  // package (only names and descriptors are compared: an overriding public method, or a
  // namesake in an unrelated class, also counts, which costs a bridge and nothing more).
  bool may_be_inherited_protected(const MemberRef& ref) const {
    if (ref.name == "<init>") {
      return protected_constructors_.contains(std::string(ref.owner) + '.' + std::string(ref.name) +
                                              ':' + std::string(ref.descriptor));
    }
    if (!ref.owner.empty() && ref.owner[0] == '[') return false;  // an array's clone is public
    // Most names match none: those are answered without building the key.
    if (!protected_names_.contains(ref.name)) return false;
    return protected_elsewhere_.contains(key_of(ref));
  }

  // "name:descriptor", the key of the sets below, of a member of the host and of a reference.
  std::string signature(const Member& m) const {
    return std::string(host_.member_name(m)) + ':' + std::string(host_.member_descriptor(m));
  }
  static std::string key_of(const MemberRef& ref) {
    return std::string(ref.name) + ':' + std::string(ref.descriptor);
  }

  bool declared(const MemberRef& ref) const { return declared_.contains(key_of(ref)); }

  std::optional<std::string> instruction_stays(uint8_t opcode, std::span<const uint8_t> insn,
                                               size_t pc, std::vector<BridgeSite>& bridges) {
    uint16_t index = instruction_pool_index(insn);
    if (opcode == op::kLdc || opcode == op::kLdcW || opcode == op::kLdc2W ||
        opcode == op::kInvokedynamic) {
      return constant_stays(index);
    }
    if (opcode < op::kGetstatic || opcode > op::kInvokeinterface) return std::nullopt;
    auto ref = host_.pool.member_ref(index);
    if (!ref) return "a member reference that does not resolve in the pool";
    if (opcode == op::kInvokespecial && ref->name == "<init>") return member_stays(index);
    if (needs_bridge(opcode, *ref)) {
      // A bridge declares each parameter of a class the host's signatures do not name as an
      // Object and casts it back; its result cannot be (the twin calls it in place of a
      // three-byte instruction, with no room for a cast after it), so a twin that would need
      // such a result stays.
      std::string operands = bridge_descriptor(opcode, *ref, name_);
      std::string_view result = method_descriptor_types(operands).second;
      if (!shown_.shown(result))
        return "a bridge returning " + std::string(named_class(result)) +
               ", which no method of the class names (reflection would have to resolve it)";
      bridges.push_back({pc, opcode, index});
      return std::nullopt;
    }
    return member_stays(index);
  }

  // Instructions only the host may run, which a bridge in the host runs for the twin class:
  // - invokespecial (a call without dispatch: the twin's re-call of its method, a private
  //   method before Java 11, a super call), whose receiver the verifier has already required
  //   to be the host's type;
  // - a member the host inherits (named with the host as owner: it may be protected in a
  //   superclass of another package), whose receiver, if any, is of the host's type too;
  // - a static member of the superclass in another package (it may be protected).
  // A bridge takes the receiver as the host's type; an instance member of the superclass
  // (named with the superclass as owner) may have a receiver of the superclass's type, which
  // such a bridge would not take: those twins stay.
  //
  // With a class index (exact_), only a member that may be inherited protected needs one, and
  // its receiver, if any, is taken as the owner's type (legal in the host as the original
  // instruction was: the verifier's protected check binds a receiver only when the owner is a
  // superclass, and those twins stay); a static one always may.
  // Without a nest, also a private member of the host, whatever the instruction. And a write to
  // one of the host's final fields (legal outside an initializer before version 53: Clojure's
  // `__init` classes set their constants in helper methods), which only the host may make.
  bool needs_bridge(uint8_t opcode, const MemberRef& ref) const {
    if (opcode == op::kInvokeinterface) return false;
    if (opcode == op::kInvokespecial || private_in_host(ref)) return true;
    if ((opcode == op::kPutfield || opcode == op::kPutstatic) && ref.owner == name_ &&
        finals_.contains(key_of(ref)))
      return true;
    const bool is_static =
        opcode == op::kGetstatic || opcode == op::kPutstatic || opcode == op::kInvokestatic;
    if (exact_) {
      if (!may_be_inherited_protected(ref)) return false;
      return is_static || !ancestors_.contains(std::string(ref.owner));
    }
    if (ref.owner == name_) return !declared(ref);
    return is_static && ref.owner == super_name_ && package_of(super_name_) != package_of(name_);
  }

  // A member the twin names, through an instruction or a method handle.
  std::optional<std::string> member_stays(uint16_t index) {
    auto ref = host_.pool.member_ref(index);
    if (!ref) return "a member reference that does not resolve in the pool";
    // Object's protected clone and finalize, unless the host (which declares them then: one it
    // inherits goes through a bridge) or an array (whose clone is public) is the owner.
    bool array_owner = !ref->owner.empty() && ref->owner[0] == '[';
    if (!array_owner && ref->owner != name_ && (ref->name == "clone" || ref->name == "finalize"))
      return "a call of clone or finalize (protected in java.lang.Object)";
    if (sees_its_caller_class(ref->owner, ref->name, ref->descriptor))
      return "a call of " + std::string(ref->owner) + "." + std::string(ref->name) +
             ", which would see the twin class as its caller (caller-sensitive)";
    if (private_in_host(*ref))
      return "a private member of the class where a bridge cannot stand in (a constructor, or a "
             "method handle), which a twin class outside a nest may not reach";
    if (exact_) {
      if (may_be_inherited_protected(*ref))
        return "a member that may be protected in a superclass of another package, named with "
               "a superclass as owner or in a method handle";
      return std::nullopt;
    }
    if (ref->owner == super_name_ && package_of(super_name_) != package_of(name_))
      return "a member of its superclass in another package (it may be protected)";
    if (ref->owner == name_ && !declared(*ref))
      return "a method handle of a member it inherits (it may be protected)";
    return std::nullopt;
  }

  // A bootstrap method gets the caller's lookup: only the JDK's that use it for access alone
  // answer a twin class as they answer its host.
  std::optional<std::string> bootstrap_stays(uint16_t method_handle) const {
    const CpEntry* handle = host_.pool.entry(method_handle);
    if (!handle || handle->tag != CpTag::kMethodHandle)
      return "a bootstrap method that is not a method handle";
    auto ref = host_.pool.member_ref(handle->b);
    if (!ref) return "a bootstrap method handle that does not resolve in the pool";
    if (bootstrap_ignores_caller_class(ref->owner, ref->name)) return std::nullopt;
    return "a call site or constant bootstrapped by " + std::string(ref->owner) + "." +
           std::string(ref->name) + ", which is given the twin class as its caller";
  }

  // ldc constants and invokedynamic call sites: method handles, here or as bootstrap arguments.
  std::optional<std::string> constant_stays(uint32_t index, int depth = 0) {
    const CpEntry* e = host_.pool.entry(index);
    if (!e) return "a constant that does not resolve in the pool";
    if (depth > 4) return "deeply nested dynamic constants";
    if (e->tag == CpTag::kMethodHandle) {
      if (e->a == kRefInvokeSpecial) return "a REF_invokeSpecial method handle";
      return member_stays(e->b);
    }
    if (e->tag != CpTag::kDynamic && e->tag != CpTag::kInvokeDynamic) return std::nullopt;
    if (e->a >= bootstraps_.size()) return "a bootstrap method index out of range";
    const BootstrapMethod& bsm = bootstraps_[e->a];
    if (auto why = bootstrap_stays(bsm.method_handle)) return why;
    if (auto why = constant_stays(bsm.method_handle, depth + 1)) return why;
    for (uint16_t arg : bsm.arguments) {
      if (auto why = constant_stays(arg, depth + 1)) return why;
    }
    return std::nullopt;
  }

  const ClassFile& host_;
  std::string name_;
  SignatureClasses shown_;
  std::string super_name_;
  std::set<std::string> declared_;  // without an index: "name:descriptor" of the host's members
  std::vector<BootstrapMethod> bootstraps_;
  bool exact_ = false;  // a class index told the superclasses apart
  std::set<std::string> ancestors_;
  std::set<std::string> protected_elsewhere_;           // "name:descriptor"
  std::set<std::string, std::less<>> protected_names_;  // their names
  std::set<std::string> protected_constructors_;        // "owner.<init>:descriptor"
  std::set<std::string> privates_;  // without a nest: the host's private "name:descriptor"s
  std::set<std::string> finals_;    // the host's final fields' "name:descriptor"s
};

// True when `cf` declares the field `name``descriptor` final.
bool declares_final_field(const ClassFile& cf, std::string_view name, std::string_view descriptor) {
  for (const Member& f : cf.fields) {
    if ((f.access_flags & access::kFinal) && cf.member_name(f) == name &&
        cf.member_descriptor(f) == descriptor)
      return true;
  }
  return false;
}

// An instruction that writes one of the class's final fields outside the initializer that
// version 53 and later require (HotSpot then throws IllegalAccessError: Scala 2.11 assigns an
// object's MODULE$ in <init>).
bool writes_final_outside_initializer(const ClassFile& cf, std::string_view method, uint8_t opcode,
                                      std::span<const uint8_t> insn) {
  if (opcode != op::kPutstatic && opcode != op::kPutfield) return false;
  if (method == (opcode == op::kPutstatic ? "<clinit>" : "<init>")) return false;
  auto ref = cf.pool.member_ref(instruction_pool_index(insn));
  if (!ref || ref->owner != cf.name()) return false;
  return declares_final_field(cf, ref->name, ref->descriptor);
}

// Code that version 50 accepts but 55 does not, in one method of a class raised to 55.
std::optional<std::string> refused_at_nest_version(const ClassFile& cf, const Member& m) {
  std::string_view name = cf.member_name(m);
  if (name == "<clinit>" && !(m.access_flags & access::kStatic)) return "a non-static <clinit>";
  const Attribute* attr = cf.find_attribute(m.attributes, "Code");
  if (!attr) return std::nullopt;
  auto code = decode_code(*attr);
  if (!code) return "a malformed Code attribute";
  bool has_frames = cf.find_attribute(code->attributes, "StackMapTable") != nullptr;
  bool jumps = !code->exception_table.empty();
  bool subroutines = false;
  bool final_write = false;
  bool ok = for_each_instruction(code->code, [&](uint8_t opcode, auto insn) {
    subroutines = subroutines || opcode == op::kJsr || opcode == op::kJsrW || opcode == op::kRet;
    jumps = jumps || is_conditional_branch(opcode) || is_unconditional_jump(opcode) ||
            is_switch(opcode);
    final_write = final_write || writes_final_outside_initializer(cf, name, opcode, insn);
  });
  if (!ok) return "malformed code";
  if (subroutines) return "jsr/ret, which version 51 and later forbid";
  if (jumps && !has_frames) return "a method without the StackMapTable version 51 needs";
  if (final_write)
    return "a write to a final field of its class outside the initializer, which version 53 "
           "and later forbid";
  return std::nullopt;
}

// The bridge that runs `opcode` on the host's member `ref` takes the instruction's operands
// as its parameters and returns its result: the same stack effect, as an invokestatic.
// The receiver is of the host's type for an invokespecial, else of the owner's (the host
// itself unless a class index found a protected member named with a subclass as owner).
std::string bridge_descriptor(uint8_t opcode, const MemberRef& ref, std::string_view host) {
  std::string_view receiver = opcode == op::kInvokespecial ? host : ref.owner;
  std::string self = !receiver.empty() && receiver[0] == '[' ? std::string(receiver)
                                                             : "L" + std::string(receiver) + ";";
  std::string desc(ref.descriptor);
  switch (opcode) {
    case op::kGetfield:
      return "(" + self + ")" + desc;
    case op::kPutfield:
      return "(" + self + desc + ")V";
    case op::kGetstatic:
      return "()" + desc;
    case op::kPutstatic:
      return "(" + desc + ")V";
    case op::kInvokestatic:
      return desc;
    default:
      return "(" + self + desc.substr(1);  // invokevirtual, invokespecial
  }
}

// The types `descriptor` (a bridge's operands) declares: each parameter that the class's
// signatures do not show, or of the class's own type (`own`, `Lname;`: reflective runtimes such
// as Groovy's recurse on those), as an Object, to be cast back in the bridge. The result keeps
// its type (TwinCheck lets a twin move only when the class's signatures show it).
std::string declared_descriptor(std::string_view descriptor, std::string_view own,
                                const SignatureClasses& shown) {
  auto [params, result] = method_descriptor_types(descriptor);
  std::string out = "(";
  for (std::string_view p : params)
    out.append(p == own || !shown.shown(p) ? "Ljava/lang/Object;" : p);
  return out.append(")").append(result);
}

uint32_t slots_of(char kind) {
  return kind == 'J' || kind == 'D' ? 2 : kind == 'V' ? 0 : 1;
}

// The bridge's Code attribute body: load every parameter of `descriptor` (the instruction's
// operands), casting each back to the class in `casts` (a Class entry, or 0 where the
// parameter is declared with its own type), the instruction, return.
std::vector<uint8_t> bridge_code(uint8_t opcode, uint16_t ref, std::string_view descriptor,
                                 std::span<const uint16_t> casts) {
  auto [params, result] = method_descriptor_types(descriptor);
  char ret = result.front();
  ByteWriter code;
  uint32_t slot = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    char k = params[i][0];
    uint8_t load = k == 'J'               ? op::kLload
                   : k == 'D'             ? op::kDload
                   : k == 'F'             ? op::kFload
                   : k == 'L' || k == '[' ? op::kAload
                                          : op::kIload;
    if (slot > 0xFF) {
      code.u1(op::kWide), code.u1(load), code.u2(slot);
    } else {
      code.u1(load), code.u1(slot);
    }
    if (casts[i] != 0) code.u1(op::kCheckcast), code.u2(casts[i]);
    slot += slots_of(k);
  }
  code.u1(opcode), code.u2(ref);
  code.u1(ret == 'V'                 ? op::kReturn
          : ret == 'J'               ? 0xad
          : ret == 'F'               ? 0xae
          : ret == 'D'               ? 0xaf
          : ret == 'L' || ret == '[' ? 0xb0
                                     : op::kIreturn);
  std::vector<uint8_t> bytes = code.take();
  ByteWriter body;
  body.u2(std::max(slot, slots_of(ret)));  // max_stack
  body.u2(slot);                           // max_locals
  body.u4(static_cast<uint32_t>(bytes.size()));
  body.bytes(bytes);
  body.u2(0);  // no exception table
  body.u2(0);  // no attributes
  return body.take();
}

// Adds the bridges the moving twins need to `host` and points their instructions at them.
class Bridges {
 public:
  Bridges(ClassFile& host, std::string host_name, TwinAccess access)
      : host_(host), name_(std::move(host_name)), shown_(host), access_(access) {
    for (const Member& m : host.methods) taken_.insert(std::string(host.member_name(m)));
  }

  // `code_attribute` (a twin's) with each site's instruction replaced by a call of its bridge.
  Result<std::vector<uint8_t>> patch(std::vector<uint8_t> code_attribute,
                                     const std::vector<BridgeSite>& sites) {
    for (const BridgeSite& site : sites) {
      auto bridge = bridge_for(site.opcode, site.ref);
      if (!bridge) return bridge.error();
      size_t at = 8 + site.pc;  // both instructions are three bytes
      code_attribute[at] = op::kInvokestatic;
      code_attribute[at + 1] = static_cast<uint8_t>(*bridge >> 8);
      code_attribute[at + 2] = static_cast<uint8_t>(*bridge);
    }
    return code_attribute;
  }

 private:
  Result<uint16_t> bridge_for(uint8_t opcode, uint16_t ref) {
    auto key = std::make_pair(opcode, ref);
    if (auto hit = made_.find(key); hit != made_.end()) return hit->second;
    auto member = host_.pool.member_ref(ref);
    if (!member) return Error::plain("a bridge for a reference that does not resolve");
    std::string name;
    do {
      name = runtime_api::kBridgePrefix + std::to_string(next_++);
    } while (taken_.contains(name));
    taken_.insert(name);
    std::string operands = bridge_descriptor(opcode, *member, name_);
    std::string descriptor = declared_descriptor(operands, "L" + name_ + ";", shown_);
    auto casts = casts_for(operands, descriptor);
    if (!casts) return casts.error();
    // Private where the twin class is a nestmate; else package-private, as javac's access$
    // methods were before nests.
    const uint16_t flags = access::kStatic | access::kSynthetic |
                           (access_ == TwinAccess::kNestmate ? access::kPrivate : 0);
    if (auto s = host_.append_method(flags, name, descriptor,
                                     bridge_code(opcode, ref, operands, *casts));
        !s) {
      return s.error();
    }
    auto bridge = host_.pool.add_methodref(name_, name, descriptor);
    if (!bridge) return bridge.error();
    made_.emplace(key, *bridge);
    return *bridge;
  }

  // For each parameter the bridge declares as an Object, the Class entry to cast it back to
  // (an array's descriptor is its class name); 0 for the others.
  Result<std::vector<uint16_t>> casts_for(std::string_view operands, std::string_view declared) {
    auto wanted = method_descriptor_types(operands).first;
    auto as_declared = method_descriptor_types(declared).first;
    std::vector<uint16_t> casts(wanted.size(), 0);
    for (size_t i = 0; i < wanted.size(); ++i) {
      if (as_declared[i] == wanted[i]) continue;
      std::string_view type = wanted[i];
      auto cls = host_.pool.add_class(type[0] == '[' ? type : type.substr(1, type.size() - 2));
      if (!cls) return cls.error();
      casts[i] = *cls;
    }
    return casts;
  }

  ClassFile& host_;
  std::string name_;
  SignatureClasses shown_;
  TwinAccess access_;
  std::set<std::string> taken_;
  std::map<std::pair<uint8_t, uint16_t>, uint16_t> made_;
  uint32_t next_ = 0;
};

Status add_nest_member(ClassFile& host, uint16_t member_class) {
  if (Attribute* members = host.find_attribute(host.attributes, "NestMembers")) {
    std::vector<uint8_t> body(members->data.begin(), members->data.end());
    if (body.size() < 2) return Error::plain("malformed NestMembers attribute");
    uint32_t count = be_u2(body, 0) + 1;
    if (count > 0xFFFF) return Error::plain("NestMembers is full");
    body[0] = static_cast<uint8_t>(count >> 8);
    body[1] = static_cast<uint8_t>(count);
    body.push_back(static_cast<uint8_t>(member_class >> 8));
    body.push_back(static_cast<uint8_t>(member_class));
    members->set_data(std::move(body));
    return Ok{};
  }
  auto name = host.pool.add_utf8("NestMembers");
  if (!name) return name.error();
  Attribute members;
  members.name_index = *name;
  members.set_data(
      {0, 1, static_cast<uint8_t>(member_class >> 8), static_cast<uint8_t>(member_class)});
  host.attributes.push_back(std::move(members));
  return Ok{};
}

// A twin's descriptor in the twin class: its cold parameter (rewriter/outline_layout.h), an
// Object in the host, becomes runtime_api::kNotInlinedDesc, a class that never exists. C2 does
// not inline a method whose signature names a class its loader has not loaded, and before it
// compiles a method it loads the classes its signature names, so a class that exists would
// be loaded at the first twin it compiles. Only the twin class may name it: reflection over a
// class resolves every type its methods name (getDeclaredMethods() would throw
// NoClassDefFoundError), and nothing reflects over a twin class.
// (Every `$duplex` twin has the cold parameter last; the counters' table and `$sampled` twins,
// which also move, have none.)
std::string descriptor_in_twin_class(const AddedMethod& twin) {
  const std::string_view cold = runtime_api::kColdParamDesc;
  std::string_view ret = return_type(twin.descriptor);
  size_t end = twin.descriptor.size() - ret.size() - 1;  // the ')' before the return type
  if (!twin.name.ends_with(kTwinSuffix) || ret.empty() || end < cold.size() ||
      std::string_view(twin.descriptor).substr(end - cold.size(), cold.size()) != cold)
    return twin.descriptor;
  return twin.descriptor.substr(0, end - cold.size()) + runtime_api::kNotInlinedDesc +
         twin.descriptor.substr(end);
}

// The host's sample stubs call its twins through Methodrefs naming the host: they now name
// the twin class, and the twins' descriptors there. The indices are all found before any
// entry changes (a change drops the pool's look-up tables).
Status repoint_twin_references(ClassFile& host, const std::string& host_name,
                               std::vector<MovingTwin>& twins, uint16_t twin_class) {
  // The Methodref, and its new NameAndType (0: the descriptor stays, as the counters' table's).
  std::vector<std::pair<uint16_t, uint16_t>> refs;
  for (MovingTwin& t : twins) {
    auto ref = host.pool.add_methodref(host_name, t.method.name, t.method.descriptor);
    if (!ref) return ref.error();
    uint16_t type = 0;
    if (std::string moved = descriptor_in_twin_class(t.method); moved != t.method.descriptor) {
      t.method.descriptor = std::move(moved);
      auto nat = host.pool.add_name_and_type(t.method.name, t.method.descriptor);
      if (!nat) return nat.error();
      type = *nat;
    }
    refs.emplace_back(*ref, type);
  }
  for (auto [ref, type] : refs) {
    if (auto s = host.pool.set_member_owner(ref, twin_class); !s) return s;
    if (type == 0) continue;
    if (auto s = host.pool.set_member_name_and_type(ref, type); !s) return s;
  }
  return Ok{};
}

// Without a nest, the twin class reaches the host's members by package access: the twins (which
// the host's stubs call) and the private static members the rewriter added to the host (the
// counters, twins that stay) lose their private flag. The class's own members keep theirs.
void open_to_package(ClassFile& host, const TwinClassPlan& plan, std::vector<MovingTwin>& twins) {
  constexpr uint16_t kPrivateStatic = access::kPrivate | access::kStatic;
  auto open = [](std::vector<Member>& members, size_t original) {
    for (size_t i = original; i < members.size(); ++i) {
      if ((members[i].access_flags & kPrivateStatic) == kPrivateStatic)
        members[i].access_flags &= static_cast<uint16_t>(~access::kPrivate);
    }
  };
  open(host.fields, plan.original_fields);
  open(host.methods, plan.original_methods);
  for (MovingTwin& t : twins) t.method.access_flags &= static_cast<uint16_t>(~access::kPrivate);
}

Status copy_attribute(const ClassFile& from, ClassFile& to, std::string_view name) {
  if (const Attribute* a = from.find_attribute(from.attributes, name)) {
    Attribute copy;
    copy.name_index = a->name_index;  // the pools agree up to the host's count
    copy.set_data(std::vector<uint8_t>(a->data.begin(), a->data.end()));
    to.attributes.push_back(std::move(copy));
  }
  return Ok{};
}

Result<std::vector<uint8_t>> twin_class_bytes(const ClassFile& host, uint16_t twin_class,
                                              const std::vector<MovingTwin>& twins,
                                              TwinAccess access) {
  const bool nestmate = access == TwinAccess::kNestmate;
  ClassFile twin;
  twin.major_version = nestmate ? std::max(host.major_version, kNestVersion) : host.major_version;
  twin.minor_version = nestmate ? 0 : host.minor_version;
  twin.pool = host.pool;
  twin.access_flags = access::kFinal | access::kSynchronized /* ACC_SUPER */ | access::kSynthetic;
  twin.this_class = twin_class;
  auto object = twin.pool.add_class("java/lang/Object");
  if (!object) return object.error();
  twin.super_class = *object;
  for (const MovingTwin& t : twins) {
    const AddedMethod& m = t.method;
    if (auto s = twin.append_method(m.access_flags, m.name, m.descriptor, m.code_attribute); !s)
      return s.error();
  }
  // The twins' invokedynamic sites index the host's bootstrap table; stack traces show the
  // host's source file.
  (void)copy_attribute(host, twin, "BootstrapMethods");
  (void)copy_attribute(host, twin, "SourceFile");
  for (const char* name : {"NestHost", runtime_api::kMarkerAttribute}) {
    if (!nestmate && std::string_view(name) == "NestHost") continue;
    auto index = twin.pool.add_utf8(name);
    if (!index) return index.error();
    Attribute a;
    a.name_index = *index;
    if (std::string_view(name) == "NestHost") {
      a.set_data(
          {static_cast<uint8_t>(host.this_class >> 8), static_cast<uint8_t>(host.this_class)});
    } else {
      a.set_data({0, 1});  // the marker's format version, as add_marker writes it
    }
    twin.attributes.push_back(std::move(a));
  }
  // The copy of the host's pool keeps every index the twins use, and the entries they do not
  // use become empty placeholders: most of the pool, which the JVM would parse for nothing.
  const std::string_view marker[] = {runtime_api::kMarkerAttribute};
  if (auto used = pool_entries_used(twin, marker)) twin.pool.keep_only(*used);
  return twin.write();
}

}  // namespace

std::optional<std::string> twin_class_refused(const ClassFile& host, bool may_raise,
                                              TwinClassPlan& plan) {
  if (host.access_flags & (access::kInterface | access::kModule))
    return "an interface keeps its twins";
  if (host.major_version < 50) return "a class before version 50 (no frames) keeps its twins";
  if (host.find_attribute(host.attributes, "NestHost"))
    return "a member of another class's nest keeps its twins";
  plan.access = TwinAccess::kNestmate;
  plan.not_raised.reset();
  if (host.major_version >= kNestVersion) return std::nullopt;
  plan.access = TwinAccess::kPackage;
  if (!may_raise) return std::nullopt;
  for (const Member& m : host.methods) {
    if (auto why = refused_at_nest_version(host, m)) {
      plan.not_raised = "version " + std::to_string(host.major_version) +
                        " cannot be raised to 55: " + std::string(host.member_name(m)) +
                        std::string(host.member_descriptor(m)) + " has " + *why;
      return std::nullopt;
    }
  }
  plan.access = TwinAccess::kNestmate;
  return std::nullopt;
}

std::optional<std::string> superclasses_unknown(const ClassFile& host, const ClassIndex& index) {
  std::string_view super = host.pool.class_name(host.super_class).value_or("");
  Ancestry ancestry = index.ancestry_from(super);
  if (ancestry.unknown.empty()) return std::nullopt;
  return "its superclasses are not all in the class index: " + ancestry.unknown;
}

std::vector<TwinVerdict> judge_twins(const ClassFile& host, std::span<const AddedMethod> twins,
                                     const ClassIndex* index, const TwinClassPlan& plan) {
  TwinCheck check(host, index, plan);
  std::vector<TwinVerdict> verdicts;
  for (const AddedMethod& t : twins) verdicts.push_back(check.judge(t));
  return verdicts;
}

Result<std::vector<uint8_t>> move_twins_to_twin_class(ClassFile& host,
                                                      std::vector<MovingTwin> twins,
                                                      const TwinClassPlan& plan) {
  std::string host_name = host.name();
  if (plan.access == TwinAccess::kPackage) open_to_package(host, plan, twins);
  Bridges bridges(host, host_name, plan.access);
  for (MovingTwin& t : twins) {
    auto patched = bridges.patch(std::move(t.method.code_attribute), t.bridges);
    if (!patched) return patched.error().in(host_name, t.method.name + t.method.descriptor);
    t.method.code_attribute = std::move(patched.value());
  }
  auto twin_class = host.pool.add_class(host_name + kTwinClassSuffix);
  if (!twin_class) return twin_class.error().in(host_name);
  if (auto s = repoint_twin_references(host, host_name, twins, *twin_class); !s)
    return s.error().in(host_name);
  if (plan.access == TwinAccess::kNestmate) {
    if (auto s = add_nest_member(host, *twin_class); !s) return s.error().in(host_name);
    if (host.major_version < kNestVersion) {
      host.major_version = kNestVersion;
      host.minor_version = 0;
    }
  }
  auto bytes = twin_class_bytes(host, *twin_class, twins, plan.access);
  if (!bytes) return bytes.error().in(host_name + kTwinClassSuffix);
  return bytes;
}

}  // namespace duplex
