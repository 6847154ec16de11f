#!/bin/bash
# Here: what session 38 left unmeasured of the pipelined 16-bit tensor-core
# kernel, from two compilers: $1 the old one (the widening kernel, bba2b87),
# kinds *old, /tmp/old.tar.xz; $2 the new one (00dadcc), kinds *new,
# /tmp/new.tar.xz. f16: --dtype f16; bk128 / bk512: --dtype bf16 --k 128 /
# 512. Layers: gen.txt and the shared matrices below (those whose bf16
# packages carry a tensor-core twin). Then ../direct-2026-11-28-s35/merge.sh.
cd "$(dirname "$0")/../../.."
T7=dlmc/transformer/magnitude_pruning/0.7
for T in old new; do
  if [[ $T == old ]]; then C=$1; else C=$2; fi
  COMPILER=$C PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
    GEN_LIST=docs/results/budget16-2026-12-02-s39/gen.txt STAGE=/tmp/st_$T ARCHIVE=/tmp/$T.tar.xz \
    MAIN_EXTRA="f16$T|--dtype f16;bk128$T|--dtype bf16 --k 128;bk512$T|--dtype bf16 --k 512" \
    bash tools/scripts/gpu_suite_prepare.sh suitesparse/Maragal_6.mtx.gz suitesparse/lp_fit2p.mtx.gz \
      $T7/body_decoder_layer_0_encdec_attention_multihead_attention_k_fully_connected.smtx.gz \
      $T7/body_decoder_layer_0_ffn_conv2_fully_connected.smtx.gz \
      $T7/body_encoder_layer_0_ffn_conv1_fully_connected.smtx.gz \
      $T7/body_encoder_layer_0_self_attention_multihead_attention_v_fully_connected.smtx.gz
done
