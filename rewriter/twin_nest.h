// Lazy twins (docs/design/lazy-twins.md): the outlined twins of a class move into a class of
// their own, HOST$DuplexTwins, in the same package, which the JVM loads and verifies only when a
// sample stub of the class first calls one of them. A run that samples few classes
// (checks-only, a long interval) then no longer parses and verifies every class's duplicated
// code when the class loads.
//
// The host's code stays byte for byte what the rewriter made: its method references to the
// moved twins are re-pointed to the twin class in the pool. How the twin class reaches what
// only the host may reach depends on the host's version (TwinAccess): from 55 on (or raised to
// 55, the first with nests; the output then needs Java 11 or later) the host lists it in
// NestMembers and the twins stay private; from 50 to 54, kept, the twin class is a plain class
// of the same package, its twins package-private, and the host's private members go through
// bridges. A twin the JVM would not run the same way from another class stays in its host
// (judge_twins), and so does every twin of a class that cannot have a twin class
// (twin_class_refused).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "classfile/class_file.h"
#include "classfile/class_index.h"
#include "classfile/error.h"
#include "rewriter/method_rewriter.h"

namespace duplex {

// How a twin class reaches the members of its host that only the host may reach.
enum class TwinAccess {
  kNestmate,  // the host (version 55 or later, or raised to it) lists it in NestMembers
  kPackage,   // the host keeps its version (50-54): no nest; its private members via bridges
};

// Where the twins of a host go, decided before the host gets its twins.
struct TwinClassPlan {
  TwinAccess access = TwinAccess::kNestmate;
  // The host's members before the rewrite added its own (counters, twins that stay): with
  // kPackage, the private static ones among those become package-private when twins move, so
  // that the twin class reaches them directly; the class's own private members keep their
  // access (reflection and serialization look at it) and are reached through bridges.
  size_t original_fields = 0;
  size_t original_methods = 0;
  // Set when the host could not be raised to 55 as asked and keeps its version (kPackage).
  std::optional<std::string> not_raised;
};

// Why `host` keeps all its twins (an interface or module; a class before version 50, which has
// no frames, or already in another class's nest), or nullopt and, in `plan`, how its twin class
// reaches it. A class of version 50 to 54 is raised to 55 with `may_raise`, unless its code is
// what version 55 refuses (jsr/ret, branches without a StackMapTable, a non-static <clinit>, a
// write to a final field outside the initializer); otherwise it keeps its version (kPackage).
std::optional<std::string> twin_class_refused(const ClassFile& host, bool may_raise,
                                              TwinClassPlan& plan);

// An instruction of a twin that only the host may run (a call bound to the host, or a member
// that may be protected, reached as the host's subclass privilege): the twin class calls a
// bridge in the host instead, a private static method that runs the instruction there.
struct BridgeSite {
  size_t pc = 0;  // in the twin's code array
  uint8_t opcode = 0;
  uint16_t ref = 0;  // the member reference, in the host's pool
};

struct TwinVerdict {
  std::optional<std::string> stays;  // why the twin must stay in its host; nullopt: it moves
  std::vector<BridgeSite> bridges;   // when it moves: its instructions that need a bridge
};

// A verdict for each of `twins` (methods of `host`'s rewrite), placed as `plan` says. Call it
// once the host has all its other members (counter fields included). What only the host may
// run goes through bridges: an invokespecial, a member the host inherits, a static member of its
// superclass in another package. A twin stays when even a bridge could not run it the same way: an
// instance member of its superclass in another package (maybe protected, and the receiver may be of
// the superclass's type, which a bridge taking the host's type would refuse); clone or finalize of
// another class; a method handle of kind REF_invokeSpecial, or of a member the host inherits,
// in a constant or a bootstrap argument; a call of a caller-sensitive JDK method that would see
// the twin class (rewriter/caller_sensitive.h: the look-ups, and the reflective accesses and
// field updaters, which check access against their caller), or a bootstrap method other than the
// JDK's that use the caller's lookup for access alone (a serializable lambda records its
// capturing class); or a bridge that would return a class none of the host's methods'
// signatures names (constructors do not count: getDeclaredMethods() lists none), outside the
// JDK's `java/` packages (reflection over the host would have to resolve it, and it may be an
// optional dependency).
//
// With a class index (`index`, holding the host's superclasses: see superclasses_unknown), the
// rules are exact instead: only a member that may be protected in a superclass of another
// package, the one thing a nestmate of the same package may not reach, needs a bridge (taking
// the receiver as the owner's type) or, named with a superclass as owner or in a method handle,
// keeps its twin; invokespecial, clone and finalize of another class, the caller-sensitive
// calls and the bootstraps are as above. Without one, a protected static member named with a more
// distant superclass as owner, or a protected instance member named with a subclass as owner, is
// not caught, and such a twin fails with IllegalAccessError at its first sample.
//
// Without a nest (TwinAccess::kPackage) the host's own private members need bridges too, and a
// twin stays that names one where a bridge cannot stand in (a private constructor, or a method
// handle: a lambda's body, in a bootstrap argument) or reaches a private field or static
// method between a backward branch and its target (a bridge there is a call at every iteration
// while the twin runs interpreted). In either form a write to one of the host's final fields
// goes through a bridge (before version 53 a class may write them outside its initializers).
std::vector<TwinVerdict> judge_twins(const ClassFile& host, std::span<const AddedMethod> twins,
                                     const ClassIndex* index = nullptr,
                                     const TwinClassPlan& plan = {});

// With a class index: why `host` keeps all its twins because the index does not hold all its
// superclasses (then no rule can tell its inherited protected members), or nullopt.
std::optional<std::string> superclasses_unknown(const ClassFile& host, const ClassIndex& index);

struct MovingTwin {
  AddedMethod method;
  std::vector<BridgeSite> bridges;  // from its verdict
};

// Builds the twin class holding `twins` (methods of `host`'s rewrite, not appended to it) and
// edits `host` to call them there: re-pointed references, and a bridge (`static synthetic
// duplex$bridge$<n>`, taking the instruction's operands) for each bridge site, which the twin
// then calls instead. As a nestmate (`plan`): NestMembers, the version raised to 55, and the
// twins and bridges private; without a nest: the host's version, and the twins, the bridges
// and the rewriter's private static members package-private. Call it last, when the host's pool
// holds every entry the twins use: the twin class starts from a copy of it, so that the twins' code
// and attributes keep their pool indices. A bridge declares as an Object each operand of a
// class that the host's method signatures do not name, outside the JDK's `java/` packages.
// Returns the twin class's bytes; on failure `host` may be half edited and must be dropped.
Result<std::vector<uint8_t>> move_twins_to_twin_class(ClassFile& host,
                                                      std::vector<MovingTwin> twins,
                                                      const TwinClassPlan& plan = {});

}  // namespace duplex
