// The application class path as the agent's background rewriting sees it (ahead.h): which
// jar or directory holds each class, and the main class the launcher was asked to run.
//
// It mirrors what the JVM's application loader will find, closely enough to guess: the
// elements of java.class.path in order (the first holder of a name wins), the jars a jar's
// manifest names in Class-Path, and for a multi-release jar the highest version of each
// class up to the running Java release. A wrong guess costs a wasted rewrite, never a wrong
// class: the hook uses a background rewrite only when its original bytes are the bytes the
// JVM is loading. Nothing here is thread-safe: one thread reads.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "classfile/archive.h"

namespace duplex::agent {

class ClassPath {
 public:
  // Indexes `class_path` (java.class.path: elements separated by ':'; an empty element is the
  // working directory). Elements that are missing or unreadable are left out. `release` is
  // the running Java's feature version (for multi-release jars).
  static ClassPath index(std::string_view class_path, int release);

  // The bytes of `internal_name` ("org/h2/Driver") as the index found them; nullopt when the
  // class path has no such class or it cannot be read.
  std::optional<std::vector<uint8_t>> read(const std::string& internal_name) const;
  bool contains(const std::string& internal_name) const { return where_.count(internal_name); }
  size_t size() const { return where_.size(); }

  // The internal name of the class the launcher runs, from the sun.java.command property:
  // its first word is a class name, or a jar whose manifest names Main-Class. Empty when
  // neither (a module's main class, say).
  static std::string main_class(std::string_view java_command);

 private:
  struct Place {
    size_t archive = 0;               // index in jars_, or SIZE_MAX for a directory's file
    const JarEntry* entry = nullptr;  // in jars_[archive]
    std::string file;                 // the directory's file
  };
  void add_element(const std::string& path, int release, std::vector<std::string>& pending);
  void add_jar(JarReader jar, int release, std::vector<std::string>& pending);
  void add_directory(const std::string& root);

  std::vector<std::unique_ptr<JarReader>> jars_;
  std::vector<std::string> seen_paths_;
  std::unordered_map<std::string, Place> where_;
};

// The value of one main-section attribute of a jar manifest ("Main-Class", "Class-Path"),
// continuation lines joined; empty when absent. Exposed for the unit tests.
std::string manifest_attribute(std::string_view manifest, std::string_view name);

}  // namespace duplex::agent
