# Shared by the agent test scripts: JVM flags and helpers.
# Every run of rewritten classes verifies them (the unlock flag must come first).
verify_flags="-XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal -Xverify:all"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# fresh_dir DIR: an empty work directory.
fresh_dir() {
    rm -rf "$1"
    mkdir -p "$1"
}

# attr FILE NAME: the value of attribute NAME of the profile's <run> element.
attr() {
    sed -n "s/.*<run .* $2=\"\([^\"]*\)\".*/\1/p" "$1" | head -n 1
}
