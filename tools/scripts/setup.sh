#!/usr/bin/env bash
#===- setup.sh - Install dependencies and build spperm ---------------------===#
#
# Idempotent set-up for a Debian 12 machine: installs the Debian packages the
# project needs (only those missing; needs root for that), configures the
# build with CMake + Ninja into build/ and builds every tool into build/bin.
# Quick when everything is already installed and built.
#
# Sourced by quickstart.sh and check.sh; run on its own it just sets up.
#
#===------------------------------------------------------------------------===#
set -euo pipefail

SPPERM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SPPERM_BUILD="${SPPERM_BUILD:-$SPPERM_ROOT/build}"

# Debian 12 packages. LLVM/MLIR 22 and its lit/FileCheck come from the
# llvm-22 packages the machine's apt sources provide; clang-22 and
# libclang-rt-22-dev (libFuzzer, ASan and UBSan runtimes) build the fuzz
# targets (fuzz.sh) and the sanitizer suite (sanitize.sh); chromium renders
# the compile report in its test (headless).
SPPERM_PACKAGES=(
  cmake ninja-build g++ python3 python3-numpy python3-scipy python3-sklearn
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  nlohmann-json3-dev zlib1g-dev libssl-dev libgtest-dev
  clang-22 libclang-rt-22-dev
  chromium
)

spperm_missing_packages() {
  local pkg missing=()
  for pkg in "${SPPERM_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
        grep -q "install ok installed"; then
      missing+=("$pkg")
    fi
  done
  echo "${missing[@]:-}"
}

spperm_install_packages() {
  local missing
  missing="$(spperm_missing_packages)"
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: error: missing Debian packages: $missing (run as root)" >&2
    return 1
  fi
  echo "setup: installing $missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  # shellcheck disable=SC2086
  apt-get install -y -q --no-install-recommends $missing
}

spperm_build() {
  if [ ! -f "$SPPERM_BUILD/build.ninja" ]; then
    cmake -G Ninja -S "$SPPERM_ROOT" -B "$SPPERM_BUILD" \
      -DCMAKE_BUILD_TYPE=Release
  fi
  # Two cores: ninja's default parallelism (cores + 2) is right.
  ninja -C "$SPPERM_BUILD" "$@"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  spperm_install_packages
  spperm_build
fi
