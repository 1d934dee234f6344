// Small methods sampled through their callers (rewriter/sampled_calls.h): such a method keeps
// its code and gains a `$sampled` twin, the duplicated code's calls become invokedynamic sites
// bootstrapped by Duplex.sampledCall, and the class's BootstrapMethods table grows without
// disturbing the entries it had (classfile/bootstrap_table.h).
#include <catch2/catch.hpp>

#include <fstream>

#include "classfile/bootstrap_table.h"
#include "classfile/class_file.h"
#include "classfile/disassembler.h"
#include "rewriter/rewriter.h"
#include "rewriter/sampled_calls.h"
#include "test_support.h"

using namespace duplex;
namespace fs = std::filesystem;

namespace {

const std::vector<uint8_t>& caller_probe() {
  static std::vector<uint8_t> bytes = [] {
    static test::TempDir dir;
    fs::path src = dir.path() / "Calls.java";
    std::ofstream(src) << "public class Calls {\n"
                          "  int field;\n"
                          "  static int base;\n"
                          "  int getField() { return field; }\n"
                          "  static int twice(int x) { return x + x + base; }\n"
                          "  int sum(int n) {\n"
                          "    int s = 0;\n"
                          "    for (int i = 0; i < n; i++) s += twice(getField()) + "
                          "Integer.bitCount(i);\n"
                          "    return s;\n"
                          "  }\n"
                          "}\n";
    std::string cmd = "javac -g -d '" + dir.path().string() + "' '" + src.string() + "' 2>&1";
    if (std::system(cmd.c_str()) != 0) return std::vector<uint8_t>{};
    return test::read_file(dir.path() / "Calls.class");
  }();
  return bytes;
}

RewriteOptions callers_options(Mode mode) {
  RewriteOptions o;
  o.mode = mode;
  for (const char* p : {"call-edge", "field-access"})
    o.instrumentations.push_back(make_builtin_instrumentation(p));
  o.caller_sampled_max_bytes = 325;
  return o;
}

const MethodReport* report_of(const ClassRewrite& r, const std::string& name) {
  for (const MethodReport& m : r.methods) {
    if (m.method.substr(0, m.method.find('(')) == name) return &m;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("the sampled twin's signature widens narrow ints and leads with the receiver",
          "[sampled_calls]") {
  // The class's own type (the receiver's) is declared as Object; its arrays and other classes
  // are not.
  CHECK(sampled_twin_descriptor("p/C", "(ZBSCJ[I[[Ljava/lang/String;Lp/D;)V", false) ==
        "(Ljava/lang/Object;IIIIJ[I[[Ljava/lang/String;Lp/D;I)V");
  CHECK(sampled_twin_descriptor("p/C", "(Lp/C;[Lp/C;Lp/CC;)Lp/C;", false) ==
        "(Ljava/lang/Object;Ljava/lang/Object;[Lp/C;Lp/CC;I)Lp/C;");
  CHECK(sampled_twin_descriptor("p/C", "(I)J", true) == "(II)J");
  CHECK(sampled_twin_descriptor("p/C", "()[Z", true) == "(I)[Z");
  CHECK(sampled_twin_descriptor("p/C", "(Lp/D", true).empty());  // malformed: no twin
  // A class name may hold ')': the parameters end where the types do, not at its first ')'.
  CHECK(sampled_twin_descriptor("p/C)x", "(Lp/C)x;Lq)r;Z)Lp/C)x;", false) ==
        "(Ljava/lang/Object;Ljava/lang/Object;Lq)r;II)Lp/C)x;");
  CHECK(sampled_twin_descriptor("p/C", "(I", true).empty());   // no ')': no twin
  CHECK(sampled_twin_descriptor("p/C", "(I)", true).empty());  // no result type: no twin
}

TEST_CASE("a small method sampled through its callers keeps its code and gains a twin",
          "[sampled_calls]") {
  REQUIRE_FALSE(caller_probe().empty());
  auto r = rewrite_class(caller_probe(), callers_options(Mode::kFull));
  REQUIRE(r.ok());
  // getField and twice: byte for byte the original code, no check.
  for (const char* small : {"getField", "twice"}) {
    INFO(small);
    CHECK(test::method_listing(r->bytes, small) == test::method_listing(caller_probe(), small));
    const MethodReport* report = report_of(r.value(), small);
    REQUIRE(report);
    CHECK(report->checks == 0);
    CHECK(report->reason.find("sampled through its callers") != std::string::npos);
  }
  // Their twins hold the events.
  CHECK(test::method_listing(r->bytes, "getField$sampled")
            .find("getField$sampled(Ljava/lang/Object;I)I") != std::string::npos);
  CHECK(test::method_listing(r->bytes, "twice$sampled").find("twice$sampled(II)I") !=
        std::string::npos);
  // sum (a loop) counts; its checking code calls as before, its twin through invokedynamic,
  // except into the JDK.
  std::string checking = test::method_listing(r->bytes, "sum");
  CHECK(checking.find("invokedynamic") == std::string::npos);
  CHECK(checking.find("invokevirtual #") != std::string::npos);
  std::string twin = test::method_listing(r->bytes, "sum$duplex");
  CHECK(twin.find("invokedynamic") != std::string::npos);
  CHECK(twin.find(":getField(LCalls;)I") != std::string::npos);
  CHECK(twin.find(":twice(I)I") != std::string::npos);
  CHECK(twin.find("java/lang/Integer.bitCount(I)I") != std::string::npos);
  auto cf = ClassFile::parse(r->bytes);
  REQUIRE(cf.ok());
  std::string all = disassemble(cf.value());
  CHECK(all.find("Duplex.sampledCall(Ljava/lang/invoke/MethodHandles$Lookup;") !=
        std::string::npos);
}

TEST_CASE("checks-only leaves small methods sampled through callers alone", "[sampled_calls]") {
  RewriteOptions o = callers_options(Mode::kChecksOnly);
  o.instrumentations.clear();
  auto r = rewrite_class(caller_probe(), o);
  REQUIRE(r.ok());
  const MethodReport* getter = report_of(r.value(), "getField");
  REQUIRE(getter);
  CHECK(getter->applied == Transform::kUnchanged);
  CHECK(test::method_listing(r->bytes, "getField$sampled").rfind("<no method", 0) == 0);
}

TEST_CASE("before class version 51, small methods keep flag checks", "[sampled_calls]") {
  std::vector<uint8_t> old = caller_probe();
  REQUIRE(old.size() > 8);
  old[6] = 0;
  old[7] = 50;  // the probe uses nothing newer than Java 6
  auto r = rewrite_class(old, callers_options(Mode::kFull));
  REQUIRE(r.ok());
  CHECK(test::method_listing(r->bytes, "getField").find("Duplex.sampling:Ljava/lang/Thread;") !=
        std::string::npos);
  CHECK(test::method_listing(r->bytes, "getField$sampled").rfind("<no method", 0) == 0);
  auto cf = ClassFile::parse(r->bytes);
  REQUIRE(cf.ok());
  CHECK(disassemble(cf.value()).find("invokedynamic") == std::string::npos);
}

TEST_CASE("a bootstrap table grows without disturbing the entries it had", "[sampled_calls]") {
  const std::vector<uint8_t>& lambdas = test::fixture_class("fixtures/Lambdas");
  REQUIRE_FALSE(lambdas.empty());
  auto cf = ClassFile::parse(lambdas);
  REQUIRE(cf.ok());
  auto table = BootstrapTable::read(cf.value());
  REQUIRE(table.ok());
  const size_t before = table->size();
  REQUIRE(before > 0);
  const Attribute* attr = cf->find_attribute(cf->attributes, "BootstrapMethods");
  REQUIRE(attr);
  auto original = decode_bootstrap_methods(attr->data);
  REQUIRE(original.ok());
  // An identical entry is shared; a new one is appended.
  auto same = table->add(original->front());
  REQUIRE(same.ok());
  CHECK(*same == 0);
  BootstrapMethod extra{original->front().method_handle, {1, 2, 3}};
  auto added = table->add(extra);
  REQUIRE(added.ok());
  CHECK(*added == before);
  CHECK(table->add(extra).value() == before);
  REQUIRE(table->write(cf.value()).ok());
  auto bytes = cf->write();
  REQUIRE(bytes.ok());
  auto reparsed = ClassFile::parse(bytes.value());
  REQUIRE(reparsed.ok());
  auto after = BootstrapTable::read(reparsed.value());
  REQUIRE(after.ok());
  CHECK(after->size() == before + 1);
  const Attribute* written = reparsed->find_attribute(reparsed->attributes, "BootstrapMethods");
  REQUIRE(written);
  auto decoded = decode_bootstrap_methods(written->data);
  REQUIRE(decoded.ok());
  for (size_t i = 0; i < before; ++i) {
    CHECK(decoded->at(i).method_handle == original->at(i).method_handle);
    CHECK(decoded->at(i).arguments == original->at(i).arguments);
  }
  CHECK(decoded->back().arguments == extra.arguments);
}

TEST_CASE("a class without bootstrap methods gains the attribute only when one is added",
          "[sampled_calls]") {
  auto cf = ClassFile::parse(caller_probe());
  REQUIRE(cf.ok());
  auto table = BootstrapTable::read(cf.value());
  REQUIRE(table.ok());
  CHECK(table->size() == 0);
  REQUIRE(table->write(cf.value()).ok());
  CHECK(cf->find_attribute(cf->attributes, "BootstrapMethods") == nullptr);
  auto handle = cf->pool.add_method_handle(6, 1);
  REQUIRE(handle.ok());
  CHECK_FALSE(cf->pool.add_method_handle(0, 1).ok());  // no such kind
  REQUIRE(table->add(BootstrapMethod{*handle, {}}).ok());
  REQUIRE(table->write(cf.value()).ok());
  CHECK(cf->find_attribute(cf->attributes, "BootstrapMethods") != nullptr);
}

TEST_CASE("a class naming a bootstrap method it lacks is refused, not repaired",
          "[sampled_calls]") {
  // Growing the table would make the dangling index valid, and the JVM would then load a
  // class it refuses as it is.
  const std::vector<uint8_t>& lambdas = test::fixture_class("fixtures/Lambdas");
  auto cf = ClassFile::parse(lambdas);
  REQUIRE(cf.ok());
  auto table = BootstrapTable::read(cf.value());
  REQUIRE(table.ok());
  auto dangling = cf->pool.add_invoke_dynamic(static_cast<uint16_t>(table->size() + 3), "x", "()V");
  REQUIRE(dangling.ok());
  auto bytes = cf->write();
  REQUIRE(bytes.ok());
  auto reparsed = ClassFile::parse(bytes.value());
  REQUIRE(reparsed.ok());
  auto refused = BootstrapTable::read(reparsed.value());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message().find("names bootstrap method") != std::string::npos);
  auto rewrite = rewrite_class(bytes.value(), callers_options(Mode::kFull));
  REQUIRE_FALSE(rewrite.ok());
  CHECK(rewrite.error().message().find("names bootstrap method") != std::string::npos);
}
