set -u
O=$OUT
. tools/scripts/shared_zlib.sh
{ cmake -G Ninja -S . -B build-gpu -DSPPERM_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release ${ZLIB_FLAGS[@]+"${ZLIB_FLAGS[@]}"} -DCMAKE_PREFIX_PATH="$PWD/.gpu/deps" && cmake --build build-gpu -j 16 --target spperm-verify; } > $O/build.log 2>&1 || { tail -20 $O/build.log; exit 1; }
V=build-gpu/bin/spperm-verify
$V .gpu/subh/nolib --device gpu --k 1,2,3,4,5,8,16,32,128,512 --jobs 1 > $O/v-nolib2.log 2>&1; echo "rc=$?"; grep -E "^summary|^FAIL" $O/v-nolib2.log
for rep in 1 2; do for w in before after2; do
  $V .gpu/subh/bench/$w --device gpu --k 1,32,128,512 --jobs 1 --bench 1,32,128,512 --runs 20 > $O/own-$w-$rep.log 2>&1; echo "$w $rep rc=$?"
done; done
