#!/bin/sh
# Fills a seed corpus with real classes, extracted at run time (the repository holds no
# binary seeds): a sample of java.base from the JDK 17 jmod, of h2.jar, and the Java test
# fixtures if they are built (old versions, jsr/ret, wide forms).
#
#   fuzz/seeds.sh OUTDIR [MAX_BYTES] [EVERY_NTH]     (defaults: 16384, 3)
set -eu
out=$1
max=${2:-16384}
nth=${3:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
jmods=${JMODS:-/usr/lib/jvm/java-17-openjdk-amd64/jmods}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# Copies every NTH class of at most MAX bytes from DIR into the corpus, flattened names.
take() {
  prefix=$1
  dir=$2
  (cd "$dir" && find . -name '*.class' -size -"$((max + 1))"c | sort) |
    awk -v n="$nth" 'NR % n == 0' |
    while read -r f; do
      name=$(printf '%s' "${f#./}" | tr '/$' '__')
      cp "$dir/$f" "$out/$prefix-$name"
    done
}

unzip -q -o "$jmods/java.base.jmod" 'classes/*' -d "$tmp/jdk" 2>/dev/null || true
take jdk "$tmp/jdk/classes"
if [ -f /usr/share/java/h2.jar ]; then
  unzip -q -o /usr/share/java/h2.jar '*.class' -d "$tmp/h2" 2>/dev/null || true
  take h2 "$tmp/h2"
fi
if [ -d "$root/build/tests/java/fixtures" ]; then
  nth=1 take fix "$root/build/tests/java/fixtures"
fi
echo "$(find "$out" -type f | wc -l) seeds in $out"
