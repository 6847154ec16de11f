#!/bin/bash
# Here, after prep.sh (its /tmp/old.tar.xz: the old compiler's packages):
# the same layers' bf16, --k 32 and forced-bell packages from two builds of
# the pipelined kernel with the block columns loaded two blocks ahead: $1
# copying B by cp.async.cg (L2 only; kinds *cga, /tmp/cga.tar.xz), $2 by
# cp.async.ca (through L1; kinds *caa, /tmp/caa.tar.xz). Then merge2.sh.
cd "$(dirname "$0")/../../.."
T7=dlmc/transformer/magnitude_pruning/0.7
for T in cga caa; do
  if [[ $T == cga ]]; then C=$1; else C=$2; fi
  COMPILER=$C PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
    GEN_LIST=docs/results/tc16-2026-12-02-s38/gen.txt STAGE=/tmp/st_$T ARCHIVE=/tmp/$T.tar.xz \
    MAIN_EXTRA="bf16$T|--dtype bf16;bk32$T|--dtype bf16 --k 32;bb$T|--dtype bf16 --format bell --strategy identity --precision tf32" \
    bash tools/scripts/gpu_suite_prepare.sh suitesparse/Maragal_6.mtx.gz suitesparse/lp_fit2p.mtx.gz \
      $T7/body_decoder_layer_0_encdec_attention_multihead_attention_k_fully_connected.smtx.gz \
      $T7/body_decoder_layer_0_ffn_conv2_fully_connected.smtx.gz \
      $T7/body_encoder_layer_0_ffn_conv1_fully_connected.smtx.gz \
      $T7/body_encoder_layer_0_self_attention_multihead_attention_v_fully_connected.smtx.gz
done
