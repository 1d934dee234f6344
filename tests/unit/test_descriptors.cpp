// Descriptors read as text (classfile/descriptors.h), malformed ones included.
#include <catch2/catch.hpp>

#include "classfile/descriptors.h"

using namespace duplex;

TEST_CASE("descriptors: the class a type names, and a method's types", "[descriptors]") {
  CHECK(named_class("Lx/Y;") == "x/Y");
  CHECK(named_class("[[Lx/Y;") == "x/Y");
  CHECK(named_class("[I").empty());
  CHECK(named_class("I").empty());
  CHECK(named_class("L;").empty());
  CHECK(named_class("[").empty());
  CHECK(element_class("x/Y") == "x/Y");
  CHECK(element_class("[[Lx/Y;") == "x/Y");
  CHECK(element_class("[J").empty());
  auto [params, result] = method_descriptor_types("(I[Lx/Y;J[[D)Lz/W;");
  CHECK(params == std::vector<std::string_view>{"I", "[Lx/Y;", "J", "[[D"});
  CHECK(result == "Lz/W;");
  // Cut short: what could be read, no read past the end.
  auto [cut, cut_result] = method_descriptor_types("(ILx/Y");
  CHECK(cut == std::vector<std::string_view>{"I"});
  CHECK(cut_result == "V");
}
