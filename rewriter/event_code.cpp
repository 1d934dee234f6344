#include <algorithm>

#include "classfile/opcodes.h"
#include "rewriter/class_counters.h"
#include "rewriter/instrumentation.h"
#include "rewriter/runtime_api.h"

namespace duplex {

Status EventCode::push_string(std::string_view modified_utf8) {
  auto index = pool_.add_string(modified_utf8);
  if (!index) return index.error();
  out_.push_back(Insn::make(op::kLdc, *index));  // the assembler widens to ldc_w if needed
  return Ok{};
}

Status EventCode::push_int(int32_t value) {
  if (value >= -1 && value <= 5) {
    out_.push_back(Insn::make(static_cast<uint8_t>(op::kIconst0 + value)));
  } else if (value >= -128 && value <= 127) {
    out_.push_back(Insn::make(op::kBipush, value));
  } else if (value >= -32768 && value <= 32767) {
    out_.push_back(Insn::make(op::kSipush, value));
  } else {
    auto index = pool_.add_integer(value);
    if (!index) return index.error();
    out_.push_back(Insn::make(op::kLdc, *index));
  }
  return Ok{};
}

Status EventCode::invoke_static(std::string_view owner, std::string_view name,
                                std::string_view desc) {
  auto index = pool_.add_methodref(owner, name, desc);
  if (!index) return index.error();
  out_.push_back(Insn::make(op::kInvokestatic, *index));
  return Ok{};
}

Result<uint16_t> EventCode::temp_local(uint16_t slots) {
  uint32_t at = static_cast<uint32_t>(first_free_) + used_;
  if (at + slots > 0xFFFF) return Error::plain("no local slot left for instrumentation");
  used_ = static_cast<uint16_t>(used_ + slots);
  high_ = std::max<uint16_t>(high_, static_cast<uint16_t>(at + slots));
  return static_cast<uint16_t>(at);
}

bool EventCode::count_in_class(char kind, std::string_view key) {
  if (!counters_ || !counters_->usable()) return false;
  size_t before = out_.size();
  if (counters_->emit_increment(pool_, kind, key, out_)) return true;
  out_.resize(before);
  return false;
}

bool EventCode::count_virtual_in_class(std::string_view key) {
  if (!counters_ || !counters_->usable()) return false;
  size_t before = out_.size();
  if (counters_->emit_virtual_site(pool_, key, out_)) return true;
  out_.resize(before);
  return false;
}

Status EventCode::count_event(std::string_view key) {
  if (auto s = push_string(key); !s) return s;
  return invoke_static(runtime_class_, runtime_api::kEvent, runtime_api::kKeyDesc);
}

}  // namespace duplex
