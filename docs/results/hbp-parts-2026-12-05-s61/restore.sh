# Sourced by the device scripts (from the repository root, O set to the
# output folder): copies back the data.bin that the prepare scripts left
# out (a package's base copy, else its matrix's any-K base package's),
# builds the runtime-only tools named as arguments into B=build-gpu (exits
# the caller if the build fails), and defines bench, which the scripts
# call after setting R to spperm-run.
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
# bench DIR PKG K [--baseline cusparse]: spperm-run --bench of
# .gpu/DIR/PKG.spp on $B/b.npy (median of 20 after 5 warm-ups), one line;
# with --baseline, the best cuSPARSE algorithm's time too.
bench() { # DIR PKG K [--baseline cusparse]
  local d=$1 p=$2 K=$3; shift 3
  timeout 60 $R .gpu/$d/$p.spp --device gpu --b $B/b.npy --bench "$@" \
    --warmup 5 --runs 20 >"$O/run.txt" 2>&1
  local spp best bms
  spp=$(awk '$1 == "spperm" {print $2}' "$O/run.txt")
  best=$(awk '/^best cuSPARSE/ {print $3}' "$O/run.txt" | tr -d ';')
  bms=$(awk -v n="$best" '$1 == n {print $2}' "$O/run.txt")
  echo "$p K=$K $d spperm_ms=$spp ${bms:+best_cusparse_ms=$bms ($best)}"
}
