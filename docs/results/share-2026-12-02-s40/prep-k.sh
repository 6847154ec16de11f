#!/bin/bash
# Here: the layers of issue 30's set that are memory-bound in fp32 at K = 32
# or 64 (13 generated, gen13.txt, and two shared matrices) compiled by $1 for
# one K each, fp32 and bf16 (NAME.f32k32.spp, NAME.bf16k32.spp, ...), into
# /tmp/wk.tar.xz (.gpu/w.tar.xz), for bf16 / fp32 with --k (device3.sh;
# ../half-2026-11-26-s24/half.py --base f32kN).
cd "$(dirname "$0")/../../.."
COMPILER=$1 PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
  GEN_LIST=docs/results/share-2026-12-02-s40/gen13.txt STAGE=/tmp/st_wk ARCHIVE=/tmp/wk.tar.xz \
  MAIN_EXTRA="f32k32|--k 32;bf16k32|--dtype bf16 --k 32;f32k64|--k 64;bf16k64|--dtype bf16 --k 64" \
  bash tools/scripts/gpu_suite_prepare.sh \
  suitesparse/Andrews.mtx.gz suitesparse/Maragal_6.mtx.gz
