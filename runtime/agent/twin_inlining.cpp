#include "runtime/agent/twin_inlining.h"

#include <unistd.h>

#include <optional>
#include <string_view>

#include "runtime/agent/agent_state.h"

namespace duplex::agent {
namespace {

// Every method (`match`), both compilers: never inline a method named `*$duplex`.
constexpr std::string_view kDirective = "[{ match: \"*.*\", inline: \"-*.*$duplex\" }]\n";

// A JNI local reference, deleted when it goes out of scope, on every path: the callback that
// runs this returns to the JVM only at its end, and what it leaked would live until then.
template <typename T>
class LocalRef {
 public:
  LocalRef(JNIEnv* jni, T ref) : jni_(jni), ref_(ref) {}
  ~LocalRef() {
    if (ref_) jni_->DeleteLocalRef(ref_);
  }
  LocalRef(const LocalRef&) = delete;
  LocalRef& operator=(const LocalRef&) = delete;
  T get() const { return ref_; }

 private:
  JNIEnv* jni_;
  T ref_;
};

// The DiagnosticCommand implementation of jdk.management and its command runner.
struct DiagnosticCommands {
  jobject mbean = nullptr;
  jmethodID execute = nullptr;
};

std::optional<DiagnosticCommands> find_diagnostic_commands(JNIEnv* jni, std::string& why) {
  // The provider's class initializer loads libmanagement_ext, which holds the runner's native
  // code; GetStaticMethodID initializes the class.
  LocalRef<jclass> provider(
      jni, jni->FindClass("com/sun/management/internal/PlatformMBeanProviderImpl"));
  if (!provider.get() ||
      !jni->GetStaticMethodID(provider.get(), "getDiagnosticMXBean",
                              "()Lcom/sun/management/HotSpotDiagnosticMXBean;")) {
    clear_exception(jni, "PlatformMBeanProviderImpl");
    why = "the JVM lacks jdk.management's DiagnosticCommand implementation (JDK 9+)";
    return std::nullopt;
  }
  LocalRef<jclass> impl(jni, jni->FindClass("com/sun/management/internal/DiagnosticCommandImpl"));
  jmethodID get = impl.get()
                      ? jni->GetStaticMethodID(impl.get(), "getDiagnosticCommandMBean",
                                               "()Lcom/sun/management/DiagnosticCommandMBean;")
                      : nullptr;
  DiagnosticCommands found;
  found.execute = impl.get() ? jni->GetMethodID(impl.get(), "executeDiagnosticCommand",
                                                "(Ljava/lang/String;)Ljava/lang/String;")
                             : nullptr;
  found.mbean = get && found.execute ? jni->CallStaticObjectMethod(impl.get(), get) : nullptr;
  if (clear_exception(jni, "DiagnosticCommandImpl") || !found.mbean) {
    why = "the JVM's diagnostic commands cannot be reached";
    return std::nullopt;
  }
  return found;
}

// Runs one diagnostic command; its output, or nullopt (with `why`) if it threw.
std::optional<std::string> run_command(JNIEnv* jni, const DiagnosticCommands& commands,
                                       const std::string& command, std::string& why) {
  LocalRef<jstring> text(jni, jni->NewStringUTF(command.c_str()));
  LocalRef<jobject> out(
      jni,
      text.get() ? jni->CallObjectMethod(commands.mbean, commands.execute, text.get()) : nullptr);
  if (clear_exception(jni, command.c_str()) || !out.get()) {
    why = "the diagnostic command failed: " + command;
    return std::nullopt;
  }
  const char* chars = jni->GetStringUTFChars(static_cast<jstring>(out.get()), nullptr);
  std::string result = chars ? chars : "";
  if (chars) jni->ReleaseStringUTFChars(static_cast<jstring>(out.get()), chars);
  return result;
}

// Compiler directives in `Compiler.directives_print` output, HotSpot's default one excluded.
size_t directives_besides_default(std::string_view printed) {
  constexpr std::string_view kHeader = "Directive:";
  size_t count = 0;
  for (size_t at = printed.find(kHeader); at != std::string_view::npos;
       at = printed.find(kHeader, at + kHeader.size())) {
    if (printed.substr(at + kHeader.size()).rfind(" (default)", 0) != 0) ++count;
  }
  return count;
}

}  // namespace

bool keep_twins_out_of_inlining(JNIEnv* jni, std::string& why) {
  std::optional<DiagnosticCommands> commands = find_diagnostic_commands(jni, why);
  if (!commands) return false;
  LocalRef<jobject> mbean(jni, commands->mbean);
  std::optional<std::string> before = run_command(jni, *commands, "Compiler.directives_print", why);
  if (!before) return false;
  if (directives_besides_default(*before) != 0) {
    why =
        "the JVM has compiler directives of its own, which a directive for every method "
        "would hide (-XX:CompileCommand=dontinline,*::*$duplex does the same beside them)";
    return false;
  }
  std::string path = write_private_temp_file(
      "duplex-directive-XXXXXX.json",
      {reinterpret_cast<const unsigned char*>(kDirective.data()), kDirective.size()});
  if (path.empty()) {
    why = "cannot write the directive to a temporary file";
    return false;
  }
  // Quoted: the command line splits at spaces, and $TMPDIR may hold some.
  std::optional<std::string> added =
      run_command(jni, *commands, "Compiler.directives_add \"" + path + "\"", why);
  unlink(path.c_str());
  if (!added) return false;
  std::optional<std::string> after = run_command(jni, *commands, "Compiler.directives_print", why);
  if (!after || directives_besides_default(*after) != 1) {
    why = "HotSpot did not take the directive: " + *added;
    return false;
  }
  return true;
}

}  // namespace duplex::agent
