#include "rewriter/key_text.h"

namespace duplex {

namespace {

constexpr std::string_view kEscaped = "\\\t\n\r";

char escape_letter(char c) {
  switch (c) {
    case '\t':
      return 't';
    case '\n':
      return 'n';
    case '\r':
      return 'r';
    default:
      return c;  // the backslash itself
  }
}

}  // namespace

void append_key_text(std::string& out, std::string_view text) {
  // Almost every name holds none of them: one scan, one append.
  size_t at = text.find_first_of(kEscaped);
  while (at != std::string_view::npos) {
    out.append(text.substr(0, at)).append(1, '\\').append(1, escape_letter(text[at]));
    text.remove_prefix(at + 1);
    at = text.find_first_of(kEscaped);
  }
  out.append(text);
}

std::string key_text(std::string_view text) {
  std::string out;
  append_key_text(out, text);
  return out;
}

}  // namespace duplex
