// libFuzzer target over the sampling rewriter: rewrite_class() on any input, in a mode and
// with options chosen by the input's last bytes (so a saved input reproduces its run).
//
// What counts as a bug (the target aborts, so libFuzzer saves the input):
//  - a crash, hang, leak or sanitizer report anywhere in the rewriter or the class-file layer;
//  - a class the rewriter changed whose bytes do not parse, are not marked as rewritten, or
//    hold a method whose code does not build an IR again (the assembler wrote code its own
//    reader refuses);
//  - a method that is neither abstract nor native (one that has code, JVMS 4.7.3) without a
//    report, or a report too many (the runtime's own classes are not looked at);
//  - a rewritten class that rewrite_class() accepts again (it must refuse its own output).
// Errors returned as values (a malformed class or method refused) are fine. Whether HotSpot
// accepts the output is checked by the tests and bench/check_jars.py, not here: the fuzzer has
// no JVM.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "classfile/class_file.h"
#include "classfile/class_index.h"
#include "classfile/code_ir.h"
#include "rewriter/rewriter.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "duplex fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

// The options an input asks for: its last byte picks the mode and the check form, the one
// before it the layout switches, the third last whether the class is in a named module. Every
// field of RewriteOptions that changes the code emitted is reachable.
duplex::RewriteOptions options_for(std::span<const uint8_t> input) {
  static const duplex::Mode kModes[] = {duplex::Mode::kFull,       duplex::Mode::kPartial,
                                        duplex::Mode::kNoDup,      duplex::Mode::kExhaustive,
                                        duplex::Mode::kChecksOnly, duplex::Mode::kAuto};
  static const duplex::CheckForm kForms[] = {duplex::CheckForm::kCall, duplex::CheckForm::kInline,
                                             duplex::CheckForm::kLocal};
  uint8_t a = input.empty() ? 0 : input[input.size() - 1];
  uint8_t b = input.size() < 2 ? 0 : input[input.size() - 2];
  uint8_t c = input.size() < 3 ? 0 : input[input.size() - 3];
  duplex::RewriteOptions o;
  o.mode = kModes[a % 6];
  o.check = kForms[(a / 6) % 3];
  o.outline = (b & 1) == 0;
  o.hand_back = (b & 2) != 0;
  o.register_sites_in_clinit = (b & 4) == 0;
  o.list_sites = (b & 8) != 0;
  o.count_edges = (b & 16) != 0;
  o.caller_sampled_max_bytes = (b & 32) != 0 ? 325 : 0;
  o.flag_check_max_bytes = (b & 64) != 0 ? 0 : 325;
  o.respect_huge_method_limit = (b & 128) == 0;
  o.method_counters = ((a / 18) & 1) != 0;
  if (duplex::method_counters_unsupported(o)) o.method_counters = false;  // refused, not fuzzed
  o.lazy_twins = ((a / 36) & 1) != 0;
  o.lazy_twins_raise_version = ((a / 144) & 1) == 0;
  if ((c & 1) != 0) o.in_named_module = [](std::string_view) { return true; };
  o.stripe_in_local = (c & 2) != 0;
  if (duplex::stripe_in_local_unsupported(o)) o.stripe_in_local = false;  // refused, not fuzzed
  for (const char* name : {"call-edge", "field-access"}) {
    auto inst = duplex::make_builtin_instrumentation(name);
    if (!inst) fail("no built-in instrumentation", name);
    o.instrumentations.push_back(std::move(inst));
  }
  return o;
}

// A class the rewriter wrote parses, is marked, and every method's code builds an IR.
void check_class(const std::vector<uint8_t>& bytes, const std::string& name) {
  auto out = duplex::ClassFile::parse(bytes);
  if (!out) fail("rewritten class does not parse", out.error().message());
  if (!duplex::is_rewritten(out.value())) fail("rewritten class is not marked", name);
  for (const auto& m : out->methods) {
    if (out->find_attribute(m.attributes, "Code") == nullptr) continue;
    auto ir = duplex::build_code_ir(out.value(), m);
    if (!ir) fail("rewritten code does not build an IR", ir.error().message());
  }
}

void check_output(const duplex::ClassRewrite& r, const duplex::ClassFile& input,
                  const duplex::RewriteOptions& options) {
  size_t with_code = 0;
  for (const auto& m : input.methods)
    if ((m.access_flags & (duplex::access::kAbstract | duplex::access::kNative)) == 0) ++with_code;
  // The runtime's own classes are returned before any method is looked at, with a note.
  bool looked_at_methods = r.changed || !r.methods.empty() || r.notes.empty();
  if (looked_at_methods && r.methods.size() != with_code)
    fail("method reports do not match the methods", r.class_name);
  if (!r.changed) return;
  check_class(r.bytes, r.class_name);
  if (!r.twin_class.empty()) {  // lazy twins: the nestmate class holding the twins
    if (!options.lazy_twins) fail("a twin class without lazy twins", r.class_name);
    if (r.twin_class_name != r.class_name + duplex::kTwinClassSuffix)
      fail("the twin class is misnamed", r.twin_class_name);
    check_class(r.twin_class, r.twin_class_name);
  }
  if (duplex::rewrite_class(r.bytes, options)) fail("a rewritten class is rewritten again", "");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> input(data, size);
  auto cf = duplex::ClassFile::parse(input);
  if (!cf) return 0;  // the class-file target covers what the parser refuses
  duplex::RewriteOptions options = options_for(input);
  // Half the lazy-twin inputs judge their twins with a class index holding the class itself
  // (its superclass known only when it is java/lang/Object): the exact rules.
  duplex::ClassIndex index;
  if (options.lazy_twins && ((input[size - 1] / 72) & 1) != 0) {
    index.add(input);
    options.class_index = &index;
  }
  auto r = duplex::rewrite_class(input, options);
  if (!r) return 0;  // refused as a value: fine
  check_output(r.value(), cf.value(), options);
  return 0;
}
