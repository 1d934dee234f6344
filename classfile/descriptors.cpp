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

bool is_method_descriptor(std::string_view d) {
  if (d.empty() || d[0] != '(') return false;
  size_t p = 1;
  while (p < d.size() && d[p] != ')') {
    size_t n = field_type_length(d, p);
    if (n == 0) return false;
    p += n;
  }
  if (++p >= d.size()) return false;  // past the ')': the result must follow
  return (d[p] == 'V' && p + 1 == d.size()) || field_type_length(d, p) == d.size() - p;
}

size_t descriptor_colon(std::string_view text, size_t from, bool methods) {
  for (size_t c = text.find(':', from); c != std::string_view::npos; c = text.find(':', c + 1)) {
    std::string_view rest = text.substr(c + 1);
    if (!rest.empty() && field_type_length(rest, 0) == rest.size()) return c;
    if (methods && is_method_descriptor(rest)) return c;
  }
  return std::string_view::npos;
}

size_t method_descriptor_start(std::string_view text, size_t from) {
  for (size_t p = text.find('(', from); p != std::string_view::npos; p = text.find('(', p + 1)) {
    if (is_method_descriptor(text.substr(p))) return p;
  }
  return std::string_view::npos;
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
