// Rewrites one method: picks the transform (with fallbacks), builds and assembles the code,
// and installs it in the class.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "rewriter/rewriter.h"

namespace duplex {

class ClassCounters;
class MethodCounters;
class SampledCalls;

// An invoke instruction of a rewritten method: where it is now and where it was.
struct CallSite {
  uint32_t rewritten_offset = 0;
  int32_t original_offset = -1;
  int32_t line = -1;
};

// A method the rewrite adds to the class (an outlined twin), with its invoke sites.
struct AddedMethod {
  uint16_t access_flags = 0;
  std::string name;
  std::string descriptor;
  std::vector<uint8_t> code_attribute;  // the Code attribute body
  std::vector<CallSite> calls;
};

struct MethodOutcome {
  MethodReport report;
  std::vector<CallSite> calls;  // empty unless the method changed
  std::optional<AddedMethod> added;
  std::vector<SiteRecord> sites;  // the instrumented points (indices assigned by the caller)
  // Set when the method is malformed (code the JVM would refuse): the whole class must then
  // be left as it is, since a rewrite could repair it or change how the JVM fails.
  std::optional<Error> malformed;
};

// Never fails: a method that cannot be rewritten is left unchanged, with the reason, and a
// malformed one is also reported in `malformed`.
// `twin_names` collects the outlined twins' names + descriptors across the class's methods.
// `counters`: the class's own event counters (rewriter/class_counters.h), or null.
// `sampled_calls`: the class's sampled-call sites (rewriter/sampled_calls.h), or null.
// `method_counters`: the class's method counters (RewriteOptions::method_counters), or null.
// `record_calls`: fill MethodOutcome::calls and AddedMethod::calls (only site tables read them:
// walks_stack), which costs a line table and two vectors per method otherwise.
MethodOutcome rewrite_method(ClassFile& cf, Member& method, const RewriteOptions& options,
                             std::set<std::string>& twin_names, ClassCounters* counters = nullptr,
                             SampledCalls* sampled_calls = nullptr, bool record_calls = true,
                             const std::set<std::string>* quiet_methods = nullptr,
                             MethodCounters* method_counters = nullptr);

// The invoke instructions of code the rewrite leaves as it was (their offsets unchanged, so
// rewritten_offset is the original one), with their source lines: a <clinit> that only gets a
// prefix still moves by it, and the site table must say where its calls went.
std::vector<CallSite> call_sites_as_parsed(const CodeIR& ir);

// True when an instrumentation finds callers on the stack (call-edge-stack), whose bcis the
// runtime maps back through the class's site tables.
bool walks_stack(const RewriteOptions& options);

}  // namespace duplex
