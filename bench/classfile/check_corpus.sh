#!/bin/sh
# The corpus check: every class of the JDK 17 jmods and of Debian application jars through
# duplex-corpus-check (parse+write byte-identical; every method through the IR and the
# assembler), then every reassembled class verified by HotSpot (tests/scripts/verify_dir.sh).
#
#   bench/classfile/check_corpus.sh [--build DIR] [--work DIR] [--sample N] [--apps "NAME..."]
#                                   [--jdk-only|--apps-only]
#
# --build: the meson build dir (default build/); --work: where the reassembled classes go
# (default: a fresh temp dir, removed at the end unless KEEP=1); --sample N: only N classes
# of the JDK, spread over all modules (0: all, what the 'corpus' meson test runs); --apps: only these
# application jars (default: h2 eclipse-jdt-core js xalan2 xercesImpl sunflow bcprov; the JVM
# languages' jars are another set: clojure groovy-all jython scala-library scala-reflect
# scala-compiler).
# Exit status: 0 when every class round-tripped, reassembled and verified; 1 otherwise.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build
work=""
sample=0
do_jdk=1
do_apps=1
apps="h2 eclipse-jdt-core js xalan2 xercesImpl sunflow bcprov"
while [ $# -gt 0 ]; do
  case $1 in
  --build) build=$2; shift 2 ;;
  --work) work=$2; shift 2 ;;
  --sample) sample=$2; shift 2 ;;
  --apps) apps=$2; shift 2 ;;
  --jdk-only) do_apps=0; shift ;;
  --apps-only) do_jdk=0; shift ;;
  *) echo "usage: $0 [--build DIR] [--work DIR] [--sample N] [--apps LIST] [--jdk-only|--apps-only]" >&2; exit 2 ;;
  esac
done
check=$build/duplex-corpus-check
jmods=${JMODS:-/usr/lib/jvm/java-17-openjdk-amd64/jmods}
share=${SHARE_JAVA:-/usr/share/java}
export DUPLEX_HARNESS_DIR="${DUPLEX_HARNESS_DIR:-$build/tests/java/harness}"
verify=$root/tests/scripts/verify_dir.sh
[ -x "$check" ] || { echo "$0: no $check (ninja -C $build duplex-corpus-check)" >&2; exit 2; }
if [ -z "$work" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/duplex-corpus-XXXXXX")
  # Kept when something failed (the reports are in it) or KEEP=1.
  [ "${KEEP:-0}" = 1 ] || trap '[ "$status" != 0 ] || rm -rf "$work"' EXIT
else
  mkdir -p "$work" || { echo "$0: cannot make $work" >&2; exit 2; }
fi
status=0
summary=""

# Runs duplex-corpus-check; its last five lines are the counts.
run_check() {
  label=$1
  shift
  echo "== $label: duplex-corpus-check $*"
  if ! "$check" --max-failures 30 "$@" > "$work/$label.check" 2>&1; then status=1; fi
  grep '^FAIL' "$work/$label.check" | head -30 || true
  tail -n 5 "$work/$label.check"
  summary="$summary
$label: $(grep '^classes:' "$work/$label.check" | head -1)
  $(grep '^parse+write' "$work/$label.check")
  $(grep '^methods with code' "$work/$label.check")"
}

# Runs verify_dir.sh; keeps FAIL lines and the final count.
run_verify() {
  label=$1
  shift
  echo "== $label: verify_dir.sh $*"
  if ! "$verify" "$@" > "$work/$label.verify" 2>&1; then status=1; fi
  grep -E '^(FAIL|SKIP)' "$work/$label.verify" | head -40 || true
  line=$(grep '^verified' "$work/$label.verify" | tail -1)
  [ -n "$line" ] || { status=1; line="no result (see $work/$label.verify)"; tail -5 "$work/$label.verify"; }
  echo "$line"
  summary="$summary
  HotSpot: $line"
}

if [ "$do_jdk" = 1 ]; then
  if [ "$sample" -gt 0 ]; then
    run_check jdk --sample "$sample" --out "$work/jdk" "$jmods"/*.jmod
  else
    run_check jdk --out "$work/jdk" "$jmods"/*.jmod
  fi
  run_verify jdk --jdk "$work/jdk"
fi

# Application jars: JAR and the jars of the same program it needs (the verifier loads them;
# the program's own jar must not be on --cp, it would shadow the rewritten classes).
app() {
  jar=$share/$1.jar
  [ -f "$jar" ] || { echo "== $1: $jar not installed, skipped"; return 0; }
  deps=""
  shift
  for d in "$@"; do
    # The unversioned name, or else the package's versioned jar (lucene's have no other).
    dep=$share/$d.jar
    [ -f "$dep" ] || dep=$(ls "$share/$d"-[0-9]*.jar 2>/dev/null | sort | tail -n 1)
    [ -n "$dep" ] && [ -f "$dep" ] && deps="$deps${deps:+:}$dep"
  done
  name=$(basename "$jar" .jar)
  run_check "$name" --out "$work/app" "$jar"
  if [ -n "$deps" ]; then
    run_verify "$name" --cp "$deps" "$work/app/$name"
  else
    run_verify "$name" "$work/app/$name"
  fi
}

# The dependencies each program's classes name, from Debian packages (scripts/install-deps.sh
# --with-tests installs them), so that HotSpot can load and verify every class; a dependency
# that is missing shows up as SKIPs.
deps_of() {
  case $1 in
  h2) echo "lucene-core lucene-analyzers-common lucene-queryparser servlet-api jakarta-servlet-api osgi.core osgi.cmpn jts-core" ;;
  eclipse-jdt-core) echo "eclipse-core-runtime eclipse-core-resources eclipse-core-jobs eclipse-core-contenttype eclipse-core-expressions eclipse-core-filesystem equinox-common equinox-preferences equinox-registry eclipse-text eclipse-osgi equinox-app osgi.core osgi.cmpn" ;;
  xalan2) echo "xercesImpl serializer xml-apis" ;;
  xercesImpl) echo "xml-apis xml-resolver" ;;
  sunflow) echo "janino commons-compiler" ;;
  # The JVM languages of bench/README.md (their Debian packages: clojure, groovy, jython, scala).
  clojure) echo "spec.alpha core.specs.alpha" ;;
  jython) echo "antlr3-runtime antlr3 stringtemplate4 asm asm-commons asm-util commons-compress guava icu4j jffi jnr-constants jnr-ffi jnr-netdb jnr-posix jline2 netty-buffer netty-codec netty-common netty-handler netty-resolver netty-transport servlet-api ant" ;;
  groovy-all) echo "ant jline2 servlet-api junit4" ;;
  scala-reflect) echo "scala-library" ;;
  scala-compiler) echo "scala-library scala-reflect scala-xml_2.11 jline2 jansi ant" ;;
  *) echo "" ;;
  esac
}

if [ "$do_apps" = 1 ]; then
  for a in $apps; do
    # shellcheck disable=SC2046
    app "$a" $(deps_of "$a")
  done
fi

echo "== summary$summary"
[ "$status" = 0 ] && echo "corpus check: PASS" || echo "corpus check: FAIL (details in $work)"
exit "$status"
