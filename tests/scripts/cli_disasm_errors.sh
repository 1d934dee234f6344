#!/bin/sh
# Error paths of `duplex disasm` (and of `duplex instrument` on inputs that are not what their
# names say): every bad input or command line must give the documented
# exit status (1 bad input, 2 usage), exactly one line on stderr starting with "duplex: ",
# nothing on stdout, and never a crash (a signal would show as status > 128).
# Usage: cli_disasm_errors.sh PATH/TO/duplex
set -u
duplex="$1"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/duplex-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0

# check NAME EXPECTED_STATUS EXPECTED_STDERR_SUBSTRING ARGS...
check() {
  name=$1 want=$2 text=$3
  shift 3
  "$duplex" "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  lines=$(wc -l <"$tmp/err")
  problem=""
  [ "$got" -eq "$want" ] || problem="exit status $got, expected $want"
  [ "$lines" -eq 1 ] || problem="$problem; $lines stderr lines, expected 1"
  grep -q '^duplex: ' "$tmp/err" || problem="$problem; stderr does not start with 'duplex: '"
  grep -qF -- "$text" "$tmp/err" || problem="$problem; stderr lacks '$text'"
  [ -s "$tmp/out" ] && problem="$problem; unexpected stdout"
  if [ -n "$problem" ]; then
    echo "FAIL $name: $problem"
    sed 's/^/  stderr: /' "$tmp/err"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

printf 'hello, this is text\n' >"$tmp/text.class"
: >"$tmp/empty.class"
# A valid header (magic, version 61) cut off inside the constant pool.
printf '\312\376\272\276\000\000\000\075\000\020\012\000' >"$tmp/truncated.class"
# A zip local-file signature followed by junk: looks like a jar, is not one.
printf 'PK\003\004 this is not really a zip archive' >"$tmp/corrupt.jar"

check "missing file" 1 "missing.class: " disasm "$tmp/missing.class"
check "text file" 1 "not a class file (bad magic 0x68656C6C)" disasm "$tmp/text.class"
check "empty file" 1 "empty file" disasm "$tmp/empty.class"
check "truncated class" 1 "truncated" disasm "$tmp/truncated.class"
check "corrupt jar" 1 "corrupt.jar: " disasm "$tmp/corrupt.jar"
check "directory" 1 "directory" disasm "$tmp"
check "bad option" 2 "unknown option '--bogus'" disasm --bogus "$tmp/text.class"
check "missing FILE" 2 "missing FILE" disasm
check "two files" 2 "more than one FILE" disasm a.class b.class
check "unknown command" 2 "unknown command 'frobnicate'" frobnicate
check "no command" 2 "missing command"

# `duplex instrument` on one class file that is not one fails and writes nothing (inside a jar
# or a directory such an entry is copied as it is).
check "instrument text file" 1 "text.class: class-file byte 0: not a class file" \
  instrument "$tmp/text.class" -o "$tmp/out.class"
check "instrument truncated class" 1 "truncated" instrument "$tmp/truncated.class" -o "$tmp/out.class"
check "instrument empty file" 1 "empty file" instrument "$tmp/empty.class" -o "$tmp/out.class"
check "instrument corrupt jar" 1 "corrupt.jar: " instrument "$tmp/corrupt.jar" -o "$tmp/out.jar"
check "instrument missing file" 1 "missing.class: " instrument "$tmp/missing.class" -o "$tmp/out.class"
for written in "$tmp/out.class" "$tmp/out.jar"; do
  if [ -e "$written" ]; then
    echo "FAIL instrument wrote $written for a bad input"
    failures=$((failures + 1))
  fi
done

# The help and version paths succeed and print to stdout only.
for args in "--help" "help" "help disasm" "disasm --help" "--version"; do
  # shellcheck disable=SC2086
  if "$duplex" $args >"$tmp/out" 2>"$tmp/err" && [ -s "$tmp/out" ] && [ ! -s "$tmp/err" ]; then
    echo "ok   $args"
  else
    echo "FAIL $args"
    failures=$((failures + 1))
  fi
done

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
