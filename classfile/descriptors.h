// Field and method descriptors (JVMS 4.3) read as text: the classes they name and a method's
// parameter and result types. Malformed input gives what could be read, never a read past the
// end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace duplex {

// The class a field descriptor names, for an object or an array of objects ("[[Lx/Y;" names
// x/Y); empty for a primitive or an array of primitives.
std::string_view named_class(std::string_view field_descriptor);

// The class a CONSTANT_Class entry's name stands for: the name itself ("x/Y"), or an array's
// element class ("[[Lx/Y;" -> "x/Y"); empty for an array of primitives.
std::string_view element_class(std::string_view class_entry_name);

// Length of the field type (JVMS 4.3.2) that starts at descriptor[pos], or 0 if there is none
// (more than 255 array dimensions, an empty class name, no ';', or any other character).
// Inline: the frame and stack-depth walks read every parameter of every call with it.
inline size_t field_type_length(std::string_view descriptor, size_t pos) {
  // Bit (c - 'B') is set for the base types B C D F I J S Z.
  constexpr uint32_t kBaseTypes = 1u << ('B' - 'B') | 1u << ('C' - 'B') | 1u << ('D' - 'B') |
                                  1u << ('F' - 'B') | 1u << ('I' - 'B') | 1u << ('J' - 'B') |
                                  1u << ('S' - 'B') | 1u << ('Z' - 'B');
  size_t p = pos;
  while (p < descriptor.size() && descriptor[p] == '[') ++p;
  if (p >= descriptor.size() || p - pos > 255) return 0;
  const uint32_t bit = static_cast<uint8_t>(descriptor[p]) - uint32_t{'B'};
  if (bit < 32 && (kBaseTypes >> bit & 1u)) return p + 1 - pos;
  if (descriptor[p] != 'L') return 0;
  size_t end = descriptor.find(';', p);
  if (end == std::string_view::npos || end == p + 1) return 0;
  return end + 1 - pos;
}

// Whether `text` is one whole method descriptor (JVMS 4.3.3): '(' field types ')' and a field
// type or V that ends it.
bool is_method_descriptor(std::string_view text);

// Where a name ends in "name:descriptor" (a member's signature, a field key's "name:type"):
// the first ':' at or after `from` after which the rest is one whole field type, or with
// `methods` one whole method descriptor too. Names may hold ':' and '(' (JVMS 4.2.2), so the
// first ':' need not be it. npos if there is none.
size_t descriptor_colon(std::string_view text, size_t from, bool methods);

// Where the descriptor starts in "name(params)result": the first '(' at or after `from` from
// which the rest is one whole method descriptor. npos if there is none.
size_t method_descriptor_start(std::string_view text, size_t from = 0);

// A method descriptor's parameter types one at a time, with no allocation (the rewriter reads
// one per instrumented call site):
//   ParameterReader params(desc);
//   for (std::string_view type; params.next(type);) ...
class ParameterReader {
 public:
  explicit ParameterReader(std::string_view method_descriptor) : desc_(method_descriptor) {}
  // The next parameter type into `type`; false after the last one, or where the descriptor
  // is cut short.
  bool next(std::string_view& type);
  // Where reading stopped: the ')' after the last parameter, in a well-formed descriptor.
  size_t position() const { return at_; }
  // Once next() has returned false: the return type after the ')', or empty when reading did
  // not stop at a ')' or nothing follows it.
  std::string_view return_type() const;

 private:
  std::string_view desc_;
  size_t at_ = 1;  // after '('
};

// A method descriptor's return type ("(I[Lx/Y;)V" -> "V"), read after its parameters: a class
// name may hold ')' (JVMS 4.2.2), so the first ')' need not end them. Empty when no ')'
// follows the parameters or nothing follows the ')'.
std::string_view return_type(std::string_view method_descriptor);

// The parameter types of a method descriptor ("(I[Lx/Y;)V" -> {"I", "[Lx/Y;"}), and its
// result type ("V" when the descriptor has none).
std::pair<std::vector<std::string_view>, std::string_view> method_descriptor_types(
    std::string_view method_descriptor);

}  // namespace duplex
