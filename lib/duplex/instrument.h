// The duplex library API: rewrite a jar, a directory of classes or one class file for
// sampled instrumentation, and learn what was done to every method.
//
//   duplex::InstrumentOptions options;
//   options.rewrite.mode = duplex::Mode::kFull;
//   options.rewrite.instrumentations = {duplex::make_builtin_instrumentation("call-edge")};
//   auto summary = duplex::instrument_path("app.jar", "app-sampled.jar", options);
//   if (!summary) std::cerr << summary.error().message() << "\n";
//
// Inputs are never modified; outputs are written atomically (temp file + rename), so a
// failure leaves no half-written output behind.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "classfile/error.h"
#include "rewriter/rewriter.h"

namespace duplex {

struct InstrumentOptions {
  RewriteOptions rewrite;
  // Class-name globs in dotted form ("org.h2.*"; '*' matches any run of characters, '?' one).
  // No includes means every class; excludes win over includes.
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  // Threads that rewrite (and deflate) the classes of a jar; 0: one per hardware thread.
  // The output is the same for every value: classes are rewritten independently and written
  // in input order, and the callbacks below run on the calling thread, in input order. With
  // more than one job, the instrumentations in `rewrite` are called from several threads at
  // once (the built-in ones keep no state; so must yours).
  unsigned jobs = 0;
  // zlib level (0-9) for the rewritten classes written into jars; other entries keep their
  // bytes or get classfile/archive.h's kJarDeflateLevel. 0 (deflate's stored blocks: no
  // compression) by default: a rewritten jar is run, not shipped, and level 0 writes h2 with
  // 60% of level 1's CPU time and its classes load faster (side by side, whole runs about 2
  // points less overhead checks-only and 5 at Full @1000), for 2.6-3.1x the bytes
  // (docs/classfile-bench.md, "Stored by default").
  int deflate_level = 0;
  // With rewrite.lazy_twins and no rewrite.class_index: instrument_path builds the class index
  // (RewriteOptions::class_index) from the input's own classes, these jars, jmods and
  // directories, and the JDK at java_home ("": default_java_home(), classfile/class_index.h).
  // A class whose superclasses are not all found there keeps its twins, and so does a class of a
  // jar or directory whose entry is not at the path its name gives (a loader of its own defines
  // it, and may not find a twin class beside it: Jython's modules under Lib/).
  std::vector<std::string> class_path;
  std::string java_home;
  // Called after each class with (done, total) for progress display.
  std::function<void(size_t, size_t)> progress;
  // Called with each class that went through the rewriter (where it came from, the result).
  std::function<void(const std::string&, const ClassRewrite&)> on_class;
};

struct ClassFailure {
  std::string entry;   // where the class came from ("app.jar!/org/Foo.class")
  std::string reason;  // the Error message; the class was copied unchanged
};

struct InstrumentSummary {
  size_t classes_seen = 0;
  size_t classes_rewritten = 0;
  size_t classes_unchanged = 0;  // excluded, or nothing to instrument
  size_t classes_excluded = 0;
  std::vector<ClassFailure> failures;  // could not be rewritten: copied unchanged
  size_t nested_jars = 0;
  size_t signature_files_removed = 0;  // jar signatures are stripped (the classes change)
  // Jars with a launcher script before the zip (executable jars): the output keeps the script.
  size_t launcher_prefixes_kept = 0;
  // Entries whose name a later entry repeats, left out: the JVM reads only the last of a name.
  size_t duplicate_entries_dropped = 0;
  std::map<std::string, size_t> methods_by_transform;  // "full" -> 120, "unchanged" -> 4
  std::map<std::string, size_t> fallbacks_by_reason;   // short reason -> count
  uint64_t class_bytes_before = 0;                     // of the classes rewritten
  uint64_t class_bytes_after = 0;  // twin classes included (RewriteOptions::lazy_twins)
  size_t twin_classes = 0;         // written beside their classes (lazy twins)
  size_t twins_moved = 0;          // twins in those classes
  std::map<std::string, size_t> twins_kept_by_reason;  // lazy twins that stayed, and why
  // Classes that now declare the serialVersionUID serialization computed for the original,
  // which the members the rewrite added would have changed (ClassRewrite).
  size_t serial_versions_declared = 0;
  size_t index_classes = 0;  // in the class index built for lazy twins (JDK classes included)
  std::vector<std::string> index_notes;  // what the index could not read (a JDK without jmods)
  double seconds = 0;
};

// Rewrites a jar (including nested jars and multi-release entries), a directory tree or a
// single .class file into `output` (the same kind). Fails, writing nothing, on an unreadable
// input, a single .class file that is not a class file, an output that cannot be written, or
// a class that duplex already rewrote. (A jar's or directory's class that cannot be read or
// rewritten is copied unchanged and listed in `failures`.) The classes of a jar or directory
// holding a module-info.class where their packages start get RewriteOptions::in_named_module
// (unless rewrite sets its own), so that they run from the module path too.
Result<InstrumentSummary> instrument_path(const std::string& input, const std::string& output,
                                          const InstrumentOptions& options);

// True if a dotted class name passes the include and exclude globs.
bool class_selected(std::string_view dotted_name, const InstrumentOptions& options);
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace duplex
