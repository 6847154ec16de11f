#!/usr/bin/env bash
# Here, after the README's build: the archives device.sh runs.
set -euo pipefail
cd "$(dirname "$0")/../../.."
bash tools/scripts/gpu_prepare.sh examples/bcsstk13.mtx.gz   # .gpu/deps (wipes .gpu)
PARTS=sub bash tools/scripts/gpu_suite_prepare.sh            # .gpu/suite.tar.xz
ARCHIVE=$PWD/.gpu/suite-all.tar.xz PARTS="main san" BIG=0 bash tools/scripts/gpu_suite_prepare.sh \
  suitesparse/bcsstk13.mtx.gz suitesparse/cond-mat.mtx.gz gnn/cora.mtx.gz \
  suitesparse/Maragal_6.mtx.gz suitesparse/cs4.mtx.gz \
  dlmc/transformer/magnitude_pruning/0.9/body_decoder_layer_0_ffn_conv1_fully_connected.smtx.gz
# Two archives, so that each call carries less than 64 MiB.
rm -rf /tmp/suite-all && mkdir /tmp/suite-all && xz -dc .gpu/suite-all.tar.xz | tar -C /tmp/suite-all -xf -
tar -C /tmp/suite-all -cf - --exclude=suite/san suite | xz -T0 -6 >.gpu/suite-main.tar.xz
tar -C /tmp/suite-all -cf - suite/COMMIT suite/san suite/m | xz -T0 -6 >.gpu/suite-san.tar.xz
rm -rf /tmp/suite-all .gpu/suite-all.tar.xz
for w in before after; do  # spperm-compile of 2d58ed2^'s KernelBuilder and of this tree, built here
  bash docs/results/atomic-k-2026-12-06-s65/mk.sh "/tmp/cmp/$w" ".gpu/ak/$w"
done
