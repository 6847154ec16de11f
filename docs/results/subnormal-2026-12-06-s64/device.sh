set -u
O=$OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/gpu.txt
nvcc -arch=sm_90 -o /tmp/as tools/lab/atomic_subnormal.cu && /tmp/as > $O/atomic.txt 2>&1; cat $O/atomic.txt
cuobjdump -sass .gpu/subh/sub.hbp.f32.spp/kernels.sm_90.cubin 2>&1 | grep -E "Function|ATOM|RED" > $O/sass.txt; head -12 $O/sass.txt
. tools/scripts/shared_zlib.sh
{ cmake -G Ninja -S . -B build-gpu -DSPPERM_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release ${ZLIB_FLAGS[@]+"${ZLIB_FLAGS[@]}"} -DCMAKE_PREFIX_PATH="$PWD/.gpu/deps" && cmake --build build-gpu -j 16 --target spperm-verify; } > $O/build.log 2>&1 || { tail -20 $O/build.log; exit 1; }
V=build-gpu/bin/spperm-verify
KS=1,2,3,4,5,8,16,32,128
$V .gpu/subh --device gpu --k $KS --jobs 1 > $O/v-old.log 2>&1; echo "old rc=$?"; grep -E "^(ok|FAIL)" $O/v-old.log | awk '{print $1, $2, $4, $7, $8, $9}' | grep FAIL

$V .gpu/subh/fix --device gpu --k $KS --jobs 1 > $O/v-fix.log 2>&1; echo "fix rc=$?"; grep "^summary" $O/v-fix.log; grep FAIL $O/v-fix.log | head
for w in before after; do
  $V .gpu/subh/bench/$w --device gpu --k 1,32,128,512 --jobs 1 --bench 1,32,128,512 --runs 20 > $O/bench-$w.log 2>&1; echo "bench $w rc=$?"
done
grep -h "^bench\|us=" $O/bench-before.log | head -3
