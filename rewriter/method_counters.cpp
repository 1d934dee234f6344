// Method counters: one static field per counting method (see method_counters.h).
#include "rewriter/method_counters.h"

#include <algorithm>
#include <string_view>

#include "rewriter/runtime_api.h"

namespace duplex {
namespace {

constexpr std::string_view kFieldPrefix = "duplex$k";
constexpr uint16_t kFieldAccess = access::kPrivate | access::kStatic | access::kSynthetic;

std::string field_name(uint32_t method_index) {
  return std::string(kFieldPrefix) + std::to_string(method_index);
}

}  // namespace

MethodCounters MethodCounters::for_class(const ClassFile& cf) {
  MethodCounters c;
  c.class_name_ = cf.name();
  c.usable_ = (cf.access_flags & access::kInterface) == 0 &&
              std::none_of(cf.fields.begin(), cf.fields.end(), [&](const Member& f) {
                return cf.pool.utf8(f.name_index).value_or("").starts_with(kFieldPrefix);
              });
  return c;
}

Result<uint16_t> MethodCounters::field_for(ConstantPool& pool, uint32_t method_index) {
  if (!usable_) return Error::plain("the class cannot hold method counters");
  auto ref =
      pool.add_fieldref(class_name_, field_name(method_index), runtime_api::kMethodCounterDesc);
  if (!ref) return ref.error();
  if (std::find(asked_.begin(), asked_.end(), method_index) == asked_.end())
    asked_.push_back(method_index);
  return *ref;
}

Status MethodCounters::install(ClassFile& cf) const {
  for (uint32_t index : asked_) {
    if (auto s = cf.append_field(kFieldAccess, field_name(index), runtime_api::kMethodCounterDesc);
        !s)
      return s;
  }
  return Ok{};
}

}  // namespace duplex
