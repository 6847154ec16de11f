#!/usr/bin/env bash
#===- fuzz.sh - Build the libFuzzer targets and run each for a while -------===#
#
# Usage: tools/scripts/fuzz.sh [SECONDS]   (default 60 seconds per target)
#
# Configures build-fuzz/ (clang-22, ASan + UBSan, SPPERM_ENABLE_FUZZERS=ON),
# builds the fuzz targets of fuzz/ and runs each for SECONDS from its seeds
# (committed ones under fuzz/seeds and test/Inputs, the test suite's MLIR
# files cut at their `// -----` lines for the dialect's parser, plus those
# spperm-fuzz-seeds writes with the sparse core's own writers) and its
# dictionary. The corpus each run finds is
# kept in build-fuzz/fuzz-corpus/TARGET and grows across runs.
#
# Prints one line per target: executions, seconds, corpus size, and
# FINDING with the reproducer's path when libFuzzer stopped on a crash, a
# sanitizer report, a leak, a timeout or running out of memory. Exits
# non-zero when any target had a finding. Reproduce one with
#   build-fuzz/bin/spperm-fuzz-TARGET build-fuzz/fuzz-findings/TARGET/FILE
#
# Environment: SPPERM_FUZZ_BUILD (build directory, default build-fuzz),
# FUZZERS (the targets to run, default "mtx smtx gzip npy npz package mlir"),
# FUZZ_RUNS (stop a target after this many executions, before SECONDS have
# passed; default: no limit).
#
#===------------------------------------------------------------------------===#
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz: error: SECONDS must be a positive integer, not '$seconds'" >&2
  exit 2
fi
build="${SPPERM_FUZZ_BUILD:-$SPPERM_ROOT/build-fuzz}"
fuzzers="${FUZZERS:-mtx smtx gzip npy npz package mlir}"
runs="${FUZZ_RUNS:--1}"

spperm_install_packages
# A build directory configured by an older fuzz.sh (clang-14, the compiler
# half off) is configured again.
if [ -f "$build/CMakeCache.txt" ] &&
    grep -qE "^(CMAKE_CXX_COMPILER:[A-Z]*=.*clang\+\+-14|SPPERM_ENABLE_COMPILER:BOOL=OFF)" \
      "$build/CMakeCache.txt"; then
  rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles" "$build/build.ninja"
fi
if [ ! -f "$build/build.ninja" ]; then
  # -O1 -g without -DNDEBUG: assertions stay on.
  cmake -G Ninja -S "$SPPERM_ROOT" -B "$build" \
    -DSPPERM_ENABLE_TESTS=OFF -DSPPERM_ENABLE_FUZZERS=ON \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g" \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" >"$build.cmake.log" 2>&1 ||
    { cat "$build.cmake.log" >&2; exit 1; }
  mv "$build.cmake.log" "$build/cmake.log"
fi
ninja -C "$build" spperm-fuzzers

# Seeds: a fresh directory per target, from the repository and the writer.
# (One directory per run of this script, so that runs for different targets
# can go on at once.)
seeds="$build/fuzz-seeds.$$"
rm -rf "$seeds"
trap 'rm -rf "$seeds"' EXIT
"$build/bin/spperm-fuzz-seeds" "$seeds"
for name in mtx smtx gzip npy npz package mlir; do
  mkdir -p "$seeds/$name"
  if [ -d "$SPPERM_ROOT/fuzz/seeds/$name" ]; then
    cp "$SPPERM_ROOT/fuzz/seeds/$name"/* "$seeds/$name/"
  fi
done
cp "$SPPERM_ROOT"/test/Inputs/*.mtx "$seeds/mtx/"
cp "$SPPERM_ROOT"/test/Inputs/*.smtx "$seeds/smtx/"
cp "$SPPERM_ROOT"/examples/*.mtx.gz "$seeds/gzip/"
cp "$SPPERM_ROOT"/test/Inputs/*.npz "$seeds/npz/"
# The dialect's tests, one seed per `// -----` piece.
find "$SPPERM_ROOT/test" -name '*.mlir' -print0 | sort -z |
  xargs -0 awk -v dir="$seeds/mlir" '
    FNR == 1 { if (out) close(out); n++; part = 0; out = dir "/" n ".0.mlir" }
    /^\/\/ -----/ { close(out); part++; out = dir "/" n "." part ".mlir"; next }
    { print > out }'

dict_of() {
  case "$1" in
    mtx | gzip) echo mtx ;;
    *) echo "$1" ;;
  esac
}
max_len_of() {
  case "$1" in
    mtx | package) echo 32768 ;;
    mlir) echo 8192 ;;
    gzip) echo 16384 ;;
    *) echo 4096 ;;
  esac
}

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
status=0
for name in $fuzzers; do
  bin="$build/bin/spperm-fuzz-$name"
  if [ ! -x "$bin" ]; then
    echo "fuzz: error: no target '$name' ($bin)" >&2
    exit 2
  fi
  corpus="$build/fuzz-corpus/$name"
  findings="$build/fuzz-findings/$name"
  log="$build/fuzz-logs/$name.log"
  mkdir -p "$corpus" "$findings" "$(dirname "$log")"
  rc=0
  asan="$ASAN_OPTIONS"
  # The dialect's target shares LLVM's inline allocator code with the
  # uninstrumented libMLIR.so: the instrumented copies' manual poisoning of
  # allocator slabs would flag libMLIR's own (unpoisoning-free) writes.
  [ "$name" = mlir ] && asan="$asan:allow_user_poisoning=0"
  ASAN_OPTIONS="$asan" "$bin" -max_total_time="$seconds" -runs="$runs" \
    -timeout=30 -rss_limit_mb=2048 \
    -max_len="$(max_len_of "$name")" \
    -dict="$SPPERM_ROOT/fuzz/dicts/$(dict_of "$name").dict" \
    -artifact_prefix="$findings/" -print_final_stats=1 \
    "$corpus" "$seeds/$name" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" |
    tail -n 1)
  units=$(find "$corpus" -type f | wc -l)
  artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
  line="fuzz: $name: ${execs:-?} execs in ${took:-?} s, corpus $units"
  if [ "$rc" -ne 0 ] || [ -n "$artifact" ]; then
    status=1
    echo "$line, FINDING (exit $rc): ${artifact:-see $log}"
    grep -E "^(==[0-9]+==ERROR|SUMMARY|.*runtime error|spperm-fuzz: finding)" \
      "$log" | head -n 5 || true
  else
    echo "$line, no finding"
  fi
done
exit "$status"
