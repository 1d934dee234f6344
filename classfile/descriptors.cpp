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

std::string_view ParameterReader::return_type() const {
  bool closed = at_ < desc_.size() && desc_[at_] == ')' && at_ + 1 < desc_.size();
  return closed ? desc_.substr(at_ + 1) : std::string_view();
}

std::string_view return_type(std::string_view desc) {
  ParameterReader reader(desc);
  std::string_view type;
  while (reader.next(type)) {
  }
  return reader.return_type();
}

std::pair<std::vector<std::string_view>, std::string_view> method_descriptor_types(
    std::string_view desc) {
  std::vector<std::string_view> params;
  ParameterReader reader(desc);
  for (std::string_view type; reader.next(type);) params.push_back(type);
  std::string_view result = reader.return_type();
  return {params, result.empty() ? std::string_view("V") : result};
}

}  // namespace duplex
