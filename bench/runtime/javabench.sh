# The start every plain-Java micro-benchmark here shares, sourced after setting `java_source`
# (a .java file under this folder): strict mode, `here` (this folder), `rounds` (the script's
# first argument, default 3), a temporary directory `out` removed at exit, and the source
# compiled into it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
javac -d "$out" "$here/$java_source"
