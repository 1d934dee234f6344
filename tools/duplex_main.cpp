// The `duplex` program: a small dispatcher over subcommands. A new subcommand is a
// tools/cmd_NAME.cpp file with a run function, plus one row in kCommands below.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "tools/cli.h"

#ifndef DUPLEX_VERSION
#define DUPLEX_VERSION "unknown"
#endif

namespace duplex::cli {

namespace {

const Command kCommands[] = {
    {"instrument", "rewrite a jar, directory or class for sampled instrumentation", kInstrumentHelp,
     run_instrument},
    {"disasm", "print a class file or every class of a jar as text", kDisasmHelp, run_disasm},
    {"report", "show a profile as text, csv, xml, html or a dot call graph", kReportHelp,
     run_report},
    {"overlap", "compare a sampled profile with a reference: overlap and hot-cover", kOverlapHelp,
     run_overlap},
    {"merge", "sum the profiles of several runs", kMergeHelp, run_merge},
};

const Command* find_command(std::string_view name) {
  for (const Command& c : kCommands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

std::string overview() {
  std::string text =
      "usage: duplex COMMAND [ARGS...]\n"
      "\n"
      "Rewrites and inspects JVM class files and jars.\n"
      "\n"
      "commands:\n";
  for (const Command& c : kCommands) {
    std::string name = c.name;
    name.resize(std::max<size_t>(name.size() + 2, 10), ' ');
    text += "  " + name + c.synopsis + "\n";
  }
  text +=
      "  help      show help for a command\n"
      "\n"
      "options:\n"
      "  -h, --help  show this help\n"
      "  --version   print the version\n";
  return text;
}

// `duplex help [COMMAND]`
int run_help(std::span<const std::string> args) {
  if (args.empty()) {
    write_stdout(overview());
    return kExitOk;
  }
  if (args.size() > 1) return usage_error("", "help: expected at most one COMMAND");
  const Command* c = find_command(args[0]);
  if (!c) return usage_error("", "help: unknown command '" + args[0] + "'");
  write_stdout(c->help);
  return kExitOk;
}

int dispatch(const std::vector<std::string>& argv) {
  if (argv.empty()) return usage_error("", "missing command");
  const std::string& first = argv[0];
  std::span<const std::string> rest(argv.data() + 1, argv.size() - 1);
  if (first == "--help" || first == "-h") return run_help({});
  if (first == "help") return run_help(rest);
  if (first == "--version") {
    write_stdout("duplex " DUPLEX_VERSION "\n");
    return kExitOk;
  }
  if (const Command* c = find_command(first)) {
    std::vector<std::string> split = split_long_options(rest);
    return c->run(split);
  }
  if (first.size() > 1 && first[0] == '-') return usage_error("", "unknown option '" + first + "'");
  return usage_error("", "unknown command '" + first + "'");
}

}  // namespace

std::span<const Command> commands() {
  return kCommands;
}

}  // namespace duplex::cli

int main(int argc, char** argv) {
  // libzip turns every entry's DOS time into a time_t through mktime, and glibc, with TZ
  // unset, stats /etc/localtime at every call: 28,000 stats to open the JDK's jmods for the
  // lazy twins' class index (45 ms of 65 on h2). The same zone named explicitly is read once;
  // every conversion gives what it gave.
  if (!std::getenv("TZ")) setenv("TZ", ":/etc/localtime", 0);
  std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  return duplex::cli::dispatch(args);
}
