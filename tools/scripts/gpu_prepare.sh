#!/usr/bin/env bash
#===- gpu_prepare.sh - Prepare the folder the GPU check carries ------------===#
#
# Part of the spperm project.
#
#===------------------------------------------------------------------------===#
#
# Run here (the development machine, after tools/scripts/setup.sh): empties
# .gpu/ (whatever else is there goes; run it before the other *_prepare.sh
# scripts) and fills it (ignore it in .git/info/exclude) with
#   deps/   the build dependencies the GPU machine lacks, copied from this
#           machine's Debian packages: nlohmann-json (headers + CMake
#           config), GoogleTest (static libraries + CMake config), zlib and
#           OpenSSL's libcrypto (headers + static library: CMake's
#           FindOpenSSL adds the threads and libdl it needs); pass
#           -DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
#   pkgs/   packages compiled with spperm-compile (--values random:3) for the
#           matrices given, in FORMATS, with each source matrix beside them
#           so gpu_check.sh can compute a float64 reference.
# Then, with the device tool (carry [".gpu"]):
#   SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps \
#     OUT=$OUT bash tools/scripts/gpu_check.sh .gpu/pkgs
# The carried tree must stay under 64 MiB: this script reports its size.
#
# Usage: gpu_prepare.sh MATRIX... (env FORMATS="csr bell hbp", STRATEGY)
#
#===------------------------------------------------------------------------===#
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN="$ROOT/build/bin"
DEST="$ROOT/.gpu"
FORMATS="${FORMATS:-csr bell hbp}"
STRATEGY="${STRATEGY:-identity}"
ARCH=x86_64-linux-gnu

if [[ $# -eq 0 ]]; then
  echo "usage: $0 MATRIX...   (env FORMATS, STRATEGY)" >&2
  exit 2
fi

rm -rf "$DEST"
mkdir -p "$DEST/deps/include" "$DEST/deps/share/cmake" \
  "$DEST/deps/lib/$ARCH/cmake" "$DEST/pkgs"
cp -r /usr/include/nlohmann "$DEST/deps/include/"
cp -r /usr/share/cmake/nlohmann_json "$DEST/deps/share/cmake/"
cp -r /usr/include/gtest /usr/include/gmock "$DEST/deps/include/"
cp /usr/lib/$ARCH/libgtest*.a /usr/lib/$ARCH/libgmock*.a "$DEST/deps/lib/$ARCH/"
cp -r /usr/lib/$ARCH/cmake/GTest "$DEST/deps/lib/$ARCH/cmake/"
cp /usr/include/zlib.h /usr/include/zconf.h "$DEST/deps/include/"
cp /usr/lib/$ARCH/libz.a "$DEST/deps/lib/"
# Debian splits OpenSSL's headers: the configuration headers live in the
# architecture's folder; the prefix holds them all in include/openssl.
cp -r /usr/include/openssl "$DEST/deps/include/"
cp /usr/include/$ARCH/openssl/*.h "$DEST/deps/include/openssl/"
cp /usr/lib/$ARCH/libcrypto.a "$DEST/deps/lib/"

for m in "$@"; do
  cp "$m" "$DEST/pkgs/"
  name=$(basename "$m")
  name=${name%%.*}
  for f in $FORMATS; do
    "$BIN/spperm-compile" "$m" -o "$DEST/pkgs/$name.$f.spp" --format "$f" \
      --strategy "$STRATEGY" --values random:3
  done
done
du -sh "$DEST" | sed 's/^/carried: /'
