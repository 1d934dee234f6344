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
