// Writing a profile in the runtime's own layout (docs/profile-format.md), atomically.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "duplex/profile.h"

namespace duplex {

namespace {

// Decodes one UTF-8 sequence at `i`; returns its length, or 0 if it is not valid UTF-8.
size_t utf8_length(std::string_view s, size_t i, uint32_t& cp) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b = byte(i);
  size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  cp = n == 1 ? b : b & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// Escapes as the runtime does: the five entities, tab/newline/CR as character references, and
// U+FFFD for what XML 1.0 cannot carry (other controls, U+FFFE/U+FFFF, invalid UTF-8).
void escape(std::string& out, std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    size_t n = utf8_length(s, i, cp);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    switch (cp) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\t':
        out += "&#9;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      default:
        if (cp < 0x20 || cp == 0xFFFE || cp == 0xFFFF) {
          out += "\xEF\xBF\xBD";
        } else {
          out.append(s.substr(i, n));
        }
    }
    i += n;
  }
}

void attr(std::string& out, std::string_view name, std::string_view value) {
  out += ' ';
  out += name;
  out += "=\"";
  escape(out, value);
  out += '"';
}

void attr(std::string& out, std::string_view name, uint64_t value) {
  attr(out, name, std::to_string(value));
}

void write_edges(std::string& out, const std::vector<CallEdge>& edges) {
  uint64_t total = 0;
  for (const CallEdge& e : edges) total += e.count;
  out += "  <call-edges";
  attr(out, "distinct", edges.size());
  attr(out, "total", total);
  out += ">\n";
  for (const CallEdge& e : edges) {
    out += "    <edge";
    attr(out, "caller-class", e.caller_class);
    attr(out, "caller-method", e.caller_method);
    attr(out, "caller-descriptor", e.caller_descriptor);
    attr(out, "offset", std::to_string(e.offset));
    attr(out, "line", std::to_string(e.line));
    attr(out, "callee", e.callee);
    attr(out, "count", e.count);
    out += "/>\n";
  }
  out += "  </call-edges>\n";
}

void write_fields(std::string& out, const std::vector<FieldAccess>& fields) {
  uint64_t reads = 0, writes = 0;
  for (const FieldAccess& f : fields) reads += f.reads, writes += f.writes;
  out += "  <field-accesses";
  attr(out, "distinct", fields.size());
  attr(out, "reads", reads);
  attr(out, "writes", writes);
  out += ">\n";
  for (const FieldAccess& f : fields) {
    out += "    <field";
    attr(out, "key", f.key);
    attr(out, "owner", f.owner);
    attr(out, "name", f.name);
    attr(out, "descriptor", f.descriptor);
    attr(out, "reads", f.reads);
    attr(out, "writes", f.writes);
    out += "/>\n";
  }
  out += "  </field-accesses>\n";
}

void write_events(std::string& out, const std::vector<EventCount>& events) {
  uint64_t total = 0;
  for (const EventCount& e : events) total += e.count;
  out += "  <events";
  attr(out, "distinct", events.size());
  attr(out, "total", total);
  out += ">\n";
  for (const EventCount& e : events) {
    out += "    <event";
    attr(out, "key", e.key);
    attr(out, "count", e.count);
    out += "/>\n";
  }
  out += "  </events>\n";
}

std::string errno_text() {
  return std::strerror(errno);
}

}  // namespace

std::string profile_to_xml(const Profile& profile) {
  Profile p = profile;
  normalize_profile(p);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<duplex-profile";
  attr(out, "version", std::to_string(p.version));
  out += ">\n  <run";
  for (const auto& [name, value] : p.run.attributes) attr(out, name, value);
  out += "/>\n";
  write_edges(out, p.call_edges);
  write_fields(out, p.fields);
  write_events(out, p.events);
  out += "</duplex-profile>\n";
  return out;
}

Status write_profile(const Profile& profile, const std::string& path) {
  return write_file_atomically(path, profile_to_xml(profile));
}

Status write_file_atomically(const std::string& path, std::string_view contents) {
  namespace fs = std::filesystem;
  fs::path target(path);
  if (target.filename().empty()) return Error::plain(path + ": not a file name");
  fs::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  std::string tmp;
  int fd = -1;
  // A unique name in the target's directory (rename must not cross file systems). 0666 lets
  // the umask decide the permissions, as for any new file.
  for (int attempt = 0; fd < 0; ++attempt) {
    auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    std::string name = std::string(".").append(target.filename().string());
    for (auto part : {std::to_string(::getpid()), std::to_string(now), std::to_string(attempt)}) {
      name.append(".").append(part);
    }
    name += ".tmp";
    tmp = (dir / name).string();
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt > 100)) {
      return Error::plain(path + ": cannot create a file in " + dir.string() + ": " + errno_text());
    }
  }
  auto fail = [&](const std::string& what) {
    std::string message = path + ": " + what + ": " + errno_text();
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    return Error::plain(message);
  };
  for (size_t done = 0; done < contents.size();) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("cannot write");
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return fail("cannot write");
  int closed = ::close(fd);
  fd = -1;
  if (closed != 0) return fail("cannot write");
  std::error_code ec;
  if (fs::is_directory(target, ec)) {
    errno = EISDIR;
    return fail("cannot replace");
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("cannot replace");
  return Ok{};
}

}  // namespace duplex
