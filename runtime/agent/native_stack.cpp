// Duplex.callerSite0: the caller of a call edge from JVMTI GetStackTrace instead of
// java.lang.StackWalker (the agent registers it when nativeStack=true, the default). It skips
// the same frames as the Java path (the runtime's, the callee, and an outlined callee's checking
// twin; docs/design/runtime-contract.md) and returns the same canonical CallerSite.
//
// The hot path allocates nothing and takes no lock: one GetStackTrace of the top frames, a
// per-thread direct-mapped cache jmethodID -> MethodInfo for each frame, and a per-thread cache
// (method, bci) -> weak reference to the CallerSite. Misses go to the process-wide caches, and a
// site seen for the first time comes from one upcall to CallerFinder.site.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/agent/agent_state.h"

namespace duplex::agent {
namespace {

struct MethodInfo {
  bool runtime = false;          // declared by a duplex.runtime class of the bootstrap loader
  bool hidden = false;           // a frame StackWalker does not show (see is_hidden_frame)
  bool outlined = false;         // name ends in $duplex: an outlined method (runtime contract)
  bool bridge = false;           // name starts with duplex$bridge$: never a caller (lazy twins)
  jweak type = nullptr;          // the declaring class (weak: classes may unload)
  jstring class_name = nullptr;  // global refs
  jstring method_name = nullptr;
  jstring descriptor = nullptr;
  std::vector<jvmtiLineNumberEntry> lines;  // sorted by start_location
  std::mutex sites_mu;
  // bci -> weak ref to the CallerSite (the class keeps the site alive). Guarded by sites_mu;
  // refs are never deleted: a per-thread cache may still hold them.
  std::unordered_map<jlocation, jweak> sites;
};

std::shared_mutex g_cache_mu;
std::unordered_map<jmethodID, MethodInfo*> g_cache;  // entries are never freed
jclass g_finder_class = nullptr;                     // CallerFinder (global ref)
jmethodID g_site_mid = nullptr;  // static CallerSite site(Class, String, String, String, int, int)

// Per-thread direct-mapped caches; entries point at MethodInfos, which are never freed.
constexpr size_t kCacheSlots = 256;
struct InfoSlot {
  jmethodID method;
  MethodInfo* info;
};
struct SiteSlot {
  const MethodInfo* info;
  jlocation bci;
  jweak site;
};
thread_local InfoSlot t_infos[kCacheSlots];
thread_local SiteSlot t_sites[kCacheSlots];

size_t slot_of(const void* p, jlocation bci = 0) {
  auto h = reinterpret_cast<uintptr_t>(p) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(bci);
  return static_cast<size_t>((h ^ (h >> 29)) >> 7) & (kCacheSlots - 1);
}

template <typename T>
void deallocate(jvmtiEnv* jvmti, T* p) {
  if (p) jvmti->Deallocate(reinterpret_cast<unsigned char*>(p));
}

// Frames java.lang.StackWalker hides by default, so that both paths find the same caller:
// hidden classes (lambda proxies, LambdaForms; JVMTI signature "La/b/C.suffix;"), the
// method-handle machinery, and reflection: every frame of java.lang.reflect.Method and
// Constructor (StackWalker's isReflectionFrame; on JDK 17 Constructor.newInstance calls
// newInstanceWithCaller, which must be hidden too) and the accessors; and the @Hidden
// AccessController.executePrivileged of JDK 17 (JVMTI cannot see the annotation).
bool is_hidden_frame(const char* sig, const char* method) {
  std::string_view s(sig);
  size_t slash = s.rfind('/');
  if (s.find('.', slash == std::string_view::npos ? 0 : slash) != std::string_view::npos) {
    return true;
  }
  if (s.rfind("Ljava/lang/invoke/", 0) == 0 || s.rfind("Ljdk/internal/reflect/", 0) == 0) {
    return true;
  }
  return s == "Ljava/lang/reflect/Method;" || s == "Ljava/lang/reflect/Constructor;" ||
         (s == "Ljava/security/AccessController;" &&
          std::string_view(method) == "executePrivileged");
}

MethodInfo* describe(JNIEnv* jni, jmethodID method) {
  jvmtiEnv* jvmti = state().jvmti;
  jclass cls = nullptr;
  if (jvmti->GetMethodDeclaringClass(method, &cls) != JVMTI_ERROR_NONE || !cls) return nullptr;
  char* sig = nullptr;
  char* name = nullptr;
  char* desc = nullptr;
  jobject loader = nullptr;
  MethodInfo* info = nullptr;
  if (jvmti->GetClassSignature(cls, &sig, nullptr) == JVMTI_ERROR_NONE &&
      jvmti->GetMethodName(method, &name, &desc, nullptr) == JVMTI_ERROR_NONE &&
      jvmti->GetClassLoader(cls, &loader) == JVMTI_ERROR_NONE) {
    // "La/b/C;" -> "a/b/C"; a hidden class "La/b/C.0x1234;" -> "a/b/C/0x1234", as
    // CallerFinder.internalName(Class.getName()) gives.
    std::string internal(sig + 1, std::strlen(sig) >= 2 ? std::strlen(sig) - 2 : 0);
    for (char& c : internal) {
      if (c == '.') c = '/';
    }
    info = new MethodInfo();
    constexpr std::string_view kRuntime = "duplex/runtime/";
    info->runtime = loader == nullptr && internal.rfind(kRuntime, 0) == 0 &&
                    internal.find('/', kRuntime.size()) == std::string::npos;
    info->hidden = is_hidden_frame(sig, name);
    std::string_view method_name(name);
    constexpr std::string_view kOutlined = "$duplex";
    info->outlined = method_name.size() > kOutlined.size() &&
                     method_name.substr(method_name.size() - kOutlined.size()) == kOutlined;
    info->bridge = method_name.starts_with("duplex$bridge$");  // CallerFinder.BRIDGE_PREFIX
    info->type = jni->NewWeakGlobalRef(cls);
    auto global_string = [&](const char* text) {
      jstring local = jni->NewStringUTF(text);
      jstring g = local ? static_cast<jstring>(jni->NewGlobalRef(local)) : nullptr;
      if (local) jni->DeleteLocalRef(local);
      return g;
    };
    info->class_name = global_string(internal.c_str());
    info->method_name = global_string(name);
    info->descriptor = global_string(desc);
    jint n = 0;
    jvmtiLineNumberEntry* table = nullptr;
    if (jvmti->GetLineNumberTable(method, &n, &table) == JVMTI_ERROR_NONE) {
      info->lines.assign(table, table + n);
      std::sort(info->lines.begin(), info->lines.end(),
                [](const auto& a, const auto& b) { return a.start_location < b.start_location; });
    }
    deallocate(jvmti, table);
    if (!info->type || !info->class_name || !info->method_name || !info->descriptor) {
      jni->ExceptionClear();
      delete info;  // leaks the refs made; only on out-of-memory
      info = nullptr;
    }
  }
  deallocate(jvmti, sig);
  deallocate(jvmti, name);
  deallocate(jvmti, desc);
  if (loader) jni->DeleteLocalRef(loader);
  jni->DeleteLocalRef(cls);
  return info;
}

// The cached description of `method`, or null. A description whose class was unloaded (its
// jmethodID may have been reused) is made anew.
MethodInfo* lookup(JNIEnv* jni, jmethodID method) {
  InfoSlot& slot = t_infos[slot_of(method)];
  // The runtime's classes never unload, so their jmethodIDs stay valid; any other class may
  // have unloaded since the slot was filled (IsSameObject costs a VM transition: ~15 ns).
  if (slot.method == method &&
      (slot.info->runtime || !jni->IsSameObject(slot.info->type, nullptr))) {
    return slot.info;
  }
  MethodInfo* info = nullptr;
  {
    std::shared_lock<std::shared_mutex> lock(g_cache_mu);
    auto it = g_cache.find(method);
    if (it != g_cache.end()) info = it->second;
  }
  if (!info || jni->IsSameObject(info->type, nullptr)) {
    info = describe(jni, method);
    if (!info) return nullptr;
    std::unique_lock<std::shared_mutex> lock(g_cache_mu);
    g_cache[method] = info;  // a racing thread's entry is replaced and leaked (rare, small)
  }
  slot = {method, info};
  return info;
}

jint line_at(const MethodInfo& info, jlocation bci) {
  jint line = -1;
  for (const jvmtiLineNumberEntry& e : info.lines) {
    if (e.start_location > bci) break;
    line = e.line_number;
  }
  return line;
}

// The canonical CallerSite of `bci` in `info`'s method (a local ref), or null.
jobject site_at(JNIEnv* jni, MethodInfo* info, jlocation bci) {
  SiteSlot& slot = t_sites[slot_of(info, bci)];
  if (slot.info == info && slot.bci == bci) {
    jobject site = jni->NewLocalRef(slot.site);
    if (site) return site;
  }
  jweak weak = nullptr;
  {
    std::lock_guard<std::mutex> lock(info->sites_mu);
    auto it = info->sites.find(bci);
    if (it != info->sites.end()) weak = it->second;
  }
  jobject site = weak ? jni->NewLocalRef(weak) : nullptr;
  if (!site) {
    jobject type = jni->NewLocalRef(info->type);
    if (!type) return nullptr;  // unloaded meanwhile
    jint line = bci >= 0 ? line_at(*info, bci) : -1;
    site = jni->CallStaticObjectMethod(g_finder_class, g_site_mid, type, info->class_name,
                                       info->method_name, info->descriptor, static_cast<jint>(bci),
                                       line);
    jni->DeleteLocalRef(type);
    if (jni->ExceptionCheck()) {
      jni->ExceptionClear();
      if (site) jni->DeleteLocalRef(site);
      return nullptr;
    }
    if (!site) return nullptr;
    weak = jni->NewWeakGlobalRef(site);
    if (!weak) {
      jni->ExceptionClear();
      return site;  // counted, just not cached
    }
    std::lock_guard<std::mutex> lock(info->sites_mu);
    info->sites[bci] = weak;  // replaces a cleared ref (leaked: another thread may hold it)
  }
  slot = {info, bci, weak};
  return site;
}

// How many frames this thread's last calls needed (see native_caller_site).
constexpr jint kMinDepth = 4;
thread_local jint t_depth = kMinDepth;
thread_local uint32_t t_shallower = 0;  // consecutive calls that needed fewer than t_depth

// The caller in the top `depth` frames; sets `more` when the stack is deeper and the caller
// was not among them, `needed` to the caller's depth + 1 when found.
jobject find_caller(JNIEnv* jni, jint depth, bool& more, jint& needed) {
  jvmtiFrameInfo frames[64];
  jint count = 0;
  more = false;
  if (state().jvmti->GetStackTrace(nullptr, 0, depth, frames, &count) != JVMTI_ERROR_NONE) {
    return nullptr;
  }
  int skip = -1;  // frames still to skip after the callee; -1: callee not seen yet
  for (jint i = 0; i < count; ++i) {
    MethodInfo* info = lookup(jni, frames[i].method);
    if (!info) return nullptr;
    if (info->runtime || info->hidden) continue;
    if (skip < 0) {  // the method whose entry called callEdge
      skip = info->outlined ? 1 : 0;
      continue;
    }
    if (skip > 0) {  // the outlined callee's checking twin
      --skip;
      continue;
    }
    if (info->bridge) continue;  // the call it runs is its twin's, below it
    needed = i + 1;
    return site_at(jni, info, frames[i].location);
  }
  more = count == depth;
  return nullptr;
}

jobject JNICALL native_caller_site(JNIEnv* jni, jclass) {
  try {
    // Usually the caller is the 4th frame: this native, Duplex.callEdge, the callee, the
    // caller; the 5th under Duplex.sampledCallEdge or an outlined callee (its checking twin),
    // and hidden frames may push it further down. GetStackTrace walks every frame it is asked
    // for (about 100 ns each), so the first try asks for as many as this thread needed
    // lately: a deeper need raises the guess at once, 64 shallower calls in a row lower it.
    bool more = false;
    jint needed = 0;
    jobject site = find_caller(jni, t_depth, more, needed);
    if (!site && more) site = find_caller(jni, 64, more, needed);
    if (site) {
      if (needed > t_depth) {
        t_depth = needed;
        t_shallower = 0;
      } else if (needed < t_depth && ++t_shallower >= 64) {
        t_depth = std::max(needed, kMinDepth);
        t_shallower = 0;
      } else if (needed == t_depth) {
        t_shallower = 0;
      }
    }
    return site;
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

bool register_native_stack(JNIEnv* jni) {
  jclass duplex = jni->FindClass("duplex/runtime/Duplex");
  jclass finder = duplex ? jni->FindClass("duplex/runtime/CallerFinder") : nullptr;
  jmethodID site = finder ? jni->GetStaticMethodID(finder, "site",
                                                   "(Ljava/lang/Class;Ljava/lang/String;"
                                                   "Ljava/lang/String;Ljava/lang/String;II)"
                                                   "Lduplex/runtime/CallerSite;")
                          : nullptr;
  if (!site) {
    clear_exception(jni, "CallerFinder.site");
    return false;
  }
  g_finder_class = static_cast<jclass>(jni->NewGlobalRef(finder));
  g_site_mid = site;
  JNINativeMethod natives[] = {
      {const_cast<char*>("callerSite0"), const_cast<char*>("()Lduplex/runtime/CallerSite;"),
       reinterpret_cast<void*>(native_caller_site)},
  };
  if (jni->RegisterNatives(duplex, natives, 1) != JNI_OK) {
    clear_exception(jni, "RegisterNatives Duplex.callerSite0");
    return false;
  }
  jfieldID flag = jni->GetStaticFieldID(finder, "nativeStack", "Z");
  if (!flag) {
    clear_exception(jni, "nativeStack");
    return false;
  }
  jni->SetStaticBooleanField(finder, flag, JNI_TRUE);
  return true;
}

}  // namespace duplex::agent
