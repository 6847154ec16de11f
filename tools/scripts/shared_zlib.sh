# shellcheck shell=bash
#===- shared_zlib.sh - Link the machine's shared zlib ----------------------===#
#
# Part of the spperm project.
#
#===------------------------------------------------------------------------===#
#
# Sourced by the GPU scripts that configure a build with the Python
# extension in it (gpu_suite.sh, gpu_check.sh, gpu_python.sh). The
# extension is a shared object, and the static libz.a carried in .gpu/deps
# is not built with -fPIC: where the machine has a shared zlib, ZLIB_FLAGS
# (an array, empty otherwise) holds the CMake flags that link it instead,
# also over a cached static one.
#
#===------------------------------------------------------------------------===#
# shellcheck disable=SC2034 # used by the scripts that source this one
ZLIB_FLAGS=()
zlib=$(ldconfig -p 2>/dev/null | sed -n 's/.*libz.so.1 .*x86-64.*=> //p' | head -n 1)
[ -n "$zlib" ] && ZLIB_FLAGS=("-DZLIB_LIBRARY=$zlib" "-DZLIB_LIBRARY_RELEASE=$zlib")
