#!/bin/bash
# Here, after prep.sh (its /tmp/old.tar.xz: the old compiler's packages):
# the same layers' bf16, --k 32 and forced-bell packages from the adopted
# kernel ($1: pipelined, block columns two ahead, cp.async through L1,
# padding slots skipped), kinds *new, /tmp/new.tar.xz. Then
# ../direct-2026-11-28-s35/merge.sh (the old f16 and --k 128 kinds have no
# new pair and are left out).
cd "$(dirname "$0")/../../.."
T7=dlmc/transformer/magnitude_pruning/0.7
COMPILER=$1 PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
  GEN_LIST=docs/results/tc16-2026-12-02-s38/gen.txt STAGE=/tmp/st_new ARCHIVE=/tmp/new.tar.xz \
  MAIN_EXTRA="bf16new|--dtype bf16;bk32new|--dtype bf16 --k 32;bbnew|--dtype bf16 --format bell --strategy identity --precision tf32" \
  bash tools/scripts/gpu_suite_prepare.sh suitesparse/Maragal_6.mtx.gz suitesparse/lp_fit2p.mtx.gz \
    $T7/body_decoder_layer_0_encdec_attention_multihead_attention_k_fully_connected.smtx.gz \
    $T7/body_decoder_layer_0_ffn_conv2_fully_connected.smtx.gz \
    $T7/body_encoder_layer_0_ffn_conv1_fully_connected.smtx.gz \
    $T7/body_encoder_layer_0_self_attention_multihead_attention_v_fully_connected.smtx.gz
