#!/bin/sh
# Lazy twins for the agent (docs/design/lazy-twins.md, "The agent"): the agent cannot write a
# twin class where a class loader would find it, but an invokedynamic bootstrap can define it
# at a host's first sample, from bytes held aside, with the host's own lookup
# (Lookup.defineClass: an ordinary class of the host's loader and package, a nestmate by its
# NestHost attribute). Checks that the twin reaches the host's private members and that two
# first calls at once define it once, with every class verified.
#
#   bench/runtime/indytwin.sh     (needs Debian's libasm-java for the generator)
set -eu
here=$(cd "$(dirname "$0")" && pwd)/indytwin
asm=/usr/share/java/asm.jar
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
javac -cp "$asm" -d "$out/gen" "$here/GenIndyTwin.java"
java -cp "$asm:$out/gen" GenIndyTwin "$out"
javac -d "$out/classes" "$here/TwinLinker.java" "$here/IndyTwin.java"
java -Xverify:all -XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal \
  -cp "$out/classes" IndyTwin "$out/twin.bin"
