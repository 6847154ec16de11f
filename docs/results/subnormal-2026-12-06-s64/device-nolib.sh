set -u
O=$OUT
. tools/scripts/shared_zlib.sh
{ cmake -G Ninja -S . -B build-gpu -DSPPERM_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release ${ZLIB_FLAGS[@]+"${ZLIB_FLAGS[@]}"} -DCMAKE_PREFIX_PATH="$PWD/.gpu/deps" && cmake --build build-gpu -j 16 --target spperm-verify; } > $O/build.log 2>&1 || { tail -20 $O/build.log; exit 1; }
build-gpu/bin/spperm-verify .gpu/subh/nolib --device gpu --k 1,2,3,4,5,8,16,32,128,512 --jobs 1 > $O/v-nolib.log 2>&1; echo "rc=$?"; grep -E "^summary|^FAIL" $O/v-nolib.log
