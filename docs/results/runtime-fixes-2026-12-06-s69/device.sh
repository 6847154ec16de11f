#!/usr/bin/env bash
# On the device, from the repository root, with .gpu/deps, .gpu/suite-main,
# .gpu/suite-conc, .gpu/pypk and .gpu/pybench carried (gpu_prepare.sh,
# gpu_suite_prepare.sh, gpu_python_prepare.sh):
#   OUT=$OUT bash docs/results/runtime-fixes-2026-12-06-s69/device.sh
# RuntimeTests and the suite's main set (checks at every K of gpu_suite.sh,
# short timings), the concurrency set (threads x streams on the hbp and
# other families' packages), then the Python module's tests and benchmark
# (PARTS names which: "main conc py" by default). The logs come back as one
# archive, $OUT/logs.tar.xz (the device tool returns few files).
set -u
PARTS="${PARTS:-main conc py}"
R=$PWD
export SPPERM_CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$R/.gpu/deps"
rc=0
mkdir -p "$OUT/main" "$OUT/conc" "$OUT/py"
want() { [[ " $PARTS " == *" $1 "* ]]; }
if want main; then
  OUT=$OUT/main ARCHIVE=$R/.gpu/suite-main.tar.xz SETS="${MAIN_SETS:-main aot}" \
    RUNS="${RUNS:-5}" BENCH_KS="${BENCH_KS:-32,128}" \
    bash tools/scripts/gpu_suite.sh >"$OUT/main/stdout.log" 2>&1 || rc=1
fi
if want conc; then
  OUT=$OUT/conc ARCHIVE=$R/.gpu/suite-conc.tar.xz SETS="conc" \
    bash tools/scripts/gpu_suite.sh >"$OUT/conc/stdout.log" 2>&1 || rc=1
fi
if want py; then
  OUT=$OUT/py bash tools/scripts/gpu_python.sh >"$OUT/py/stdout.log" 2>&1 || rc=1
fi
for s in main conc; do
  if [[ -f "$OUT/$s/summary.txt" ]]; then
    echo "=== $s"
    grep -E "^(== |checks|packages|FAIL|ok  |\[  )" "$OUT/$s/summary.txt"
    # What the checks compared with: the recorded source, or the package.
    [[ -f "$OUT/$s/verify.log.xz" ]] &&
      xz -dc "$OUT/$s/verify.log.xz" | grep -o 'ref=[a-z]*' | sort | uniq -c
  fi
done
if [[ -f "$OUT/py/stdout.log" ]]; then
  echo "=== py"
  tail -n 25 "$OUT/py/stdout.log"
fi
tar cJf "$OUT/logs.tar.xz" -C "$OUT" main conc py && rm -rf "$OUT/main" "$OUT/conc" "$OUT/py"
exit $rc
