#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/split16.tar.xz (prep.sh):
# builds the runtime and runs RuntimeTests (gpu_suite.sh, no sets), then
# checks and times every kind of package of the archive at K = 32, 64, 128
# and 512, two rounds in opposite kind order (ORDER), each kind within
# LIMIT s. Writes under $OUT.
set -uo pipefail
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/split16.tar.xz SETS=none OUT=$OUT/suite bash tools/scripts/gpu_suite.sh > $OUT/suite.log 2>&1
grep -E "PASSED|FAILED|failures|regenerated" $OUT/suite.log | tail -4
G=tools/scripts/gpu_kinds.sh; SUITE=build-gpu/suite-work/suite
KS=32,64,128,512
kinds="f32 bf16"
for n in ${SPLITS:-32 64 192}; do kinds+=" f32s$n bf16s$n"; done
specs=(); for k in $kinds; do specs+=("$k:$KS:$KS"); done
LIMIT=${LIMIT:-60} bash $G $SUITE $OUT/r1 "${specs[@]}" 2>&1 | tee $OUT/r1.log
# Second round, kinds in reverse order, timings only (checks at K = 1).
rev=(); for ((i=${#specs[@]}-1; i>=0; i--)); do rev+=("${specs[$i]%%:*}:1:$KS"); done
LIMIT=${LIMIT:-60} bash $G $SUITE $OUT/r2 "${rev[@]}" 2>&1 | tee $OUT/r2.log
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
