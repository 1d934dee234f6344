// ClassFileLoadHook: rewrites selected classes with the C++ rewriter (fail-open: any class
// that cannot be rewritten loads unchanged), and ClassPrepare: hands each rewritten class's
// site tables to the runtime (Duplex.register). No Java code runs inside the hook; it runs
// concurrently on many threads, so shared state is behind State::mu or atomic.
#include <time.h>

#include <chrono>
#include <cstring>
#include <span>
#include <string>

#include "classfile/class_file.h"
#include "lib/duplex/instrument.h"
#include "rewriter/jdk_packages.h"
#include "rewriter/restore.h"
#include "runtime/agent/agent_state.h"

namespace duplex::agent {
namespace {

// Packages the runtime itself depends on (ThreadLocal, StackWalker, atomics, class loading):
// rewriting them would make the runtime call itself. Never rewritten, whatever the options.
constexpr const char* kNeverRewrite[] = {
    "java/lang/",  // includes java.lang.ref and java.lang.invoke
    "java/util/concurrent/",
    "jdk/internal/",
    "sun/",
    "duplex/runtime/",
};

bool starts_with_any(const std::string& name, std::span<const char* const> prefixes) {
  for (const char* p : prefixes) {
    if (name.rfind(p, 0) == 0) return true;
  }
  return false;
}

// Why a class of this name is not rewritten whoever loads it, or nullptr.
const char* name_rejection(const std::string& name) {
  State& s = state();
  if (starts_with_any(name, kNeverRewrite)) return "the runtime depends on it";
  // Packages only the JDK defines: left alone whoever loads them.
  if (!s.options.jdk && in_jdk_package(name)) return "JDK package (jdk=false)";
  std::string dotted = name;
  for (char& c : dotted) {
    if (c == '/') c = '.';
  }
  for (const std::string& g : s.options.exclude) {
    if (glob_match(g, dotted)) return "excluded";
  }
  if (s.options.include.empty()) return nullptr;
  for (const std::string& g : s.options.include) {
    if (glob_match(g, dotted)) return nullptr;
  }
  return "not included";
}

// Why a class is not rewritten, or nullptr if it is selected.
const char* rejection(JNIEnv* jni, const std::string& name, jobject loader) {
  State& s = state();
  if (!s.options.jdk) {
    if (!loader) return "bootstrap class (jdk=false)";
    if (s.platform_loader && jni->IsSameObject(loader, s.platform_loader)) {
      return "platform class (jdk=false)";
    }
  }
  return name_rejection(name);
}

uint64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

void record_time(const std::string& name, uint64_t ns, uint64_t cpu_ns) {
  Stats& st = state().stats;
  st.total_ns += ns;
  st.total_cpu_ns += cpu_ns;
  uint64_t prev = st.max_ns.load();
  while (ns > prev) {
    if (st.max_ns.compare_exchange_weak(prev, ns)) {
      std::lock_guard<std::mutex> lock(st.slowest_mu);
      if (st.max_ns.load() == ns) st.slowest = name;
      break;
    }
  }
}

// The class's name when the JVM gives none (hidden or VM-anonymous classes).
std::string name_from_bytes(std::span<const uint8_t> bytes) {
  auto cf = ClassFile::parse(bytes);
  return cf ? cf.value().name() : std::string();
}

// Whether the class is the output of duplex already (a jar `duplex instrument` rewrote, with its
// twin classes): the rewriter refuses such classes, and they run as they are. Asked only once a
// rewrite failed, so the common path parses the class once.
bool rewritten_offline(std::span<const uint8_t> bytes) {
  auto cf = ClassFile::parse(bytes);
  return cf && is_rewritten(cf.value());
}

// Hands JVMTI a copy of `bytes`; false (and a log line) when JVMTI has no memory for it.
bool hand_over(const std::string& name, const std::vector<uint8_t>& bytes, jint* new_len,
               unsigned char** new_data) {
  unsigned char* out = nullptr;
  if (state().jvmti->Allocate(static_cast<jlong>(bytes.size()), &out) != JVMTI_ERROR_NONE || !out) {
    log_line("cannot rewrite %s, loaded unchanged: out of memory", name.c_str());
    return false;
  }
  std::memcpy(out, bytes.data(), bytes.size());
  *new_data = out;
  *new_len = static_cast<jint>(bytes.size());
  return true;
}

// During stop's retransformation: the class's original method bodies, with the methods the
// rewrite added (outlined twins) kept, since a retransformation cannot remove methods. The
// rewrite is made again from the original bytes JVMTI hands the hook (it is deterministic).
// A class without added methods gets its original bytes as they are.
void restore(const std::string& name, std::span<const uint8_t> original, jint* new_len,
             unsigned char** new_data) {
  State& s = state();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (!s.rewritten_names.count(name)) return;
  }
  auto again = rewrite_class(original, s.rewrite);
  if (!again || !again->changed || again->bytes.empty()) return;
  bool added = false;
  for (const MethodReport& m : again->methods) added = added || m.twin_code_size > 0;
  if (!added) return;
  auto restored = restore_keeping_members(original, again->bytes);
  if (!restored) {
    log_line("stop: cannot restore %s: %s", name.c_str(), restored.error().message().c_str());
    return;
  }
  hand_over(name, *restored, new_len, new_data);
}

CachedRewrite as_cached(ClassRewrite&& r) {
  return CachedRewrite{r.changed, std::move(r.class_name), std::move(r.bytes),
                       std::move(r.site_tables)};
}

// What the cache did while a rewrite was got, for the hook's statistics.
struct CacheUse {
  bool hit = false;
  bool miss = false;
  std::optional<Error> store_failure;
};

// The class's rewrite from cache=DIR when it holds one for these bytes, else made (and then
// stored there). A failed rewrite is not stored: it is tried, and logged, on every run.
Result<CachedRewrite> rewrite_via_cache(std::span<const uint8_t> bytes, CacheUse& use) {
  State& s = state();
  std::optional<CacheKey> key;
  if (s.cache) {
    key = s.cache->key_of(bytes);
    if (auto hit = s.cache->load(*key, bytes.size())) {
      use.hit = true;
      return std::move(*hit);
    }
    use.miss = true;
  }
  auto r = rewrite_class(bytes, s.rewrite);
  if (!r) return r.error();
  CachedRewrite made = as_cached(std::move(r.value()));
  if (key) {
    if (auto stored = s.cache->store(*key, bytes.size(), made); !stored)
      use.store_failure = stored.error();
  }
  return made;
}

// The class's rewrite: made ahead by the background thread (ahead=true) from these very
// bytes, else as rewrite_via_cache gets it.
Result<CachedRewrite> rewrite_or_cached(const std::string& name, std::span<const uint8_t> bytes) {
  State& s = state();
  if (s.ahead) {
    if (auto made = s.ahead->take(name, bytes)) return std::move(*made);
  }
  CacheUse use;
  auto made = rewrite_via_cache(bytes, use);
  s.stats.cache_hits += use.hit;
  s.stats.cache_misses += use.miss;
  // One line per run: a full disk should not flood stderr with a line per class.
  if (use.store_failure && s.stats.cache_store_failures++ == 0) {
    log_line("cache: cannot store %s (and perhaps others): %s", name.c_str(),
             use.store_failure->message().c_str());
  }
  return made;
}

}  // namespace

bool selected_by_name(const std::string& internal_name) {
  return name_rejection(internal_name) == nullptr;
}

std::optional<CachedRewrite> produce_rewrite(std::span<const uint8_t> bytes) {
  CacheUse use;  // the background thread's: not the hooks' statistics
  auto made = rewrite_via_cache(bytes, use);
  if (!made) return std::nullopt;
  return std::move(made.value());
}

namespace {

void transform(JNIEnv* jni, jclass redefined, jobject loader, const char* jvm_name, jint len,
               const unsigned char* data, jint* new_len, unsigned char** new_data) {
  State& s = state();
  if (!s.live.load() || len <= 0 || !data) return;
  std::span<const uint8_t> bytes(data, static_cast<size_t>(len));
  if (s.stopped.load()) {
    if (redefined && jvm_name) restore(jvm_name, bytes, new_len, new_data);
    return;
  }
  if (!jvm_name) {
    // JDK 15+ posts no hook for hidden classes; older VM-anonymous classes could not be
    // matched to their site tables at ClassPrepare, so they are left alone.
    ++s.stats.skipped;
    if (log_on(LogLevel::kDebug)) {
      std::string n = name_from_bytes(bytes);
      log_line("skipped %s: class without a name (hidden or anonymous)",
               n.empty() ? "<unparsable>" : n.c_str());
    }
    return;
  }
  std::string name = jvm_name;
  if (const char* why = rejection(jni, name, loader)) {
    ++s.stats.skipped;
    if (log_on(LogLevel::kDebug)) log_line("skipped %s: %s", name.c_str(), why);
    return;
  }
  auto t0 = std::chrono::steady_clock::now();
  uint64_t cpu0 = thread_cpu_ns();
  auto result = rewrite_or_cached(name, bytes);
  uint64_t cpu_ns = thread_cpu_ns() - cpu0;
  auto ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count());
  record_time(name, ns, cpu_ns);
  if (!result) {
    if (rewritten_offline(bytes)) {  // jars duplex rewrote may run under the agent: not a failure
      ++s.stats.skipped;
      if (log_on(LogLevel::kDebug))
        log_line("skipped %s: rewritten by duplex already", name.c_str());
      return;
    }
    ++s.stats.failed;
    log_line("cannot rewrite %s, loaded unchanged: %s", name.c_str(),
             result.error().message().c_str());
    return;
  }
  CachedRewrite& r = result.value();
  if (!r.changed || r.bytes.empty()) {
    ++s.stats.unchanged;
    if (log_on(LogLevel::kDebug)) log_line("nothing to instrument in %s", name.c_str());
    return;
  }
  if (r.class_name != name) {  // the bytes disagree with the JVM: let the JVM report it
    ++s.stats.failed;
    log_line("cannot rewrite %s, loaded unchanged: the class file names %s", name.c_str(),
             r.class_name.c_str());
    return;
  }
  if (!redefined) {  // a redefined class is prepared already: no ClassPrepare will come
    PendingClass p;
    p.site_tables = std::move(r.site_tables);
    std::lock_guard<std::mutex> lock(s.mu);
    s.rewritten_names.insert(name);  // first: a bad_alloc below leaves nothing half-recorded
    auto it = s.pending.emplace(name, std::move(p));
    it->second.loader = loader ? jni->NewWeakGlobalRef(loader) : nullptr;
    s.pending_count = s.pending.size();
  }
  if (!hand_over(name, r.bytes, new_len, new_data)) {
    ++s.stats.failed;
    return;  // the pending entry is never matched (the class is not rewritten): harmless
  }
  ++s.stats.rewritten;
  if (log_on(LogLevel::kInfo)) {
    log_line("rewrote %s (%zu -> %zu bytes, %.3f ms)", name.c_str(), bytes.size(), r.bytes.size(),
             static_cast<double>(ns) / 1e6);
  }
}

// Makes a rewritten class's named module read the runtime's module (the bootstrap loader's
// unnamed module); classes in the unnamed modules read every module already.
void ensure_reads_runtime(JNIEnv* jni, jclass klass) {
  State& s = state();
  if (!s.duplex_module || jni->GetVersion() < JNI_VERSION_9) return;
  jobject module = jni->GetModule(klass);
  if (!module) return;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    for (jobject m : s.modules_reading) {
      if (jni->IsSameObject(m, module)) {
        jni->DeleteLocalRef(module);
        return;
      }
    }
  }
  // A no-op for unnamed modules.
  jvmtiError err = s.jvmti->AddModuleReads(module, s.duplex_module);
  clear_exception(jni, "AddModuleReads");
  if (err == JVMTI_ERROR_NONE) {
    std::lock_guard<std::mutex> lock(s.mu);
    s.modules_reading.push_back(jni->NewGlobalRef(module));
  }
  jni->DeleteLocalRef(module);
}

bool take_pending(JNIEnv* jni, jclass klass, const std::string& name, PendingClass& out) {
  State& s = state();
  jobject loader = nullptr;
  if (s.jvmti->GetClassLoader(klass, &loader) != JVMTI_ERROR_NONE) return false;
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    auto [first, last] = s.pending.equal_range(name);
    for (auto it = first; it != last; ++it) {
      bool same = it->second.loader ? (loader && jni->IsSameObject(it->second.loader, loader))
                                    : loader == nullptr;
      if (same) {
        out = std::move(it->second);
        s.pending.erase(it);
        s.pending_count = s.pending.size();
        found = true;
        break;
      }
    }
  }
  if (loader) jni->DeleteLocalRef(loader);
  return found;
}

void prepare(JNIEnv* jni, jclass klass) {
  State& s = state();
  if (s.pending_count.load() == 0 || !s.duplex_class) return;
  char* sig = nullptr;
  if (s.jvmti->GetClassSignature(klass, &sig, nullptr) != JVMTI_ERROR_NONE || !sig) return;
  size_t n = std::strlen(sig);
  std::string name = sig[0] == 'L' && n > 2 ? std::string(sig + 1, n - 2) : std::string();
  s.jvmti->Deallocate(reinterpret_cast<unsigned char*>(sig));
  PendingClass p;
  if (name.empty() || !take_pending(jni, klass, name, p)) return;
  if (p.loader) jni->DeleteWeakGlobalRef(p.loader);
  ensure_reads_runtime(jni, klass);
  for (const std::string& table : p.site_tables) {
    jstring text = jni->NewStringUTF(table.c_str());  // tables are modified UTF-8
    if (!text) {
      clear_exception(jni, "site table string");
      log_line("cannot register the site table of %s: call offsets will be wrong", name.c_str());
      return;
    }
    jni->CallStaticVoidMethod(s.duplex_class, s.register_mid, klass, text);
    jni->DeleteLocalRef(text);
    if (clear_exception(jni, "Duplex.register")) {
      log_line("cannot register the site table of %s: call offsets will be wrong", name.c_str());
      return;
    }
  }
  if (!p.site_tables.empty()) ++s.stats.registered;
}

}  // namespace

void JNICALL on_class_file_load(jvmtiEnv*, JNIEnv* jni, jclass class_being_redefined,
                                jobject loader, const char* name, jobject, jint class_data_len,
                                const unsigned char* class_data, jint* new_class_data_len,
                                unsigned char** new_class_data) {
  try {
    transform(jni, class_being_redefined, loader, name, class_data_len, class_data,
              new_class_data_len, new_class_data);
  } catch (...) {
    // Fail-open: the class loads unchanged (e.g. std::bad_alloc in the rewriter).
    ++state().stats.failed;
  }
}

void JNICALL on_class_prepare(jvmtiEnv*, JNIEnv* jni, jthread, jclass klass) {
  try {
    prepare(jni, klass);
  } catch (...) {
  }
}

}  // namespace duplex::agent
