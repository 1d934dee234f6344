#!/bin/sh
# A rewrite never changes the serialVersionUID serialization gives a class: objects the original
# program wrote must stay readable by the rewritten one, and the other way round. Real jars
# (Debian packages), rewritten in the default mode (older classes' twins in twin classes outside
# a nest, with bridges), with call-edge-stack (site tables registered by an added static
# initializer) and two others: the cases that changed them. Every Serializable class's
# serialVersionUID, as the JVM reports it, must be the original's, and as many classes must load.
#
#   serial_versions.sh DUPLEX RUNTIME_JAR HARNESS_DIR
set -eu
duplex=$1 runtime=$2 harness=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
share=/usr/share/java
failed=0

# jar and what its classes need (the manifests name these relative to /usr/share/java).
for spec in "bcprov" "xalan2 serializer.jar:xercesImpl.jar:xml-apis.jar" "js" "sunflow" "h2"; do
  # shellcheck disable=SC2086
  set -- $spec  # the jar's name, then its dependencies
  jar=$share/$1.jar
  deps=""
  for d in $(echo "${2:-}" | tr ':' ' '); do deps="$deps:$share/$d"; done
  if [ ! -f "$jar" ]; then
    echo "FAIL $1: $jar is missing (scripts/install-deps.sh --with-tests installs it)"; failed=1
    continue
  fi
  java -cp "$harness" duplex.test.SerialVersions "$jar" "$deps" >"$tmp/original.txt"
  for mode in full checks full,--method-counters full,--profile,call-edge-stack; do
    # shellcheck disable=SC2046
    "$duplex" instrument "$jar" -o "$tmp/out.jar" --quiet --mode $(echo "$mode" | tr ',' ' ')
    java -cp "$harness" duplex.test.SerialVersions "$tmp/out.jar" "$runtime$deps" >"$tmp/rewritten.txt"
    if diff -u "$tmp/original.txt" "$tmp/rewritten.txt" >"$tmp/diff.txt"; then
      echo "ok $1 $mode: $(tail -n 1 "$tmp/original.txt" | cut -c3-), every serialVersionUID the original's"
    else
      echo "FAIL $1 $mode: serialVersionUIDs differ from the original's:"; head -20 "$tmp/diff.txt"
      failed=1
    fi
  done
done
exit $failed
