// The options of libduplexagent.so: `-agentpath:libduplexagent.so=key=value,key=value`.
//
// Parsing is strict: an unknown option, a bad value or a non-repeatable option given twice is
// an error whose message names it, and the agent then stops the JVM at startup. Runtime
// settings are validated here with the same rules as runtime/java/duplex/runtime/Options.java,
// so a wrong value is reported before the JVM runs any code, not at the runtime's class init.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "rewriter/rewriter.h"

namespace duplex::agent {

enum class LogLevel : uint8_t { kQuiet, kInfo, kDebug };

struct AgentOptions {
  Mode mode = Mode::kFull;
  std::string mode_text = "full";
  std::vector<std::string> profile = {"call-edge", "field-access"};
  std::string profile_text = "call-edge+field-access";
  // Dotted class-name globs (lib/duplex/instrument.h glob_match); excludes win.
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  bool jdk = false;  // also rewrite bootstrap and platform classes (never the runtime's own)
  LogLevel log = LogLevel::kQuiet;
  int64_t stop_ms = -1;      // stop=<duration>; -1 = never
  bool count_edges = false;  // rewriter test option: count entries and back edges
  // The rewriter's tuning options, as `duplex instrument` has them (--layout, --check,
  // --flag-check-bytes, --caller-sampled-bytes, --method-counters, --stripe-in-local).
  bool hand_back = false;  // layout=handback; the agent never uses the inline layout
  CheckForm check = CheckForm::kCall;
  uint32_t flag_check_max_bytes = RewriteOptions{}.flag_check_max_bytes;
  uint32_t caller_sampled_max_bytes = RewriteOptions{}.caller_sampled_max_bytes;
  bool method_counters = false;  // methodCounters=true: RewriteOptions::method_counters
  bool stripe_in_local = false;  // stripeInLocal=true: RewriteOptions::stripe_in_local
  bool native_stack = true;      // let the runtime find call-edge callers with JVMTI GetStackTrace
  // inlineTwins=true: leave HotSpot free to inline twins into their callers (no compiler
  // directive, runtime/agent/twin_inlining.h).
  bool inline_twins = false;
  // ahead=true: rewrite the application class path's classes on a background thread before
  // they load (runtime/agent/ahead.h).
  bool ahead = false;
  // aheadLead=N: how many of its rewrites may wait unused before the thread follows only the
  // classes that load (AheadRewriter's speculative_lead).
  uint32_t ahead_lead = 256;
  // cache=DIR: rewritten classes kept across runs (runtime/agent/class_cache.h); "" = none.
  std::string cache_dir;
  // duplex.<name> system properties for the Java runtime, in the order given.
  std::vector<std::pair<std::string, std::string>> runtime_properties;
};

// Parses the agent's option string (may be null or empty). On error returns false and sets
// `error` to one line naming the option.
bool parse_agent_options(const char* text, AgentOptions& out, std::string& error);

// "30s", "500ms", "2m", "1h" -> milliseconds; -1 if malformed.
int64_t parse_duration_ms(const std::string& text);

// Help text listing the options (one line each).
const char* agent_options_help();

}  // namespace duplex::agent
