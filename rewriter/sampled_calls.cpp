#include "rewriter/sampled_calls.h"

#include "classfile/descriptors.h"
#include "classfile/opcodes.h"
#include "rewriter/caller_sensitive.h"
#include "rewriter/jdk_packages.h"
#include "rewriter/runtime_api.h"

namespace duplex {

namespace {

// JVMS 4.4.8 reference kinds.
constexpr uint8_t kRefInvokeVirtual = 5;
constexpr uint8_t kRefInvokeStatic = 6;
constexpr uint8_t kRefInvokeSpecial = 7;
constexpr uint8_t kRefInvokeInterface = 9;

uint8_t reference_kind(uint16_t opcode) {
  switch (opcode) {
    case op::kInvokevirtual:
      return kRefInvokeVirtual;
    case op::kInvokestatic:
      return kRefInvokeStatic;
    case op::kInvokespecial:
      return kRefInvokeSpecial;
    case op::kInvokeinterface:
      return kRefInvokeInterface;
    default:
      return 0;
  }
}

}  // namespace

std::string sampled_twin_descriptor(std::string_view class_name, std::string_view descriptor,
                                    bool is_static) {
  // The class's own type, as a twin declares it: java.lang.Object (rewriter/outline_layout.cpp,
  // shown_by_method).
  constexpr std::string_view kObject = "Ljava/lang/Object;";
  std::string own;
  own.append("L").append(class_name).append(";");
  std::string out = "(";
  if (!is_static) out.append(kObject);
  // Read type by type: a class name may hold ')' (JVMS 4.2.2), so the list ends where the
  // reader finds it, not at the first ')'.
  ParameterReader reader(descriptor);
  for (std::string_view param; reader.next(param);) {
    if (param.size() == 1 &&
        (param[0] == 'Z' || param[0] == 'B' || param[0] == 'S' || param[0] == 'C')) {
      out += 'I';
      continue;
    }
    out.append(param == own ? kObject : param);
  }
  std::string_view result = reader.return_type();
  if (result.empty()) return {};
  out.append("I)").append(result);
  return out;
}

Result<SampledCalls> SampledCalls::for_class(const ClassFile& cf, std::string_view runtime_class) {
  SampledCalls calls;
  calls.class_name_ = std::string(cf.name());
  calls.runtime_class_ = std::string(runtime_class);
  calls.major_version_ = cf.major_version;
  calls.active_ = cf.major_version >= 51;
  if (!calls.active_) return calls;
  auto table = BootstrapTable::read(cf);
  if (!table) return table.error();
  calls.table_ = std::move(table.value());
  return calls;
}

bool SampledCalls::eligible(const Insn& insn, std::string_view owner, std::string_view name,
                            std::string_view descriptor, bool interface_ref) const {
  if (name.empty() || name[0] == '<' || owner.empty() || owner[0] == '[') return false;
  // Classes no rewrite of an application touches: their methods have no sampled twins, and a
  // call through a method handle would only cost the sample time (and signature-polymorphic
  // methods such as MethodHandle.invoke cannot be called that way at all).
  if (in_jdk_package(owner) || owner.starts_with("duplex/runtime/") || owner == runtime_class_)
    return false;
  // A caller-sensitive JDK method inherited by the owner would see the method handle's invoker
  // as its caller (rewriter/caller_sensitive.h).
  if (is_caller_sensitive_inherited(name, descriptor)) return false;
  // invokespecial names a private method of this class, or a superclass's method (a super
  // call, never sampled through: its twin would be the superclass's own).
  if (insn.opcode == op::kInvokespecial && owner != class_name_) return false;
  // Method handles to interface methods by invokestatic or invokespecial: version 52.
  bool direct = insn.opcode == op::kInvokestatic || insn.opcode == op::kInvokespecial;
  if (interface_ref && direct && major_version_ < 52) return false;
  return true;
}

Result<uint16_t> SampledCalls::bootstrap_handle(ConstantPool& pool) {
  if (bootstrap_handle_) return bootstrap_handle_;
  auto ref =
      pool.add_methodref(runtime_class_, runtime_api::kSampledCall, runtime_api::kSampledCallDesc);
  if (!ref) return ref.error();
  auto handle = pool.add_method_handle(kRefInvokeStatic, *ref);
  if (!handle) return handle.error();
  bootstrap_handle_ = *handle;
  return bootstrap_handle_;
}

Result<Insn> SampledCalls::redirect(ConstantPool& pool, const Insn& insn) {
  uint8_t kind = reference_kind(insn.opcode);
  if (!active_ || !kind) return insn;
  auto key = std::make_pair(insn.opcode, insn.a);
  auto it = done_.find(key);
  if (it == done_.end()) {
    auto site = site_constant(pool, insn, kind);
    if (!site) return site.error();
    it = done_.emplace(key, *site).first;
  }
  if (it->second == 0) return insn;
  Insn indy = Insn::make(op::kInvokedynamic, it->second);
  indy.original_offset = insn.original_offset;
  return indy;
}

Result<uint16_t> SampledCalls::site_constant(ConstantPool& pool, const Insn& insn, uint8_t kind) {
  const auto callee_ref = static_cast<uint16_t>(insn.a);
  auto member = pool.member_ref(callee_ref);
  if (!member) return Error::plain("an invoke names no method reference");
  bool interface_ref = pool.tag(callee_ref) == CpTag::kInterfaceMethodref;
  if (!eligible(insn, member->owner, member->name, member->descriptor, interface_ref))
    return uint16_t{0};
  std::string name(member->name);
  std::string type(member->descriptor);
  if (insn.opcode != op::kInvokestatic)
    type = "(L" + std::string(member->owner) + ";" + type.substr(1);
  auto bootstrap = bootstrap_handle(pool);
  if (!bootstrap) return bootstrap.error();
  auto callee = pool.add_method_handle(kind, callee_ref);
  if (!callee) return callee.error();
  auto entry = table_.add(BootstrapMethod{*bootstrap, {*callee}});
  if (!entry) return entry.error();
  return pool.add_invoke_dynamic(*entry, name, type);
}

Status SampledCalls::install(ClassFile& cf) const {
  return table_.write(cf);
}

}  // namespace duplex
