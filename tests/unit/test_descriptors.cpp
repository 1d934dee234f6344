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

TEST_CASE("descriptors: the return type follows the parameters, not the first ')'",
          "[descriptors]") {
  CHECK(return_type("(I[Lx/Y;)J") == "J");
  CHECK(return_type("()[Lx/Y;") == "[Lx/Y;");
  // Class names may hold ')' (JVMS 4.2.2), in the parameters and in the return type.
  CHECK(return_type("(JLp/Odd)V;)Lp/Odd)V;") == "Lp/Odd)V;");
  CHECK(return_type("(Lp/Odd)J;)V") == "V");
  CHECK(method_descriptor_types("(Lp/Odd)J;I)Lp/A)B;").second == "Lp/A)B;");
  // Malformed: no ')' after the parameters, or nothing after it.
  CHECK(return_type("(I").empty());
  CHECK(return_type("(I)").empty());
  CHECK(return_type("(Lp/Odd)J").empty());
  CHECK(return_type("").empty());
}

TEST_CASE("descriptors: parameter types read one at a time", "[descriptors]") {
  auto read_all = [](std::string_view desc, size_t& stopped_at) {
    std::vector<std::string_view> types;
    ParameterReader reader(desc);
    for (std::string_view type; reader.next(type);) types.push_back(type);
    stopped_at = reader.position();
    return types;
  };
  size_t at = 0;
  CHECK(read_all("(I[Lx/Y;J[[D)V", at) == std::vector<std::string_view>{"I", "[Lx/Y;", "J", "[[D"});
  CHECK(at == 12);  // the ')'
  CHECK(read_all("()V", at).empty());
  CHECK(at == 1);
  // Cut short inside a class name or after an array's brackets: what was whole, then nothing.
  CHECK(read_all("(ILx/Y", at) == std::vector<std::string_view>{"I"});
  CHECK(at == 6);
  CHECK(read_all("(J[[", at) == std::vector<std::string_view>{"J"});
  CHECK(read_all("", at).empty());
  // The same types as method_descriptor_types gives, for descriptors of every shape.
  for (std::string_view desc : {"(Ljava/lang/String;IZ)Ljava/lang/Object;",
                                "([B[[Ljava/lang/Object;)V", "(DFJSCB)I", "(I", "(L;)V"}) {
    CHECK(read_all(desc, at) == method_descriptor_types(desc).first);
  }
}

// Names may hold ':', '(' and ')' (JVMS 4.2.2): where a name ends is where a whole descriptor
// follows, not the first separator.
TEST_CASE("descriptors: whole method descriptors, and where a name ends", "[descriptors]") {
  CHECK(is_method_descriptor("()V"));
  CHECK(is_method_descriptor("(I[JLOdd)V;)Ljava/lang/String;"));
  CHECK_FALSE(is_method_descriptor("(I)"));
  CHECK_FALSE(is_method_descriptor("(I)VV"));
  CHECK_FALSE(is_method_descriptor("(name)V"));
  CHECK_FALSE(is_method_descriptor("I"));

  CHECK(descriptor_colon("count:I", 0, false) == 5);
  CHECK(descriptor_colon("co:unt:I", 0, false) == 6);
  CHECK(descriptor_colon("co:unt:Lp/A:B;", 0, false) == 6);
  CHECK(descriptor_colon("run:()V", 0, false) == std::string_view::npos);
  CHECK(descriptor_colon("r:un:()V", 0, true) == 4);
  CHECK(descriptor_colon("p/C.f:x:J", 4, false) == 7);
  CHECK(descriptor_colon("nothing", 0, true) == std::string_view::npos);

  CHECK(method_descriptor_start("m(I)V") == 1);
  CHECK(method_descriptor_start("weird (name)(I)V") == 12);
  CHECK(method_descriptor_start("p.C.odd)V(name()J") == 14);
  CHECK(method_descriptor_start("no descriptor") == std::string_view::npos);
}
