#!/usr/bin/env bash
#===- gpu_check.sh - Build, test and benchmark on the GPU machine ---------===#
#
# Part of the spperm project.
#
#===-----------------------------------------------------------------------===#
#
# The whole GPU check in one call (docs/DESIGN.md "Where code runs");
# tools/scripts/gpu_prepare.sh prepares what it carries:
#
#   tools/scripts/gpu_check.sh PKGDIR
#
# run from the repository root on the GPU machine (CUDA 13, CMake, python3
# with numpy/scipy; no LLVM). It
#  1. configures the runtime-only build (-DSPPERM_ENABLE_COMPILER=OFF) into
#     build-gpu/ and builds it (Ninja when present, else Makefiles);
#  2. runs RuntimeTests (its GPU tests must run, not skip, here);
#  3. for every package PKGDIR/*.spp (compiled beforehand with spperm-compile
#     on the development machine and carried in the call) and every layer,
#     for K in 1 32 128 (or the layer's K when it was compiled for one):
#     runs spperm-run --device gpu on a random B and checks C against a
#     float64 reference (test/tools/spperm-run/spmm.py) computed from the
#     layer's source matrix, looked up as its manifest path or by its file
#     name in PKGDIR; without the matrix, against spperm-run --device cpu;
#  4. for K in 32 128: spperm-run --bench --baseline cusparse --json, and a
#     summary table.
#
# Everything goes to $OUT (when set; else build-gpu/gpu-check): build and
# test logs, B/C arrays of failed checks, one JSON record per benchmark,
# summary.txt. Exit status 0 only when every step passed.
#
# Environment: SPPERM_CMAKE_ARGS (extra configure arguments), JOBS (build
# parallelism), KS / BENCH_KS (override the K lists), WARMUP / RUNS.
#
#===-----------------------------------------------------------------------===#

set -euo pipefail

if [[ $# -ne 1 || ! -d "$1" ]]; then
  echo "usage: $0 PKGDIR   (a directory holding *.spp packages)" >&2
  exit 2
fi
PKGDIR=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD="$ROOT/build-gpu"
OUTDIR="${OUT:-$BUILD/gpu-check}"
KS="${KS:-1 32 128}"
BENCH_KS="${BENCH_KS:-32 128}"
WARMUP="${WARMUP:-5}"
RUNS="${RUNS:-30}"
JOBS="${JOBS:-$(nproc)}"
SPMM_PY="$ROOT/test/tools/spperm-run/spmm.py"
mkdir -p "$OUTDIR"
SUMMARY="$OUTDIR/summary.txt"
: >"$SUMMARY"
FAILURES=0

say() { echo "== $*" | tee -a "$SUMMARY"; }
fail() {
  echo "FAIL: $*" | tee -a "$SUMMARY"
  FAILURES=$((FAILURES + 1))
}

say "gpu_check: $(date -u +%FT%TZ), repo $ROOT, packages $PKGDIR"
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm \
    --format=csv 2>&1 || true; } | tee -a "$SUMMARY"
if command -v git >/dev/null && git -C "$ROOT" rev-parse HEAD >/dev/null 2>&1; then
  export SPPERM_COMMIT=$(git -C "$ROOT" rev-parse HEAD)
  say "commit $SPPERM_COMMIT"
fi

#--- 1. Build ----------------------------------------------------------------#
GENERATOR="Unix Makefiles"
command -v ninja >/dev/null && GENERATOR=Ninja
say "configure ($GENERATOR) -> $BUILD"
# The Python extension links the machine's shared zlib (ZLIB_FLAGS).
. "$ROOT/tools/scripts/shared_zlib.sh"
# shellcheck disable=SC2086
if ! cmake -G "$GENERATOR" -S "$ROOT" -B "$BUILD" -DSPPERM_ENABLE_COMPILER=OFF ${ZLIB_FLAGS[@]+"${ZLIB_FLAGS[@]}"} \
    -DCMAKE_BUILD_TYPE=Release ${SPPERM_CMAKE_ARGS:-} \
    >"$OUTDIR/configure.log" 2>&1; then
  tail -n 30 "$OUTDIR/configure.log"
  fail "configure (see configure.log)"
  exit 1
fi
grep -E "CUDA" "$OUTDIR/configure.log" | tee -a "$SUMMARY" || true
say "build"
if ! cmake --build "$BUILD" -j "$JOBS" >"$OUTDIR/build.log" 2>&1; then
  grep -E "error|Error" "$OUTDIR/build.log" | head -30
  fail "build (see build.log)"
  exit 1
fi
RUN="$BUILD/bin/spperm-run"

#--- 2. Unit tests -----------------------------------------------------------#
say "RuntimeTests"
if "$BUILD/unittests/Runtime/RuntimeTests" >"$OUTDIR/RuntimeTests.log" 2>&1; then
  grep -E "^\[  (PASSED|SKIPPED) |GPU:" "$OUTDIR/RuntimeTests.log" | tee -a "$SUMMARY"
  if grep -q "SKIPPED.*GpuTest.SpmmMatchesFloat64Reference" "$OUTDIR/RuntimeTests.log"; then
    fail "the GPU tests were skipped: $(grep -m1 'no usable GPU' "$OUTDIR/RuntimeTests.log" || true)"
  fi
else
  grep -E "Failure|FAILED" -A4 "$OUTDIR/RuntimeTests.log" | head -40
  fail "RuntimeTests (see RuntimeTests.log)"
fi

#--- 3. Correctness of every package layer ----------------------------------#
# Prints "name<TAB>rows<TAB>cols<TAB>k<TAB>matrix<TAB>values" per layer, the
# matrix "-" when its file is not found (read collapses empty tab fields).
layers_of() {
  python3 - "$1" "$PKGDIR" <<'PY'
import json, os, sys
pkg, pkgdir = sys.argv[1], sys.argv[2]
m = json.load(open(os.path.join(pkg, "manifest.json")))
for l in m["layers"]:
    src = l.get("source", {})
    path = src.get("path", "")
    found = "-"
    for cand in (path, os.path.join(pkgdir, os.path.basename(path))):
        if cand and os.path.isfile(cand):
            found = cand
            break
    print("\t".join(str(x) for x in (l["name"], l["rows"], l["cols"],
                                     l.get("k", 0), found,
                                     src.get("values", "file"))))
PY
}

PACKAGES=("$PKGDIR"/*.spp)
if [[ ! -e "${PACKAGES[0]}" ]]; then
  fail "no *.spp package in $PKGDIR"
  PACKAGES=()
fi
BENCH_ROWS=()
for pkg in "${PACKAGES[@]}"; do
  pname=$(basename "$pkg" .spp)
  if ! layers=$(layers_of "$pkg" 2>"$OUTDIR/$pname.manifest.err"); then
    fail "$pname: cannot read the manifest ($(head -1 "$OUTDIR/$pname.manifest.err"))"
    continue
  fi
  while IFS=$'\t' read -r layer rows cols lk matrix values; do
    ks="$KS"
    bks="$BENCH_KS"
    if [[ "$lk" != 0 ]]; then ks="$lk"; bks="$lk"; fi
    for k in $ks; do
      tag="$pname.$layer.k$k"
      work=$(mktemp -d)
      python3 "$SPMM_PY" make-b "$cols" "$k" 7 "$work/b.npy"
      if ! "$RUN" "$pkg" --layer "$layer" --device gpu --b "$work/b.npy" \
          --out "$work/c.npy" 2>"$work/err"; then
        fail "$tag: spperm-run --device gpu: $(cat "$work/err")"
        rm -rf "$work"
        continue
      fi
      if [[ "$matrix" != - ]]; then
        vflag=()
        [[ "$values" == ones || "$values" == random:* ]] && vflag=(--values "$values")
        if result=$(python3 "$SPMM_PY" check "$matrix" "$work/b.npy" "$work/c.npy" "${vflag[@]}" 2>&1); then
          echo "ok   $tag: $result" | tee -a "$SUMMARY"
        else
          fail "$tag: $result"
          cp "$work/b.npy" "$OUTDIR/$tag.B.npy"; cp "$work/c.npy" "$OUTDIR/$tag.C.npy"
        fi
      else
        # No source matrix: compare with the CPU executor (fp32, fixed order).
        "$RUN" "$pkg" --layer "$layer" --device cpu --b "$work/b.npy" --out "$work/cpu.npy"
        if result=$(python3 - "$work/c.npy" "$work/cpu.npy" <<'PY'
import sys, numpy as np
c, r = (np.load(p).astype(np.float64) for p in sys.argv[1:3])
err = np.linalg.norm(c - r) / max(np.linalg.norm(r), 1e-300)
print(f"rel. error vs CPU executor {err:.3e}")
sys.exit(0 if np.isfinite(c).all() and err <= 1e-5 else 1)
PY
        ); then
          echo "ok   $tag: $result (no source matrix found)" | tee -a "$SUMMARY"
        else
          fail "$tag: $result"
        fi
      fi
      rm -rf "$work"
    done
    for k in $bks; do
      BENCH_ROWS+=("$pkg|$layer|$cols|$k")
    done
  done <<<"$layers"
done

#--- 4. Benchmarks -----------------------------------------------------------#
say "benchmarks: $WARMUP warm-up + $RUNS timed runs, CUDA events, median"
for row in "${BENCH_ROWS[@]}"; do
  IFS='|' read -r pkg layer cols k <<<"$row"
  pname=$(basename "$pkg" .spp)
  tag="$pname.$layer.k$k"
  work=$(mktemp -d)
  python3 "$SPMM_PY" make-b "$cols" "$k" 11 "$work/b.npy"
  if "$RUN" "$pkg" --layer "$layer" --device gpu --b "$work/b.npy" --bench \
      --baseline cusparse --warmup "$WARMUP" --runs "$RUNS" \
      --json "$OUTDIR/bench.$tag.json" >"$OUTDIR/bench.$tag.txt" 2>&1; then
    cat "$OUTDIR/bench.$tag.txt"
  else
    cat "$OUTDIR/bench.$tag.txt"
    fail "$tag: benchmark"
  fi
  rm -rf "$work"
done

python3 - "$OUTDIR" <<'PY' | tee -a "$SUMMARY"
import glob, json, math, os, sys
recs = []
for p in sorted(glob.glob(os.path.join(sys.argv[1], "bench.*.json"))):
    recs.append(json.load(open(p)))
if not recs:
    print("no benchmark records")
    sys.exit(0)
print(f"{'package/layer':40s} {'K':>4s} {'spperm_ms':>10s} {'best_cusparse':>24s} {'ms':>10s} {'speedup':>8s} {'in_l2':>6s}")
logs = []
for r in recs:
    v = {x["variant"]: x for x in r["variants"]}
    own = v["spperm"]["median_ms"]
    best = r.get("best_cusparse")
    bms = v[best]["median_ms"] if best else float("nan")
    sp = r.get("speedup_vs_best_cusparse") or float("nan")
    if math.isfinite(sp) and sp > 0:
        logs.append(math.log(sp))
    name = os.path.basename(r["package"]).removesuffix(".spp") + "/" + r["layer"]
    print(f"{name:40s} {r['k']:4d} {own:10.5f} {best or '-':>24s} {bms:10.5f} {sp:8.3f} {str(r['in_l2']):>6s}")
if r.get("gpu"):
    g = r["gpu"]
    print(f"GPU {g['name']}, driver {g['driver_version']}, cuSPARSE {g['cusparse_version']}, "
          f"SM clock {g['clock_khz']} kHz, memory clock {g['memory_clock_khz']} kHz")
if logs:
    print(f"speedup of spperm vs best cuSPARSE: geomean {math.exp(sum(logs)/len(logs)):.3f}x "
          f"min {math.exp(min(logs)):.3f}x max {math.exp(max(logs)):.3f}x over {len(logs)} runs")
PY

if [[ $FAILURES -ne 0 ]]; then
  say "gpu_check: $FAILURES failure(s); see $OUTDIR"
  exit 1
fi
say "gpu_check: all passed; records in $OUTDIR"
