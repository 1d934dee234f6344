// The agent's process-wide state, shared by its JVMTI callbacks (agent.cpp, class_hook.cpp,
// native_stack.cpp). One agent per JVM: Agent_OnLoad fills it, the callbacks read it.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "rewriter/rewriter.h"
#include "runtime/agent/agent_options.h"
#include "runtime/agent/ahead.h"
#include "runtime/agent/class_cache.h"

namespace duplex::agent {

// A class rewritten in ClassFileLoadHook whose ClassPrepare has not been seen yet: its site
// tables go to Duplex.register when it is prepared (never from inside the hook).
struct PendingClass {
  jweak loader = nullptr;  // null for the bootstrap loader
  std::vector<std::string> site_tables;
};

struct Stats {
  std::atomic<uint64_t> rewritten{0};  // classes whose bytes changed
  std::atomic<uint64_t> unchanged{0};  // went through the rewriter, nothing to instrument
  std::atomic<uint64_t> failed{0};     // could not be rewritten: loaded unchanged
  std::atomic<uint64_t> skipped{0};    // not selected (filters, JDK, runtime, unnamed)
  std::atomic<uint64_t> total_ns{0};   // time spent in the rewriter (and cache), all classes
  // The same as the hooks' threads' CPU time: total_ns without the time a hook waited for a
  // core (on a busy machine the JIT's threads compete with class loading).
  std::atomic<uint64_t> total_cpu_ns{0};
  std::atomic<uint64_t> cache_hits{0};    // classes whose rewrite came from cache=DIR
  std::atomic<uint64_t> cache_misses{0};  // classes rewritten with cache=DIR (then stored)
  std::atomic<uint64_t> cache_store_failures{0};
  std::atomic<uint64_t> max_ns{0};
  std::atomic<uint64_t> registered{0};  // classes whose site tables reached the runtime
  std::atomic<uint64_t> restored{0};    // classes retransformed back by stop
  std::atomic<uint64_t> stop_ns{0};     // how long stop took
  std::mutex slowest_mu;
  std::string slowest;  // guarded by slowest_mu
};

struct State {
  jvmtiEnv* jvmti = nullptr;
  AgentOptions options;
  RewriteOptions rewrite;
  std::optional<ClassCache> cache;  // cache=DIR, when usable
  // ahead=true, when the class path could be read. Never deleted: the JVM may exit without
  // VMDeath, and a destructor must not run under a thread still rewriting.
  AheadRewriter* ahead = nullptr;

  std::atomic<bool> live{false};     // VMInit done, runtime loaded: rewrite
  std::atomic<bool> stopped{false};  // stop requested: pass every class through unchanged
  std::atomic<bool> dead{false};     // VMDeath seen

  // Set in VMInit (global references).
  jclass duplex_class = nullptr;
  jmethodID register_mid = nullptr;
  jmethodID set_interval_mid = nullptr;
  jobject platform_loader = nullptr;
  jobject duplex_module = nullptr;  // the bootstrap loader's unnamed module (Java 9+)
  std::string jar_path;             // temporary copy of the runtime jar until VMInit
  // Whether twins are kept out of inlining (twin_inlining.h): "added", or why not. Set in
  // VMInit, before `live`.
  std::string twin_directive;

  std::mutex mu;  // guards the members below
  std::unordered_multimap<std::string, PendingClass> pending;
  std::unordered_set<std::string> rewritten_names;  // internal names, for stop
  std::vector<jobject> modules_reading;             // named modules already reading duplex
  std::atomic<size_t> pending_count{0};

  Stats stats;
};

State& state();

// One line on stderr, prefixed "duplex agent: ". Written with one call, so lines from
// concurrent threads do not interleave.
void log_line(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline bool log_on(LogLevel level) {
  return state().options.log >= level;
}

// Whether the hook would rewrite a class of this internal name, judged by the name alone (the
// loader's part of the rules is the hook's): class_hook.cpp.
bool selected_by_name(const std::string& internal_name);
// A class's rewrite as the hook makes it, from cache=DIR or the rewriter (stored in the cache
// when made), without the hook's statistics; nullopt if it cannot be rewritten.
std::optional<CachedRewrite> produce_rewrite(std::span<const uint8_t> bytes);

// ClassFileLoadHook and ClassPrepare (class_hook.cpp).
void JNICALL on_class_file_load(jvmtiEnv* jvmti, JNIEnv* jni, jclass class_being_redefined,
                                jobject loader, const char* name, jobject protection_domain,
                                jint class_data_len, const unsigned char* class_data,
                                jint* new_class_data_len, unsigned char** new_class_data);
void JNICALL on_class_prepare(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jclass klass);

// Registers Duplex.callerSite0 (native_stack.cpp). False on failure.
bool register_native_stack(JNIEnv* jni);

// Clears a pending Java exception, logging it at debug level. True if there was one.
bool clear_exception(JNIEnv* jni, const char* what);

// Writes `data` to a new file of $TMPDIR (else /tmp), mode 0600, named after `name_pattern`,
// whose last run of X's mkstemps replaces ("duplex-runtime-XXXXXX.jar"). Its path, or "" on
// failure (errno says why).
std::string write_private_temp_file(std::string_view name_pattern,
                                    std::span<const unsigned char> data);

}  // namespace duplex::agent
