#!/bin/bash
# On the GPU machine, from the repository root, with .gpu/deps and
# .gpu/lag.tar.xz (prep.sh) carried: builds the runtime and unpacks the
# packages (gpu_suite.sh, no sets), times every package at K = $KS (bench
# lines), then profiles the chosen variant's kernels of each with Nsight
# Compute. Writes $OUT/lag.tar.xz.
set -uo pipefail
W=/tmp/w; mkdir -p $W/ncu
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/lag.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
V=build-gpu/bin/spperm-verify
S=build-gpu/suite-work/suite/kinds
KS=${KS:-32,64}
bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/k f32:$KS:$KS bf16:$KS:$KS > $W/kinds.log 2>&1
METRICS=gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active
# The chosen variant of each package and K: its kernels' prefix (l0_ for
# the package's own variant, l0aN_ for alternative N) and K bucket.
cat $W/k/*.verify.log | grep '^bench' | python3 -c '
import sys
for l in sys.stdin:
    f=l.split(); kv=dict(t.split("=",1) for t in f[3:] if "=" in t)
    i=kv["variants"].split(",").index(kv["format"]+"."+kv["strategy"])
    print(f[1], kv["K"], "l0_" if i==0 else "l0a%d_"%i)' > $W/chosen.txt
# Only the pairs of PAIRS (NAME:K; the layers whose bf16 / fp32 ratio is
# far from the rest), and no new profile after 480 s of the call.
PAIRS=${PAIRS:-rmat-s16e16:32 rmat-s17e8:32 rmat-s18e16:32 block-64k-b32-d0.0005:32 community-64k-c256-shuffled:32 banded-256k-w4:32 rmat-s16e16:64 suitesparse__Maragal_6:64 banded-128k-w32:64 uniform-32k-d0.0005:64 rmat-s18e16:64}
while read pkg k prefix; do
  n=$(basename $pkg .spp)
  [[ " $PAIRS " == *" ${n%.*}:$k "* ]] || continue
  (( SECONDS < 480 )) || { echo "out of time before $n K=$k" >> $W/skipped.txt; continue; }
  timeout 120 ncu --cache-control none --clock-control none --metrics $METRICS --csv --page raw \
    -k "regex:^${prefix}.*_k${k}_" --launch-count 12 \
    $V $pkg --k $k --bench $k --runs 3 --jobs 1 > $W/ncu/$n.k$k.csv 2> $W/ncu/$n.k$k.err
  for f in $(grep -o '"l0[a-z0-9_]*"' $W/ncu/$n.k$k.csv | tr -d '"' | sort -u); do
    cuobjdump -sass -fun $f $pkg/kernels.sm_90.cubin >> $W/ncu/$n.k$k.sass 2>&1
  done
done < $W/chosen.txt
cd /tmp && tar -cJf $OUT/lag.tar.xz w
