#!/usr/bin/env bash
# Installs what duplex needs to build and test, from Debian packages. Safe to run again:
# it installs only what is missing. Needs root (or sudo) on a Debian 12 machine.
set -euo pipefail

build_packages=(
  meson ninja-build g++ pkg-config
  libzip-dev libtinyxml2-dev catch2 libasmjit-dev libgoogle-perftools-dev
  libxxhash-dev nettle-dev
  openjdk-17-jdk-headless
  zip unzip
)
# Real programs and peers the tests and benchmarks run against.
test_packages=(
  libasm-java libh2-java libeclipse-jdt-core-java librhino-java libxalan2-java
  libxerces2-java libsunflow-java libbcprov-java
  clang libclang-rt-14-dev chromium
  libcommons-compress-java libxz-java bsh-src shared-mime-info libjs-highlight.js libjs-jquery
  # Modular libraries of version-51/52 classes (module-info at the root, and in
  # META-INF/versions/9 for xz): tests/cli/modules.sh runs them from the module path.
  libjruby-joni-java libjcodings-java
  libjacoco-java
  # What the corpus check's application jars name, so HotSpot can load every one of their
  # classes (bench/classfile/check_corpus.sh).
  libeclipse-core-runtime-java libeclipse-core-resources-java libeclipse-text-java
  libeclipse-osgi-java libequinox-app-java libosgi-core-java libosgi-compendium-java
  libservlet-api-java libjakarta-servlet-api-java libjts-java liblucene8-java
  libxml-commons-resolver1.1-java
)

wanted=("${build_packages[@]}")
if [ "${1:-}" = "--with-tests" ]; then wanted+=("${test_packages[@]}"); fi

missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "duplex: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
