#!/usr/bin/env bash
# The first device call of this record, from the repository root, with the
# device tool carrying .gpu/deps and .gpu/pkgs (tools/scripts/gpu_prepare.sh
# with FORMATS=csr on gnn/cora.mtx.gz):
#   OUT=$OUT bash docs/results/workspace-2026-12-07-s73/device.sh
# 1. tools/lab/cublas_workspace.cu: cublasSgemm's workspace on the dense
#    candidate's shapes (time, two streams of one handle, a capture).
# 2. tools/lab/capture_beside.cu: the package's calls one step at a time
#    beside a global-mode capture, plainly and under compute-sanitizer
#    memcheck, with lazy and eager module loading.
# 3. memcheck over GpuCaptureTest.PackageCallsBesideAGlobalCapture with
#    eager module loading.
set -uo pipefail
ROOT=$PWD
B=$ROOT/build-gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

nvcc -O2 -arch=sm_90 -o /tmp/cublas_workspace tools/lab/cublas_workspace.cu \
  -lcublas > "$OUT/cublas-build.log" 2>&1 &&
  timeout 240 /tmp/cublas_workspace > "$OUT/cublas.txt" 2>&1
echo "cublas_workspace rc=$?" | tee "$OUT/rc.txt"
grep -c . "$OUT/cublas.txt"; grep "^race" "$OUT/cublas.txt" | grep -v "wrong 0 " | head -20

GEN="Unix Makefiles"; command -v ninja >/dev/null && GEN=Ninja
if ! { cmake -G "$GEN" -S "$ROOT" -B "$B" -DSPPERM_ENABLE_COMPILER=OFF \
         -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$ROOT/.gpu/deps" \
         > "$OUT/build.log" 2>&1 &&
       cmake --build "$B" -j 16 --target RuntimeTests spperm_runtime \
         >> "$OUT/build.log" 2>&1; }; then
  tail -20 "$OUT/build.log"; echo "build failed" | tee -a "$OUT/rc.txt"; exit 0
fi
LIB=$(dirname "$(find "$B" -name 'libspperm_runtime.so' | head -1)")
nvcc -O2 -std=c++17 -o /tmp/capture_beside tools/lab/capture_beside.cu \
  -Iruntime/include -L"$LIB" -lspperm_runtime -lcuda \
  -Xlinker -rpath="$LIB" >> "$OUT/build.log" 2>&1 || echo "capture_beside build failed"
PKG=$ROOT/.gpu/pkgs/cora.csr.spp
STEPS="load 1 1 5 32 33 sync release"
run() { # name, then the command
  local name=$1; shift
  SPRT_TUNING_CACHE=$(mktemp -u) timeout 120 "$@" > "$OUT/$name.txt" 2>&1
  echo "$name rc=$?" | tee -a "$OUT/rc.txt"
  grep -E "^step|^end|INVALID|ERROR SUMMARY" "$OUT/$name.txt" | head -12
}
for where in thread here; do
  run "beside-$where-plain" /tmp/capture_beside "$PKG" $where $STEPS
  run "beside-$where-memcheck" "$SAN" --tool memcheck /tmp/capture_beside "$PKG" $where $STEPS
  CUDA_MODULE_LOADING=EAGER run "beside-$where-memcheck-eager" "$SAN" --tool memcheck /tmp/capture_beside "$PKG" $where $STEPS
done
run "beside-thread-memcheck-nodense" env SPPERM_DENSE_BUDGET_MB=0 "$SAN" --tool memcheck /tmp/capture_beside "$PKG" thread $STEPS
run "beside-thread-memcheck-noapi" "$SAN" --tool memcheck --check-api-memory-access no /tmp/capture_beside "$PKG" thread $STEPS
CUDA_MODULE_LOADING=EAGER run gtest-memcheck-eager "$SAN" --tool memcheck \
  "$B/unittests/Runtime/RuntimeTests" --gtest_filter='GpuCaptureTest.PackageCallsBesideAGlobalCapture'
grep -E "^\[  (PASSED|FAILED) " "$OUT/gtest-memcheck-eager.txt"
