// Modified UTF-8 (JVMS 4.4.7) differs from UTF-8 in two ways: NUL is written as C0 80, and
// supplementary characters are written as two 3-byte surrogates. Pool entries keep the raw
// bytes; these conversions are for display and for building names from standard strings.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "classfile/constant_pool.h"

namespace duplex {
namespace {

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

constexpr uint32_t kReplacement = 0xFFFD;

// Decodes one 1-3 byte modified-UTF-8 unit at s[i]; advances i. Returns kReplacement on error.
uint32_t decode_unit(std::string_view s, size_t& i) {
  auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  uint8_t c = b(i);
  if (c < 0x80 && c != 0) {
    ++i;
    return c;
  }
  if ((c & 0xE0) == 0xC0 && i + 1 < s.size() && (b(i + 1) & 0xC0) == 0x80) {
    uint32_t cp = (c & 0x1Fu) << 6 | (b(i + 1) & 0x3Fu);
    i += 2;
    return cp;
  }
  if ((c & 0xF0) == 0xE0 && i + 2 < s.size() && (b(i + 1) & 0xC0) == 0x80 &&
      (b(i + 2) & 0xC0) == 0x80) {
    uint32_t cp = (c & 0x0Fu) << 12 | (b(i + 1) & 0x3Fu) << 6 | (b(i + 2) & 0x3Fu);
    i += 3;
    return cp;
  }
  ++i;
  return kReplacement;
}

}  // namespace

std::string modified_utf8_to_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    uint32_t cp = decode_unit(s, i);
    if (cp >= 0xD800 && cp <= 0xDBFF && i < s.size()) {
      size_t j = i;
      uint32_t low = decode_unit(s, j);
      if (low >= 0xDC00 && low <= 0xDFFF) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        i = j;
      }
    }
    if (cp >= 0xD800 && cp <= 0xDFFF) cp = kReplacement;  // lone surrogate
    append_utf8(out, cp);
  }
  return out;
}

std::string utf8_to_modified_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto put3 = [&](uint32_t u) {
    out += static_cast<char>(0xE0 | (u >> 12));
    out += static_cast<char>(0x80 | ((u >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (u & 0x3F));
  };
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<uint8_t>(s[i]);
    if (c == 0) {
      out += "\xC0\x80";
      ++i;
    } else if ((c & 0xF8) == 0xF0 && i + 3 < s.size()) {
      uint32_t cp = (c & 0x07u) << 18 | (static_cast<uint8_t>(s[i + 1]) & 0x3Fu) << 12 |
                    (static_cast<uint8_t>(s[i + 2]) & 0x3Fu) << 6 |
                    (static_cast<uint8_t>(s[i + 3]) & 0x3Fu);
      cp -= 0x10000;
      put3(0xD800 + (cp >> 10));
      put3(0xDC00 + (cp & 0x3FF));
      i += 4;
    } else {
      out += static_cast<char>(c);
      ++i;
    }
  }
  return out;
}

int compare_as_java_strings(std::string_view a, std::string_view b) {
  // Where the texts first differ in two ASCII bytes, or one ends, both are at the start of a
  // unit (the bytes before are the same), and the bytes decide: most names take this path.
  size_t common = std::min(a.size(), b.size());
  size_t at = 0;
  while (at < common && a[at] == b[at]) ++at;
  if (at == common) return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
  auto ua = static_cast<uint8_t>(a[at]), ub = static_cast<uint8_t>(b[at]);
  if (ua < 0x80 && ub < 0x80 && ua != 0 && ub != 0) return ua < ub ? -1 : 1;
  // Otherwise decode. Each UTF-16 code unit is encoded on its own (surrogates too), so comparing
  // unit by unit gives String.compareTo's order; a byte comparison would misplace NUL (C0 80).
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    uint32_t x = decode_unit(a, i), y = decode_unit(b, j);
    if (x != y) return x < y ? -1 : 1;
  }
  if (i < a.size()) return 1;
  return j < b.size() ? -1 : 0;
}

}  // namespace duplex
