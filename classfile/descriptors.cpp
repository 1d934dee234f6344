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

std::pair<std::vector<std::string_view>, std::string_view> method_descriptor_types(
    std::string_view desc) {
  std::vector<std::string_view> params;
  size_t i = 1;
  while (i < desc.size() && desc[i] != ')') {
    size_t start = i;
    while (i < desc.size() && desc[i] == '[') ++i;
    if (i < desc.size() && desc[i] == 'L') i = desc.find(';', i);
    if (i == std::string_view::npos || i >= desc.size()) break;
    params.push_back(desc.substr(start, i + 1 - start));
    ++i;
  }
  bool closed = i < desc.size() && desc[i] == ')' && i + 1 < desc.size();
  return {params, closed ? desc.substr(i + 1) : std::string_view("V")};
}

}  // namespace duplex
