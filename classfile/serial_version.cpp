// ObjectStreamClass.computeDefaultSUID over a class file instead of a loaded class: what
// reflection would report (Class.getModifiers, getDeclaredFields, ...) is read from the class
// file the way HotSpot derives it.
#include "classfile/serial_version.h"

#include <nettle/sha1.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "classfile/bytes.h"
#include "classfile/constant_pool.h"

namespace duplex {
namespace {

// The java.lang.reflect.Modifier bits each part keeps.
constexpr uint32_t kClassBits =
    access::kPublic | access::kFinal | access::kInterface | access::kAbstract;
constexpr uint32_t kFieldBits = access::kPublic | access::kPrivate | access::kProtected |
                                access::kStatic | access::kFinal | access::kVolatile |
                                access::kTransient;
constexpr uint32_t kMethodBits = access::kPublic | access::kPrivate | access::kProtected |
                                 access::kStatic | access::kFinal | access::kSynchronized |
                                 access::kNative | access::kAbstract | access::kStrict;

// What DataOutputStream writes: writeUTF (a u2 length, then modified UTF-8, which class files
// hold already) and writeInt.
class DataOutput {
 public:
  void utf(std::string_view modified_utf8, bool dotted = false) {
    u2(static_cast<uint16_t>(modified_utf8.size()));
    for (char c : modified_utf8)
      bytes_.push_back(static_cast<uint8_t>(dotted && c == '/' ? '.' : c));
  }
  void int32(uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes_.push_back(static_cast<uint8_t>(v >> shift));
  }
  std::vector<uint8_t> take() { return std::move(bytes_); }

 private:
  void u2(uint16_t v) {
    bytes_.push_back(static_cast<uint8_t>(v >> 8));
    bytes_.push_back(static_cast<uint8_t>(v));
  }
  std::vector<uint8_t> bytes_;
};

struct Signature {
  std::string_view name;
  std::string_view descriptor;
  uint16_t flags = 0;
};

bool java_less(std::string_view a, std::string_view b) {
  return compare_as_java_strings(a, b) < 0;
}

Result<std::string_view> utf8_at(const ClassFile& cf, uint16_t index, const char* what) {
  auto text = cf.pool.utf8(index);
  if (!text) return Error::plain(std::string("serialVersionUID: ") + what + " is not a Utf8 entry");
  return *text;
}

// Class.getModifiers(): a member class's flags are those of its own InnerClasses entry (the
// first naming it), as HotSpot reports them; ACC_SUPER is dropped by the mask.
uint16_t class_modifiers(const ClassFile& cf, std::string_view name) {
  const Attribute* inner = cf.find_attribute(cf.attributes, "InnerClasses");
  if (!inner) return cf.access_flags;
  ByteReader in(inner->data);
  uint16_t count = in.u2();
  for (uint16_t i = 0; i < count && !in.failed(); ++i) {
    uint16_t inner_class = in.u2();
    in.skip(4);  // outer_class_info_index, inner_name_index
    uint16_t flags = in.u2();
    if (in.failed() || inner_class == 0) continue;
    if (cf.pool.class_name(inner_class) == name) return flags;
  }
  return cf.access_flags;
}

Result<std::vector<Signature>> signatures(const ClassFile& cf, const std::vector<Member>& members) {
  std::vector<Signature> out;
  out.reserve(members.size());
  for (const Member& m : members) {
    auto name = utf8_at(cf, m.name_index, "a member's name");
    if (!name) return name.error();
    auto descriptor = utf8_at(cf, m.descriptor_index, "a member's descriptor");
    if (!descriptor) return descriptor.error();
    out.push_back({*name, *descriptor, m.access_flags});
  }
  return out;
}

bool is_static_initializer(const ClassFile& cf, const Signature& m) {
  // Before version 51 HotSpot takes <clinit> for the initializer whatever its flags.
  return m.name == "<clinit>" && m.descriptor == "()V" &&
         (cf.major_version < 51 || (m.flags & access::kStatic) != 0);
}

void write_interfaces(const ClassFile& cf, DataOutput& out, std::vector<std::string>& scratch) {
  scratch.clear();
  for (uint16_t index : cf.interfaces) {
    std::string dotted(cf.pool.class_name(index).value_or(""));
    std::replace(dotted.begin(), dotted.end(), '/', '.');
    scratch.push_back(std::move(dotted));
  }
  std::sort(scratch.begin(), scratch.end(), java_less);
  for (const std::string& name : scratch) out.utf(name);
}

void write_fields(std::vector<Signature> fields, DataOutput& out) {
  // By name only, in declaration order among namesakes (Arrays.sort is stable).
  std::stable_sort(fields.begin(), fields.end(), [](const Signature& a, const Signature& b) {
    return java_less(a.name, b.name);
  });
  for (const Signature& f : fields) {
    uint32_t mods = f.flags & kFieldBits;
    bool private_static_or_transient =
        (mods & access::kPrivate) != 0 && (mods & (access::kStatic | access::kTransient)) != 0;
    if (private_static_or_transient) continue;
    out.utf(f.name);
    out.int32(mods);
    out.utf(f.descriptor);
  }
}

// Non-private constructors or methods, sorted by name and then descriptor (as written with
// '/'), each written with its descriptor dotted.
void write_methods(std::vector<Signature> methods, DataOutput& out) {
  std::sort(methods.begin(), methods.end(), [](const Signature& a, const Signature& b) {
    int by_name = compare_as_java_strings(a.name, b.name);
    return by_name != 0 ? by_name < 0 : java_less(a.descriptor, b.descriptor);
  });
  for (const Signature& m : methods) {
    uint32_t mods = m.flags & kMethodBits;
    if ((mods & access::kPrivate) != 0) continue;
    out.utf(m.name);
    out.int32(mods);
    out.utf(m.descriptor, /*dotted=*/true);
  }
}

}  // namespace

Result<std::vector<uint8_t>> serial_version_input(const ClassFile& cf) {
  auto name = cf.pool.class_name(cf.this_class);
  if (!name) return Error::plain("serialVersionUID: this_class is not a Class entry");
  auto fields = signatures(cf, cf.fields);
  if (!fields) return fields.error();
  auto all_methods = signatures(cf, cf.methods);
  if (!all_methods) return all_methods.error();

  bool has_initializer = false;
  std::vector<Signature> constructors, methods;  // getDeclaredConstructors, getDeclaredMethods
  for (const Signature& m : *all_methods) {
    if (m.name == "<init>") {
      constructors.push_back(m);
    } else if (m.name == "<clinit>") {
      has_initializer = has_initializer || is_static_initializer(cf, m);
    } else {
      methods.push_back(m);
    }
  }

  DataOutput out;
  out.utf(*name, /*dotted=*/true);
  uint32_t class_mods = class_modifiers(cf, *name) & kClassBits;
  if ((class_mods & access::kInterface) != 0) {
    // ObjectStreamClass's rule for interfaces, kept for compatibility with JDK 1.1.
    class_mods = methods.empty() ? class_mods & ~access::kAbstract : class_mods | access::kAbstract;
  }
  out.int32(class_mods);
  std::vector<std::string> interface_names;
  write_interfaces(cf, out, interface_names);
  write_fields(std::move(fields.value()), out);
  if (has_initializer) {
    out.utf("<clinit>");
    out.int32(access::kStatic);
    out.utf("()V");
  }
  write_methods(std::move(constructors), out);
  write_methods(std::move(methods), out);
  return out.take();
}

int64_t serial_version_uid_of(std::span<const uint8_t> input) {
  sha1_ctx sha;
  sha1_init(&sha);
  sha1_update(&sha, input.size(), input.data());
  uint8_t digest[SHA1_DIGEST_SIZE];
  sha1_digest(&sha, SHA1_DIGEST_SIZE, digest);
  uint64_t hash = 0;
  for (int i = 7; i >= 0; --i) hash = hash << 8 | digest[i];  // the first eight, little-endian
  return static_cast<int64_t>(hash);
}

Result<int64_t> default_serial_version_uid(const ClassFile& cf) {
  auto input = serial_version_input(cf);
  if (!input) return input.error();
  return serial_version_uid_of(*input);
}

bool serial_version_is_fixed(const ClassFile& cf) {
  auto super_name = cf.pool.class_name(cf.super_class);
  return super_name && (*super_name == "java/lang/Record" || *super_name == "java/lang/Enum");
}

bool declares_serial_version_uid(const ClassFile& cf) {
  return std::any_of(cf.fields.begin(), cf.fields.end(),
                     [&](const Member& f) { return cf.member_name(f) == "serialVersionUID"; });
}

}  // namespace duplex
