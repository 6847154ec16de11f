#!/bin/bash
# Here: 16-bit packages of the layers whose bf16 packages carry a tensor-core
# twin (gen.txt and the shared matrices below) from two compilers: $1 the
# old one (the widening tensor-core kernel), kinds *old, /tmp/old.tar.xz;
# $2 the new one (cp.async + ldmatrix pipeline), kinds *new,
# /tmp/new.tar.xz. bb*: bell forced with tensor-core variants (block-64k's
# bf16 packages have no bell variant). Then
# ../direct-2026-11-28-s35/merge.sh.
cd "$(dirname "$0")/../../.."
T7=dlmc/transformer/magnitude_pruning/0.7
for T in old new; do
  if [[ $T == old ]]; then C=$1; else C=$2; fi
  COMPILER=$C PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
    GEN_LIST=docs/results/tc16-2026-12-02-s38/gen.txt STAGE=/tmp/st_$T ARCHIVE=/tmp/$T.tar.xz \
    MAIN_EXTRA="bf16$T|--dtype bf16;f16$T|--dtype f16;bk32$T|--dtype bf16 --k 32;bk128$T|--dtype bf16 --k 128;bb$T|--dtype bf16 --format bell --strategy identity --precision tf32" \
    bash tools/scripts/gpu_suite_prepare.sh suitesparse/Maragal_6.mtx.gz suitesparse/lp_fit2p.mtx.gz \
      $T7/body_decoder_layer_0_encdec_attention_multihead_attention_k_fully_connected.smtx.gz \
      $T7/body_decoder_layer_0_ffn_conv2_fully_connected.smtx.gz \
      $T7/body_encoder_layer_0_ffn_conv1_fully_connected.smtx.gz \
      $T7/body_encoder_layer_0_self_attention_multihead_attention_v_fully_connected.smtx.gz
done
