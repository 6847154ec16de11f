# Sourced by device.sh (from the repository root, O set to the output
# folder): copies back the data.bin that prepare.sh left out (a package's
# base copy, else its matrix's any-K base package's) and builds the
# runtime-only tools named as arguments into B=build-gpu; exits the
# caller if the build fails.
B=build-gpu
for d in .gpu/*/*.spp; do
  [ -f "$d/data.bin" ] && continue
  n=$(basename "$d")
  if [ -f ".gpu/base/$n/data.bin" ]; then cp ".gpu/base/$n/data.bin" "$d/"
  else cp ".gpu/base/${n%%.*}.spp/data.bin" "$d/"; fi
done
. tools/scripts/shared_zlib.sh
{ cmake -G Ninja -S . -B $B -DSPPERM_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release \
    ${ZLIB_FLAGS[@]+"${ZLIB_FLAGS[@]}"} -DCMAKE_PREFIX_PATH="$PWD/.gpu/deps" &&
  cmake --build $B -j 16 --target "$@"; } >"$O/build.log" 2>&1 ||
  { tail -20 "$O/build.log"; exit 1; }
