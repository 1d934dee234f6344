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
