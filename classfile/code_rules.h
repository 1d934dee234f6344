// What the JVM accepts in the operands of code, shared by the two IR builders
// (code_ir_builder.cpp and code_ir_checked.cpp). Internal to the class-file layer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>

#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "classfile/constant_pool.h"
#include "classfile/opcodes.h"

namespace duplex {

// The pool entry kinds an instruction's index may name, as HotSpot's verifiers accept them
// for this class version (ldc of a Class from 49, of a MethodHandle or MethodType from 51;
// invokespecial and invokestatic of an InterfaceMethodref from 52); 0 when it names none.
constexpr uint32_t allowed_tags(uint8_t opcode, uint16_t major) {
  switch (opcode) {
    case op::kLdc:
    case op::kLdcW: {
      uint32_t t = tag_bit(CpTag::kInteger) | tag_bit(CpTag::kFloat) | tag_bit(CpTag::kString);
      if (major >= 49) t |= tag_bit(CpTag::kClass);
      if (major >= 51) t |= tag_bit(CpTag::kMethodHandle) | tag_bit(CpTag::kMethodType);
      if (major >= 55) t |= tag_bit(CpTag::kDynamic);
      return t;
    }
    case op::kLdc2W:
      return tag_bit(CpTag::kLong) | tag_bit(CpTag::kDouble) |
             (major >= 55 ? tag_bit(CpTag::kDynamic) : 0);
    case op::kGetstatic:
    case op::kPutstatic:
    case op::kGetfield:
    case op::kPutfield:
      return tag_bit(CpTag::kFieldref);
    case op::kInvokevirtual:
      return tag_bit(CpTag::kMethodref);
    case op::kInvokespecial:
    case op::kInvokestatic:
      return tag_bit(CpTag::kMethodref) | (major >= 52 ? tag_bit(CpTag::kInterfaceMethodref) : 0);
    case op::kInvokeinterface:
      return tag_bit(CpTag::kInterfaceMethodref);
    case op::kInvokedynamic:
      return tag_bit(CpTag::kInvokeDynamic);
    case op::kNew:
    case op::kAnewarray:
    case op::kCheckcast:
    case op::kInstanceof:
    case op::kMultianewarray:
      return tag_bit(CpTag::kClass);
    default:
      return 0;
  }
}

// The local variable an instruction reads or writes, and its size in slots (0: none).
struct LocalUse {
  uint32_t index = 0;
  uint32_t slots = 0;
};

constexpr LocalUse local_use(const Insn& insn) {
  auto o = static_cast<uint8_t>(insn.opcode);
  auto a = static_cast<uint32_t>(insn.a);
  auto wide_kind = [](uint8_t kind) { return kind == 1 || kind == 3 ? 2u : 1u; };  // l, d
  if (o >= op::kIload && o <= op::kAload) return {a, wide_kind(o - op::kIload)};
  if (o >= op::kIload0 && o <= op::kAload3) {
    return {(o - op::kIload0) % 4u, wide_kind(static_cast<uint8_t>((o - op::kIload0) / 4))};
  }
  if (o >= op::kIstore && o <= op::kAstore) return {a, wide_kind(o - op::kIstore)};
  if (o >= op::kIstore0 && o <= op::kAstore3) {
    return {(o - op::kIstore0) % 4u, wide_kind(static_cast<uint8_t>((o - op::kIstore0) / 4))};
  }
  if (o == op::kIinc || o == op::kRet) return {a, 1};
  return {};
}

// The first Object type of `f` that names no Class entry (JVMS 4.7.4: an Object_variable_info's
// cpool_index must name a CONSTANT_Class_info), or nullptr. Valid are Class entries of the pool
// as parsed, and the entry frame's types: computing it may add the parameters' classes to the
// pool, and the StackMapTable's frames carry those along. (A frame naming, out of range, the
// very index the entry frame then added cannot be told apart; that is the one gap.) The
// rewriter casts to these types in the code it writes, so a bad one must be refused here.
inline const VType* bad_frame_class(const Frame& f, const ConstantPool& pool, uint32_t parsed,
                                    const Frame& initial) {
  for (std::span<const VType> list : f.lists()) {
    for (const VType& v : list) {
      if (v.tag != VTag::kObject) continue;
      if (v.data < parsed && pool.tag(v.data) == CpTag::kClass) continue;
      if (std::find(initial.locals.begin(), initial.locals.end(), v) != initial.locals.end())
        continue;
      return &v;
    }
  }
  return nullptr;
}

// The method being built, as views into its class (MethodContext would copy the strings,
// and is only needed for an error message).
struct MethodRef {
  std::string_view class_name;
  std::string_view method_name;
  std::string_view descriptor;
  uint16_t access_flags = 0;
  uint16_t major_version = 0;
  // Pool indices the code may name are below this (build_code_ir's CodeSource).
  uint32_t pool_limit = 0;

  static MethodRef of(const ClassFile& cf, const Member& method, CodeSource source) {
    return MethodRef{cf.pool.class_name(cf.this_class).value_or("<unknown>"),
                     cf.member_name(method),
                     cf.member_descriptor(method),
                     method.access_flags,
                     cf.major_version,
                     source == CodeSource::kWritten ? cf.pool.count() : cf.parsed_pool_count()};
  }
};

}  // namespace duplex
