#!/bin/bash
# Here: the fp32 (what spperm-compile selects) and bf16 packages of the 8
# generated layers of gen8.txt and SuiteSparse Maragal_6, as .gpu/lag.tar.xz.
cd "$(dirname "$0")/../../.."
PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
  GEN_LIST=docs/results/lag-2026-11-28-s36/gen8.txt STAGE=/tmp/st_lag ARCHIVE=.gpu/lag.tar.xz \
  MAIN_EXTRA="f32|--format auto --strategy auto;bf16|--dtype bf16" \
  bash tools/scripts/gpu_suite_prepare.sh suitesparse/Maragal_6.mtx.gz
