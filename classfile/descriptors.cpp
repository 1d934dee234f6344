#include "classfile/descriptors.h"

namespace duplex {

std::string_view named_class(std::string_view type) {
  size_t i = type.find_first_not_of('[');
  if (i == std::string_view::npos || type[i] != 'L' || type.size() < i + 3 || type.back() != ';')
    return {};
  return type.substr(i + 1, type.size() - i - 2);
}

std::string_view element_class(std::string_view name) {
  return !name.empty() && name[0] == '[' ? named_class(name) : name;
}

size_t field_type_length(std::string_view d, size_t pos) {
  size_t p = pos;
  while (p < d.size() && d[p] == '[') ++p;
  if (p >= d.size() || p - pos > 255) return 0;
  switch (d[p]) {
    case 'B':
    case 'C':
    case 'D':
    case 'F':
    case 'I':
    case 'J':
    case 'S':
    case 'Z':
      return p + 1 - pos;
    case 'L': {
      size_t end = d.find(';', p);
      if (end == std::string_view::npos || end == p + 1) return 0;
      return end + 1 - pos;
    }
    default:
      return 0;
  }
}

bool ParameterReader::next(std::string_view& type) {
  if (at_ >= desc_.size() || desc_[at_] == ')') return false;
  size_t start = at_;
  size_t i = at_;
  while (i < desc_.size() && desc_[i] == '[') ++i;
  if (i < desc_.size() && desc_[i] == 'L') i = desc_.find(';', i);
  if (i == std::string_view::npos || i >= desc_.size()) {
    at_ = desc_.size();  // cut short: nothing more to read
    return false;
  }
  type = desc_.substr(start, i + 1 - start);
  at_ = i + 1;
  return true;
}

std::string_view return_type(std::string_view desc) {
  ParameterReader reader(desc);
  for (std::string_view type; reader.next(type);) {
  }
  size_t i = reader.position();
  bool closed = i < desc.size() && desc[i] == ')' && i + 1 < desc.size();
  return closed ? desc.substr(i + 1) : std::string_view();
}

std::pair<std::vector<std::string_view>, std::string_view> method_descriptor_types(
    std::string_view desc) {
  std::vector<std::string_view> params;
  ParameterReader reader(desc);
  for (std::string_view type; reader.next(type);) params.push_back(type);
  size_t i = reader.position();
  bool closed = i < desc.size() && desc[i] == ')' && i + 1 < desc.size();
  return {params, closed ? desc.substr(i + 1) : std::string_view("V")};
}

}  // namespace duplex
