// Lazy twins (docs/design/lazy-twins.md): the outlined twins of a class move into a static
// nestmate class of their own, HOST$DuplexTwins, which the JVM loads and verifies only when a
// sample stub of the class first calls one of them. A run that samples few classes
// (checks-only, a long interval) then no longer parses and verifies every class's duplicated
// code when the class loads.
//
// The host's code stays byte for byte what the rewriter made: its method references to the
// moved twins are re-pointed to the twin class in the pool, it lists the twin class in
// NestMembers (so the twins may stay private), and a host of version 50 to 54 is raised to 55,
// the first with nests (the output then needs Java 11 or later). A twin the JVM would not run
// the same way from another class stays in its host (judge_twins), and so does every twin
// of a class that cannot host a nest (twin_nest_refused).
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

// Why `host` keeps all its twins, or nullopt: an interface or module; a class before version
// 50 (no frames) or already in another class's nest; or, from 50 to 54, code that version 55
// would refuse (jsr/ret, branches without a StackMapTable, a non-static <clinit>).
// With `may_raise` false, a class of version 50 to 54 keeps its twins too.
std::optional<std::string> twin_nest_refused(const ClassFile& host, bool may_raise = true);

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

// A verdict for each of `twins` (methods of `host`'s rewrite). Call it once the host has all
// its other members (counter fields included). What only the host may run goes through
// bridges: an invokespecial, a member the host inherits, a static member of its superclass in
// another package. A twin stays when even a bridge could not run it the same way: an instance
// member of its superclass in another package (maybe protected, and the receiver may be of the
// superclass's type, which a bridge taking the host's type would refuse); clone or finalize of
// another class; a method handle of kind REF_invokeSpecial, or of a member the host inherits,
// in a constant or a bootstrap argument; a caller-sensitive look-up (MethodHandles.lookup,
// getCallerClass) that would see the twin class; or a bridge that would return a class none of
// the host's method signatures names, outside the JDK's `java/` packages (reflection over the
// host would have to resolve it, and it may be an optional dependency).
//
// With a class index (`index`, holding the host's superclasses: see superclasses_unknown), the
// rules are exact instead: only a member that may be protected in a superclass of another
// package, the one thing a nestmate of the same package may not reach, needs a bridge (taking
// the receiver as the owner's type) or, named with a superclass as owner or in a method handle,
// keeps its twin; invokespecial, clone and finalize of another class and the caller-sensitive
// look-ups are as above. Without one, a protected static member named with a more distant
// superclass as owner, or a protected instance member named with a subclass as owner, is not
// caught, and such a twin fails with IllegalAccessError at its first sample.
std::vector<TwinVerdict> judge_twins(const ClassFile& host, std::span<const AddedMethod> twins,
                                     const ClassIndex* index = nullptr);

// With a class index: why `host` keeps all its twins because the index does not hold all its
// superclasses (then no rule can tell its inherited protected members), or nullopt.
std::optional<std::string> superclasses_unknown(const ClassFile& host, const ClassIndex& index);

struct MovingTwin {
  AddedMethod method;
  std::vector<BridgeSite> bridges;  // from its verdict
};

// Builds the twin class holding `twins` (methods of `host`'s rewrite, not appended to it) and
// edits `host` to call them there: re-pointed references, NestMembers, version, and a bridge
// (`private static synthetic duplex$bridge$<n>`, taking the instruction's operands) for each
// bridge site, which the twin then calls instead. Call it last, when the host's pool holds
// every entry the twins use: the twin class starts from a copy of it, so that the twins' code
// and attributes keep their pool indices. A bridge declares as an Object each operand of a
// class that the host's method signatures do not name, outside the JDK's `java/` packages.
// Returns the twin class's bytes; on failure `host` may be half edited and must be dropped.
Result<std::vector<uint8_t>> move_twins_to_nestmate(ClassFile& host, std::vector<MovingTwin> twins);

}  // namespace duplex
