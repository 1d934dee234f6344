// Keeping HotSpot's compilers from inlining twins (the `NAME$duplex` methods) into the methods
// that call them.
//
// Once a sample path has been taken, C2 compiles it into the checking method and inlines the
// twin there, so every hot compiled method carries its twin's code (docs/design/hotspot-costs.md,
// section 15). Twins that `duplex instrument` moves to twin classes avoid this with a signature
// class that never loads; the agent's twins stay in their classes, so the agent asks HotSpot
// directly, with the compiler directive `jcmd Compiler.directives_add` would add:
// no method inlines a method whose name ends in `$duplex`.
#pragma once

#include <jni.h>

#include <string>

namespace duplex::agent {

// Adds the directive through the JDK's DiagnosticCommand implementation (jdk.management),
// reached with JNI because its package is not exported. Needs the live phase. Does nothing and
// says why in `why` when the JVM lacks that module or the command, when the user has compiler
// directives of their own (ours, matching every method, would hide theirs), or when any step
// fails; never leaves a Java exception pending. True when the directive is in place.
bool keep_twins_out_of_inlining(JNIEnv* jni, std::string& why);

}  // namespace duplex::agent
