#!/usr/bin/env bash
# Session 47's machine calls for folded tails (README.md here;
# docs/Kernels.md, "Range variants"). Carry .gpu/deps, .gpu/pypk.tar.xz and
# .gpu/pybench-any.tar.xz (the 8 SparseLinear layers' packages for any K),
# or the suite's archive (ARCHIVE).
#  * ANY=K,...: bench_sparse_linear.py on the packages once per
#    SPPERM_FOLD_TAIL in FOLDS (default "0 auto 1"; auto = unset), in one
#    machine session: any-<mode>.json.
#  * SUITE=1: tools/scripts/gpu_suite.sh on the archive of
#    gpu_suite_prepare.sh, once per SPPERM_FOLD_TAIL in SUITE_FOLDS
#    (default "1": every tail folded, so the folded walks are checked).
#   OUT=DIR ANY=300,512,520,600 bash .../device.sh
set -uo pipefail
O=${OUT:?}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$O/gpu.txt"
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
if [[ -n "${ANY:-}" ]]; then
  for mode in ${FOLDS:-0 auto 1}; do
    if [[ $mode == auto ]]; then unset SPPERM_FOLD_TAIL; else export SPPERM_FOLD_TAIL=$mode; fi
    SPPERM_LOG_CHOICES=1 PYTEST=0 BENCH_ARGS="--ks $ANY" PYBENCH=.gpu/pybench-any.tar.xz \
      OUT="$O/any-$mode" bash tools/scripts/gpu_python.sh >"$O/any-$mode.log" 2>&1
    echo "any $mode rc=$?"
    mv "$O/any-$mode/bench.json" "$O/any-$mode.json" 2>/dev/null
    rm -rf "$O/any-$mode"
  done
  unset SPPERM_FOLD_TAIL
fi
if [[ "${SUITE:-0}" == 1 ]]; then
  for mode in ${SUITE_FOLDS:-1}; do
    if [[ $mode == auto ]]; then unset SPPERM_FOLD_TAIL; else export SPPERM_FOLD_TAIL=$mode; fi
    OUT="$O/suite-$mode" SETS="${SETS:-main tc}" \
      KS="${KS:-1,32,36,60,68,100,132,200,260,300,508,512,520,600,1000,2052}" \
      BENCH_KS="${BENCH_KS:-520,600,1000}" SAN_KS="${SAN_KS:-100,200,520,1000}" \
      SAN_TOOLS="${SAN_TOOLS:-memcheck racecheck}" \
      bash tools/scripts/gpu_suite.sh >"$O/suite-$mode.log" 2>&1
    echo "suite $mode rc=$?"
    grep -E "checks (passed|failed)|^FAIL|PASSED|FAILED|sanitizer" "$O/suite-$mode/summary.txt" | head -30
    rm -f "$O/suite-$mode/verify.log.xz"
    xz -9 "$O/suite-$mode/verify.log" 2>/dev/null
  done
  unset SPPERM_FOLD_TAIL
fi
# Few files come back: the summaries, the checks, the JSONs; every other
# log in one archive.
cd "$O" || exit 1
for d in suite-*; do
  [[ -d $d ]] || continue
  for f in summary.txt verify.log.xz bench.json; do
    [[ -f $d/$f ]] && mv "$d/$f" "$d-$f"
  done
done
tar cJf logs.tar.xz --exclude=logs.tar.xz --exclude='*.json' --exclude='*summary.txt' \
  --exclude='*verify.log.xz' --exclude=gpu.txt . 2>/dev/null
find . -mindepth 1 -maxdepth 1 ! -name '*.json' ! -name '*summary.txt' ! -name '*verify.log.xz' \
  ! -name gpu.txt ! -name logs.tar.xz -exec rm -rf {} +
ls
