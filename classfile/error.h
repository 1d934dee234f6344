// Errors are values in duplex: nothing in the library throws across its API or aborts.
// An Error names the class, the method (if any), the byte offset and the reason.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace duplex {

// Which space Error::offset is measured in.
enum class OffsetKind : uint8_t {
  kNone,       // no offset applies
  kClassFile,  // byte offset from the start of the class file
  kBytecode,   // bytecode offset inside the method's code array
};

struct Error {
  std::string class_name;  // internal form (java/lang/String); empty when not yet known
  std::string method;      // name + descriptor (main([Ljava/lang/String;)V); empty for none
  int64_t offset = -1;
  OffsetKind offset_kind = OffsetKind::kNone;
  std::string reason;

  // One line: "java/lang/Foo.bar()V: bytecode offset 12: branch target out of range".
  std::string message() const;

  static Error at_file(int64_t offset, std::string reason) {
    return Error{{}, {}, offset, OffsetKind::kClassFile, std::move(reason)};
  }
  static Error at_code(int64_t offset, std::string reason) {
    return Error{{}, {}, offset, OffsetKind::kBytecode, std::move(reason)};
  }
  static Error plain(std::string reason) {
    return Error{{}, {}, -1, OffsetKind::kNone, std::move(reason)};
  }
  // Fills in the class and method when a lower layer did not know them.
  Error& in(std::string_view cls, std::string_view meth = {}) {
    if (class_name.empty()) class_name = cls;
    if (method.empty()) method = meth;
    return *this;
  }
};

// A value or an Error. Small on purpose: C++20 has no std::expected.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return value(); }

  const Error& error() const { return std::get<1>(v_); }
  Error& error() { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Result for operations with no value.
struct Ok {};
using Status = Result<Ok>;

}  // namespace duplex
