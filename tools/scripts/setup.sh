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
  python3-dev python3-venv
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

# The Python environment of the spperm module (docs/Python.md): a virtual
# environment in build/venv with python/requirements.txt (nanobind, NumPy,
# SciPy, pytest, PyTorch) from PyPI, reinstalled when that file changes, and
# a .pth file that puts the build tree's package (build/python) on its path.
spperm_python_env() {
  local venv="$SPPERM_BUILD/venv" req="$SPPERM_ROOT/python/requirements.txt"
  local stamp="$SPPERM_BUILD/venv/.requirements.sha256" want site
  want="$(sha256sum "$req" | cut -d' ' -f1)"
  if [ ! -x "$venv/bin/python" ]; then
    mkdir -p "$SPPERM_BUILD"
    python3 -m venv "$venv"
  fi
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "setup: installing the Python packages of python/requirements.txt"
    if ! "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"; then
      echo "setup: error: pip could not install python/requirements.txt" \
        "into $venv" >&2
      return 1
    fi
    echo "$want" >"$stamp"
  fi
  site="$("$venv/bin/python" -c \
    'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  echo "$SPPERM_BUILD/python" >"$site/spperm-build.pth"
}

spperm_build() {
  spperm_python_env
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
