// Profiles (lib/duplex/profile.h, report.h): reading and writing the runtime's XML, the
// overlap and hot-cover metrics on hand-made profiles with known answers, merging and its
// refusals, and one test per kind of malformed input.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "duplex/profile.h"
#include "duplex/report.h"

namespace fs = std::filesystem;
using duplex::CallEdge;
using duplex::EventCount;
using duplex::FieldAccess;
using duplex::KeyCount;
using duplex::Profile;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "duplex-profile-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename());
    std::sort(out.begin(), out.end());
    return out;
  }
};

// The example of docs/profile-format.md, in exactly the runtime's layout.
const char* const kExample = R"(<?xml version="1.0" encoding="UTF-8"?>
<duplex-profile version="1">
  <run mode="full" profile="call-edges" interval="1000" jitter="0.0" seed="42" trigger="counter" counter="global" samples="5120" jvm-name="OpenJDK 64-Bit Server VM" jvm-version="17.0.21.1+2-1-deb12u1-Debian" start="2026-11-22T00:55:23.667Z" end="2026-11-22T00:55:29.817Z" duration-ms="6150" counts-since="2026-11-22T00:55:23.667Z" reason="exit"/>
  <call-edges distinct="2" total="40">
    <edge caller-class="a/b/Main" caller-method="run" caller-descriptor="(I)V" offset="12" line="40" callee="a/b/Util.f(I)I" count="37"/>
    <edge caller-class="a/b/Main" caller-method="&lt;init&gt;" caller-descriptor="()V" offset="4" line="-1" callee="a/b/Q.&quot;odd&amp;&apos;&#9;&#10;&#13;(V" count="3"/>
  </call-edges>
  <field-accesses distinct="1" reads="9" writes="2">
    <field key="a/b/Point.x:I" owner="a/b/Point" name="x" descriptor="I" reads="9" writes="2"/>
  </field-accesses>
  <events distinct="1" total="4">
    <event key="alloc:a/b/Point" count="4"/>
  </events>
</duplex-profile>
)";

Profile parse_ok(std::string_view xml) {
  auto p = duplex::parse_profile(xml, "test.xml");
  if (!p) FAIL(p.error().message());
  return std::move(p.value());
}

// A profile from terse rows, for the metric tests.
Profile make(std::vector<std::pair<std::string, uint64_t>> edges,
             std::vector<std::tuple<std::string, uint64_t, uint64_t>> fields = {},
             std::vector<std::pair<std::string, uint64_t>> events = {}) {
  Profile p;
  for (auto& [callee, n] : edges) p.call_edges.push_back({"a/M", "m", "()V", 1, 10, callee, n});
  for (auto& [key, r, w] : fields) p.fields.push_back({key, "a/F", key, "I", r, w});
  for (auto& [key, n] : events) p.events.push_back({key, n});
  return p;
}

std::vector<KeyCount> dist(std::vector<std::pair<std::string, uint64_t>> rows) {
  std::vector<KeyCount> out;
  for (auto& [k, n] : rows) out.push_back({k, n});
  return out;
}

std::string error_of(std::string_view xml) {
  auto p = duplex::parse_profile(xml, "bad.xml");
  REQUIRE_FALSE(p.ok());
  return p.error().message();
}

// `s` with the first `from` replaced.
std::string replaced(std::string s, std::string_view from, std::string_view to) {
  size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  s.replace(at, from.size(), to);
  return s;
}

std::string example_with(std::string_view from, std::string_view to) {
  return replaced(kExample, from, to);
}

}  // namespace

TEST_CASE("profile: reads every section and attribute of the documented example", "[profile]") {
  Profile p = parse_ok(kExample);
  CHECK(p.version == 1);
  CHECK(p.run.get("mode") == "full");
  CHECK(p.run.get("samples") == "5120");
  CHECK(p.run.runs() == 1);
  REQUIRE(p.call_edges.size() == 2);
  CHECK(p.call_edges[0].caller_class == "a/b/Main");
  CHECK(p.call_edges[0].offset == 12);
  CHECK(p.call_edges[0].line == 40);
  CHECK(p.call_edges[0].callee == "a/b/Util.f(I)I");
  CHECK(p.call_edges[0].count == 37);
  CHECK(p.call_edges[1].caller_method == "<init>");
  CHECK(p.call_edges[1].line == -1);
  CHECK(p.call_edges[1].callee == "a/b/Q.\"odd&'\t\n\r(V");
  REQUIRE(p.fields.size() == 1);
  CHECK(p.fields[0].owner == "a/b/Point");
  CHECK(p.fields[0].name == "x");
  CHECK(p.fields[0].descriptor == "I");
  CHECK(p.fields[0].reads == 9);
  CHECK(p.fields[0].writes == 2);
  REQUIRE(p.events.size() == 1);
  CHECK(p.events[0].key == "alloc:a/b/Point");
  CHECK(p.events[0].count == 4);
}

TEST_CASE("profile: writing gives back the runtime's own file byte for byte", "[profile]") {
  Profile p = parse_ok(kExample);
  CHECK(duplex::profile_to_xml(p) == kExample);
  // And parse(write(p)) == p, through a file.
  TempDir dir;
  std::string path = (dir.path / "out.xml").string();
  REQUIRE(duplex::write_profile(p, path).ok());
  CHECK(dir.names() == std::vector<std::string>{"out.xml"});  // no temporary left behind
  auto again = duplex::read_profile(path);
  REQUIRE(again.ok());
  CHECK(duplex::profile_to_xml(*again) == kExample);
  CHECK(again->run.attributes == p.run.attributes);
}

TEST_CASE("profile: unknown attributes and elements are ignored", "[profile]") {
  std::string xml = example_with("<events ", "<future kind=\"x\"><a/></future>\n  <events ");
  xml = example_with("count=\"37\"/>", "count=\"37\" colour=\"red\"/>");
  Profile p = parse_ok(xml);
  CHECK(p.call_edges[0].count == 37);
}

TEST_CASE("profile: normalizing sums equal keys, drops zeros and sorts", "[profile]") {
  Profile p;
  p.call_edges = {{"a/M", "m", "()V", 3, -1, "a/X.f()V", 2},
                  {"a/M", "m", "()V", 3, 17, "a/X.f()V", 5},  // same key: line not in it
                  {"a/M", "m", "()V", 4, 18, "a/X.f()V", 6},
                  {"a/M", "m", "()V", 5, 19, "a/X.g()V", 0}};
  p.fields = {{"a/F.x:I", "a/F", "x", "I", 1, 0}, {"a/F.x:I", "a/F", "x", "I", 0, 2}};
  p.events = {{"b", 1}, {"a", 1}, {"a", 0}};
  duplex::normalize_profile(p);
  REQUIRE(p.call_edges.size() == 2);
  CHECK(p.call_edges[0].count == 7);
  CHECK(p.call_edges[0].offset == 3);
  CHECK(p.call_edges[0].line == 17);  // the first known line
  CHECK(p.call_edges[1].count == 6);
  REQUIRE(p.fields.size() == 1);
  CHECK(p.fields[0].reads == 1);
  CHECK(p.fields[0].writes == 2);
  REQUIRE(p.events.size() == 2);
  CHECK(p.events[0].key == "a");  // equal counts: by key
}

TEST_CASE("profile: overlap of identical, disjoint and partial profiles", "[profile]") {
  auto a = dist({{"x", 50}, {"y", 50}});
  CHECK(*duplex::overlap(a, a) == Approx(1.0));
  // Shares, not counts, are compared: ten times the counts is the same profile.
  CHECK(*duplex::overlap(dist({{"x", 2}, {"y", 4}}), dist({{"x", 20}, {"y", 40}})) == Approx(1.0));
  CHECK(*duplex::overlap(a, dist({{"p", 1}, {"q", 9}})) == 0.0);
  // min(.5,.25) + min(.5,.25) + min(0,.5)
  CHECK(*duplex::overlap(a, dist({{"x", 25}, {"y", 25}, {"z", 50}})) == Approx(0.5));
  // min(.75,.5) + min(.25,.5)
  CHECK(*duplex::overlap(dist({{"x", 3}, {"y", 1}}), dist({{"x", 1}, {"y", 1}})) == Approx(0.75));
  CHECK_FALSE(duplex::overlap({}, {}).has_value());
  CHECK(*duplex::overlap(a, {}) == 0.0);
  CHECK(*duplex::overlap({}, a) == 0.0);
}

TEST_CASE("profile: overlap per kind follows the documented keys", "[profile]") {
  Profile perfect =
      make({{"a/X.f()V", 30}, {"a/X.g()V", 10}}, {{"a/F.x:I", 10, 0}}, {{"alloc", 5}});
  Profile sampled = make({{"a/X.f()V", 3}, {"a/X.g()V", 1}}, {{"a/F.x:I", 0, 10}}, {});
  auto c = duplex::compare_profiles(perfect, sampled);
  REQUIRE(c.kinds.size() == 3);
  CHECK(c.kinds[0].name == "call-edge");
  CHECK(*c.kinds[0].overlap == Approx(1.0));
  CHECK(*c.kinds[1].overlap == 0.0);  // reads and writes are different keys
  CHECK(*c.kinds[2].overlap == 0.0);  // events only in the reference
  CHECK(c.kinds[2].present());
  // Overall: every key of all kinds in one distribution.
  // reference total 55: f 30, g 10, read x 10, alloc 5; sampled total 14: f 3, g 1, write x 10
  CHECK(*c.overall.overlap ==
        Approx(std::min(30.0 / 55, 3.0 / 14) + std::min(10.0 / 55, 1.0 / 14)));

  // The line is not part of a call-edge key; the offset is.
  Profile moved_line = perfect, moved_offset = perfect;
  moved_line.call_edges[0].line = 99;
  moved_offset.call_edges[0].offset = 99;
  auto edges = [](const Profile& p) {
    return duplex::key_counts(p, duplex::ProfileKind::kCallEdge);
  };
  CHECK(*duplex::overlap(edges(perfect), edges(moved_line)) == Approx(1.0));
  CHECK(*duplex::overlap(edges(perfect), edges(moved_offset)) == Approx(0.25));
  Profile other_caller = perfect;
  other_caller.call_edges[1].caller_descriptor = "(I)V";
  CHECK(*duplex::overlap(edges(perfect), edges(other_caller)) == Approx(0.75));
}

TEST_CASE("profile: hot-cover counts the reference's hot keys found hot", "[profile]") {
  // Hot in b at T=0.1: count >= 10: a, b, d (c has 9).
  auto b = dist({{"a", 100}, {"b", 10}, {"c", 9}, {"d", 50}});
  // Hot in a: count >= 10: a, c, d (b has 1).
  auto a = dist({{"a", 100}, {"b", 1}, {"c", 50}, {"d", 30}});
  CHECK(*duplex::hot_cover(a, b) == Approx(2.0 / 3));
  CHECK(*duplex::hot_cover(b, b) == Approx(1.0));
  CHECK(*duplex::hot_cover({}, b) == 0.0);
  CHECK_FALSE(duplex::hot_cover(a, {}).has_value());
  CHECK(*duplex::hot_cover(a, b, 0.6) == Approx(1.0));  // only a is hot in b; a is hot in a

  Profile perfect = make({{"f", 100}, {"g", 10}, {"h", 9}, {"i", 50}});
  Profile sampled = make({{"f", 100}, {"g", 1}, {"h", 50}, {"i", 30}});
  auto c = duplex::compare_profiles(perfect, sampled);
  CHECK(*c.kinds[0].hot_cover == Approx(2.0 / 3));
  CHECK(c.kinds[0].reference_hot == 3);
  CHECK(c.kinds[0].covered_hot == 2);
}

TEST_CASE("profile: merging sums counts and describes the runs", "[profile]") {
  Profile a = parse_ok(kExample);
  Profile b = parse_ok(example_with("interval=\"1000\"", "interval=\"1\""));
  b.run.set("start", "2026-11-21T00:00:00.000Z");
  b.run.set("end", "2026-11-23T00:00:00.000Z");
  b.call_edges.push_back({"a/b/Main", "run", "(I)V", 20, 41, "a/b/Util.g()V", 1});
  Profile parts[] = {a, b};
  auto m = duplex::merge_profiles(parts);
  REQUIRE(m.ok());
  CHECK(m->call_edges.size() == 3);
  CHECK(m->call_edges[0].count == 74);
  CHECK(m->fields[0].reads == 18);
  CHECK(m->fields[0].writes == 4);
  CHECK(m->events[0].count == 8);
  CHECK(m->run.get("mode") == "full");
  CHECK(m->run.get("samples") == "10240");
  CHECK(m->run.get("duration-ms") == "12300");
  CHECK_FALSE(m->run.has("interval"));  // the runs disagree
  CHECK(m->run.get("seed") == "42");
  CHECK(m->run.get("start") == "2026-11-21T00:00:00.000Z");
  CHECK(m->run.get("end") == "2026-11-23T00:00:00.000Z");
  CHECK(m->run.get("reason") == "merge");
  CHECK(m->run.get("merged-runs") == "2");
  CHECK(m->run.runs() == 2);

  // A merged profile merges on, counting every run once; the result round-trips.
  Profile again[] = {*m, a};
  auto m3 = duplex::merge_profiles(again);
  REQUIRE(m3.ok());
  CHECK(m3->run.runs() == 3);
  CHECK(m3->call_edges[0].count == 111);
  Profile back = parse_ok(duplex::profile_to_xml(*m3));
  CHECK(duplex::profile_to_xml(back) == duplex::profile_to_xml(*m3));

  // Differing modes are dropped, not guessed.
  Profile c = a;
  c.run.set("mode", "partial");
  Profile pair[] = {a, c};
  CHECK(duplex::merge_profiles(pair)->run.get("mode") == "");
  // The checks count only when every run has it.
  a.run.set("checks", "5");
  Profile half[] = {a, c};
  CHECK_FALSE(duplex::merge_profiles(half)->run.has("checks"));
}

TEST_CASE("profile: merging refuses incompatible profiles with a reason", "[profile]") {
  Profile a = make({{"f", 1}}), b = make({{"f", 2}});
  a.run.set("profile", "call-edge,field-access");
  b.run.set("profile", "field-access+call-edge");  // the same set of kinds
  CHECK(duplex::check_mergeable(a, b).ok());
  b.run.set("profile", "");  // not recorded: nothing to disagree with
  CHECK(duplex::check_mergeable(a, b).ok());

  b.run.set("profile", "field-access");
  auto s = duplex::check_mergeable(a, b);
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.error().reason, Catch::Contains("instrumentation kinds differ"));
  Profile c = make({});
  Profile three[] = {a, c, b};
  auto m = duplex::merge_profiles(three);
  REQUIRE_FALSE(m.ok());
  CHECK_THAT(m.error().reason, Catch::Contains("profile 3 cannot be merged with profile 1"));

  Profile v2 = make({{"f", 1}});
  v2.version = 2;
  auto sv = duplex::check_mergeable(make({}), v2);
  REQUIRE_FALSE(sv.ok());
  CHECK_THAT(sv.error().reason, Catch::Contains("format versions differ"));
  CHECK_FALSE(duplex::merge_profiles(std::span<const Profile>()).ok());
}

TEST_CASE("profile: every malformed input is an Error naming the file and the problem",
          "[profile]") {
  struct Case {
    std::string xml;
    std::string expected;
  };
  const std::string head = "<duplex-profile version=\"1\"><run/>";
  const std::string empty_sections = "<call-edges/><field-accesses/><events/></duplex-profile>";
  const Case cases[] = {
      {"", "empty file"},
      {"  \n ", "empty file"},
      {"hello, this is text", "not XML"},
      {std::string("<duplex-profile\0version", 23), "binary data"},
      {"{\"json\": true}", "not XML"},
      {"<?xml version=\"1.0\"?>", "no XML element"},
      {"<duplex-profile version=\"1\"><run/><call-edges>", "truncated file?"},
      {"<duplex-profile version=1/>", "bad attribute"},
      {"<html><body/></html>", "not a duplex profile (root element <html>"},
      {"<duplex-profile><run/>" + empty_sections, "has no version attribute"},
      {"<duplex-profile version=\"one\"/>", "bad profile version \"one\""},
      {"<duplex-profile version=\"2\"/>",
       "unsupported profile version 2 (this duplex reads version 1)"},
      {"<duplex-profile version=\"1\">" + empty_sections, "missing <run>"},
      {head + "<run/>" + empty_sections, "more than one <run>"},
      {head + "<field-accesses/><events/></duplex-profile>", "missing <call-edges>"},
      {head + "<call-edges/><events/></duplex-profile>", "missing <field-accesses>"},
      {head + "<call-edges/><field-accesses/></duplex-profile>", "missing <events>"},
      {"<duplex-profile version=\"1\"><run samples=\"many\"/>" + empty_sections,
       "<run> samples=\"many\" is not an unsigned integer"},
      {"<duplex-profile version=\"1\"><run merged-runs=\"0\"/>" + empty_sections,
       "merged-runs=\"0\""},
      {example_with(" count=\"37\"", ""), "line 5: <edge> has no count attribute"},
      {example_with("count=\"37\"", "count=\"-37\""), "<edge> count=\"-37\" is not a count"},
      {example_with("count=\"37\"", "count=\"37x\""), "is not a count"},
      {example_with("count=\"37\"", "count=\"\""), "has an empty count attribute"},
      {example_with("count=\"37\"", "count=\"99999999999999999999\""), "is not a count"},
      {example_with("offset=\"12\"", "offset=\"-2\""), "offset=\"-2\" is not -1 or a non-negative"},
      {example_with("line=\"40\"", "line=\"forty\""), "line=\"forty\""},
      {example_with("caller-class=\"a/b/Main\"", "caller-class=\"\""), "empty caller-class"},
      {example_with(" callee=\"a/b/Util.f(I)I\"", ""), "<edge> has no callee attribute"},
      {example_with("total=\"40\"", "total=\"41\""),
       "<call-edges> says total=\"41\" but its rows give 40"},
      {example_with("distinct=\"2\"", "distinct=\"3\""), "says distinct=\"3\" but its rows give 2"},
      {example_with("reads=\"9\" writes=\"2\">", "reads=\"8\" writes=\"2\">"),
       "<field-accesses> says reads=\"8\""},
      {example_with(" reads=\"9\" writes=\"2\"/>", " writes=\"2\"/>"),
       "<field> has no reads attribute"},
      {example_with("key=\"alloc:a/b/Point\" ", ""), "<event> has no key attribute"},
      {example_with("total=\"4\"", "total=\"four\""), "total=\"four\" is not a count"},
      {replaced(example_with("count=\"3\"", "count=\"18446744073709551615\""), " total=\"40\"", ""),
       "call edge counts overflow 64 bits"},
      {example_with("</events>", "</events><events/>"), "more than one <events>"},
      {example_with("</call-edges>", "</field-accesses>"), "truncated file?"},
  };
  for (const Case& c : cases) {
    INFO("input: " << c.xml.substr(0, 200));
    std::string message = error_of(c.xml);
    CHECK_THAT(message, Catch::StartsWith("bad.xml: "));
    CHECK_THAT(message, Catch::Contains(c.expected));
    CHECK(message.find('\n') == std::string::npos);
  }
}

TEST_CASE("profile: unreadable files are Errors naming the file", "[profile]") {
  TempDir dir;
  std::string missing = (dir.path / "missing.xml").string();
  auto p = duplex::read_profile(missing);
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().message() == missing + ": cannot open: No such file or directory");

  auto d = duplex::read_profile(dir.path.string());
  REQUIRE_FALSE(d.ok());
  CHECK_THAT(d.error().message(), Catch::Contains("is a directory"));

  std::string text = (dir.path / "text.xml").string();
  std::ofstream(text) << "not xml\n";
  auto t = duplex::read_profile(text);
  REQUIRE_FALSE(t.ok());
  CHECK_THAT(t.error().message(), Catch::StartsWith(text + ": line 1: not XML"));

  if (::geteuid() != 0) {  // root reads anything
    std::string locked = (dir.path / "locked.xml").string();
    std::ofstream(locked) << kExample;
    fs::permissions(locked, fs::perms::none);
    auto l = duplex::read_profile(locked);
    REQUIRE_FALSE(l.ok());
    CHECK_THAT(l.error().message(), Catch::Contains("Permission denied"));
  }
}

TEST_CASE("profile: a failed write leaves nothing behind", "[profile]") {
  TempDir dir;
  Profile p = parse_ok(kExample);
  auto s = duplex::write_profile(p, (dir.path / "no-such-dir" / "out.xml").string());
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.error().message(), Catch::Contains("no-such-dir/out.xml: cannot create"));

  fs::create_directory(dir.path / "taken");
  auto s2 = duplex::write_profile(p, (dir.path / "taken").string());
  REQUIRE_FALSE(s2.ok());
  CHECK(dir.names() == std::vector<std::string>{"taken"});
  CHECK(fs::is_empty(dir.path / "taken"));

  // Replacing an existing file works and is complete.
  std::string out = (dir.path / "out.xml").string();
  std::ofstream(out) << "old";
  REQUIRE(duplex::write_profile(p, out).ok());
  std::ifstream in(out);
  std::stringstream got;
  got << in.rdbuf();
  CHECK(got.str() == kExample);
}

TEST_CASE("profile: reports in every format", "[profile]") {
  Profile sampled = parse_ok(kExample);
  Profile perfect = parse_ok(
      replaced(example_with("count=\"3\"", "count=\"13\""), "total=\"40\"", "total=\"50\""));
  duplex::ReportOptions o;
  o.profile_name = "sampled.xml";

  o.format = duplex::ReportFormat::kText;
  std::string text = duplex::render_report(sampled, o);
  CHECK_THAT(text, Catch::Contains("a.b.Main.run:40 \u2192 a.b.Util.f(I)I"));
  CHECK_THAT(text, Catch::Contains("92.50%"));  // 37 of 40
  CHECK_THAT(text, Catch::Contains("mode:      full"));

  o.format = duplex::ReportFormat::kCsv;
  std::string csv = duplex::render_report(sampled, o);
  CHECK_THAT(csv, Catch::StartsWith("kind,key,count,share,reference_count,reference_share,"));
  CHECK_THAT(csv, Catch::Contains("\nfield-read,read a/b/Point.x:I,9,0.818182,,,"));
  CHECK_THAT(csv, Catch::Contains("\nevent,alloc:a/b/Point,4,1.000000,"));
  // The odd callee holds a quote and line breaks: one quoted CSV field.
  CHECK_THAT(csv, Catch::Contains("\"a/b/Q.\"\"odd&'\t\n\r(V\""));

  o.format = duplex::ReportFormat::kXml;
  CHECK(duplex::render_report(sampled, o) == kExample);

  o.format = duplex::ReportFormat::kDot;
  std::string dot = duplex::render_report(sampled, o);
  CHECK_THAT(dot, Catch::StartsWith("digraph duplex_call_graph {\n"));
  CHECK_THAT(dot, Catch::Contains("n0 [label=\"a.b.Main.run\""));
  CHECK_THAT(dot, Catch::Contains("n0 -> n1 [label=\"37\", penwidth=6.00"));
  CHECK_THAT(dot, Catch::Contains("[label=\"a.b.Q.\\\"odd&'\t\\n\", tooltip="));
  CHECK_THAT(dot, Catch::EndsWith("}\n"));
  // A method name may hold '(': the label ends where a whole descriptor starts.
  Profile parens = parse_ok(
      replaced(kExample, "a/b/Q.&quot;odd&amp;&apos;&#9;&#10;&#13;(V", "a/b(c/Q.f (x)(I)V"));
  std::string parens_dot = duplex::render_report(parens, o);
  CHECK_THAT(parens_dot,
             Catch::Contains("[label=\"a.b(c.Q.f (x)\", tooltip=\"a.b(c.Q.f (x)(I)V\""));

  o.format = duplex::ReportFormat::kHtml;
  o.reference = &perfect;
  o.reference_name = "perfect.xml";
  std::string html = duplex::render_report(sampled, o);
  CHECK_THAT(html, Catch::StartsWith("<!DOCTYPE html>"));
  CHECK_THAT(html, Catch::Contains("<svg class=\"chart\" id=\"chart-call-edge\""));
  CHECK_THAT(html, Catch::Contains("class=\"dot\""));
  CHECK_THAT(html, Catch::Contains("a.b.Q.&quot;odd&amp;&#39;"));
  CHECK(html.find("http://") == html.find("http://www.w3.org/2000/svg"));  // nothing fetched
  CHECK(html.find("src=") == std::string::npos);

  CHECK(duplex::parse_report_format("html") == duplex::ReportFormat::kHtml);
  CHECK_FALSE(duplex::parse_report_format("pdf").has_value());
}

TEST_CASE("profile: cut or damaged files never crash and never half-parse", "[profile]") {
  const std::string full = kExample;
  // Every truncation: an Error (the closing tag is missing), never a crash or a partial profile.
  for (size_t n = 0; n + 2 < full.size(); ++n) {
    auto p = duplex::parse_profile(std::string_view(full).substr(0, n), "cut.xml");
    INFO("cut at " << n);
    REQUIRE_FALSE(p.ok());
    CHECK_THAT(p.error().message(), Catch::StartsWith("cut.xml: "));
  }
  // Damaged bytes (a fixed pseudo-random sequence): parse or fail cleanly; whatever parses
  // writes and reads back.
  uint64_t state = 0x9E3779B97F4A7C15u;
  auto next = [&] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  size_t parsed = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string damaged = full;
    for (int k = 0; k < 1 + static_cast<int>(next() % 3); ++k) {
      damaged[next() % damaged.size()] = static_cast<char>(next() & 0xFF);
    }
    auto p = duplex::parse_profile(damaged, "damaged.xml");
    if (!p) {
      CHECK_THAT(p.error().message(), Catch::StartsWith("damaged.xml: "));
      continue;
    }
    ++parsed;
    auto again = duplex::parse_profile(duplex::profile_to_xml(*p), "again.xml");
    REQUIRE(again.ok());
    CHECK(duplex::profile_to_xml(*again) == duplex::profile_to_xml(*p));
  }
  CHECK(parsed > 0);  // some damage (inside a name, say) leaves a valid profile
}
