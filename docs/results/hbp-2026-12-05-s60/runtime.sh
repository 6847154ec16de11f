# Sourced by device2.sh .. device5.sh (from the repository root, with O set
# to the output folder): restores the old packages' data.bin (prepare.sh
# leaves it out of the carry) and builds the runtime-only tools named as
# arguments into B=build-gpu; exits the caller if the build fails.
B=build-gpu
for d in .gpu/old/*.spp; do cp ".gpu/new/$(basename "$d")/data.bin" "$d/"; done
. tools/scripts/shared_zlib.sh
{ cmake -G Ninja -S . -B $B -DSPPERM_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release \
    ${ZLIB_FLAGS[@]+"${ZLIB_FLAGS[@]}"} -DCMAKE_PREFIX_PATH="$PWD/.gpu/deps" &&
  cmake --build $B -j 16 --target "$@"; } >"$O/build.log" 2>&1 ||
  { tail -20 "$O/build.log"; exit 1; }
