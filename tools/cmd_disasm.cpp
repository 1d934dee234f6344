// `duplex disasm FILE [--constant-pool] [--no-frames]`: prints a class file, or every class
// of a jar in archive order, in the stable text of classfile/disassembler.h.
#include <string>

#include "classfile/archive.h"
#include "classfile/class_file.h"
#include "classfile/disassembler.h"
#include "tools/cli.h"

namespace duplex::cli {

const char* const kDisasmHelp =
    "usage: duplex disasm FILE [--constant-pool] [--no-frames]\n"
    "\n"
    "Prints FILE (a .class file, or a jar: every .class entry in order, each after a\n"
    "'// entry: NAME' line) as text that is stable across runs, for debugging and golden\n"
    "tests.\n"
    "\n"
    "options:\n"
    "  --constant-pool  also list the constant pool\n"
    "  --no-frames      leave out StackMapTable frames\n"
    "  -h, --help       show this help\n";

namespace {

struct DisasmArgs {
  std::string file;
  DisasmOptions options;
  bool help = false;
};

// Returns the exit code of a usage error, or kExitOk with `out` filled in.
int parse_args(std::span<const std::string> args, DisasmArgs& out) {
  for (const std::string& arg : args) {
    if (arg == "--constant-pool") {
      out.options.constant_pool = true;
    } else if (arg == "--no-frames") {
      out.options.frames = false;
    } else if (arg == "--help" || arg == "-h") {
      out.help = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usage_error("disasm", "disasm: unknown option '" + arg + "'");
    } else if (!out.file.empty()) {
      return usage_error("disasm", "disasm: more than one FILE ('" + arg + "')");
    } else {
      out.file = arg;
    }
  }
  if (out.file.empty() && !out.help) return usage_error("disasm", "disasm: missing FILE");
  return kExitOk;
}

int disasm_class(const DisasmArgs& args, std::span<const uint8_t> bytes) {
  auto cf = ClassFile::parse(bytes);
  if (!cf) return input_error(args.file, class_error_text(cf.error(), bytes.size()));
  if (!write_stdout(disassemble(*cf, args.options))) {
    return input_error("<stdout>", "write failed");
  }
  return kExitOk;
}

// Entry names are raw bytes from the jar; control characters would break the line format.
std::string printable(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

// The listing of one jar entry, or a <bad ...> line; `problem` gets the reason on failure.
std::string disasm_entry(const JarReader& jar, const JarEntry& entry, const DisasmOptions& options,
                         std::string& problem) {
  std::string text = "// entry: " + printable(entry.name) + "\n";
  auto bytes = jar.read(entry);
  if (!bytes) {
    problem = bytes.error().message();
    return text + "<bad entry: " + printable(problem) + ">\n";
  }
  auto cf = ClassFile::parse(*bytes);
  if (!cf) {
    problem = printable(entry.name) + ": " + class_error_text(cf.error(), bytes->size());
    return text + "<bad class: " + printable(problem) + ">\n";
  }
  return text + disassemble(*cf, options);
}

// Every class entry in central-directory order. A broken entry is listed as <bad ...> and
// the rest still print; the exit status and one stderr line then report the damage.
int disasm_jar(const DisasmArgs& args) {
  auto jar = JarReader::open(args.file);
  if (!jar) return input_error(jar.error().message());
  size_t classes = 0, broken = 0;
  std::string first_problem;
  for (const JarEntry& entry : jar->entries()) {
    if (entry.is_directory || !is_class_entry(entry.name)) continue;
    ++classes;
    std::string problem;
    if (!write_stdout(disasm_entry(*jar, entry, args.options, problem))) {
      return input_error("<stdout>", "write failed");
    }
    if (problem.empty()) continue;
    if (broken++ == 0) first_problem = problem;
  }
  if (broken == 0) return kExitOk;
  return input_error(args.file, std::to_string(broken) + " of " + std::to_string(classes) +
                                    " class entries are damaged (first: " + first_problem + ")");
}

}  // namespace

int run_disasm(std::span<const std::string> args) {
  DisasmArgs parsed;
  if (int rc = parse_args(args, parsed); rc != kExitOk) return rc;
  if (parsed.help) {
    write_stdout(kDisasmHelp);
    return kExitOk;
  }
  auto bytes = read_file(parsed.file);
  if (!bytes) return input_error(bytes.error().message());
  // A jar is recognised by its content, so a misnamed jar (or a .class that is really a
  // zip) still gets a sensible answer.
  if (looks_like_zip(*bytes)) return disasm_jar(parsed);
  return disasm_class(parsed, *bytes);
}

}  // namespace duplex::cli
