#!/usr/bin/env bash
#===- gpu_distributed.sh - spperm on several GPUs --------------------------===#
#
# Part of the spperm project.
#
#===-----------------------------------------------------------------------===#
#
# The multi-GPU record of docs/Distributed.md, on a machine with several GPUs
# (the device tool's nvidia-h100-x2/x4/x8), from the repository root:
#
#   OUT=DIR PHASE=setup bash tools/scripts/gpu_distributed.sh
#   OUT=DIR PHASE=scale bash tools/scripts/gpu_distributed.sh
#
# setup: builds the runtime-side tools and tests (no LLVM/MLIR), finds NCCL
#   (torch's nvidia-nccl wheel, or $SPRT_NCCL_LIBRARY), runs RuntimeTests (the
#   GPU shard tests and a one-rank NCCL sprt_spmm_allgather among them),
#   writes the R-MAT graph with spperm-gen (the packages' external source;
#   the loader checks its sha256) and unpacks the packages of
#   .gpu/dist/packages.tar.xz (tools/scripts/gpu_distributed_prepare.sh).
# scale: spperm-run --ranks N on every package for N up to the GPU count:
#   1-D (B replicated) and 1.5-D (B split by rows, all-gathered in chunks),
#   the balanced and the equal-rows cut; JSON records and logs go to $OUT.
#
# NCCL_NVLS_ENABLE=0 (NVLink multicast off) is kept as the machine sets it.
#
#===-----------------------------------------------------------------------===#
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD="$ROOT/build-gpu"
WORK="$BUILD/dist"
OUTDIR="${OUT:-$WORK/out}"
PHASE="${PHASE:-setup}"
SCALE="${SCALE:-24}"
K="${K:-128}"
CHUNK="${CHUNK:-32}"
RUNS="${RUNS:-10}"
CHECK_ROWS="${CHECK_ROWS:-2048}"
mkdir -p "$OUTDIR" "$WORK"
export NCCL_NVLS_ENABLE="${NCCL_NVLS_ENABLE:-0}"
ngpu=$(nvidia-smi -L | wc -l)
echo "== $ngpu GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | tr -s ' ')"

# NCCL: $SPRT_NCCL_LIBRARY, else the nvidia-nccl wheel torch depends on.
if [ -z "${SPRT_NCCL_LIBRARY:-}" ]; then
  SPRT_NCCL_LIBRARY=$(python3 - <<'EOF' 2>/dev/null
import glob, os
try:
    import nvidia.nccl as n
    roots = list(n.__path__)
except Exception:
    import torch
    roots = [os.path.dirname(torch.__file__) + "/.."]
for r in roots:
    hits = sorted(glob.glob(os.path.join(r, "**", "libnccl.so*"), recursive=True))
    if hits:
        print(hits[0]); break
EOF
)
fi
export SPRT_NCCL_LIBRARY
echo "== NCCL: ${SPRT_NCCL_LIBRARY:-none found}"

# The packages carried in .gpu/dist (several calls may carry different
# ones; what earlier calls unpacked stays in $WORK).
for t in "$ROOT"/.gpu/dist/*.tar.xz; do
  [ -f "$t" ] && tar xJf "$t" -C "$WORK"
done

if [ "$PHASE" = setup ]; then
  gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  cmake "${gen[@]}" -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DSPPERM_ENABLE_COMPILER=OFF -DSPPERM_ENABLE_TESTS=ON \
    -DCMAKE_PREFIX_PATH="$ROOT/.gpu/deps" >"$OUTDIR/configure.log" 2>&1 ||
    { tail -n 30 "$OUTDIR/configure.log"; exit 1; }
  cmake --build "$BUILD" --target spperm-run spperm-gen spperm-inspect \
    RuntimeTests -j "$(nproc)" >"$OUTDIR/build.log" 2>&1 ||
    { grep -E "error|Error" "$OUTDIR/build.log" | head -30; exit 1; }
  echo "== RuntimeTests"
  "$BUILD/unittests/Runtime/RuntimeTests" --gtest_brief=1 \
    >"$OUTDIR/RuntimeTests.log" 2>&1
  tail -n 3 "$OUTDIR/RuntimeTests.log"
  grep -E "GpuShardTest|SKIPPED|FAILED" "$OUTDIR/RuntimeTests.log" | head -20
  "$BUILD/unittests/Runtime/RuntimeTests" --gtest_filter='GpuShardTest.*' \
    >"$OUTDIR/GpuShardTest.log" 2>&1
  grep -E "OK|SKIP|FAIL" "$OUTDIR/GpuShardTest.log"
  echo "== R-MAT scale $SCALE"
  if [ ! -f "$WORK/r$SCALE.mtx" ]; then
    /usr/bin/time -f "%e s, %M KiB" "$BUILD/bin/spperm-gen" rmat --scale "$SCALE" \
      --edge-factor 16 --seed 1 -o "$WORK/r$SCALE.mtx"
  fi
  sha256sum "$WORK/r$SCALE.mtx" | tee "$OUTDIR/source.sha256"
  for p in "$WORK"/*.spp; do
    "$BUILD/bin/spperm-inspect" "$p" >"$OUTDIR/$(basename "$p" .spp).inspect.txt" 2>&1 ||
      echo "inspect failed: $p"
  done
  exit 0
fi

run() { # NAME PKG RANKS [spperm-run options...]
  local name=$1 pkg=$2 ranks=$3
  shift 3
  [ "$ranks" -le "$ngpu" ] || { echo "skip $name: $ranks ranks > $ngpu GPUs"; return; }
  echo "== $name"
  /usr/bin/time -f "   wall %e s" "$BUILD/bin/spperm-run" "$WORK/$pkg" --device gpu \
    --ranks "$ranks" --b random:1 --k "$K" --warmup 2 --runs "$RUNS" \
    --check-rows "$CHECK_ROWS" --json "$OUTDIR/$name.json" "$@" \
    2>&1 | tee "$OUTDIR/$name.log"
}
# RUNS_LIST picks runs: 1d-rN, 15d-rN, 1d-equal-rows-r4 (default: all that
# the unpacked packages and the GPUs allow).
want() { [ -z "${RUNS_LIST:-}" ] || [[ " $RUNS_LIST " == *" $1 "* ]]; }
for n in 1 2 4 8; do
  [ -d "$WORK/r${SCALE}s$n.spp" ] || continue
  want "1d-r$n" && run "1d-r$n" "r${SCALE}s$n.spp" "$n"
  want "15d-r$n" && run "15d-r$n" "r${SCALE}s$n.spp" "$n" --algorithm 1.5d --chunk "$CHUNK"
done
[ -d "$WORK/r${SCALE}e4.spp" ] && want "1d-equal-rows-r4" &&
  run "1d-equal-rows-r4" "r${SCALE}e4.spp" 4
exit 0
