// CallerFinder.nativeCallerOfCallee: the caller frame of a call edge from JVMTI GetStackTrace
// instead of java.lang.StackWalker (the agent registers it when nativeStack=true, the
// default). It returns the same CallerFinder.Frame the Java path builds: the first frame that
// is not the runtime's is the callee (skipped), the next one is the caller. Names and line
// tables are cached per jmethodID, so a call costs one GetStackTrace and one NewObject.
#include <algorithm>
#include <cstring>
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
  jweak type = nullptr;          // the declaring class (weak: classes may unload)
  jstring class_name = nullptr;  // global refs
  jstring method_name = nullptr;
  jstring descriptor = nullptr;
  std::vector<jvmtiLineNumberEntry> lines;  // sorted by start_location
};

std::shared_mutex g_cache_mu;
std::unordered_map<jmethodID, MethodInfo*> g_cache;  // entries are never freed
jclass g_frame_class = nullptr;
jmethodID g_frame_ctor = nullptr;

template <typename T>
void deallocate(jvmtiEnv* jvmti, T* p) {
  if (p) jvmti->Deallocate(reinterpret_cast<unsigned char*>(p));
}

// Frames java.lang.StackWalker hides by default, so that both paths find the same caller:
// hidden classes (lambda proxies, LambdaForms; JVMTI signature "La/b/C.suffix;"), the
// method-handle machinery, and reflection (Method.invoke, Constructor.newInstance, accessors).
bool is_hidden_frame(const char* sig, const char* method) {
  std::string_view s(sig);
  size_t slash = s.rfind('/');
  if (s.find('.', slash == std::string_view::npos ? 0 : slash) != std::string_view::npos) {
    return true;
  }
  if (s.rfind("Ljava/lang/invoke/", 0) == 0 || s.rfind("Ljdk/internal/reflect/", 0) == 0) {
    return true;
  }
  std::string_view m(method);
  return (s == "Ljava/lang/reflect/Method;" && m == "invoke") ||
         (s == "Ljava/lang/reflect/Constructor;" && m == "newInstance");
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

// The cached description of `method`, or null. `type_out` receives a local ref to its class
// (null if the cached class was unloaded and its jmethodID reused: then it is described anew).
MethodInfo* lookup(JNIEnv* jni, jmethodID method, jobject& type_out) {
  MethodInfo* info = nullptr;
  {
    std::shared_lock<std::shared_mutex> lock(g_cache_mu);
    auto it = g_cache.find(method);
    if (it != g_cache.end()) info = it->second;
  }
  if (info) {
    type_out = jni->NewLocalRef(info->type);
    if (type_out) return info;
  }
  info = describe(jni, method);
  if (!info) return nullptr;
  type_out = jni->NewLocalRef(info->type);
  std::unique_lock<std::shared_mutex> lock(g_cache_mu);
  g_cache[method] = info;  // a racing thread's entry is replaced and leaked (rare, small)
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

// The caller in the top `depth` frames; sets `more` when all of them were skipped and the
// stack is deeper.
jobject find_caller(JNIEnv* jni, jint depth, bool& more) {
  jvmtiFrameInfo frames[64];
  jint count = 0;
  more = false;
  if (state().jvmti->GetStackTrace(nullptr, 0, depth, frames, &count) != JVMTI_ERROR_NONE) {
    return nullptr;
  }
  bool callee_seen = false;
  for (jint i = 0; i < count; ++i) {
    jobject type = nullptr;
    MethodInfo* info = lookup(jni, frames[i].method, type);
    if (!info) return nullptr;
    if (info->runtime || info->hidden || !callee_seen) {
      callee_seen |= !info->runtime && !info->hidden;  // the method that called callEdge
      jni->DeleteLocalRef(type);
      continue;
    }
    jint line = frames[i].location >= 0 ? line_at(*info, frames[i].location) : -1;
    jobject frame =
        jni->NewObject(g_frame_class, g_frame_ctor, type, info->class_name, info->method_name,
                       info->descriptor, static_cast<jint>(frames[i].location), line);
    jni->DeleteLocalRef(type);
    return frame;
  }
  more = count == depth;
  return nullptr;
}

jobject JNICALL native_caller_of_callee(JNIEnv* jni, jclass) {
  try {
    // Usually the caller is the 6th frame: this native, callerOfCallee, CallEdges.record,
    // Duplex.callEdge, the callee, the caller. Hidden frames may push it further down.
    bool more = false;
    jobject frame = find_caller(jni, 8, more);
    if (!frame && more) frame = find_caller(jni, 64, more);
    return frame;
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

bool register_native_stack(JNIEnv* jni) {
  jclass finder = jni->FindClass("duplex/runtime/CallerFinder");
  jclass frame = finder ? jni->FindClass("duplex/runtime/CallerFinder$Frame") : nullptr;
  jmethodID ctor = frame ? jni->GetMethodID(frame, "<init>",
                                            "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/String;"
                                            "Ljava/lang/String;II)V")
                         : nullptr;
  if (!ctor) {
    clear_exception(jni, "CallerFinder$Frame");
    return false;
  }
  g_frame_class = static_cast<jclass>(jni->NewGlobalRef(frame));
  g_frame_ctor = ctor;
  JNINativeMethod natives[] = {
      {const_cast<char*>("nativeCallerOfCallee"),
       const_cast<char*>("()Lduplex/runtime/CallerFinder$Frame;"),
       reinterpret_cast<void*>(native_caller_of_callee)},
  };
  if (jni->RegisterNatives(finder, natives, 1) != JNI_OK) {
    clear_exception(jni, "RegisterNatives CallerFinder");
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
