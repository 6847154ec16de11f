#!/usr/bin/env bash
# The device call of this record (docs/results/hbp-2026-12-05-s59/README.md),
# run from the repository root with .gpu/ carried. Made here by:
#   M=../shared/data/matrices
#   L="examples/bcsstk13.mtx.gz $M/gnn/cora.mtx.gz
#      $M/dlmc/transformer/magnitude_pruning/0.9/body_decoder_layer_0_encdec_attention_multihead_attention_k_fully_connected.smtx.gz
#      $M/dlmc/rn50/magnitude_pruning/0.9/bottleneck_1_block_group2_1_1.smtx.gz"
#   bash tools/scripts/gpu_prepare.sh $L      # csr, bell, hbp (then with a
#                                             # col-block rule since dropped)
#   and, per matrix, hbp with --col-block 4096 (the seed's), 512 and 128:
#   spperm-compile M -o .gpu/pkgs/NAME.hbpcbCB.spp --format hbp
#     --col-block CB --strategy identity --values random:3
# 1. gpu_check.sh: RuntimeTests, float64 checks at K = 1, 32, 128, 512 and
#    the benchmark against the best cuSPARSE algorithm at the same K;
# 2. every hbp package called from 8 threads, each on its own stream, K
#    cycling through 1, 5, 8, 32, 128, 512 (the ticket counters per stream);
# 3. compute-sanitizer racecheck (concurrent calls) and memcheck on three
#    hbp packages.
set -uo pipefail
export SPPERM_CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps"
export KS="1 32 128 512" BENCH_KS="1 32 128 512" RUNS="${RUNS:-10}"
mkdir -p "$OUT/check"
OUT=$OUT/check timeout 330 bash tools/scripts/gpu_check.sh .gpu/pkgs >"$OUT/check.log" 2>&1
echo "gpu_check rc=$?"
grep -E "FAIL|geomean" "$OUT/check.log" | head
V=build-gpu/bin/spperm-verify
for p in .gpu/pkgs/*hbp*.spp; do
  timeout 40 "$V" "$p" --device gpu --k 1,5,8,32,128,512 --threads 8 --calls 40 --jobs 1 2>&1 |
    grep -E "concurrent|FAIL" | head -3
done >"$OUT/conc.log" 2>&1
echo "concurrency: $(grep -c '^ok' "$OUT/conc.log") ok lines"
grep -v '^ok' "$OUT/conc.log" | head -5
CS=/usr/local/cuda/bin/compute-sanitizer
for p in .gpu/pkgs/bcsstk13.hbp.spp .gpu/pkgs/cora.hbpcb512.spp .gpu/pkgs/bcsstk13.hbpcb4096.spp; do
  echo "== $p"
  timeout 100 "$CS" --tool racecheck --kernel-name "regex=^l[0-9]+_" --error-exitcode 3 \
    "$V" "$p" --device gpu --k 8,32 --jobs 1 --threads 4 --calls 8 2>&1 | tail -2
  echo "racecheck rc=${PIPESTATUS[0]}"
  timeout 100 "$CS" --tool memcheck --error-exitcode 3 \
    "$V" "$p" --device gpu --k 1,5,32,128 --jobs 1 2>&1 | tail -2
  echo "memcheck rc=${PIPESTATUS[0]}"
done >"$OUT/san.log" 2>&1
cut -c1-200 "$OUT/san.log"
grep hbp "$OUT/check/summary.txt" | grep -v '^ok' | awk '{print $1, $2, $3, $5, $6}' |
  sed 's/body_decoder_layer_0_encdec_attention_multihead_attention_k_fully_connected/tfm/g; s/bottleneck_1_block_group2_1_1/rn50/g'
(cd "$OUT" && tar cJf all.tar.xz check check.log conc.log san.log && rm -rf check)
