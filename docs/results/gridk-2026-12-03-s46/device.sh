#!/usr/bin/env bash
# Session 46's machine calls for range variants whose grid grows with K
# (README.md here; docs/Kernels.md, "K buckets"). Carry .gpu/deps,
# .gpu/pypk.tar.xz, the suite's archive (ARCHIVE, default .gpu/suite.tar.xz:
# too large with the rest, so main + tc and san went in separate archives
# and calls) and .gpu/pybench-any{,-old}.tar.xz.
#  * SUITE=1 (default): tools/scripts/gpu_suite.sh on the archive of
#    gpu_suite_prepare.sh (SETS main tc san): every package checked at K
#    in every range and at the buckets, each alternative on its own, the
#    tensor-core packages too, compute-sanitizer at range K; timings at
#    BENCH_KS against the best cuSPARSE algorithm.
#  * ANY=K,...: bench_sparse_linear.py on the 8 layers' packages for any K
#    compiled before (pybench-any-old: fixed grids) and after (pybench-any: grids
#    that grow with K, grid_k), in one machine session.
#   OUT=DIR ANY=1,32,96,100,128,200,400,512 bash .../device.sh
set -uo pipefail
O=${OUT:?}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$O/gpu.txt"
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
if [[ "${SUITE:-1}" == 1 ]]; then
  OUT="$O/suite" SETS="${SETS:-main tc san}" \
    KS="${KS:-1,32,36,60,68,100,128,132,200,252,256,260,400,508,512}" \
    BENCH_KS="${BENCH_KS:-100,200,400}" SAN_KS="${SAN_KS:-60,100,200,400}" \
    SAN_TOOLS="${SAN_TOOLS:-memcheck racecheck}" \
    bash tools/scripts/gpu_suite.sh >"$O/suite.log" 2>&1
  echo "suite rc=$?"
  grep -E "checks (passed|failed)|^FAIL|PASSED|FAILED|sanitizer" "$O/suite/summary.txt" | head -30
  rm -f "$O/suite/verify.log.xz"
  xz -9 "$O/suite/verify.log" 2>/dev/null
fi
if [[ -n "${ANY:-}" ]]; then
  for which in old new; do
    tarball=.gpu/pybench-any-$which.tar.xz
    [[ $which == new ]] && tarball=.gpu/pybench-any.tar.xz
    SPPERM_LOG_CHOICES=1 PYTEST=0 BENCH_ARGS="--ks $ANY" PYBENCH=$tarball \
      OUT="$O/any-$which" bash tools/scripts/gpu_python.sh >"$O/any-$which.log" 2>&1
    echo "any $which rc=$?"
    mv "$O/any-$which/bench.json" "$O/any-$which.json" 2>/dev/null
    rm -rf "$O/any-$which"
  done
fi
# Few files come back: the summary, the checks, the timings, the
# benchmark JSONs; every other log in one archive.
cd "$O" || exit 1
[[ -f suite/summary.txt ]] && mv suite/summary.txt suite/verify.log.xz suite/bench.json . 2>/dev/null
tar cJf logs.tar.xz --exclude=logs.tar.xz --exclude='*.json' --exclude=summary.txt \
  --exclude=verify.log.xz --exclude=gpu.txt . 2>/dev/null
find . -mindepth 1 -maxdepth 1 ! -name '*.json' ! -name summary.txt ! -name verify.log.xz \
  ! -name gpu.txt ! -name logs.tar.xz -exec rm -rf {} +
ls
