// rewrite_class: every method through rewrite_method, then the site registration and the
// marker attribute, then the class bytes.
#include <optional>
#include <set>
#include <string>

#include "classfile/class_file.h"
#include "classfile/pool_use.h"
#include "rewriter/class_counters.h"
#include "rewriter/method_counters.h"
#include "rewriter/method_rewriter.h"
#include "rewriter/module_reads.h"
#include "rewriter/outline_layout.h"
#include "rewriter/quiet_methods.h"
#include "rewriter/rewriter.h"
#include "rewriter/runtime_api.h"
#include "rewriter/sampled_calls.h"
#include "rewriter/serial_version_kept.h"
#include "rewriter/site_registration.h"
#include "rewriter/twin_nest.h"

namespace duplex {
namespace {

bool has_code(const Member& m) {
  return (m.access_flags & (access::kAbstract | access::kNative)) == 0;
}

// HotSpot refuses a native or abstract method that has a Code attribute (JVMS 4.7.3) with a
// ClassFormatError. Such a method is never rewritten, but the class must then be refused as a
// whole too: like a malformed method, the output would fail just as the input does, only
// after other methods were rewritten for nothing, and rewriting is not to blur that.
std::optional<Error> code_in_codeless_method(const ClassFile& cf, const Member& m) {
  if (has_code(m)) return std::nullopt;
  const Attribute* code = cf.find_attribute(m.attributes, "Code");
  if (code == nullptr) return std::nullopt;
  Error e = Error::at_file(static_cast<int64_t>(cf.file_offset_of(code->data)),
                           "Code attribute in a native or abstract method (JVMS 4.7.3)");
  e.in(cf.name(), std::string(cf.member_name(m)) + std::string(cf.member_descriptor(m)));
  return e;
}

Status add_marker(ClassFile& cf) {
  auto name = cf.pool.add_utf8(runtime_api::kMarkerAttribute);
  if (!name) return name.error();
  Attribute marker;
  marker.name_index = *name;
  marker.set_data({0, 1});  // format version 1
  cf.attributes.push_back(std::move(marker));
  return Ok{};
}

bool is_runtime_class(const std::string& name) {
  return name.rfind(runtime_api::kPackagePrefix, 0) == 0;
}

Status append_twins(ClassFile& cf, std::vector<AddedMethod>& twins) {
  for (AddedMethod& twin : twins) {
    if (auto s =
            cf.append_method(twin.access_flags, twin.name, twin.descriptor, twin.code_attribute);
        !s) {
      return s;
    }
  }
  return Ok{};
}

// The class counters' first-use path (ClassCounters: it holds the table that names every
// slot, most of the strings the rewriter adds to a class) goes with the twins when they have
// somewhere to go: events run in sampled code, so a class that never samples never needs it.
// It is judged and moved as a twin is; the host's accessor then calls it in the twin class.
// Only the methods after the class's own `original_methods` are looked at: a method of that
// name the class came with is not the rewriter's.
void take_counters_table(ClassFile& cf, size_t original_methods, std::vector<AddedMethod>& twins) {
  if (twins.empty() || original_methods > cf.methods.size()) return;
  for (auto m = cf.methods.begin() + static_cast<ptrdiff_t>(original_methods);
       m != cf.methods.end(); ++m) {
    if (cf.member_name(*m) != kCountsInit || m->attributes.size() != 1) continue;
    const Attribute& code = m->attributes.front();
    if (cf.attribute_name(code) != "Code") return;
    AddedMethod init;
    init.access_flags = m->access_flags;
    init.name = kCountsInit;
    init.descriptor = std::string(cf.member_descriptor(*m));
    init.code_attribute.assign(code.data.begin(), code.data.end());
    cf.methods.erase(m);
    twins.push_back(std::move(init));
    return;
  }
}

// The entries the rewriter added for code that has moved to the twin class (call-site keys,
// the events' member references: about half of a rewritten class's bytes in Full mode) become
// empty placeholders, so that the JVM does not parse them with every class that never samples.
// Indices stay as they are; entries the class was parsed with stay whatever happens.
void drop_entries_only_twins_use(ClassFile& cf) {
  const std::string_view marker[] = {runtime_api::kMarkerAttribute};
  if (auto used = pool_entries_used_since(cf, cf.parsed_pool_count(), marker))
    cf.pool.keep_only(*used);
}

// A <clinit> the rewrite left as it was still moves by the prefix put before it (the site
// table's registration, the module-reads prologue): its call sites go in the table at their
// offsets as parsed, which site_table_parts shifts, or the runtime would take their moved
// bcis for original ones.
Status list_unchanged_clinit_calls(ClassFile& cf, std::vector<MethodCalls>& calls) {
  const Member* clinit = find_clinit(cf);
  if (clinit == nullptr || !has_code(*clinit)) return Ok{};
  auto ir = build_code_ir(cf, *clinit);
  if (!ir) return ir.error();
  std::vector<CallSite> sites = call_sites_as_parsed(ir.value());
  if (!sites.empty()) calls.push_back({"<clinit>()V", std::move(sites)});
  return Ok{};
}

// RewriteOptions::in_named_module: the <clinit> prologue that makes the class's module read the
// runtime's, or none. A class that needs one and cannot have it is not rewritten: it would fail
// at its first check.
Result<ClinitLead> module_reads_lead(ClassFile& cf, const RewriteOptions& options,
                                     std::string_view class_name) {
  if (!options.in_named_module || !options.in_named_module(class_name)) return ClinitLead{};
  auto refs = module_reads_refs(cf, options.runtime_class);
  if (!refs) {
    return Error::plain(
        "it may run in a named module, whose code cannot reach the runtime "
        "without a read added first: " +
        refs.error().message());
  }
  return ClinitLead{refs.value()};
}

// What goes at the start of <clinit>: the module-reads prologue (RewriteOptions::
// in_named_module), then the registration of the site table `calls` make; or, for a caller that
// registers the table itself, the table alone, at the offsets the prologue gives <clinit>.
Status add_clinit_prefix(ClassFile& cf, const RewriteOptions& options, bool record_calls,
                         bool clinit_written, std::vector<MethodCalls>& calls,
                         ClassRewrite& result) {
  auto lead = module_reads_lead(cf, options, result.class_name);
  if (!lead) return lead.error();
  const bool prefixed = (!calls.empty() && options.register_sites_in_clinit) || lead->module_reads;
  if (record_calls && prefixed && !clinit_written) {
    if (auto s = list_unchanged_clinit_calls(cf, calls); !s) return s;
  }
  if (!calls.empty() && !options.register_sites_in_clinit) {
    result.site_tables = site_table_parts(result.class_name, calls, lead->bytes());
  } else if (!calls.empty()) {
    auto s = add_site_registration(cf, calls, options.runtime_class, clinit_written, *lead,
                                   result.site_tables);
    if (s) return Ok{};  // the prologue went in with it
    result.notes.push_back("call sites in this class are reported at rewritten offsets: " +
                           s.error().message());
  }
  if (!lead->module_reads) return Ok{};
  return prepend_to_clinit(cf, {}, *lead, clinit_written);
}

// RewriteOptions::lazy_twins: why the class keeps all its twins (then it is written exactly as
// without lazy twins), or nullopt and, in `plan`, how its twin class reaches it. Decided before
// the class gets its other members, none of which changes the answer.
std::optional<std::string> lazy_twins_refused(const ClassFile& cf, const RewriteOptions& options,
                                              size_t twins, TwinClassPlan& plan,
                                              ClassRewrite& result) {
  std::optional<std::string> refused;
  if (options.twin_class_veto) refused = options.twin_class_veto(result.class_name);
  if (!refused) refused = twin_class_refused(cf, options.lazy_twins_raise_version, plan);
  if (!refused && options.class_index) refused = superclasses_unknown(cf, *options.class_index);
  if (refused) {
    result.notes.push_back("lazy twins: " + *refused);
    result.twins_kept[refused->substr(0, refused->find(':'))] += twins;
  } else if (plan.not_raised) {
    result.notes.push_back("lazy twins: " + *plan.not_raised +
                           "; it keeps its version, and its twin class reaches its private "
                           "members through bridges");
  }
  return refused;
}

// RewriteOptions::lazy_twins, in a class that may have a twin class (placed as `plan` says):
// the twins that may leave go there, the others stay (with a note saying why).
Status place_twins_lazily(ClassFile& cf, const TwinClassPlan& plan, std::vector<AddedMethod>& twins,
                          const ClassIndex* index, ClassRewrite& result) {
  std::vector<MovingTwin> moving;
  std::vector<AddedMethod> staying;
  take_counters_table(cf, plan.original_methods, twins);
  std::vector<TwinVerdict> verdicts = judge_twins(cf, twins, index, plan);
  for (size_t i = 0; i < twins.size(); ++i) {
    const bool table = twins[i].name == kCountsInit;  // not a twin: not counted as one
    if (const auto& why = verdicts[i].stays) {
      result.notes.push_back("lazy twins: " + twins[i].name + twins[i].descriptor +
                             " stays in the class: " + *why);
      if (!table) ++result.twins_kept[*why];
      staying.push_back(std::move(twins[i]));
    } else {
      result.twins_moved += table ? 0 : 1;
      moving.push_back({std::move(twins[i]), std::move(verdicts[i].bridges)});
    }
  }
  if (auto s = append_twins(cf, staying); !s) return s;
  if (moving.empty()) return Ok{};
  auto twin_class = move_twins_to_twin_class(cf, std::move(moving), plan);
  if (!twin_class) return twin_class.error();
  result.twin_class_name = result.class_name + kTwinClassSuffix;
  result.twin_class = std::move(twin_class.value());
  drop_entries_only_twins_use(cf);
  return Ok{};
}

}  // namespace

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::kFull:
      return "full";
    case Mode::kPartial:
      return "partial";
    case Mode::kNoDup:
      return "nodup";
    case Mode::kExhaustive:
      return "exhaustive";
    case Mode::kChecksOnly:
      return "checks";
    case Mode::kAuto:
      return "auto";
  }
  return "?";
}

const char* transform_name(Transform t) {
  switch (t) {
    case Transform::kUnchanged:
      return "unchanged";
    case Transform::kFull:
      return "full";
    case Transform::kPartial:
      return "partial";
    case Transform::kNoDup:
      return "nodup";
    case Transform::kExhaustive:
      return "exhaustive";
    case Transform::kChecksOnly:
      return "checks";
  }
  return "?";
}

Result<Mode> parse_mode(std::string_view text) {
  for (Mode m : {Mode::kFull, Mode::kPartial, Mode::kNoDup, Mode::kExhaustive, Mode::kChecksOnly,
                 Mode::kAuto}) {
    if (text == mode_name(m)) return m;
  }
  return Error::plain("unknown mode '" + std::string(text) +
                      "' (expected full, partial, nodup, exhaustive, checks or auto)");
}

const char* check_form_name(CheckForm form) {
  switch (form) {
    case CheckForm::kCall:
      return "call";
    case CheckForm::kInline:
      return "inline";
    case CheckForm::kLocal:
      return "local";
  }
  return "?";
}

Result<CheckForm> parse_check_form(std::string_view text) {
  for (CheckForm f : {CheckForm::kCall, CheckForm::kInline, CheckForm::kLocal}) {
    if (text == check_form_name(f)) return f;
  }
  return Error::plain("unknown check '" + std::string(text) + "' (expected call, inline or local)");
}

bool is_rewritten(const ClassFile& cf) {
  return cf.find_attribute(cf.attributes, runtime_api::kMarkerAttribute) != nullptr;
}

std::optional<std::string> method_counters_unsupported(const RewriteOptions& options) {
  if (!options.method_counters) return std::nullopt;
  if (!options.outline || options.hand_back)
    return "method counters need the outline layout (not inline or handback)";
  if (options.check == CheckForm::kLocal)
    return "method counters cannot be combined with loop budgets (check form local)";
  return std::nullopt;
}

std::optional<std::string> stripe_in_local_unsupported(const RewriteOptions& options) {
  if (!options.stripe_in_local || (options.outline && !options.hand_back)) return std::nullopt;
  return "the stripe in a local needs the outline layout's exit checks (not inline or handback)";
}

Result<ClassRewrite> rewrite_class(std::span<const uint8_t> class_bytes,
                                   const RewriteOptions& options) {
  if (auto why = method_counters_unsupported(options)) return Error::plain(*why);
  if (auto why = stripe_in_local_unsupported(options)) return Error::plain(*why);
  auto parsed = ClassFile::parse(class_bytes);
  if (!parsed) return parsed.error();
  ClassFile& cf = parsed.value();
  ClassRewrite result;
  result.class_name = cf.name();
  if (is_rewritten(cf)) {
    return Error::plain("already rewritten by duplex; rewrite the original class instead")
        .in(result.class_name);
  }
  if (!is_binary_class_name(result.class_name)) {
    // The JVM refuses the class; and the descriptors built from its name would not parse.
    return Error::plain("the class name is not a valid binary name (JVMS 4.2.1)")
        .in(result.class_name);
  }
  if (is_runtime_class(result.class_name) || result.class_name == options.runtime_class) {
    result.notes.push_back("the duplex runtime is never instrumented");
    return result;
  }
  // Taken before any edit: what the class's default serialVersionUID is computed from.
  const SerialVersionBefore serial_before = note_serial_version(cf);
  TwinClassPlan twin_plan;  // RewriteOptions::lazy_twins
  twin_plan.original_fields = cf.fields.size();
  twin_plan.original_methods = cf.methods.size();
  std::vector<MethodCalls> calls;
  bool clinit_written = false;     // <clinit> was rewritten (site registration reads it again)
  std::vector<AddedMethod> added;  // appended after the loop: it holds references into methods
  std::set<std::string> twin_names;
  take_existing_twin_names(cf, twin_names);
  ClassCounters counters = ClassCounters::for_class(cf, options.runtime_class);
  std::optional<MethodCounters> method_counters;
  if (options.method_counters) method_counters.emplace(MethodCounters::for_class(cf));
  std::optional<SampledCalls> sampled_calls;
  if (options.caller_sampled_max_bytes > 0 && options.outline) {
    auto calls = SampledCalls::for_class(cf, options.runtime_class);
    if (!calls) return calls.error().in(result.class_name);
    sampled_calls.emplace(std::move(calls.value()));
  }
  // Only edges found on the stack (call-edge-stack) map a caller's bci through the tables.
  const bool record_calls = walks_stack(options);
  // Loop budgets (CheckForm::kLocal in the default layout) stay exact across calls to these.
  std::set<std::string> quiet;
  if (options.check == CheckForm::kLocal && options.outline && !options.hand_back)
    quiet = quiet_methods(cf, options);
  for (Member& m : cf.methods) {
    if (auto bad = code_in_codeless_method(cf, m)) return std::move(*bad);
    if (!has_code(m)) continue;
    MethodOutcome outcome = rewrite_method(cf, m, options, twin_names, &counters,
                                           sampled_calls ? &*sampled_calls : nullptr, record_calls,
                                           &quiet, method_counters ? &*method_counters : nullptr);
    // One malformed method and the JVM refuses the class (at definition or verification):
    // it is left exactly as it is, so that it fails just as it would without duplex.
    if (outcome.malformed) return std::move(*outcome.malformed);
    if (outcome.added) {
      AddedMethod& twin = *outcome.added;
      if (!twin.calls.empty())
        calls.push_back(
            {twin.name + twin.descriptor, std::move(twin.calls), outcome.report.method});
      added.push_back(std::move(twin));
    }
    for (SiteRecord& s : outcome.sites) {
      s.index = static_cast<uint32_t>(result.sites.size());
      result.sites.push_back(std::move(s));
    }
    if (outcome.report.applied != Transform::kUnchanged) {
      result.changed = true;
      if (cf.member_name(m) == "<clinit>" && cf.member_descriptor(m) == "()V")
        clinit_written = true;
      if (!outcome.calls.empty())
        calls.push_back({outcome.report.method, std::move(outcome.calls)});
    }
    result.methods.push_back(std::move(outcome.report));
  }
  if (!result.changed) return result;
  // Lazy twins are sorted once the class has every other member (install_members).
  bool lazy = options.lazy_twins && options.outline && !added.empty();
  if (lazy && lazy_twins_refused(cf, options, added.size(), twin_plan, result)) lazy = false;
  if (!lazy) {
    if (auto s = append_twins(cf, added); !s) return s.error().in(result.class_name);
  }
  if (auto s = counters.install(cf); !s) return s.error().in(result.class_name);
  if (method_counters) {
    if (auto s = method_counters->install(cf); !s) return s.error().in(result.class_name);
  }
  if (sampled_calls) {
    if (auto s = sampled_calls->install(cf); !s) return s.error().in(result.class_name);
  }
  if (auto s = add_clinit_prefix(cf, options, record_calls, clinit_written, calls, result); !s)
    return s.error().in(result.class_name);
  if (auto s = add_marker(cf); !s) return s.error().in(result.class_name);
  if (lazy) {
    if (auto s = place_twins_lazily(cf, twin_plan, added, options.class_index, result); !s)
      return s.error().in(result.class_name);
  }
  auto serial_version = keep_serial_version(serial_before, class_bytes, cf);
  if (!serial_version) return serial_version.error().in(result.class_name);
  result.serial_version_declared = *serial_version;
  auto bytes = cf.write();
  if (!bytes) return bytes.error().in(result.class_name);
  result.bytes = std::move(bytes.value());
  return result;
}

}  // namespace duplex
