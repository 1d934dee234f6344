#include "rewriter/key_text.h"

#include <cstdint>
#include <cstring>

namespace duplex {

namespace {

// '\\', tab, line feed and carriage return.
bool is_escaped(char c) {
  auto u = static_cast<unsigned char>(c);
  return u == '\\' || (u <= '\r' && (u == '\t' || u == '\n' || u == '\r'));
}

// Whether any of the eight bytes of `w` is below 14 or is '\\' (exact as a whole, though
// not byte by byte: "Bit Twiddling Hacks", hasless and haszero).
bool may_hold_escaped(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101u;
  constexpr uint64_t kHighs = 0x8080808080808080u;
  const uint64_t below = (w - kOnes * ('\r' + 1)) & ~w & kHighs;
  const uint64_t x = w ^ (kOnes * '\\');
  const uint64_t backslash = (x - kOnes) & ~x & kHighs;
  return (below | backslash) != 0;
}

// The first escaped character at or after `from` among the eight bytes at `at`, or npos.
size_t escaped_in_word(std::string_view text, size_t at, size_t from) {
  uint64_t w;
  std::memcpy(&w, text.data() + at, 8);
  if (!may_hold_escaped(w)) return std::string_view::npos;
  for (size_t j = from; j < at + 8; ++j) {
    if (is_escaped(text[j])) return j;
  }
  return std::string_view::npos;
}

// Eight bytes at a time, the last eight overlapping the word before them (no byte-by-byte
// tail): names are tens of bytes and almost never hold one, and keys escape several names per
// event site (find_first_of calls memchr once per character: a tenth of the rewriter's
// instructions on h2, measured with callgrind).
size_t first_escaped(std::string_view text) {
  const size_t n = text.size();
  if (n < 8) {
    for (size_t i = 0; i < n; ++i) {
      if (is_escaped(text[i])) return i;
    }
    return std::string_view::npos;
  }
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    if (size_t at = escaped_in_word(text, i, i); at != std::string_view::npos) return at;
  }
  return i == n ? std::string_view::npos : escaped_in_word(text, n - 8, i);
}

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
  size_t at = first_escaped(text);
  while (at != std::string_view::npos) {
    out.append(text.substr(0, at)).append(1, '\\').append(1, escape_letter(text[at]));
    text.remove_prefix(at + 1);
    at = first_escaped(text);
  }
  out.append(text);
}

std::string key_text(std::string_view text) {
  std::string out;
  append_key_text(out, text);
  return out;
}

}  // namespace duplex
