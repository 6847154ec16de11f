#!/usr/bin/env bash
# Packages for the split-threshold sweep (this record's README): the
# generated long-row layers of gen.txt, fp32 and bf16, with the compiler's
# threshold and fixed ones. Run from the repository root after the README's
# build. Maragal_6 is compiled too (gpu_suite_prepare.sh takes the shared
# matrices named, or all of them) and then dropped: with it the carried
# tree was over 64 MiB.
set -euo pipefail
kinds="f32|--format auto --strategy auto;bf16|--dtype bf16"
for n in ${SPLITS:-32 64 192}; do
  kinds+=";f32s$n|--split-rows $n;bf16s$n|--dtype bf16 --split-rows $n"
done
FORMATS=" " STRATEGIES=" " SELECTED=0 PARTS=main BIG=0 \
  GEN_LIST=docs/results/split16-2026-12-04-s50/gen.txt \
  MAIN_EXTRA="$kinds" ARCHIVE=$PWD/.gpu/split16.tar.xz \
  bash tools/scripts/gpu_suite_prepare.sh suitesparse/Maragal_6.mtx.gz
t=$(mktemp -d)
xz -dc .gpu/split16.tar.xz | tar -C "$t" -xf -
rm -rf "$t"/suite/suitesparse__* "$t/suite/m"
tar -C "$t" -cf - suite | xz -T2 -6 >.gpu/split16.tar.xz
rm -rf "$t"
