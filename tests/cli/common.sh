# Shared by the tests/cli/*.sh tests of `duplex report`, `overlap` and `merge`; sourced, not run.
# The sourcing script is called as: SCRIPT DUPLEX JAVA RUNTIME_JAR FIXTURES_DIR HARNESS_DIR
# and gets $duplex, $java, $runtime_jar, $fixtures, $harness, a scratch directory $tmp removed at
# exit, and the helpers below. Failures are counted; finish() reports them and sets the status.
set -u
duplex="$1"
java="$2"
runtime_jar="$3"
fixtures="$4"
harness="$5"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/duplex-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0

ok() { echo "ok   $1"; }
fail() {
  echo "FAIL $1"
  failures=$((failures + 1))
}
# check NAME COMMAND...: the command must succeed.
check() {
  name=$1
  shift
  if "$@"; then ok "$name"; else fail "$name"; fi
}
finish() {
  [ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
  exit 0
}

# profiles DIR: instruments the Java fixtures (--mode full) and runs them under the runtime at
# sampling intervals 1 (DIR/perfect.xml), 10 (DIR/sampled10.xml) and 1000 (DIR/sampled.xml).
profiles() {
  dir=$1
  mkdir -p "$dir"
  "$duplex" instrument "$fixtures" -o "$dir/classes" --mode full --quiet || return 1
  for interval in 1 10 1000; do
    case $interval in 1) out=perfect.xml ;; 1000) out=sampled.xml ;; *) out=sampled$interval.xml ;; esac
    "$java" -Xbootclasspath/a:"$runtime_jar" -Dduplex.interval=$interval \
      -Dduplex.mode=full -Dduplex.profile=call-edge,field-access -Dduplex.out="$dir/$out" \
      -cp "$harness" duplex.test.RunFixtures "$dir/classes" >"$dir/run-$interval.log" 2>&1 ||
      # Whether every rewritten fixture runs is the rewriter tests' business; these tests need
      # only the profile, which the runtime writes at exit all the same.
      grep '^!!' "$dir/run-$interval.log" | sed "s/^/note: interval $interval: /"
    [ -s "$dir/$out" ] || { echo "no profile written at interval $interval"; return 1; }
  done
}

# expect_error NAME STATUS TEXT ARGS...: `duplex ARGS` exits with STATUS, prints exactly one line
# "duplex: ...TEXT..." on stderr, nothing on stdout, and never crashes.
expect_error() {
  name=$1 want=$2 text=$3
  shift 3
  "$duplex" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  got=$?
  problem=""
  [ "$got" -eq "$want" ] || problem="exit status $got, expected $want"
  [ "$(wc -l <"$tmp/stderr")" -eq 1 ] || problem="$problem; not one stderr line"
  grep -q '^duplex: ' "$tmp/stderr" || problem="$problem; stderr does not start with 'duplex: '"
  grep -qF -- "$text" "$tmp/stderr" || problem="$problem; stderr lacks '$text'"
  [ -s "$tmp/stdout" ] && problem="$problem; unexpected stdout"
  if [ -n "$problem" ]; then
    fail "$name: $problem"
    sed 's/^/  stderr: /' "$tmp/stderr"
  else
    ok "$name"
  fi
}

# only_files DIR NAMES...: DIR holds exactly NAMES (no output or temporary file left behind).
only_files() {
  d=$1
  shift
  want=""
  [ $# -eq 0 ] || want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
  have=$(ls -A "$d" | sort | tr '\n' ' ')
  [ "$want" = "$have" ] || { echo "  $d holds: $have (expected: $want)"; return 1; }
}
