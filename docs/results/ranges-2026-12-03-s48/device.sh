#!/usr/bin/env bash
# Session 48's machine call (README.md here). Carry .gpu/deps,
# .gpu/pypk.tar.xz, .gpu/suite-fin.tar.xz (gpu_suite_prepare.sh PARTS=main
# on the 13 matrices), .gpu/suite-san-fin.tar.xz (PARTS=san) and
# .gpu/pybench-{mw,fin}.tar.xz (the 8 SparseLinear layers' packages for any
# K before and after the change).
#  * gpu_suite.sh on both archives: every package checked against float64
#    at KS, compute-sanitizer at SAN_KS, timings at BENCH_KS.
#  * bench_sparse_linear.py at BENCH on mw, fin, then fin, mw.
#   OUT=DIR bash .../device.sh
set -uo pipefail
O=${OUT:?}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$O/gpu.txt"
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
if [[ "${SUITE:-1}" == 1 ]]; then
  ARCHIVE=$PWD/.gpu/suite-fin.tar.xz OUT="$O/suite" SETS=main \
    KS="${KS:-1,32,36,68,100,128,132,200,260,300,480,508,512,520,600,1000,2052}" \
    BENCH_KS="${BENCH_KS:-300,480,520}" \
    bash tools/scripts/gpu_suite.sh >"$O/suite.log" 2>&1
  echo "suite rc=$?"
  grep -E "checks|^FAIL|PASSED|FAILED" "$O/suite/summary.txt" | head -20
  ARCHIVE=$PWD/.gpu/suite-san-fin.tar.xz OUT="$O/san" SETS=san \
    SAN_KS="${SAN_KS:-1,36,200,480,520}" SAN_TOOLS="${SAN_TOOLS:-memcheck racecheck}" \
    bash tools/scripts/gpu_suite.sh >"$O/san.log" 2>&1
  echo "san rc=$?"
  grep -E "sanitizer|^FAIL|PASSED|FAILED" "$O/san/summary.txt" | head -20
fi
if [[ -n "${BENCH:-}" ]]; then
  mkdir -p "$O/bench"
  i=0
  for which in mw fin fin mw; do
    i=$((i + 1))
    SPPERM_LOG_CHOICES=1 PYTEST=0 BENCH_ARGS="--ks $BENCH" PYBENCH=.gpu/pybench-$which.tar.xz \
      OUT="$O/b$i" bash tools/scripts/gpu_python.sh >"$O/b$i-$which.log" 2>&1
    echo "bench $i $which rc=$?"
    mv "$O/b$i/bench.json" "$O/bench/$i-$which.json" 2>/dev/null
    rm -rf "$O/b$i"
  done
  (cd "$O" && tar cJf bench.tar.xz bench && rm -rf bench)
fi
cd "$O" || exit 1
for d in suite san; do
  [[ -f $d/summary.txt ]] && mv $d/summary.txt $d-summary.txt
  [[ -f $d/verify.log ]] && xz -9c $d/verify.log >$d-verify.log.xz
done
[[ -f suite/bench.json ]] && mv suite/bench.json suite-bench.json
tar cJf logs.tar.xz --exclude=logs.tar.xz --exclude='*.json' --exclude='*summary.txt' \
  --exclude='*.xz' --exclude=gpu.txt . 2>/dev/null
find . -mindepth 1 -maxdepth 1 ! -name '*.json' ! -name '*summary.txt' ! -name '*.xz' \
  ! -name gpu.txt -exec rm -rf {} +
ls
