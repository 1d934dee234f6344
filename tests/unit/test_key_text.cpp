// Names as keys write them (rewriter/key_text.h).
#include <catch2/catch.hpp>

#include "rewriter/key_text.h"

using namespace duplex;

TEST_CASE("key text: names escape what parts keys and table lines", "[key_text]") {
  CHECK(key_text("java/lang/String") == "java/lang/String");
  CHECK(key_text("should work as expected (edge case)") == "should work as expected (edge case)");
  CHECK(key_text("tab\there\nand a new line") == "tab\\there\\nand a new line");
  CHECK(key_text("a\\b\r") == "a\\\\b\\r");
  CHECK(key_text("\t\t") == "\\t\\t");
  CHECK(key_text("").empty());
  std::string out = "p/C.";
  append_key_text(out, "m\n");
  CHECK(out == "p/C.m\\n");
}

// The scan reads eight bytes at a time: every position in a block and past it, and bytes
// that look alike to a word-wide test (other control characters, bytes above 0x7f) but stay.
TEST_CASE("key text: escapes found at every position of a long name", "[key_text]") {
  const std::string plain = "org/h2/engine/SessionRemote$Something";
  for (size_t at = 0; at <= plain.size(); ++at) {
    for (char c : {'\t', '\n', '\r', '\\'}) {
      std::string name = plain.substr(0, at) + c + plain.substr(at);
      std::string escaped = c == '\t' ? "\\t" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\\\";
      CHECK(key_text(name) == plain.substr(0, at) + escaped + plain.substr(at));
    }
  }
  for (size_t length = 0; length <= 20; ++length) {  // words, the overlapping tail, short names
    const std::string name(length, 'x');
    CHECK(key_text(name) == name);
    for (size_t at = 0; at < length; ++at) {
      std::string with = name;
      with[at] = '\\';
      CHECK(key_text(with) == name.substr(0, at) + "\\\\" + name.substr(at + 1));
    }
  }
  const std::string odd = std::string("a\x01\x0b\x0c\x0e b\xc3\xa9\xff", 11) + "]^[" +
                          std::string(1, '\0') + "12345678";
  CHECK(key_text(odd) == odd);
  CHECK(key_text(odd + "\t" + odd + "\\") == odd + "\\t" + odd + "\\\\");
}
