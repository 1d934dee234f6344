// Reading a profile: tinyxml2 parses, then every element the format defines is checked, so a
// truncated, hand-edited or foreign file gives one Error naming the file, the line and the
// problem instead of a half-filled Profile.
#include <tinyxml2.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "classfile/descriptors.h"
#include "duplex/profile.h"

// ErrorLineNum() and GetLineNum() appeared in tinyxml2 6.
static_assert(TINYXML2_MAJOR_VERSION >= 6, "duplex needs tinyxml2 6 or later");

namespace duplex {

namespace {

using tinyxml2::XMLElement;

// Problems found while walking the document; the first one wins.
class Checker {
 public:
  explicit Checker(std::string_view name) : name_(name) {}

  Error fail(const XMLElement* at, const std::string& what) const {
    std::string where = name_;
    if (at) where += ": line " + std::to_string(at->GetLineNum());
    return Error::plain(where + ": " + what);
  }
  Error fail(const std::string& what) const { return Error::plain(name_ + ": " + what); }

 private:
  std::string name_;
};

template <class T>
bool parse_number(std::string_view text, T& out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

std::string shown(std::string_view text) {
  std::string cut(text.substr(0, 40));
  if (text.size() > 40) cut += "...";
  return "\"" + cut + "\"";
}

// A required text attribute; `allow_empty` for values the runtime may leave empty.
Result<std::string> text_attr(const Checker& c, const XMLElement* e, const char* name,
                              bool allow_empty = false) {
  const char* v = e->Attribute(name);
  if (!v) return c.fail(e, std::string("<") + e->Name() + "> has no " + name + " attribute");
  if (!allow_empty && !*v) {
    return c.fail(e, std::string("<") + e->Name() + "> has an empty " + name + " attribute");
  }
  return std::string(v);
}

Result<uint64_t> count_attr(const Checker& c, const XMLElement* e, const char* name) {
  auto text = text_attr(c, e, name);
  if (!text) return text.error();
  uint64_t n = 0;
  if (!parse_number(*text, n)) {
    return c.fail(e, std::string("<") + e->Name() + "> " + name + "=" + shown(*text) +
                         " is not a count (an unsigned integer)");
  }
  return n;
}

// offset and line: -1 (unknown) or a non-negative integer; absent means unknown.
Result<int32_t> position_attr(const Checker& c, const XMLElement* e, const char* name) {
  const char* v = e->Attribute(name);
  if (!v) return -1;
  int32_t n = 0;
  if (!parse_number(std::string_view(v), n) || n < -1) {
    return c.fail(e, std::string("<") + e->Name() + "> " + name + "=" + shown(v) +
                         " is not -1 or a non-negative integer");
  }
  return n;
}

// Sums with a check: a count that does not fit 64 bits is a corrupt file, not a wrap-around.
bool add_to(uint64_t& sum, uint64_t n) {
  if (sum > UINT64_MAX - n) return false;
  sum += n;
  return true;
}

// A section's summary attribute (distinct, total, reads, writes), when present, must equal
// what its rows add up to: a mismatch means the rows were cut or edited.
Status check_total(const Checker& c, const XMLElement* section, const char* name, uint64_t actual) {
  if (!section->Attribute(name)) return Ok{};
  auto declared = count_attr(c, section, name);
  if (!declared) return declared.error();
  if (*declared != actual) {
    return c.fail(section, std::string("<") + section->Name() + "> says " + name + "=\"" +
                               std::to_string(*declared) + "\" but its rows give " +
                               std::to_string(actual));
  }
  return Ok{};
}

// Run attributes merging sums: they must be numbers so the sum means something.
constexpr const char* kNumericRunAttributes[] = {
    "samples", "checks", "entries", "backedges", "duration-ms", "merged-runs", "interval"};

Status read_run(const Checker& c, const XMLElement* e, RunInfo& run) {
  for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) {
    run.attributes.emplace_back(a->Name(), a->Value());
  }
  for (const char* name : kNumericRunAttributes) {
    if (!run.has(name)) continue;
    uint64_t n = 0;
    if (!parse_number(run.get(name), n)) {
      return c.fail(e, std::string("<run> ") + name + "=" + shown(run.get(name)) +
                           " is not an unsigned integer");
    }
    if (std::string_view(name) == "merged-runs" && n == 0) {
      return c.fail(e, "<run> merged-runs=\"0\": a profile comes from at least one run");
    }
  }
  return Ok{};
}

Status read_edges(const Checker& c, const XMLElement* section, std::vector<CallEdge>& out) {
  uint64_t total = 0;
  for (const XMLElement* e = section->FirstChildElement("edge"); e;
       e = e->NextSiblingElement("edge")) {
    CallEdge edge;
    auto cls = text_attr(c, e, "caller-class");
    if (!cls) return cls.error();
    auto method = text_attr(c, e, "caller-method");
    if (!method) return method.error();
    auto callee = text_attr(c, e, "callee");
    if (!callee) return callee.error();
    auto count = count_attr(c, e, "count");
    if (!count) return count.error();
    auto offset = position_attr(c, e, "offset");
    if (!offset) return offset.error();
    auto line = position_attr(c, e, "line");
    if (!line) return line.error();
    const char* desc = e->Attribute("caller-descriptor");
    edge = {*cls, *method, desc ? desc : "", *offset, *line, *callee, *count};
    if (!add_to(total, edge.count)) return c.fail(e, "call edge counts overflow 64 bits");
    out.push_back(std::move(edge));
  }
  if (auto s = check_total(c, section, "distinct", out.size()); !s) return s;
  return check_total(c, section, "total", total);
}

// owner.name:desc split at the first '.' and at the ':' before the field type, as the runtime
// does.
void split_field_key(FieldAccess& f) {
  size_t dot = f.key.find('.');
  size_t colon =
      dot == std::string::npos ? dot : descriptor_colon(f.key, dot + 2, /*methods=*/false);
  if (dot == 0 || dot == std::string::npos || colon == std::string::npos) {
    f.owner.clear(), f.name = f.key, f.descriptor.clear();
    return;
  }
  f.owner = f.key.substr(0, dot);
  f.name = f.key.substr(dot + 1, colon - dot - 1);
  f.descriptor = f.key.substr(colon + 1);
}

Status read_fields(const Checker& c, const XMLElement* section, std::vector<FieldAccess>& out) {
  uint64_t reads = 0, writes = 0;
  for (const XMLElement* e = section->FirstChildElement("field"); e;
       e = e->NextSiblingElement("field")) {
    FieldAccess f;
    auto key = text_attr(c, e, "key");
    if (!key) return key.error();
    auto r = count_attr(c, e, "reads");
    if (!r) return r.error();
    auto w = count_attr(c, e, "writes");
    if (!w) return w.error();
    f.key = *key;
    f.reads = *r;
    f.writes = *w;
    split_field_key(f);  // the key is the truth; owner/name/descriptor only repeat it
    if (!add_to(reads, f.reads) || !add_to(writes, f.writes) || f.reads > UINT64_MAX - f.writes) {
      return c.fail(e, "field access counts overflow 64 bits");
    }
    out.push_back(std::move(f));
  }
  if (auto s = check_total(c, section, "distinct", out.size()); !s) return s;
  if (auto s = check_total(c, section, "reads", reads); !s) return s;
  return check_total(c, section, "writes", writes);
}

Status read_events(const Checker& c, const XMLElement* section, std::vector<EventCount>& out) {
  uint64_t total = 0;
  for (const XMLElement* e = section->FirstChildElement("event"); e;
       e = e->NextSiblingElement("event")) {
    auto key = text_attr(c, e, "key");
    if (!key) return key.error();
    auto count = count_attr(c, e, "count");
    if (!count) return count.error();
    if (!add_to(total, *count)) return c.fail(e, "event counts overflow 64 bits");
    out.push_back({*key, *count});
  }
  if (auto s = check_total(c, section, "distinct", out.size()); !s) return s;
  return check_total(c, section, "total", total);
}

// Exactly one of each: two would leave it unclear which one counts.
Result<const XMLElement*> one_child(const Checker& c, const XMLElement* root, const char* name) {
  const XMLElement* e = root->FirstChildElement(name);
  if (!e) return c.fail(root, std::string("missing <") + name + "> in <duplex-profile>");
  if (const XMLElement* again = e->NextSiblingElement(name)) {
    return c.fail(again, std::string("more than one <") + name + ">");
  }
  return e;
}

std::string xml_error_text(const tinyxml2::XMLDocument& doc) {
  std::string at = "line " + std::to_string(doc.ErrorLineNum()) + ": ";
  switch (doc.ErrorID()) {
    case tinyxml2::XML_ERROR_EMPTY_DOCUMENT:
      return "empty file, not a duplex profile";
    case tinyxml2::XML_ERROR_PARSING_TEXT:
      return at + "not XML (text outside any element)";
    case tinyxml2::XML_ERROR_MISMATCHED_ELEMENT:
      return at + "not well-formed XML (unclosed or mismatched element; truncated file?)";
    case tinyxml2::XML_ERROR_PARSING_ATTRIBUTE:
      return at + "not well-formed XML (bad attribute)";
    case tinyxml2::XML_ELEMENT_DEPTH_EXCEEDED:
      return at + "elements nested too deeply";
    default:
      return at + "not well-formed XML (" + doc.ErrorName() + ")";
  }
}

Status check_version(const Checker& c, const XMLElement* root, int& version) {
  const char* v = root->Attribute("version");
  if (!v) return c.fail(root, "<duplex-profile> has no version attribute");
  if (!parse_number(std::string_view(v), version)) {
    return c.fail(root, std::string("bad profile version ") + shown(v));
  }
  if (version != kProfileFormatVersion) {
    return c.fail(root, "unsupported profile version " + std::to_string(version) +
                            " (this duplex reads version " + std::to_string(kProfileFormatVersion) +
                            ")");
  }
  return Ok{};
}

}  // namespace

Result<Profile> parse_profile(std::string_view xml, std::string_view name) {
  Checker c(name);
  if (xml.empty()) return c.fail("empty file, not a duplex profile");
  if (xml.find('\0') != std::string_view::npos) return c.fail("binary data, not a duplex profile");
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.data(), xml.size()) != tinyxml2::XML_SUCCESS) {
    return c.fail(xml_error_text(doc));
  }
  const XMLElement* root = doc.RootElement();
  if (!root) return c.fail("no XML element, not a duplex profile");
  if (std::string_view(root->Name()) != "duplex-profile") {
    return c.fail(root, std::string("not a duplex profile (root element <") + root->Name() +
                            ">, expected <duplex-profile>)");
  }
  Profile p;
  if (auto s = check_version(c, root, p.version); !s) return s.error();
  auto run = one_child(c, root, "run");
  if (!run) return run.error();
  if (auto s = read_run(c, *run, p.run); !s) return s.error();
  auto edges = one_child(c, root, "call-edges");
  if (!edges) return edges.error();
  if (auto s = read_edges(c, *edges, p.call_edges); !s) return s.error();
  auto fields = one_child(c, root, "field-accesses");
  if (!fields) return fields.error();
  if (auto s = read_fields(c, *fields, p.fields); !s) return s.error();
  auto events = one_child(c, root, "events");
  if (!events) return events.error();
  if (auto s = read_events(c, *events, p.events); !s) return s.error();
  return p;
}

Result<Profile> read_profile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Error::plain(path + ": is a directory, not a profile");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::plain(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error::plain(path + ": cannot read: " + std::strerror(errno));
  return parse_profile(text.str(), path);
}

}  // namespace duplex
