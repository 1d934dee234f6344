#!/bin/sh
# Build-time helper for tests/java/meson.build; meson runs it, people need not.
#
#   build_java.sh javac JAVAC OUTDIR STAMP JAVAC_ARGS...
#       fresh OUTDIR, then javac -d OUTDIR JAVAC_ARGS
#   build_java.sh fixtures JAVAC JAVA GEN_CP OUTDIR STAMP --release8 SRC... --release17 SRC...
#       fresh OUTDIR; the first sources with --release 8 (major 52), the rest with javac's
#       default (major 61); then GenClasses writes OldJsr (49) and OldJsr46 (46) next to them
#   build_java.sh gen JAVA GEN_CP MODE OUTDIR STAMP
#       fresh OUTDIR, then GenClasses MODE OUTDIR
#
# OUTDIR is emptied first so classes of deleted or renamed sources never linger; STAMP is
# touched only when everything succeeded.
set -eu

fresh() {
    rm -rf "$1"
    mkdir -p "$1"
}

mode=$1
shift
case $mode in
javac)
    javac=$1 out=$2 stamp=$3
    shift 3
    fresh "$out"
    "$javac" -d "$out" "$@"
    touch "$stamp"
    ;;
fixtures)
    javac=$1 java=$2 gencp=$3 out=$4 stamp=$5
    shift 5
    [ "${1:-}" = --release8 ] || { echo "build_java.sh: expected --release8" >&2; exit 2; }
    shift
    src8=
    while [ $# -gt 0 ] && [ "$1" != --release17 ]; do
        src8="$src8 $1"
        shift
    done
    [ "${1:-}" = --release17 ] || { echo "build_java.sh: expected --release17" >&2; exit 2; }
    shift
    fresh "$out"
    # Full debug info (LocalVariableTable & co.) and MethodParameters: attributes a rewriter
    # must carry through. Sources in the build tree never contain spaces, so $src8 may split.
    # shellcheck disable=SC2086
    "$javac" -g -nowarn -Xlint:-options --release 8 -d "$out" $src8
    "$javac" -g -parameters -nowarn -d "$out" "$@"
    "$java" -cp "$gencp" duplex.gen.GenClasses oldjsr "$out"
    touch "$stamp"
    ;;
gen)
    java=$1 gencp=$2 what=$3 out=$4 stamp=$5
    fresh "$out"
    "$java" -cp "$gencp" duplex.gen.GenClasses "$what" "$out"
    touch "$stamp"
    ;;
*)
    echo "build_java.sh: unknown mode $mode" >&2
    exit 2
    ;;
esac
