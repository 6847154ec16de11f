#!/bin/bash
# Here: the shared 42 and generated 16 matrices' fp32 and bf16 packages as
# spperm-compile selects them (kinds f32old, bf16old) and with every long
# row in a CTA of the row kernel (--long-rows cta: f32new, bf16new), as
# /tmp/cta.tar.xz; then merge-cta.sh drops the pairs with identical PTX.
cd "$(dirname "$0")/../../.."
PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
  GEN_LIST=docs/results/half-2026-11-27-s28/gen16.txt STAGE=/tmp/st_cta ARCHIVE=/tmp/cta.tar.xz \
  MAIN_EXTRA="f32old|--format auto --strategy auto;bf16old|--dtype bf16;f32new|--format auto --strategy auto --long-rows cta;bf16new|--dtype bf16 --long-rows cta" \
  bash tools/scripts/gpu_suite_prepare.sh $(cat docs/results/rowloads-2026-11-27-s30/shared42.txt)
