// Class headers gathered from many class files (a jar, the jars it needs, the JDK's jmods):
// each class's superclass and the access flags of the members it declares. It answers what no
// single class file can: which members a class inherits, and from which package.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "classfile/error.h"

namespace duplex {

struct IndexedClass {
  std::string super_name;    // empty for java/lang/Object (and module-info)
  bool conflicting = false;  // versions (of a multi-release jar) name different superclasses
  // "name:descriptor" of the fields and methods it declares protected, in any version (the
  // only members whose access a nestmate's code can differ on: see rewriter/twin_nest.cpp).
  // Other members are not kept: an index of a big class path stays small.
  std::unordered_set<std::string> protected_members;
};

// The superclasses above a class, nearest first.
struct Ancestry {
  std::vector<std::string> chain;  // as far as the index knows them
  // The first superclass the index does not know (or whose versions disagree); empty when the
  // chain reaches java/lang/Object.
  std::string unknown;
};

inline constexpr std::string_view kObject = "java/lang/Object";
// java.lang.Object's protected members ("name:descriptor"), fixed by the language: the index
// knows Object without its class file (ancestry_from ends at it).
inline constexpr std::string_view kObjectProtected[] = {"clone:()Ljava/lang/Object;",
                                                        "finalize:()V"};

class ClassIndex {
 public:
  // Adds one class file's header; false (nothing added) when it does not parse.
  bool add(std::span<const uint8_t> class_bytes);
  // Adds every class of a jar, a jmod (its classes/) or a directory, every version of a
  // multi-release jar included; classes that do not parse are skipped. A jar's or jmod's
  // classes are inflated and parsed on `threads` threads; the index is the same for any number.
  Status add_path(const std::string& path, unsigned threads = 1);
  // Adds `other`'s classes as add() would have (protected members joined, differing
  // superclasses marked conflicting); `other` is left empty.
  void merge(ClassIndex&& other);

  const IndexedClass* find(std::string_view internal_name) const;
  size_t size() const { return classes_.size(); }
  // The superclasses of a class whose direct superclass is `super_name` (that one first).
  Ancestry ancestry_from(std::string_view super_name) const;
  // The superclasses the index's classes name that it does not hold, sorted.
  std::vector<std::string> missing_superclasses() const;

 private:
  std::unordered_map<std::string, IndexedClass> classes_;
};

// The classes of a JDK, read on demand from its jmods (JAVA_HOME/jmods/*.jmod): java.base
// first, the other modules only when a class is not there. Not for several threads at once.
class JdkClasses {
 public:
  // Fails when `java_home` has no jmods directory with a readable java.base.jmod.
  static Result<JdkClasses> open(const std::string& java_home);
  JdkClasses(JdkClasses&&) noexcept;
  JdkClasses& operator=(JdkClasses&&) noexcept;
  ~JdkClasses();

  const std::string& java_home() const;
  // The class file of `internal_name`, nullopt when no module has it (or it cannot be read).
  std::optional<std::vector<uint8_t>> read(std::string_view internal_name) const;

 private:
  struct Modules;
  explicit JdkClasses(std::unique_ptr<Modules> modules);
  std::unique_ptr<Modules> modules_;
};

// The JDK running this process: $JAVA_HOME, else the installation of the `java` on PATH
// (symbolic links followed). nullopt when neither is found.
std::optional<std::string> default_java_home();

// Adds to `index` the superclasses its classes have in `jdk` and it lacks, transitively.
// Returns how many classes it added.
size_t add_jdk_superclasses(ClassIndex& index, const JdkClasses& jdk);

}  // namespace duplex
