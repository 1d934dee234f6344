// libduplexagent.so: Agent_OnLoad, VM lifecycle, the runtime jar, stop, and the natives the
// Java runtime calls (Duplex.agentStop0, Duplex.agentStats0). Class rewriting itself is in
// class_hook.cpp. Every callback catches everything: no C++ exception reaches the JVM.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "runtime/agent/agent_state.h"
#include "runtime/agent/twin_inlining.h"

namespace duplex::agent {

extern const unsigned char kRuntimeJar[];
extern const std::size_t kRuntimeJar_size;

State& state() {
  static State* s = new State();  // never destroyed: callbacks may run during VM exit
  return *s;
}

void log_line(const char* fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  std::string line = "duplex agent: ";
  line.append(buf, std::min<size_t>(static_cast<size_t>(n), sizeof buf - 1));
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stderr);
}

bool clear_exception(JNIEnv* jni, const char* what) {
  if (!jni->ExceptionCheck()) return false;
  if (log_on(LogLevel::kDebug)) {
    log_line("Java exception in %s:", what);
    jni->ExceptionDescribe();  // prints and clears
  }
  jni->ExceptionClear();
  return true;
}

std::string write_private_temp_file(std::string_view name_pattern,
                                    std::span<const unsigned char> data) {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/" + std::string(name_pattern);
  size_t suffix = name_pattern.size() - name_pattern.rfind('X') - 1;
  int fd = mkstemps(path.data(), static_cast<int>(suffix));  // mode 0600
  if (fd < 0) return {};
  size_t done = 0;
  while (done < data.size()) {
    ssize_t w = write(fd, data.data() + done, data.size() - done);
    if (w <= 0) {
      close(fd);
      unlink(path.c_str());
      return {};
    }
    done += static_cast<size_t>(w);
  }
  if (close(fd) != 0) {
    unlink(path.c_str());
    return {};
  }
  return path;
}

namespace {

std::mutex g_stop_mu;
std::condition_variable g_stop_cv;

void remove_runtime_jar() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.jar_path.empty()) {
    unlink(s.jar_path.c_str());
    s.jar_path.clear();
  }
}

// Sets the duplex.<option> system properties the runtime reads when its class initializes.
// JVMTI SetSystemProperty only changes properties the VM already has, so this runs in VMInit
// through System.setProperty, before the agent first touches duplex.runtime.Duplex.
bool set_runtime_properties(JNIEnv* jni, const AgentOptions& o) {
  std::vector<std::pair<std::string, std::string>> props = o.runtime_properties;
  auto has = [&](const char* key) {
    for (auto& p : props) {
      if (p.first == key) return true;
    }
    return false;
  };
  if (!has("mode")) props.emplace_back("mode", o.mode_text);
  if (!has("profile")) props.emplace_back("profile", o.profile_text);
  jclass system = jni->FindClass("java/lang/System");
  jmethodID set = system ? jni->GetStaticMethodID(system, "setProperty",
                                                  "(Ljava/lang/String;Ljava/lang/String;)"
                                                  "Ljava/lang/String;")
                         : nullptr;
  if (!set) {
    clear_exception(jni, "System.setProperty");
    return false;
  }
  for (auto& [key, value] : props) {
    std::string name = "duplex." + key;
    jstring k = jni->NewStringUTF(name.c_str());
    jstring v = k ? jni->NewStringUTF(value.c_str()) : nullptr;
    jobject old = v ? jni->CallStaticObjectMethod(system, set, k, v) : nullptr;
    if (clear_exception(jni, "System.setProperty") || !v) {
      log_line("cannot set system property %s", name.c_str());
      return false;
    }
    jni->DeleteLocalRef(k);
    jni->DeleteLocalRef(v);
    if (old) jni->DeleteLocalRef(old);
  }
  return true;
}

std::string ms_text(uint64_t ns) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1e6);
  return buf;
}

// ---- stop -----------------------------------------------------------------------------------

// Retransforms `classes` back to their original bytes (the hook passes them through now);
// one at a time if the batch fails, so one bad class does not keep the others rewritten.
uint64_t retransform_all(jvmtiEnv* jvmti, std::vector<jclass>& classes) {
  if (classes.empty()) return 0;
  if (jvmti->RetransformClasses(static_cast<jint>(classes.size()), classes.data()) ==
      JVMTI_ERROR_NONE) {
    return classes.size();
  }
  uint64_t ok = 0;
  for (jclass c : classes) {
    jvmtiError err = jvmti->RetransformClasses(1, &c);
    if (err == JVMTI_ERROR_NONE) {
      ++ok;
      continue;
    }
    char* sig = nullptr;
    jvmti->GetClassSignature(c, &sig, nullptr);
    log_line("stop: cannot restore %s (JVMTI error %d); it keeps its rewritten code",
             sig ? sig : "?", static_cast<int>(err));
    if (sig) jvmti->Deallocate(reinterpret_cast<unsigned char*>(sig));
  }
  return ok;
}

// Turns sampling off and retransforms every class the agent rewrote back to its original
// bytes. Runs once; later calls return at once. Called from a Java thread (Duplex.stop) or
// from the agent's stop timer thread.
void do_stop(JNIEnv* jni) {
  State& s = state();
  if (s.stopped.exchange(true) || s.dead.load()) return;
  auto t0 = std::chrono::steady_clock::now();
  if (s.ahead) s.ahead->stop();  // nothing loads rewritten any more
  if (s.duplex_class && s.set_interval_mid) {
    jni->CallStaticVoidMethod(s.duplex_class, s.set_interval_mid, 0);
    clear_exception(jni, "Duplex.setInterval(0)");
  }
  jint count = 0;
  jclass* loaded = nullptr;
  if (s.jvmti->GetLoadedClasses(&count, &loaded) != JVMTI_ERROR_NONE) {
    log_line("stop: GetLoadedClasses failed; classes keep their rewritten code");
    return;
  }
  std::vector<jclass> targets;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    for (jint i = 0; i < count; ++i) {
      char* sig = nullptr;
      if (s.jvmti->GetClassSignature(loaded[i], &sig, nullptr) != JVMTI_ERROR_NONE || !sig) {
        continue;
      }
      size_t len = std::strlen(sig);
      bool match =
          sig[0] == 'L' && len > 2 && s.rewritten_names.count(std::string(sig + 1, len - 2)) != 0;
      s.jvmti->Deallocate(reinterpret_cast<unsigned char*>(sig));
      jboolean modifiable = JNI_FALSE;
      if (match && s.jvmti->IsModifiableClass(loaded[i], &modifiable) == JVMTI_ERROR_NONE &&
          modifiable) {
        targets.push_back(loaded[i]);
      }
    }
  }
  uint64_t restored = retransform_all(s.jvmti, targets);
  for (jint i = 0; i < count; ++i) jni->DeleteLocalRef(loaded[i]);
  s.jvmti->Deallocate(reinterpret_cast<unsigned char*>(loaded));
  uint64_t ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count());
  s.stats.restored = restored;
  s.stats.stop_ns = ns > 0 ? ns : 1;
  if (log_on(LogLevel::kInfo)) {
    log_line("stopped: sampling off, %llu classes restored to their original bytes in %s ms",
             static_cast<unsigned long long>(restored), ms_text(ns).c_str());
  }
}

void JNICALL stop_timer_thread(jvmtiEnv*, JNIEnv* jni, void*) {
  try {
    State& s = state();
    {
      std::unique_lock<std::mutex> lock(g_stop_mu);
      g_stop_cv.wait_for(lock, std::chrono::milliseconds(s.options.stop_ms),
                         [&] { return s.dead.load(); });
    }
    if (!s.dead.load()) do_stop(jni);
  } catch (...) {
  }
}

bool start_stop_timer(jvmtiEnv* jvmti, JNIEnv* jni) {
  jclass thread_class = jni->FindClass("java/lang/Thread");
  if (!thread_class) {
    clear_exception(jni, "FindClass Thread");
    return false;
  }
  jmethodID ctor = jni->GetMethodID(thread_class, "<init>", "(Ljava/lang/String;)V");
  jstring name = jni->NewStringUTF("duplex-agent-stop");
  jobject thread = ctor && name ? jni->NewObject(thread_class, ctor, name) : nullptr;
  if (!thread) {
    clear_exception(jni, "new Thread");
    return false;
  }
  return jvmti->RunAgentThread(thread, stop_timer_thread, nullptr, JVMTI_THREAD_NORM_PRIORITY) ==
         JVMTI_ERROR_NONE;
}

// ---- natives of duplex.runtime.Duplex ------------------------------------------------------

jboolean JNICALL native_agent_stop(JNIEnv* jni, jclass) {
  try {
    do_stop(jni);
    return state().stopped.load() ? JNI_TRUE : JNI_FALSE;
  } catch (...) {
    return JNI_FALSE;
  }
}

jobjectArray JNICALL native_agent_stats(JNIEnv* jni, jclass) {
  try {
    State& s = state();
    Stats& st = s.stats;
    std::string slowest;
    {
      std::lock_guard<std::mutex> lock(st.slowest_mu);
      slowest = st.slowest;
    }
    std::vector<std::pair<std::string, std::string>> kv = {
        {"agent", "libduplexagent"},
        {"agent-classes-rewritten", std::to_string(st.rewritten.load())},
        {"agent-classes-unchanged", std::to_string(st.unchanged.load())},
        {"agent-classes-failed", std::to_string(st.failed.load())},
        {"agent-classes-skipped", std::to_string(st.skipped.load())},
        {"agent-transform-ms", ms_text(st.total_ns.load())},
        {"agent-transform-cpu-ms", ms_text(st.total_cpu_ns.load())},
        {"agent-transform-max-ms", ms_text(st.max_ns.load())},
        {"agent-transform-max-class", slowest},
        {"agent-stopped", s.stopped.load() ? "true" : "false"},
        {"agent-twin-directive", s.twin_directive},
    };
    if (s.ahead) {
      AheadStats a = s.ahead->stats();
      kv.emplace_back("agent-ahead-classpath-classes", std::to_string(a.class_path_classes));
      kv.emplace_back("agent-ahead-rewritten", std::to_string(a.rewritten));
      kv.emplace_back("agent-ahead-hits", std::to_string(a.hits));
      kv.emplace_back("agent-ahead-waits", std::to_string(a.waited));
      kv.emplace_back("agent-ahead-unused", std::to_string(a.held + a.forgotten));
      kv.emplace_back("agent-ahead-cpu-ms", ms_text(a.cpu_ns));
    }
    if (s.cache) {
      kv.emplace_back("agent-cache-hits", std::to_string(st.cache_hits.load()));
      kv.emplace_back("agent-cache-misses", std::to_string(st.cache_misses.load()));
    }
    if (st.stop_ns.load() != 0) {  // stop has finished
      kv.emplace_back("agent-classes-restored", std::to_string(st.restored.load()));
      kv.emplace_back("agent-stop-ms", ms_text(st.stop_ns.load()));
    }
    jclass string_class = jni->FindClass("java/lang/String");
    if (!string_class) return nullptr;
    jobjectArray arr =
        jni->NewObjectArray(static_cast<jsize>(kv.size() * 2), string_class, nullptr);
    if (!arr) return nullptr;
    for (size_t i = 0; i < kv.size(); ++i) {
      for (int j = 0; j < 2; ++j) {
        const std::string& text = j == 0 ? kv[i].first : kv[i].second;
        jstring str = jni->NewStringUTF(text.c_str());  // class names are modified UTF-8
        if (!str) return nullptr;
        jni->SetObjectArrayElement(arr, static_cast<jsize>(i * 2 + j), str);
        jni->DeleteLocalRef(str);
      }
    }
    return arr;
  } catch (...) {
    return nullptr;
  }
}

// ---- VM lifecycle ---------------------------------------------------------------------------

jobject global_platform_loader(JNIEnv* jni) {
  jclass cl = jni->FindClass("java/lang/ClassLoader");
  jmethodID m =
      cl ? jni->GetStaticMethodID(cl, "getPlatformClassLoader", "()Ljava/lang/ClassLoader;")
         : nullptr;
  if (!m) {
    clear_exception(jni, "getPlatformClassLoader");  // Java 8: no platform loader
    return nullptr;
  }
  jobject loader = jni->CallStaticObjectMethod(cl, m);
  if (clear_exception(jni, "getPlatformClassLoader") || !loader) return nullptr;
  return jni->NewGlobalRef(loader);
}

bool init_runtime(JNIEnv* jni) {
  State& s = state();
  if (!set_runtime_properties(jni, s.options)) {
    log_line("the runtime settings could not be passed on; rewriting is off");
    return false;
  }
  // FindClass initializes Duplex: it reads the duplex.* properties set just now.
  jclass local = jni->FindClass("duplex/runtime/Duplex");
  if (!local) {
    log_line("cannot load the runtime class duplex.runtime.Duplex; rewriting is off:");
    jni->ExceptionDescribe();
    jni->ExceptionClear();
    return false;
  }
  s.duplex_class = static_cast<jclass>(jni->NewGlobalRef(local));
  s.register_mid =
      jni->GetStaticMethodID(local, "register", "(Ljava/lang/Class;Ljava/lang/String;)V");
  s.set_interval_mid = jni->GetStaticMethodID(local, "setInterval", "(I)V");
  if (!s.register_mid || !s.set_interval_mid) {
    clear_exception(jni, "runtime methods");
    log_line("the runtime jar does not match the agent (Duplex.register/setInterval missing)");
    return false;
  }
  JNINativeMethod natives[] = {
      {const_cast<char*>("agentStop0"), const_cast<char*>("()Z"),
       reinterpret_cast<void*>(native_agent_stop)},
      {const_cast<char*>("agentStats0"), const_cast<char*>("()[Ljava/lang/String;"),
       reinterpret_cast<void*>(native_agent_stats)},
  };
  if (jni->RegisterNatives(local, natives, 2) != JNI_OK) {
    clear_exception(jni, "RegisterNatives");
    log_line(
        "cannot register the agent's natives in duplex.runtime.Duplex; stop() and the "
        "profile's agent statistics are unavailable");
  } else {
    jfieldID present = jni->GetStaticFieldID(local, "agentPresent", "Z");
    if (present) jni->SetStaticBooleanField(local, present, JNI_TRUE);
    clear_exception(jni, "agentPresent");
  }
  if (s.options.native_stack && !register_native_stack(jni)) {
    log_line("native stack walking unavailable; call edges use StackWalker");
  }
  if (jni->GetVersion() >= JNI_VERSION_9) {
    jobject module = jni->GetModule(local);
    if (module) s.duplex_module = jni->NewGlobalRef(module);
  }
  s.platform_loader = global_platform_loader(jni);
  return true;
}

// -Xint: HotSpot says "interpreted mode" in java.vm.info.
bool interpreted_only(jvmtiEnv* jvmti) {
  char* info = nullptr;
  if (jvmti->GetSystemProperty("java.vm.info", &info) != JVMTI_ERROR_NONE || !info) return false;
  bool interpreted = std::string_view(info).starts_with("interpreted mode");
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(info));
  return interpreted;
}

// The agent's twins stay in their classes, where C2 would inline them into their callers'
// sample paths once taken (twin_inlining.h). Done before the program starts, so that no
// compilation precedes it (it takes 5-15 ms, mostly loading jdk.management's classes).
void keep_twins_from_callers(JNIEnv* jni) {
  State& s = state();
  const AgentOptions& o = s.options;
  if (o.inline_twins) {
    s.twin_directive = "not added: inlineTwins=true";
    return;
  }
  if (!makes_twins(s.rewrite)) {
    s.twin_directive = "not added: mode " + o.mode_text + " makes no twins";
    return;
  }
  if (interpreted_only(s.jvmti)) {
    s.twin_directive = "not added: the JVM compiles nothing (-Xint)";
    return;
  }
  std::string why;
  auto t0 = std::chrono::steady_clock::now();
  if (!keep_twins_out_of_inlining(jni, why)) {
    s.twin_directive = "not added: " + why;
    log_line("twins may be inlined into their callers' sample paths: %s", why.c_str());
    return;
  }
  s.twin_directive = "added";
  if (log_on(LogLevel::kInfo)) {
    auto ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0);
    log_line("twins kept out of inlining: a compiler directive, added in %s ms",
             ms_text(static_cast<uint64_t>(ns.count())).c_str());
  }
}

void JNICALL on_vm_init(jvmtiEnv* jvmti, JNIEnv* jni, jthread) {
  try {
    State& s = state();
    bool ok = init_runtime(jni);
    remove_runtime_jar();  // the bootstrap loader keeps the open jar; the path is not needed
    if (!ok) return;
    keep_twins_from_callers(jni);
    if (s.options.stop_ms >= 0 && !start_stop_timer(jvmti, jni)) {
      log_line("cannot start the stop timer thread; stop=%lld ms is ignored",
               static_cast<long long>(s.options.stop_ms));
    }
    s.live = true;
    if (log_on(LogLevel::kInfo)) {
      log_line("started: mode=%s profile=%s jdk=%s", s.options.mode_text.c_str(),
               s.options.profile_text.c_str(), s.options.jdk ? "true" : "false");
    }
  } catch (...) {
  }
}

void JNICALL on_vm_death(jvmtiEnv*, JNIEnv*) {
  try {
    State& s = state();
    s.live = false;
    {
      std::lock_guard<std::mutex> lock(g_stop_mu);
      s.dead = true;
    }
    g_stop_cv.notify_all();
    remove_runtime_jar();
    if (s.ahead) s.ahead->stop();  // before exit() runs destructors the thread may use
    if (log_on(LogLevel::kInfo)) {
      Stats& st = s.stats;
      log_line(
          "%llu classes rewritten, %llu unchanged, %llu failed, %llu skipped; rewriting "
          "took %s ms (slowest %s ms)",
          static_cast<unsigned long long>(st.rewritten.load()),
          static_cast<unsigned long long>(st.unchanged.load()),
          static_cast<unsigned long long>(st.failed.load()),
          static_cast<unsigned long long>(st.skipped.load()), ms_text(st.total_ns.load()).c_str(),
          ms_text(st.max_ns.load()).c_str());
    }
  } catch (...) {
  }
}

// What decides the rewrite besides the class bytes: the agent's code (agent_fingerprint hashes
// the library) and the options on_load copies into the rewrite options, which must all be
// named here.
std::string rewrite_fingerprint(const AgentOptions& o) {
  std::string f = "mode ";  // appends, not `+`: GCC 12 warns wrongly (-Wrestrict) on those
  f.append(o.mode_text).append("\nprofile ").append(o.profile_text);
  f.append("\ncountEdges ").append(o.count_edges ? "true" : "false");
  f.append("\nlayout ").append(o.hand_back ? "handback" : "outline");
  f.append("\ncheck ").append(check_form_name(o.check));
  f.append("\nflagCheckBytes ").append(std::to_string(o.flag_check_max_bytes));
  f.append("\ncallerSampledBytes ").append(std::to_string(o.caller_sampled_max_bytes));
  f.append("\nmethodCounters ").append(o.method_counters ? "true" : "false");
  f.append("\nstripeInLocal ").append(o.stripe_in_local ? "true" : "false");
  f.append("\n");
  return f;
}

// cache=DIR: a cache that cannot be used is reported and left out; the JVM runs on.
void open_cache(State& s) {
  auto fingerprint = agent_fingerprint(rewrite_fingerprint(s.options));
  auto cache = fingerprint ? ClassCache::open(s.options.cache_dir, *fingerprint)
                           : Result<ClassCache>(fingerprint.error());
  if (!cache) {
    log_line("cache %s not used: %s", s.options.cache_dir.c_str(), cache.error().message().c_str());
    return;
  }
  s.cache = std::move(cache.value());
}

// A system property as the launcher set it (readable in the OnLoad phase); "" if unset.
std::string system_property(jvmtiEnv* jvmti, const char* name) {
  char* value = nullptr;
  if (jvmti->GetSystemProperty(name, &value) != JVMTI_ERROR_NONE || !value) return {};
  std::string text = value;
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(value));
  return text;
}

// ahead=true: indexes the class path and starts the background thread at once, so that it
// runs while the JVM starts up. Its rewrites are only taken once rewriting is on (VMInit).
// Whatever fails here, the agent runs on and rewrites classes as they load.
void start_ahead(State& s) {
  // Read now (JVMTI is not for the background thread), indexed there.
  std::string class_path = system_property(s.jvmti, "java.class.path");
  std::string command = system_property(s.jvmti, "sun.java.command");
  int release = std::atoi(system_property(s.jvmti, "java.specification.version").c_str());
  auto index = [class_path, release] { return ClassPath::index(class_path, std::max(release, 8)); };
  auto first_class = [command] { return ClassPath::main_class(command); };
  std::unique_ptr<AheadRewriter> ahead;
  try {
    ahead = std::make_unique<AheadRewriter>(index, first_class, selected_by_name, produce_rewrite,
                                            s.options.ahead_lead);
    ahead->start();
  } catch (const std::exception& e) {
    log_line("ahead: not started (%s); classes are rewritten as they load", e.what());
    return;
  }
  s.ahead = ahead.release();
}

jint on_load(JavaVM* vm, char* options) {
  State& s = state();
  std::string error;
  if (!parse_agent_options(options, s.options, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return JNI_ERR;
  }
  // Every option copied into s.rewrite must be in rewrite_fingerprint (cache=DIR).
  s.rewrite.mode = s.options.mode;
  s.rewrite.count_edges = s.options.count_edges;
  s.rewrite.register_sites_in_clinit = false;  // the agent registers at ClassPrepare
  s.rewrite.list_sites = false;                // nothing here reads the list
  // Outlined twins stay in a class after `stop`: it retransforms the class to its original
  // method bodies with the twins kept (RetransformClasses cannot remove methods).
  s.rewrite.outline = true;
  s.rewrite.hand_back = s.options.hand_back;
  s.rewrite.check = s.options.check;
  s.rewrite.flag_check_max_bytes = s.options.flag_check_max_bytes;
  s.rewrite.caller_sampled_max_bytes = s.options.caller_sampled_max_bytes;
  s.rewrite.method_counters = s.options.method_counters;
  s.rewrite.stripe_in_local = s.options.stripe_in_local;
  for (const std::string& name : s.options.profile) {
    s.rewrite.instrumentations.push_back(make_builtin_instrumentation(name));
  }
  if (!s.options.cache_dir.empty()) open_cache(s);

  jvmtiEnv* jvmti = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_1_2) != JNI_OK || !jvmti) {
    log_line("JVMTI 1.2 is not available");
    return JNI_ERR;
  }
  s.jvmti = jvmti;
  if (s.options.ahead) start_ahead(s);

  jvmtiCapabilities caps;
  std::memset(&caps, 0, sizeof caps);
  caps.can_retransform_classes = 1;
  caps.can_get_line_numbers = 1;
  if (s.options.jdk) caps.can_generate_all_class_hook_events = 1;
  if (jvmti->AddCapabilities(&caps) != JVMTI_ERROR_NONE) {
    log_line("the JVM does not grant the capabilities the agent needs (retransform classes)");
    return JNI_ERR;
  }

  jvmtiEventCallbacks cb;
  std::memset(&cb, 0, sizeof cb);
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  cb.ClassFileLoadHook = on_class_file_load;
  cb.ClassPrepare = on_class_prepare;
  if (jvmti->SetEventCallbacks(&cb, sizeof cb) != JVMTI_ERROR_NONE) return JNI_ERR;
  for (jvmtiEvent e : {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK,
                       JVMTI_EVENT_CLASS_PREPARE}) {
    if (jvmti->SetEventNotificationMode(JVMTI_ENABLE, e, nullptr) != JVMTI_ERROR_NONE) {
      log_line("cannot enable JVMTI event %d", static_cast<int>(e));
      return JNI_ERR;
    }
  }

  std::string jar =
      write_private_temp_file("duplex-runtime-XXXXXX.jar", {kRuntimeJar, kRuntimeJar_size});
  if (jar.empty()) {
    log_line("cannot write the runtime jar to a temporary file: %s", std::strerror(errno));
    return JNI_ERR;
  }
  if (jvmti->AddToBootstrapClassLoaderSearch(jar.c_str()) != JVMTI_ERROR_NONE) {
    unlink(jar.c_str());
    log_line("cannot add the runtime jar to the bootstrap class path");
    return JNI_ERR;
  }
  s.jar_path = jar;
  return JNI_OK;
}

}  // namespace
}  // namespace duplex::agent

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
  try {
    return duplex::agent::on_load(vm, options);
  } catch (...) {
    std::fprintf(stderr, "duplex agent: internal error at startup\n");
    return JNI_ERR;
  }
}

extern "C" JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM*, char*, void*) {
  std::fprintf(stderr,
               "duplex agent: attaching to a running JVM is not supported; use "
               "-agentpath at startup\n");
  return JNI_ERR;
}

extern "C" JNIEXPORT void JNICALL Agent_OnUnload(JavaVM*) {
  try {
    duplex::agent::remove_runtime_jar();
  } catch (...) {
  }
}
