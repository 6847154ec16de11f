set -u
O=$OUT
T=.gpu/subh/t3
. tools/scripts/shared_zlib.sh
{ cmake -G Ninja -S . -B build-gpu -DSPPERM_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release ${ZLIB_FLAGS[@]+"${ZLIB_FLAGS[@]}"} -DCMAKE_PREFIX_PATH="$PWD/.gpu/deps" && cmake --build build-gpu -j 16 --target spperm-verify spperm-run; } > $O/build.log 2>&1 || { tail -20 $O/build.log; exit 1; }
SPPERM_LOG_CHOICES=1 build-gpu/bin/spperm-run $T/sub.hbp.spp --device gpu --b $T/B1.npy --out $O/c_gpu.npy 2>&1 | tail -5; echo "run rc=$?"
SPPERM_LOG_CHOICES=1 build-gpu/bin/spperm-verify .gpu/subh/fix --device gpu --k 1,2 --jobs 1 > $O/v4.log 2>&1; grep -v "^ok" $O/v4.log | head -40
V=build-gpu/bin/spperm-verify
for rep in 1 2; do for w in before after; do
  $V .gpu/subh/bench/$w --device gpu --k 1 --jobs 1 --bench 1 --runs 50 > $O/k1-$w-$rep.log 2>&1; echo "k1 $w $rep rc=$?"
done; done
