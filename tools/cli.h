// Shared pieces of the `duplex` command-line program: exit codes, one-line error reporting,
// reading input files, and the table of subcommands. Each subcommand lives in its own
// tools/cmd_*.cpp file and is listed in kCommands (duplex_main.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "classfile/error.h"

namespace duplex::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;  // missing or malformed input files
inline constexpr int kExitUsage = 2;     // bad command line

struct Command {
  const char* name;
  const char* synopsis;  // one line for `duplex --help`
  const char* help;      // full text for `duplex help NAME` and `duplex NAME --help`
  int (*run)(std::span<const std::string> args);  // args after the command name
};

// The subcommands, in the order `duplex --help` lists them.
std::span<const Command> commands();

// "duplex: MESSAGE" on stderr, always exactly one line; returns kExitBadInput. Errors from
// classfile/archive.h already start with the file name, so they go here as they are.
int input_error(std::string_view message);
// "duplex: SUBJECT: MESSAGE", likewise.
int input_error(std::string_view subject, std::string_view message);
// "duplex: MESSAGE (try 'duplex help COMMAND')" on stderr; returns kExitUsage.
int usage_error(std::string_view command, std::string_view message);

// Writes to stdout; false if the write failed (a closed pipe, a full disk).
bool write_stdout(std::string_view text);

// The arguments with every `--name=value` given as `--name` and `value`, as the subcommands
// read them (both spellings work). Arguments after a lone `--` stay as they are.
std::vector<std::string> split_long_options(std::span<const std::string> args);

// A whole decimal number in [min, max] (no sign, no spaces), or nothing.
std::optional<uint64_t> parse_number(std::string_view text, uint64_t min, uint64_t max);

// A zip archive (a jar) by its signature, whatever the file is called.
bool looks_like_zip(std::span<const uint8_t> bytes);

// Why `bytes` did not parse as a class, for a one-line message: "not a class file (bad
// magic 0x12345678)", "empty file, not a class file", "...: truncated ...".
std::string class_error_text(const Error& error, size_t size);

// Subcommands.
int run_disasm(std::span<const std::string> args);
extern const char* const kDisasmHelp;
int run_instrument(std::span<const std::string> args);
extern const char* const kInstrumentHelp;
int run_report(std::span<const std::string> args);
extern const char* const kReportHelp;
int run_overlap(std::span<const std::string> args);
extern const char* const kOverlapHelp;
int run_merge(std::span<const std::string> args);
extern const char* const kMergeHelp;

}  // namespace duplex::cli
