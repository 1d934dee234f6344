// Lazy twins (rewriter/twin_nest.h): which twins leave their class for the nestmate class
// HOST$DuplexTwins, what the host and the twin class then hold, and which classes and twins
// keep them. Classes compiled here with javac; HotSpot runs them in
// tests/rewriter/rewrite_fixtures.sh (modes with --lazy-twins).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "classfile/class_file.h"
#include "classfile/class_index.h"
#include "rewriter/caller_sensitive.h"
#include "rewriter/rewriter.h"
#include "test_support.h"

using namespace duplex;
namespace fs = std::filesystem;

namespace {

// Loops with field accesses and calls, so that every method below gets a twin. `Sub` calls its
// superclass's method through `super` (a bridge runs the call) and reads its superclass's
// protected field through `super` (the twin stays); `Iface` is an interface.
// HotSpot verifies and runs bridges in tests/rewriter/rewrite_fixtures.sh and tests/cli.
const char* kSources[][2] = {
    {"p/Host.java",
     "package p;\n"
     "public class Host {\n"
     "  int total;\n"
     "  static int calls;\n"
     "  private int twice(int v) { calls++; return 2 * v; }\n"
     "  public int sum(int n) { for (int i = 0; i < n; i++) total += twice(i); return total; }\n"
     "  public static int count(int[] a) { int c = 0; for (int x : a) c += x > 0 ? 1 : 0; "
     "calls += c; return c; }\n"
     "}\n"},
    {"p/Sub.java",
     "package p;\n"
     "public class Sub extends java.util.ArrayList<String> {\n"
     "  int seen;\n"
     "  public int sizes(int n) { for (int i = 0; i < n; i++) seen += super.size(); return seen; "
     "}\n"
     "  public int mods(int n) { for (int i = 0; i < n; i++) seen += super.modCount; return seen; "
     "}\n"
     "}\n"},
    {"p/Named.java",
     "package p;\n"
     "public class Named {\n"
     "  int total;\n"
     "  static java.util.concurrent.atomic.AtomicLongArray duplex$countsInit() { return null; }\n"
     "  public int sum(int n) { for (int i = 0; i < n; i++) total += i; return total; }\n"
     "}\n"},
    // The two shapes only a class index tells apart: Grandparent's protected members, reached
    // by Prot (another package) with Grandparent named as owner, and through a receiver of its
    // subclass Child (tests/java/fixtures/release17/Protected.java runs them in HotSpot).
    {"q/Grandparent.java",
     "package q;\n"
     "public class Grandparent {\n"
     "  protected static int counter;\n"
     "  protected int field;\n"
     "  protected static int helper(int x) { return x + 1; }\n"
     "}\n"},
    {"q/Parent.java", "package q;\npublic class Parent extends Grandparent {}\n"},
    {"p/Prot.java",
     "package p;\n"
     "public class Prot extends q.Parent {\n"
     "  static final class Child extends Prot {}\n"
     "  static int viaGrandparent(int n) { int s = 0; for (int i = 0; i < n; i++) s += "
     "q.Grandparent.helper(i); return s; }\n"
     "  static int viaSubclass(Child c, int n) { int s = 0; for (int i = 0; i < n; i++) s += "
     "c.field; return s; }\n"
     "  int own(int n) { int s = 0; for (int i = 0; i < n; i++) s += field + i; return s; }\n"
     "}\n"},
    // Private members, which a twin class outside a nest reaches through bridges (touch), but
    // for a private constructor, a lambda's body (a method handle in a bootstrap argument) and
    // private fields in a loop (walk), where bridges would slow the interpreted twin down.
    {"p/Priv.java",
     "package p;\n"
     "public class Priv {\n"
     "  private int hidden;\n"
     "  private static int shared;\n"
     "  private Priv() {}\n"
     "  public static Priv make() { return new Priv(); }\n"
     "  private static int step(int v) { return v + 1; }\n"
     "  public int touch(int k) { hidden += k; shared++; return hidden + step(k); }\n"
     "  public int walk(int n) { for (int i = 0; i < n; i++) { hidden += i; shared++; } return "
     "hidden; }\n"
     "  public static int build(int n) { int s = 0; for (int i = 0; i < n; i++) s += new "
     "Priv().hidden; return s; }\n"
     "  public static int lambdas(int n) { int s = 0; for (int i = 0; i < n; i++) { "
     "java.util.function.IntUnaryOperator f = x -> x + 1; s += f.applyAsInt(i); } return s; }\n"
     "}\n"},
    {"p/Iface.java",
     "package p;\n"
     "public interface Iface {\n"
     "  int get();\n"
     "  default int many(int n) { int s = 0; for (int i = 0; i < n; i++) s += get(); return s; }\n"
     "}\n"},
};

using Classes = std::map<std::string, std::vector<uint8_t>>;

// The classes compiled with `javac --release release`, by internal name.
Classes compile(int release) {
  test::TempDir dir;
  std::string files;
  for (const auto& [path, text] : kSources) {
    fs::path src = dir.path() / "src" / path;
    fs::create_directories(src.parent_path());
    std::ofstream(src) << text;
    files += " '" + src.string() + "'";
  }
  std::string out = (dir.path() / "classes").string();
  std::string cmd =
      "javac -g --release " + std::to_string(release) + " -d '" + out + "'" + files + " 2>&1";
  Classes classes;
  if (std::system(cmd.c_str()) != 0) return classes;
  for (const char* name :
       {"p/Host", "p/Sub", "p/Named", "p/Iface", "p/Prot", "p/Priv", "q/Grandparent", "q/Parent"})
    classes[name] = test::read_file(fs::path(out) / (std::string(name) + ".class"));
  return classes;
}

// compile(release), once per test run: javac takes a second or more.
const Classes& compiled(int release) {
  static std::map<int, Classes> cache;
  auto hit = cache.find(release);
  if (hit == cache.end()) hit = cache.emplace(release, compile(release)).first;
  return hit->second;
}

RewriteOptions options(bool lazy) {
  RewriteOptions o;
  o.mode = Mode::kFull;
  o.lazy_twins = lazy;
  o.flag_check_max_bytes = 0;  // every method counts, so every method with a loop has a twin
  for (const char* p : {"call-edge", "field-access"})
    o.instrumentations.push_back(make_builtin_instrumentation(p));
  return o;
}

ClassFile parsed(const std::vector<uint8_t>& bytes) {
  auto cf = ClassFile::parse(bytes);
  REQUIRE(cf.ok());
  return std::move(cf.value());
}

// The class `name` of the --release 17 fixtures, rewritten with `o`.
ClassRewrite rewritten(const std::string& name, const RewriteOptions& o) {
  const Classes& classes = compiled(17);
  REQUIRE(classes.count(name));
  auto r = rewrite_class(classes.at(name), o);
  REQUIRE(r.ok());
  return std::move(r.value());
}

// The build-time fixture class `name` (tests/java/fixtures), rewritten with `o`.
ClassRewrite rewritten_fixture(const std::string& name, const RewriteOptions& o) {
  auto bytes = test::fixture_class(name);
  REQUIRE_FALSE(bytes.empty());
  auto r = rewrite_class(bytes, o);
  REQUIRE(r.ok());
  return std::move(r.value());
}

// How many twins stayed in their class, for whatever reason.
size_t twins_kept(const ClassRewrite& r) {
  size_t kept = 0;
  for (const auto& [why, n] : r.twins_kept) kept += n;
  return kept;
}

// name+descriptor -> the Code attribute's bytes, for every method with code.
std::map<std::string, std::vector<uint8_t>> codes(const ClassFile& cf) {
  std::map<std::string, std::vector<uint8_t>> out;
  for (const Member& m : cf.methods) {
    if (const Attribute* code = cf.find_attribute(m.attributes, "Code")) {
      out[std::string(cf.member_name(m)) + std::string(cf.member_descriptor(m))] =
          std::vector<uint8_t>(code->data.begin(), code->data.end());
    }
  }
  return out;
}

bool is_twin(const std::string& method) {
  return method.find("$duplex(") != std::string::npos;
}

// A twin's name and descriptor in its twin class: the cold parameter, the last, is of a class
// that never exists there, and an Object in the host (rewriter/outline_layout.h).
std::string in_twin_class(const std::string& method) {
  constexpr std::string_view cold = "Ljava/lang/Object;)";
  size_t at = method.rfind(cold);
  REQUIRE(at != std::string::npos);
  return method.substr(0, at) + "Lduplex/runtime/NotInlined;)" + method.substr(at + cold.size());
}

bool has_note(const ClassRewrite& r, std::string_view text) {
  for (const std::string& n : r.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("lazy twins: the twins move to a nestmate class; the host's code stays the same",
          "[rewriter][lazy-twins]") {
  for (int release : {8, 17}) {
    const Classes& classes = compiled(release);
    REQUIRE(classes.count("p/Host"));
    INFO("--release " << release);
    auto eager = rewrite_class(classes.at("p/Host"), options(false));
    auto lazy = rewrite_class(classes.at("p/Host"), options(true));
    REQUIRE(eager.ok());
    REQUIRE(lazy.ok());
    CHECK(eager->twin_class.empty());
    REQUIRE_FALSE(lazy->twin_class.empty());
    CHECK(lazy->twin_class_name == "p/Host$DuplexTwins");

    ClassFile eager_host = parsed(eager->bytes);
    ClassFile host = parsed(lazy->bytes);
    ClassFile twins = parsed(lazy->twin_class);
    CHECK(host.major_version == (release == 8 ? 55 : eager_host.major_version));
    CHECK(twins.major_version == host.major_version);
    CHECK(twins.name() == "p/Host$DuplexTwins");
    CHECK(twins.pool.class_name(twins.super_class) == "java/lang/Object");
    CHECK(is_rewritten(twins));  // never rewritten again
    // The twin class's pool is the host's, indices and all, with what the twins do not use
    // (the host's own methods' names, say) emptied.
    CHECK(twins.pool.count() >= eager_host.pool.count());
    size_t emptied = 0;
    for (uint32_t i = 1; i < twins.pool.count(); ++i) emptied += twins.pool.utf8(i) == "";
    CHECK(emptied > 0);
    CHECK(twins.pool.utf8(host.methods[0].name_index) == "");  // <init>

    // Every twin left. Every method of the host kept its code byte for byte (the references
    // to the twins are re-pointed in the pool, not in the code), and the twins kept theirs but
    // for the calls only the host may make, which call a bridge in the host instead: twice's
    // twin re-calls twice (the method itself, not an override: invokespecial), and before
    // nestmates (Java 11) javac calls a private method with invokespecial too (sum's call of
    // twice). A bridge is `invokestatic` in place of the three-byte instruction.
    auto before = codes(eager_host);
    auto host_codes = codes(host);
    auto twin_codes = codes(twins);
    size_t moved = 0;
    size_t bridged = 0;
    for (const auto& [method, code] : before) {
      INFO(method);
      if (method.starts_with("duplex$countsInit(")) {
        // The counters' first use, which holds their table, goes with the twins, unchanged.
        CHECK(host_codes.count(method) == 0);
        REQUIRE(twin_codes.count(method) == 1);
        CHECK(twin_codes[method] == code);
        continue;
      }
      if (!is_twin(method)) {
        REQUIRE(host_codes.count(method) == 1);
        CHECK(host_codes[method] == code);
        continue;
      }
      CHECK(host_codes.count(method) == 0);
      REQUIRE(twin_codes.count(in_twin_class(method)) == 1);
      const std::vector<uint8_t>& now = twin_codes[in_twin_class(method)];
      REQUIRE(now.size() == code.size());
      for (size_t i = 0; i < code.size(); ++i) {
        if (now[i] == code[i]) continue;
        // A bridged instruction: invokespecial (or another member instruction) became
        // invokestatic of a duplex$bridge$ method of the host.
        REQUIRE(i + 2 < code.size());
        CHECK(now[i] == 0xb8);
        auto ref = twins.pool.member_ref((now[i + 1] << 8) | now[i + 2]);
        REQUIRE(ref.has_value());
        CHECK(ref->owner == "p/Host");
        CHECK(ref->name.starts_with("duplex$bridge$"));
        ++bridged;
        i += 2;
      }
      ++moved;
    }
    CHECK(moved == 3);
    CHECK(twin_codes.size() == moved + 1);     // and duplex$countsInit
    CHECK(bridged == (release == 8 ? 3 : 1));  // sum's twin calls twice twice (two copies)
    size_t bridges = 0;
    for (const auto& [method, code] : host_codes) bridges += method.starts_with("duplex$bridge$");
    CHECK(bridges == 1);  // one per instruction and member: `invokespecial Host.twice(I)I`
    CHECK(lazy->twins_moved == 3);
    CHECK(lazy->twins_kept.empty());

    // The nest: NestMembers in the host names the twin class, NestHost in it names the host.
    const Attribute* members = host.find_attribute(host.attributes, "NestMembers");
    REQUIRE(members != nullptr);
    REQUIRE(members->data.size() == 4);
    CHECK(host.pool.class_name((members->data[2] << 8) | members->data[3]) == "p/Host$DuplexTwins");
    const Attribute* nest_host = twins.find_attribute(twins.attributes, "NestHost");
    REQUIRE(nest_host != nullptr);
    REQUIRE(nest_host->data.size() == 2);
    CHECK(twins.pool.class_name((nest_host->data[0] << 8) | nest_host->data[1]) == "p/Host");

    // The host calls its twins in the twin class, and names no twin of its own any more.
    size_t to_twin_class = 0;
    for (uint32_t i = 1; i < host.pool.count(); ++i) {
      if (host.pool.tag(i) != CpTag::kMethodref) continue;
      auto ref = host.pool.member_ref(i);
      REQUIRE(ref.has_value());
      if (!ref->name.ends_with("$duplex")) continue;
      CHECK(ref->owner == "p/Host$DuplexTwins");
      CHECK(ref->descriptor.ends_with("ILduplex/runtime/NotInlined;)I"));  // as declared there
      ++to_twin_class;
    }
    CHECK(to_twin_class == moved);
    // Only the twin class declares methods naming the class that never exists: reflection over
    // a class resolves what its methods name.
    for (const Member& m : host.methods)
      CHECK(host.member_descriptor(m).find("NotInlined") == std::string_view::npos);
    for (const Member& m : twins.methods) {
      if (is_twin(std::string(twins.member_name(m)) + "(")) {
        CHECK(twins.member_descriptor(m).ends_with("ILduplex/runtime/NotInlined;)I"));
      }
    }

    // What the rewriter added to the pool for the moved code only (the counters' table, the
    // events' references) is emptied in the host, at the same indices; what the class was
    // compiled with stays as it was, used or not.
    ClassFile original = parsed(classes.at("p/Host"));
    auto has_text = [](const ClassFile& cf, std::string_view text) {
      for (uint32_t i = 1; i < cf.pool.count(); ++i)
        if (auto u = cf.pool.utf8(i); u && u->find(text) != std::string_view::npos) return true;
      return false;
    };
    CHECK(has_text(eager_host, "duplex-counters"));
    CHECK_FALSE(has_text(host, "duplex-counters"));
    CHECK(has_text(twins, "duplex-counters"));
    for (uint32_t i = 1; i < original.pool.count(); ++i) {
      INFO("entry #" << i);
      CHECK(host.pool.tag(i) == original.pool.tag(i));
      CHECK(host.pool.utf8(i) == original.pool.utf8(i));
    }
    CHECK(lazy->bytes.size() < eager->bytes.size());
  }
}

TEST_CASE("lazy twins: a super call goes through a bridge; a protected field stays",
          "[rewriter][lazy-twins]") {
  auto sub = rewritten("p/Sub", options(true));
  INFO(sub.notes.size());
  // sizes: `invokespecial java/util/ArrayList.size` runs in a bridge of Sub (taking a Sub: the
  // verifier requires the receiver of a super call to be the class's type). mods: `getfield
  // java/util/ArrayList.modCount` (protected, another package) may take a receiver of type
  // ArrayList, which no bridge of Sub could take: its twin stays.
  CHECK(sub.twins_moved == 1);
  CHECK(has_note(sub, "mods$duplex"));
  CHECK(has_note(sub, "a member of its superclass in another package"));
  ClassFile host = parsed(sub.bytes);
  ClassFile twins = parsed(sub.twin_class);
  auto host_codes = codes(host);
  auto twin_codes = codes(twins);
  CHECK(twin_codes.count("sizes$duplex(Ljava/lang/Object;IIILduplex/runtime/NotInlined;)I") == 1);
  CHECK(host_codes.count("mods$duplex(Ljava/lang/Object;IIILjava/lang/Object;)I") == 1);
  CHECK(host_codes.count("duplex$bridge$0(Ljava/lang/Object;)I") == 1);

  auto iface = rewritten("p/Iface", options(true));
  CHECK(iface.twin_class.empty());
  // Interfaces are not outlined at all today; if they ever are, they keep their twins.
  for (const std::string& n : iface.notes) CHECK(n.find("lazy twins:") == std::string::npos);
}

TEST_CASE("lazy twins: a bridge names no class the host's signatures do not",
          "[rewriter][lazy-twins]") {
  // fixtures.Unshown passes fixtures.base.Token to inherited protected members and gets one
  // back from one, without naming Token in its own methods' signatures (a constructor does).
  // getDeclaredMethods() resolves every class a declared method names, so a bridge naming Token
  // would throw NoClassDefFoundError where the original worked, in a program run without Token's
  // library. (tests/rewriter/rewrite_fixtures.sh runs it: it prints the classes its signatures
  // name.)
  auto r = rewritten_fixture("fixtures/Unshown", options(true));
  // weighAll: bridges for `last = t` and `super.weigh(t)` take the Token as an Object.
  // makeAll: `super.make(i)` would need a bridge returning a Token, for which no cast fits
  // after the call in the twin: its twin stays.
  CHECK(has_note(r, "makeAll$duplex"));
  CHECK(has_note(r, "a bridge returning fixtures/base/Token"));
  ClassFile host = parsed(r.bytes);
  ClassFile twins = parsed(r.twin_class);
  CHECK(codes(twins).count("weighAll$duplex(Ljava/lang/Object;IIIILduplex/runtime/NotInlined;)I") ==
        1);
  CHECK(codes(host).count("makeAll$duplex(Ljava/lang/Object;IIIILjava/lang/Object;)I") == 1);
  size_t bridges = 0;
  for (const Member& m : host.methods) {
    std::string_view name = host.member_name(m);
    std::string_view desc = host.member_descriptor(m);
    INFO(name << desc);
    // The fixture's constructor takes a Token; getDeclaredMethods() does not list constructors.
    if (name == "<init>") continue;
    CHECK(desc.find("fixtures/base/Token") == std::string_view::npos);
    if (name.starts_with("duplex$bridge$")) ++bridges;
  }
  CHECK(bridges == 2);
}

TEST_CASE("lazy twins: off, and in the inline layout, nothing moves", "[rewriter][lazy-twins]") {
  RewriteOptions inline_layout = options(true);
  inline_layout.outline = false;
  auto r = rewritten("p/Host", inline_layout);
  CHECK(r.changed);
  CHECK(r.twin_class.empty());
  CHECK(r.twin_class_name.empty());
}

TEST_CASE("lazy twins: a caller's veto keeps every twin, as without lazy twins",
          "[rewriter][lazy-twins]") {
  std::string asked;
  RewriteOptions vetoed = options(true);
  vetoed.twin_class_veto = [&](std::string_view class_name) -> std::optional<std::string> {
    asked = std::string(class_name);
    return "the twin class has nowhere to go";
  };
  auto r = rewritten("p/Host", vetoed);
  CHECK(asked == "p/Host");
  CHECK(r.twin_class.empty());
  CHECK(r.twins_moved == 0);
  CHECK(r.twins_kept.at("the twin class has nowhere to go") == 3);  // twice, sum, count
  CHECK(has_note(r, "lazy twins: the twin class has nowhere to go"));
  // Byte for byte the class the rewriter writes without lazy twins.
  CHECK(r.bytes == rewritten("p/Host", options(false)).bytes);

  // A veto that finds nothing wrong changes nothing.
  RewriteOptions allowed = options(true);
  allowed.twin_class_veto = [](std::string_view) { return std::optional<std::string>(); };
  CHECK(rewritten("p/Host", allowed).bytes == rewritten("p/Host", options(true)).bytes);
}

TEST_CASE("lazy twins: a method of the class's own named like the counters' first use stays",
          "[rewriter][lazy-twins]") {
  auto r = rewritten("p/Named", options(true));
  REQUIRE_FALSE(r.twin_class.empty());  // sum's twin moved
  auto host_codes = codes(parsed(r.bytes));
  auto twin_codes = codes(parsed(r.twin_class));
  const std::string own = "duplex$countsInit()Ljava/util/concurrent/atomic/AtomicLongArray;";
  CHECK(host_codes.count(own) == 1);
  CHECK(twin_codes.count(own) == 0);
  CHECK(r.twins_moved == 1);
}

// The names of the host's bridges that take `parameter` first ("" : any), and how many.
size_t bridges_taking(const ClassFile& host, std::string_view parameters) {
  size_t n = 0;
  for (const Member& m : host.methods) {
    if (host.member_name(m).starts_with("duplex$bridge$") &&
        host.member_descriptor(m).starts_with(parameters))
      ++n;
  }
  return n;
}

TEST_CASE("lazy twins: a class index finds the protected members no single class shows",
          "[rewriter][lazy-twins]") {
  const Classes& classes = compiled(17);
  ClassIndex index;
  for (const char* name : {"p/Prot", "q/Grandparent", "q/Parent"})
    REQUIRE(index.add(classes.at(name)));

  // Without an index, Prot's twins run Grandparent.helper and Child's field in the twin class,
  // which may reach neither (IllegalAccessError at the first sample): the hole the index closes.
  auto blind = rewritten("p/Prot", options(true));
  CHECK(blind.twins_moved == 3);
  ClassFile blind_host = parsed(blind.bytes);
  CHECK(bridges_taking(blind_host, "(I)I") == 0);
  CHECK(bridges_taking(blind_host, "(Lp/Prot$Child;)I") == 0);
  // own's inherited field, as always (the host's own type is declared as an Object)
  CHECK(bridges_taking(blind_host, "(Ljava/lang/Object;)I") == 1);

  // With one: a static bridge for the call, a bridge taking a Child for the field, and own's
  // `this.field` (named with Prot as owner) through a bridge taking a Prot.
  RewriteOptions o = options(true);
  o.class_index = &index;
  auto exact = rewritten("p/Prot", o);
  CHECK(exact.twins_moved == 3);
  ClassFile host = parsed(exact.bytes);
  CHECK(bridges_taking(host, "(I)I") == 1);
  CHECK(bridges_taking(host, "(Lp/Prot$Child;)I") == 1);
  CHECK(bridges_taking(host, "(Ljava/lang/Object;)I") == 1);  // a Prot, declared as an Object
  CHECK(bridges_taking(host, "(Lp/Prot;") == 0);              // no added method takes its class
  CHECK(bridges_taking(host, "") == 3);

  // A class whose superclasses the index does not all hold keeps its twins.
  ClassIndex partial;
  REQUIRE(partial.add(classes.at("p/Prot")));
  REQUIRE(partial.add(classes.at("q/Parent")));
  o.class_index = &partial;
  auto unknown = rewritten("p/Prot", o);
  CHECK(unknown.twin_class.empty());
  CHECK(unknown.twins_moved == 0);
  CHECK(has_note(unknown, "not all in the class index: q/Grandparent"));
}

// `bytes` with every occurrence of `from` replaced by `to`, of the same length (so a Utf8
// entry's length and every offset stay as they were).
std::vector<uint8_t> renamed(std::vector<uint8_t> bytes, std::string_view from,
                             std::string_view to) {
  REQUIRE(from.size() == to.size());
  size_t replaced = 0;
  for (size_t at = 0; at + from.size() <= bytes.size(); ++at) {
    if (std::equal(from.begin(), from.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at))) {
      std::copy(to.begin(), to.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at));
      ++replaced;
    }
  }
  REQUIRE(replaced > 0);
  return bytes;
}

TEST_CASE("lazy twins: a protected member whose name holds ':' is found by its whole name",
          "[rewriter][lazy-twins]") {
  // JVM names may hold ':' (JVMS 4.2.2), and the index writes members as `name:descriptor`:
  // Grandparent's protected `field` renamed `fi:ld` (the same length, so only the Utf8 entries
  // change) must still be seen as protected where Prot reads it through a Child, or that twin
  // would leave Prot for a twin class that may not reach the field.
  const Classes& classes = compiled(17);
  ClassIndex index;
  std::vector<uint8_t> grandparent = renamed(classes.at("q/Grandparent"), "field", "fi:ld");
  std::vector<uint8_t> prot = renamed(classes.at("p/Prot"), "field", "fi:ld");
  REQUIRE(index.add(grandparent));
  REQUIRE(index.add(classes.at("q/Parent")));
  REQUIRE(index.add(prot));
  CHECK(index.find("q/Grandparent")->protected_members.count("fi:ld:I") == 1);

  RewriteOptions o = options(true);
  o.class_index = &index;
  auto r = rewrite_class(prot, o);
  REQUIRE(r.ok());
  CHECK(r->twins_moved == 3);
  ClassFile host = parsed(r->bytes);
  CHECK(bridges_taking(host, "(Lp/Prot$Child;)I") == 1);      // c.fi:ld through a bridge
  CHECK(bridges_taking(host, "(Ljava/lang/Object;)I") == 1);  // own's this.fi:ld
}

TEST_CASE("class index: a class's superclass and its protected members, nothing else",
          "[rewriter][lazy-twins]") {
  const Classes& classes = compiled(17);
  ClassIndex index;
  REQUIRE(index.add(classes.at("q/Grandparent")));
  const IndexedClass* g = index.find("q/Grandparent");
  REQUIRE(g != nullptr);
  CHECK(g->super_name == "java/lang/Object");
  // Not its public constructor.
  CHECK(g->protected_members ==
        std::unordered_set<std::string>{"counter:I", "field:I", "helper:(I)I"});
  // Merged from another index (another thread's share of a jar): the same class twice is one.
  ClassIndex other;
  REQUIRE(other.add(classes.at("q/Grandparent")));
  REQUIRE(other.add(classes.at("q/Parent")));
  index.merge(std::move(other));
  CHECK(index.size() == 2);
  CHECK(index.find("q/Parent")->protected_members.empty());
  CHECK(index.find("q/Grandparent")->protected_members.size() == 3);
  CHECK_FALSE(index.find("q/Grandparent")->conflicting);
  CHECK(index.ancestry_from("q/Parent").chain ==
        std::vector<std::string>{"q/Parent", "q/Grandparent", "java/lang/Object"});
}

TEST_CASE("lazy twins: with a class index, public inherited members need no bridge",
          "[rewriter][lazy-twins]") {
  // Sub extends java.util.ArrayList: with the JDK's classes, super.size() still needs its
  // bridge (invokespecial) and super.modCount (protected in AbstractList, named with the
  // superclass as owner) still keeps its twin.
  auto home = default_java_home();
  REQUIRE(home);
  auto jdk = JdkClasses::open(*home);
  REQUIRE(jdk.ok());
  ClassIndex index;
  REQUIRE(index.add(compiled(17).at("p/Sub")));
  CHECK(add_jdk_superclasses(index, *jdk) >= 3);  // ArrayList, AbstractList, AbstractCollection
  CHECK(index.ancestry_from("java/util/ArrayList").unknown.empty());
  RewriteOptions o = options(true);
  o.class_index = &index;
  auto sub = rewritten("p/Sub", o);
  CHECK(sub.twins_moved == 1);
  CHECK(has_note(sub, "mods$duplex"));
  CHECK(has_note(sub, "may be protected in a superclass of another package"));
  CHECK(bridges_taking(parsed(sub.bytes), "(Ljava/lang/Object;)I") == 1);
}

TEST_CASE("lazy twins: a class that sets a final field outside its initializer keeps its version",
          "[rewriter][lazy-twins]") {
  // ScalaModule (version 52, generated as scalac 2.11 compiles an `object`) sets its static
  // final MODULE$ in <init>: at version 53 and later HotSpot throws IllegalAccessError there.
  RewriteOptions raise = options(true);
  REQUIRE(raise.lazy_twins_raise_version);
  auto r = rewritten_fixture("fixtures/ScalaModule", raise);
  CHECK(has_note(r, "cannot be raised to 55: <init>()V has a write to a final field of its class"));
  CHECK(has_note(r, "it keeps its version"));
  CHECK(parsed(r.bytes).major_version == 52);
  // Its twins leave all the same, to a twin class outside any nest. initTotal's twin writes the
  // static final TOTAL, which only the class may: through a bridge.
  REQUIRE_FALSE(r.twin_class.empty());
  CHECK(parsed(r.twin_class).major_version == 52);
  ClassFile host = parsed(r.bytes);
  CHECK(host.find_attribute(host.attributes, "NestMembers") == nullptr);
  CHECK(r.twins_moved == 2);  // initTotal and main (sum has no events)
  CHECK(bridges_taking(host, "(I)V") == 1);
}

namespace {

// The access flags of `cf`'s member `name` (a field or a method), or -1.
int flags_of(const ClassFile& cf, std::string_view name) {
  for (const auto* members : {&cf.fields, &cf.methods}) {
    for (const Member& m : *members)
      if (cf.member_name(m) == name) return m.access_flags;
  }
  return -1;
}

}  // namespace

TEST_CASE("lazy twins without raising versions: an older class keeps its version, no nest",
          "[rewriter][lazy-twins]") {
  // duplex instrument's default: a class of version 50-54 keeps its version, and its twin class
  // is a plain class of its package, which reaches the class's private members through bridges.
  RewriteOptions no_raise = options(true);
  no_raise.lazy_twins_raise_version = false;
  auto eager = rewrite_class(compiled(8).at("p/Host"), options(false));
  auto moved = rewrite_class(compiled(8).at("p/Host"), no_raise);
  REQUIRE(eager.ok());
  REQUIRE(moved.ok());
  REQUIRE_FALSE(moved->twin_class.empty());
  CHECK(moved->twins_moved == 3);  // twice, sum and count
  CHECK(moved->twins_kept.empty());
  ClassFile host = parsed(moved->bytes);
  ClassFile twins = parsed(moved->twin_class);
  CHECK(host.major_version == 52);
  CHECK(twins.major_version == 52);
  CHECK(host.find_attribute(host.attributes, "NestMembers") == nullptr);
  CHECK(twins.find_attribute(twins.attributes, "NestHost") == nullptr);
  // The host's own methods keep their code; the twins, the bridges and the rewriter's private
  // static members are package-private (the host's stubs call the twins, the twins read the
  // counters); the class's own private method stays private.
  auto before = codes(parsed(eager->bytes));
  for (const auto& [method, code] : codes(host)) {
    if (method.starts_with("duplex$")) continue;
    INFO(method);
    REQUIRE(before.count(method) == 1);
    CHECK(before[method] == code);
  }
  for (const Member& m : twins.methods) CHECK((m.access_flags & access::kPrivate) == 0);
  CHECK(flags_of(host, "twice") == access::kPrivate);
  REQUIRE(flags_of(host, "duplex$counts") >= 0);
  CHECK((flags_of(host, "duplex$counts") & access::kPrivate) == 0);
  size_t bridges = 0;
  for (const Member& m : host.methods) {
    if (!host.member_name(m).starts_with("duplex$bridge$")) continue;
    ++bridges;
    CHECK((m.access_flags & access::kPrivate) == 0);
  }
  CHECK(bridges == 1);  // `invokespecial Host.twice(I)I`, as with a nest
}

TEST_CASE(
    "lazy twins without a nest: private members through bridges, but constructors and "
    "method handles",
    "[rewriter][lazy-twins]") {
  RewriteOptions no_raise = options(true);
  no_raise.lazy_twins_raise_version = false;
  auto old = rewrite_class(compiled(8).at("p/Priv"), no_raise);
  REQUIRE(old.ok());
  ClassFile host = parsed(old->bytes);
  CHECK(host.major_version == 52);
  // touch moves (step has no events, so no twin): a bridge for each of get/putfield hidden,
  // get/putstatic shared and the call of step.
  CHECK(old->twins_moved == 1);
  CHECK(bridges_taking(host, "(Ljava/lang/Object;)I") == 1);   // getfield hidden
  CHECK(bridges_taking(host, "(Ljava/lang/Object;I)V") == 1);  // putfield hidden
  CHECK(bridges_taking(host, "()I") == 1);                     // getstatic shared
  CHECK(bridges_taking(host, "(I)V") == 1);                    // putstatic shared
  CHECK(bridges_taking(host, "(I)I") == 1);                    // invokestatic step
  // walk's loop reads and writes them at every iteration: its twin stays.
  CHECK(has_note(*old, "walk$duplex"));
  CHECK(has_note(*old, "reached in a loop"));
  // make's and build's `new Priv()` call the private constructor, and lambdas' bootstrap
  // argument names its private lambda$ body: no bridge can stand in, so those twins stay.
  CHECK(has_note(*old, "make$duplex"));
  CHECK(has_note(*old, "build$duplex"));
  CHECK(has_note(*old, "lambdas$duplex"));
  CHECK(has_note(*old, "a bridge cannot stand in"));
  CHECK(twins_kept(*old) == 4);  // make, build, lambdas, walk
  CHECK(flags_of(host, "hidden") == access::kPrivate);
  CHECK(flags_of(host, "shared") == (access::kPrivate | access::kStatic));

  // As a nestmate (version 55 and later) the twin class reaches all of them itself.
  auto nest = rewrite_class(compiled(17).at("p/Priv"), no_raise);
  REQUIRE(nest.ok());
  CHECK(nest->twins_moved == 5);
  CHECK(nest->twins_kept.empty());
  // One bridge: touch's twin calls touch again (invokespecial) when no sample is due.
  CHECK(bridges_taking(parsed(nest->bytes), "(") == 1);
}

TEST_CASE("lazy twins: a twin that makes a reflective access checked against its caller stays",
          "[rewriter][lazy-twins]") {
  // ReflectiveAccess (version 52) reaches its own private members and a protected field of
  // java.util.AbstractList through Method.invoke, Field.getInt/setInt, Constructor.newInstance
  // and AtomicIntegerFieldUpdater.newUpdater. The JDK checks each against the calling class,
  // which a twin class is not (tests/rewriter/rewrite_fixtures.sh runs it at interval 1: moved,
  // every one threw IllegalAccessException).
  for (bool raise : {false, true}) {
    INFO("raised to a nest: " << raise);
    RewriteOptions o = options(true);
    o.lazy_twins_raise_version = raise;
    auto r = rewritten_fixture("fixtures/ReflectiveAccess", o);
    for (const char* why : {"java/lang/reflect/Method.invoke", "java/lang/reflect/Field.",
                            "java/lang/reflect/Constructor.newInstance",
                            "java/util/concurrent/atomic/AtomicIntegerFieldUpdater.newUpdater"}) {
      INFO(why);
      CHECK(has_note(r, std::string("a call of ") + why));
    }
    // viaMethod, viaFields, viaUpdater, viaConstructor; outside a nest main's too, which calls
    // the private constructor.
    CHECK(twins_kept(r) == (raise ? 4 : 5));
  }
}

TEST_CASE("caller-sensitive: which JDK calls would see a twin class as their caller",
          "[rewriter][lazy-twins]") {
  CHECK(sees_its_caller_class("java/lang/reflect/Field", "getLong", "(Ljava/lang/Object;)J"));
  CHECK(sees_its_caller_class("java/lang/reflect/Field", "set",
                              "(Ljava/lang/Object;Ljava/lang/Object;)V"));
  CHECK(sees_its_caller_class("java/lang/Class", "newInstance", "()Ljava/lang/Object;"));
  CHECK(sees_its_caller_class("java/lang/StackWalker", "getCallerClass", "()Ljava/lang/Class;"));
  CHECK(sees_its_caller_class("java/lang/invoke/MethodHandles", "lookup",
                              "()Ljava/lang/invoke/MethodHandles$Lookup;"));
  // Named with a subclass of the updater (the descriptor tells it).
  CHECK(sees_its_caller_class("p/MyUpdater", "newUpdater",
                              "(Ljava/lang/Class;Ljava/lang/String;)Ljava/util/concurrent/atomic/"
                              "AtomicLongFieldUpdater;"));
  // Field's other getters, and the caller-sensitive methods that look only at the caller's
  // loader or module, which a twin class shares.
  CHECK_FALSE(sees_its_caller_class("java/lang/reflect/Field", "getName", "()Ljava/lang/String;"));
  CHECK_FALSE(sees_its_caller_class("java/lang/reflect/Field", "getAnnotation",
                                    "(Ljava/lang/Class;)Ljava/lang/annotation/Annotation;"));
  CHECK_FALSE(sees_its_caller_class("java/lang/reflect/Field", "setAccessible", "(Z)V"));
  CHECK_FALSE(
      sees_its_caller_class("java/lang/Class", "forName", "(Ljava/lang/String;)Ljava/lang/Class;"));
  CHECK_FALSE(sees_its_caller_class("java/util/ServiceLoader", "load",
                                    "(Ljava/lang/Class;)Ljava/util/ServiceLoader;"));
  CHECK_FALSE(
      sees_its_caller_class("java/util/Map", "get", "(Ljava/lang/Object;)Ljava/lang/Object;"));
}

TEST_CASE("lazy twins: a call site whose bootstrap may look at its caller class stays",
          "[rewriter][lazy-twins]") {
  // SerialLambda (version 61) makes serializable lambdas in a loop: altMetafactory records the
  // calling class as their capturing class, and reading one back calls its $deserializeLambda$.
  auto r = rewritten_fixture("fixtures/SerialLambda", options(true));
  CHECK(has_note(r, "bootstrapped by java/lang/invoke/LambdaMetafactory.altMetafactory"));
  // The plain lambdas of p/Priv (LambdaMetafactory.metafactory) leave with their twin.
  auto lambdas = rewritten("p/Priv", options(true));
  CHECK_FALSE(has_note(lambdas, "bootstrapped by"));
  CHECK(lambdas.twins_kept.empty());
  CHECK(bootstrap_ignores_caller_class("java/lang/invoke/StringConcatFactory",
                                       "makeConcatWithConstants"));
  CHECK_FALSE(
      bootstrap_ignores_caller_class("org/codehaus/groovy/vmplugin/v7/IndyInterface", "bootstrap"));
}

TEST_CASE("a strictfp method's twin is strictfp, in the class or in its twin class",
          "[rewriter][lazy-twins]") {
  // Strict (version 52): harmonic and scaled are strictfp, lenient is not; each has a loop.
  for (bool lazy : {false, true}) {
    INFO("lazy twins: " << lazy);
    auto r = rewritten_fixture("fixtures/Strict", options(lazy));
    const ClassFile cf = parsed(lazy ? r.twin_class : r.bytes);
    std::map<std::string, uint16_t> twin_flags;
    for (const Member& m : cf.methods) {
      const std::string name(cf.member_name(m));
      if (name.ends_with("$duplex")) twin_flags[name] = m.access_flags;
    }
    REQUIRE(twin_flags.size() == 3);
    CHECK((twin_flags["harmonic$duplex"] & access::kStrict) != 0);
    CHECK((twin_flags["scaled$duplex"] & access::kStrict) != 0);
    CHECK((twin_flags["lenient$duplex"] & access::kStrict) == 0);
  }
}
