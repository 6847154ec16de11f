#!/usr/bin/env bash
#===- sanitize.sh - The whole test suite under ASan and UBSan --------------===#
#
# Usage: tools/scripts/sanitize.sh
#
# Configures build-asan/ (clang-22, -DSPPERM_SANITIZE=ON: every object of the
# project — sparse core, dialect, passes, codegen, runtime, tools, unit tests
# — built with AddressSanitizer and UndefinedBehaviorSanitizer, -O1 -g1,
# assertions on), builds it and runs the whole test suite (`check-spperm`:
# the lit tests, which run the instrumented tools, and the gtest binaries)
# with leak detection on and every UBSan report fatal. LLVM/MLIR, CUDA and
# the system libraries are not instrumented. Exits non-zero on any failure or
# sanitizer report. CI runs it after the main suite (docs/Testing.md).
#
# Environment: SPPERM_ASAN_BUILD (build directory, default build-asan).
#
#===------------------------------------------------------------------------===#
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

build="${SPPERM_ASAN_BUILD:-$SPPERM_ROOT/build-asan}"
spperm_install_packages
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$SPPERM_ROOT" -B "$build" -DSPPERM_SANITIZE=ON \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1" \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" >"$build.cmake.log" 2>&1 ||
    { cat "$build.cmake.log" >&2; exit 1; }
  mv "$build.cmake.log" "$build/cmake.log"
fi

# allow_user_poisoning=0: the instrumented tools carry copies of LLVM's
# inline allocator code, whose manual poisoning of allocator slabs would flag
# the uninstrumented libMLIR.so's own writes into them (see fuzz.sh).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allow_user_poisoning=0:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$SPPERM_ROOT/tools/scripts/lsan.supp:print_suppressions=0}"
ninja -C "$build" check-spperm
