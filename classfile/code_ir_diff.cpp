#include "classfile/code_ir_diff.h"

#include <algorithm>
#include <string>

namespace duplex {
namespace {

bool same_insn(const Insn& x, const Insn& y) {
  return x.opcode == y.opcode && x.wide == y.wide && x.a == y.a && x.b == y.b &&
         x.target == y.target && x.switch_index == y.switch_index &&
         x.original_offset == y.original_offset;
}

bool same_switch(const SwitchTable& x, const SwitchTable& y) {
  return x.low == y.low && x.keys == y.keys && x.targets == y.targets;
}

bool same_label(const LabelInfo& x, const LabelInfo& y) {
  return x.original_offset == y.original_offset && x.frame == y.frame;
}

bool same_try(const TryCatch& x, const TryCatch& y) {
  return x.start == y.start && x.end == y.end && x.handler == y.handler &&
         x.catch_type == y.catch_type;
}

bool same_line(const LineNumber& x, const LineNumber& y) {
  return x.label == y.label && x.line == y.line;
}

bool same_local(const LocalVar& x, const LocalVar& y) {
  return x.start == y.start && x.end == y.end && x.name_index == y.name_index &&
         x.descriptor_index == y.descriptor_index && x.index == y.index;
}

bool same_raw_annotation(const CodeTypeAnnotation& x, const CodeTypeAnnotation& y) {
  if (x.ranges.size() != y.ranges.size()) return false;
  for (size_t i = 0; i < x.ranges.size(); ++i) {
    const auto& r = x.ranges[i];
    const auto& s = y.ranges[i];
    if (r.start_pc != s.start_pc || r.length != s.length || r.index != s.index) return false;
  }
  return x.target_type == y.target_type && x.exception_table_index == y.exception_table_index &&
         x.offset == y.offset && x.type_argument_index == y.type_argument_index &&
         x.type_path == y.type_path && x.annotation == y.annotation;
}

bool same_annotation(const CodeTypeAnnotationIR& x, const CodeTypeAnnotationIR& y) {
  return same_raw_annotation(x.raw, y.raw) && x.ranges == y.ranges && x.insn == y.insn;
}

bool same_attribute(const Attribute& x, const Attribute& y) {
  return x.name_index == y.name_index &&
         std::equal(x.data.begin(), x.data.end(), y.data.begin(), y.data.end());
}

// Compares two vectors element by element; "" or "<what>[i] differs".
template <class T, class Same>
std::string compare(const char* what, const std::vector<T>& a, const std::vector<T>& b, Same same) {
  if (a.size() != b.size()) {
    return std::string(what) + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) +
           " entries";
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (!same(a[i], b[i])) return std::string(what) + "[" + std::to_string(i) + "] differs";
  }
  return "";
}

}  // namespace

std::string code_ir_difference(const CodeIR& a, const CodeIR& b) {
  if (a.max_stack != b.max_stack) return "max_stack differs";
  if (a.max_locals != b.max_locals) return "max_locals differs";
  if (a.had_stack_map_table != b.had_stack_map_table) return "had_stack_map_table differs";
  std::string d;
  if (!(d = compare("insns", a.insns, b.insns, same_insn)).empty()) return d;
  if (!(d = compare("switches", a.switches, b.switches, same_switch)).empty()) return d;
  if (!(d = compare("labels", a.labels, b.labels, same_label)).empty()) return d;
  if (!(d = compare("try_catches", a.try_catches, b.try_catches, same_try)).empty()) return d;
  if (!(d = compare("line_numbers", a.line_numbers, b.line_numbers, same_line)).empty()) {
    return d;
  }
  if (!(d = compare("local_variables", a.local_variables, b.local_variables, same_local)).empty()) {
    return d;
  }
  if (!(d = compare("local_variable_types", a.local_variable_types, b.local_variable_types,
                    same_local))
           .empty()) {
    return d;
  }
  if (!(d = compare("visible_type_annotations", a.visible_type_annotations,
                    b.visible_type_annotations, same_annotation))
           .empty()) {
    return d;
  }
  if (!(d = compare("invisible_type_annotations", a.invisible_type_annotations,
                    b.invisible_type_annotations, same_annotation))
           .empty()) {
    return d;
  }
  return compare("unknown_attributes", a.unknown_attributes, b.unknown_attributes, same_attribute);
}

}  // namespace duplex
