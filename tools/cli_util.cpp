// Helpers shared by the duplex subcommands. They report every problem as one line on stderr
// so scripts can show it as is.
#include <charconv>
#include <cstdio>
#include <cstring>

#include "tools/cli.h"

namespace duplex::cli {

namespace {

// Messages may quote file contents; a newline in them would break the one-line promise.
std::string one_line(std::string_view text) {
  std::string out;
  for (char c : text) out += (c == '\n' || c == '\r') ? ' ' : c;
  return out;
}

}  // namespace

int input_error(std::string_view message) {
  std::fprintf(stderr, "duplex: %s\n", one_line(message).c_str());
  return kExitBadInput;
}

int input_error(std::string_view subject, std::string_view message) {
  return input_error(std::string(subject) + ": " + std::string(message));
}

int usage_error(std::string_view command, std::string_view message) {
  std::string hint = command.empty() ? "duplex --help" : "duplex help " + std::string(command);
  std::fprintf(stderr, "duplex: %s (try '%s')\n", one_line(message).c_str(), hint.c_str());
  return kExitUsage;
}

bool write_stdout(std::string_view text) {
  return std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
}

std::optional<uint64_t> parse_number(std::string_view text, uint64_t min, uint64_t max) {
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (n < min || n > max) return std::nullopt;
  return n;
}

bool looks_like_zip(std::span<const uint8_t> bytes) {
  // Local file header, or the end-of-central-directory record of an empty archive.
  static constexpr uint8_t kLocal[] = {'P', 'K', 3, 4};
  static constexpr uint8_t kEmpty[] = {'P', 'K', 5, 6};
  return bytes.size() >= 4 &&
         (std::memcmp(bytes.data(), kLocal, 4) == 0 || std::memcmp(bytes.data(), kEmpty, 4) == 0);
}

std::string class_error_text(const Error& error, size_t size) {
  if (size == 0) return "empty file, not a class file";
  // The parser's own wording for the magic check is already the message we want; the
  // "class-file byte 0" prefix would only add noise to it.
  if (error.reason.rfind("not a class file", 0) == 0) return error.reason;
  return error.message();
}

std::vector<std::string> split_long_options(std::span<const std::string> args) {
  std::vector<std::string> out;
  out.reserve(args.size());
  bool options = true;
  for (const std::string& arg : args) {
    if (arg == "--") options = false;
    size_t eq = arg.find('=');
    if (options && arg.starts_with("--") && eq != std::string::npos && eq > 2) {
      out.push_back(arg.substr(0, eq));
      out.push_back(arg.substr(eq + 1));
    } else {
      out.push_back(arg);
    }
  }
  return out;
}

}  // namespace duplex::cli
