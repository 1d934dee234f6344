# Sourced by verify_dir.sh, run_fixtures.sh and compare_fixtures.sh: finds java and the harness.
#   --java JAVA     the java launcher (default: $JAVA, then java on PATH)
#   --harness DIR   compiled harness (default: $DUPLEX_HARNESS_DIR, then build/tests/java/harness
#                   of this checkout)
# Sets $java, $harness, $verify_flags and leaves the remaining arguments in $@ (call as
# `parse_java_env "$@"; shift $parsed`).

java=${JAVA:-java}
harness=${DUPLEX_HARNESS_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/build/tests/java/harness}
# Unlock first; Local verifies boot classes, -Xverify:all forces Local and Remote on.
verify_flags="-XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal -Xverify:all"

parse_java_env() {
    parsed=0
    while [ $# -gt 0 ]; do
        case $1 in
        --java) java=$2; shift 2; parsed=$((parsed + 2)) ;;
        --harness) harness=$2; shift 2; parsed=$((parsed + 2)) ;;
        *) break ;;
        esac
    done
    if [ ! -f "$harness/duplex/test/VerifyAll.class" ]; then
        echo "$(basename "$0"): no harness in $harness (build it: ninja -C build tests/java/harness.stamp)" >&2
        exit 2
    fi
}
