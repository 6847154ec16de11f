#!/usr/bin/env bash
# Packages compiled for one K (--k 32, 128, 512; fp32 and bf16) and for any
# K (selected, fp32) of session 46's 13 matrices, for the check of this
# record's README. Run from the repository root after the README's build
# and gpu_prepare.sh.
set -euo pipefail
M=(dlmc/rn50/magnitude_pruning/0.8/bottleneck_1_block_group2_3_1.smtx.gz
   dlmc/transformer/magnitude_pruning/0.7/body_encoder_layer_0_ffn_conv1_fully_connected.smtx.gz
   dlmc/transformer/magnitude_pruning/0.98/body_encoder_layer_0_ffn_conv1_fully_connected.smtx.gz
   dlmc/transformer/magnitude_pruning/0.9/body_encoder_layer_0_ffn_conv1_fully_connected.smtx.gz
   dlmc/transformer/magnitude_pruning/0.9/body_decoder_layer_0_encdec_attention_multihead_attention_q_fully_connected.smtx.gz
   dlmc/transformer/random_pruning/0.9/body_encoder_layer_0_ffn_conv1_fully_connected.smtx.gz
   gnn/citeseer.mtx.gz gnn/cora.mtx.gz
   suitesparse/bcsstk13.mtx.gz suitesparse/Maragal_6.mtx.gz suitesparse/cond-mat.mtx.gz
   suitesparse/lp_fit2p.mtx.gz suitesparse/fv2.mtx.gz)
kinds="k32|--k 32;k128|--k 128;k512|--k 512;bf16k32|--dtype bf16 --k 32;bf16k128|--dtype bf16 --k 128;bf16k512|--dtype bf16 --k 512"
FORMATS=" " STRATEGIES=" " SELECTED=1 PARTS=main BIG=0 MAIN_EXTRA="$kinds" \
  ARCHIVE=$PWD/.gpu/kpkg.tar.xz bash tools/scripts/gpu_suite_prepare.sh "${M[@]}"
