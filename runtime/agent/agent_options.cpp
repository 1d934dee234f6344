#include "runtime/agent/agent_options.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <set>

namespace duplex::agent {
namespace {

bool parse_int64(const std::string& v, int64_t min, int64_t max, int64_t& out) {
  if (v.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long long n = std::strtoll(v.c_str(), &end, 10);
  if (errno != 0 || end != v.c_str() + v.size() || n < min || n > max) return false;
  out = n;
  return true;
}

bool parse_fraction(const std::string& v) {
  if (v.empty()) return false;
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  return end == v.c_str() + v.size() && d >= 0.0 && d <= 1.0;  // rejects NaN
}

bool one_of(const std::string& v, std::initializer_list<const char*> choices) {
  for (const char* c : choices) {
    if (v == c) return true;
  }
  return false;
}

bool parse_bool(const std::string& v, bool& out) {
  if (v == "true") return out = true, true;
  if (v == "false") return out = false, true;
  return false;
}

// The runtime settings the agent forwards as duplex.<name>, with Options.java's rules.
// Returns nullptr if the value is fine, else what was expected.
const char* check_runtime_value(const std::string& key, const std::string& v, bool& known) {
  known = true;
  int64_t n = 0;
  if (key == "interval") return parse_int64(v, 0, INT_MAX - 1, n) ? nullptr : "an integer >= 0";
  if (key == "jitter") return parse_fraction(v) ? nullptr : "a fraction 0..1";
  if (key == "burst") return parse_int64(v, 1, 1000000, n) ? nullptr : "an integer 1..1000000";
  if (key == "seed") return parse_int64(v, LLONG_MIN, LLONG_MAX, n) ? nullptr : "a long";
  if (key == "trigger") return one_of(v, {"counter", "timer"}) ? nullptr : "counter or timer";
  if (key == "timerMs") return parse_int64(v, 1, INT_MAX, n) ? nullptr : "an integer >= 1";
  if (key == "counter") return one_of(v, {"global", "striped"}) ? nullptr : "global or striped";
  if (key == "dumpMs") return parse_int64(v, 0, LLONG_MAX, n) ? nullptr : "an integer >= 0";
  if (key == "countChecks") return one_of(v, {"true", "false"}) ? nullptr : "true or false";
  if (key == "warmupMs") return parse_int64(v, 0, LLONG_MAX, n) ? nullptr : "an integer >= 0";
  if (key == "warmupInterval")
    return parse_int64(v, 1, INT_MAX - 1, n) ? nullptr : "an integer >= 1";
  if (key == "out") return v.empty() ? "a path" : nullptr;
  known = false;
  return nullptr;
}

bool bad(std::string& error, const std::string& key, const std::string& value,
         const std::string& expected) {
  error = "duplex agent: bad value for option " + key + ": \"" + value + "\" (expected " +
          expected + ")";
  return false;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return parts;
}

bool apply(const std::string& key, const std::string& v, AgentOptions& o, std::string& error) {
  if (key == "include" || key == "exclude") {
    if (v.empty()) return bad(error, key, v, "a class-name glob such as org.h2.*");
    (key == "include" ? o.include : o.exclude).push_back(v);
    return true;
  }
  if (key == "mode") {
    auto m = parse_mode(v);
    if (!m) return bad(error, key, v, "full, partial, nodup, exhaustive, checks or auto");
    o.mode = m.value();
    o.mode_text = v;
    o.runtime_properties.emplace_back("mode", v);
    return true;
  }
  if (key == "profile") {
    o.profile.clear();
    for (const std::string& name : split(v, '+')) {
      if (!make_builtin_instrumentation(name)) {
        return bad(error, key, v, "call-edge, call-edge-stack, field-access, joined by '+'");
      }
      o.profile.push_back(name);
    }
    o.profile_text = v;
    o.runtime_properties.emplace_back("profile", v);
    return true;
  }
  if (key == "jdk") return parse_bool(v, o.jdk) || bad(error, key, v, "true or false");
  if (key == "layout") {
    // No `inline`: `stop` restores the original bodies and keeps the added methods, which
    // needs the duplicated code outside them.
    if (!one_of(v, {"outline", "handback"})) return bad(error, key, v, "outline or handback");
    o.hand_back = v == "handback";
    return true;
  }
  if (key == "check") {
    auto form = parse_check_form(v);
    if (!form) return bad(error, key, v, "call, inline or local");
    o.check = form.value();
    return true;
  }
  if (key == "flagCheckBytes" || key == "callerSampledBytes") {
    int64_t n = 0;
    if (!parse_int64(v, 0, 65535, n)) return bad(error, key, v, "a byte count 0..65535");
    (key == "flagCheckBytes" ? o.flag_check_max_bytes : o.caller_sampled_max_bytes) =
        static_cast<uint32_t>(n);
    return true;
  }
  if (key == "methodCounters") {
    return parse_bool(v, o.method_counters) || bad(error, key, v, "true or false");
  }
  if (key == "stripeInLocal") {
    return parse_bool(v, o.stripe_in_local) || bad(error, key, v, "true or false");
  }
  if (key == "countEdges") {
    return parse_bool(v, o.count_edges) || bad(error, key, v, "true or false");
  }
  if (key == "nativeStack") {
    return parse_bool(v, o.native_stack) || bad(error, key, v, "true or false");
  }
  if (key == "inlineTwins") {
    return parse_bool(v, o.inline_twins) || bad(error, key, v, "true or false");
  }
  if (key == "ahead") return parse_bool(v, o.ahead) || bad(error, key, v, "true or false");
  if (key == "aheadLead") {
    int64_t n = 0;
    if (!parse_int64(v, 0, 1000000, n)) return bad(error, key, v, "a class count 0..1000000");
    o.ahead_lead = static_cast<uint32_t>(n);
    return true;
  }
  if (key == "cache") {
    if (v.empty()) return bad(error, key, v, "a directory");
    o.cache_dir = v;
    return true;
  }
  if (key == "stop") {
    o.stop_ms = parse_duration_ms(v);
    if (o.stop_ms < 0) return bad(error, key, v, "a duration such as 500ms, 30s, 2m or 1h");
    return true;
  }
  if (key == "log") {
    if (v == "quiet")
      o.log = LogLevel::kQuiet;
    else if (v == "info")
      o.log = LogLevel::kInfo;
    else if (v == "debug")
      o.log = LogLevel::kDebug;
    else
      return bad(error, key, v, "quiet, info or debug");
    o.runtime_properties.emplace_back("log", v);
    return true;
  }
  bool known = false;
  if (const char* expected = check_runtime_value(key, v, known))
    return bad(error, key, v, expected);
  if (known) {
    o.runtime_properties.emplace_back(key, v);
    return true;
  }
  error = "duplex agent: unknown option \"" + key + "\" (known: " + agent_options_help() + ")";
  return false;
}

}  // namespace

int64_t parse_duration_ms(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 12) return -1;
  int64_t n = std::strtoll(text.substr(0, digits).c_str(), nullptr, 10);
  std::string unit = text.substr(digits);
  if (unit == "ms") return n;
  if (unit == "s") return n * 1000;
  if (unit == "m") return n * 60 * 1000;
  if (unit == "h") return n * 3600 * 1000;
  return -1;
}

const char* agent_options_help() {
  return "mode, profile, include, exclude, jdk, stop, log, interval, jitter, burst, seed, trigger, "
         "timerMs, counter, countChecks, dumpMs, warmupMs, warmupInterval, out, countEdges, "
         "nativeStack, ahead, aheadLead, "
         "cache, layout, check, flagCheckBytes, callerSampledBytes, methodCounters, stripeInLocal, "
         "inlineTwins";
}

bool parse_agent_options(const char* text, AgentOptions& out, std::string& error) {
  AgentOptions o;
  std::set<std::string> seen;
  std::string all = text ? text : "";
  if (!all.empty()) {
    for (const std::string& item : split(all, ',')) {
      size_t eq = item.find('=');
      if (item.empty() || eq == std::string::npos || eq == 0) {
        error = "duplex agent: bad option \"" + item + "\" (expected key=value)";
        return false;
      }
      std::string key = item.substr(0, eq);
      std::string value = item.substr(eq + 1);
      bool repeatable = key == "include" || key == "exclude";
      if (!repeatable && !seen.insert(key).second) {
        error = "duplex agent: option " + key + " given twice";
        return false;
      }
      if (!apply(key, value, o, error)) return false;
    }
  }
  // The rewriter's own rule, on the options the agent rewrites with (always outlined).
  RewriteOptions rewrite;
  rewrite.hand_back = o.hand_back;
  rewrite.check = o.check;
  rewrite.method_counters = o.method_counters;
  if (auto why = method_counters_unsupported(rewrite)) {
    error = "duplex agent: methodCounters=true: " + *why;
    return false;
  }
  rewrite.stripe_in_local = o.stripe_in_local;
  if (auto why = stripe_in_local_unsupported(rewrite)) {
    error = "duplex agent: stripeInLocal=true: " + *why;
    return false;
  }
  out = std::move(o);
  return true;
}

}  // namespace duplex::agent
