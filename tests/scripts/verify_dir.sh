#!/bin/sh
# Verifies every class of a directory or jar with HotSpot, without initializing any of them.
#
#   tests/scripts/verify_dir.sh [--java JAVA] [--harness DIR] [--verbose] [--cp DEPS] (DIR|JAR)
#   tests/scripts/verify_dir.sh [--java JAVA] [--harness DIR] [--verbose] --jdk DIR
#
# --cp DEPS: classpath of the input's dependencies. --jdk: DIR holds one directory per JDK
# module (DIR/java.base/java/lang/...; `jimage extract --dir DIR $JAVA_HOME/lib/modules` makes
# one); a child JVM loads them through --patch-module. Output and exit status: see VerifyAll.java
# ("FAIL c: ...", "SKIP c: missing dependency d", "verified N classes, F failed, S skipped ...";
# 0 = no failure, 1 = failures, 2 = usage).
set -eu
. "$(dirname "$0")/java_env.sh"
parse_java_env "$@"
shift "$parsed"
# shellcheck disable=SC2086
exec "$java" $verify_flags -cp "$harness" duplex.test.VerifyAll "$@"
