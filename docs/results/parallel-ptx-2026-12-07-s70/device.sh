#!/usr/bin/env bash
# On the device, from the repository root, with .gpu/deps and
# .gpu/suite-parA.tar.xz carried (gpu_prepare.sh; gpu_suite_prepare.sh as in
# README.md here):
#   OUT=$OUT bash docs/results/parallel-ptx-2026-12-07-s70/device.sh
# The GPU suite (SETS, default "main sub tc aot san") over packages whose
# PTX the parallel serialization made (spperm-split-kernel-module,
# spperm-serialize-kernels), then spperm-run with a float16 ('<f2') B on
# the GPU against the CPU executor. The logs come back as one archive,
# $OUT/logs.tar.xz.
set -u
R=$PWD
export SPPERM_CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$R/.gpu/deps"
mkdir -p "$OUT/suite" "$OUT/f2"
rc=0
OUT=$OUT/suite ARCHIVE=$R/.gpu/suite-parA.tar.xz SETS="${SETS:-main sub tc aot san}" \
  RUNS="${RUNS:-5}" BENCH_KS="${BENCH_KS:-32,128}" \
  bash tools/scripts/gpu_suite.sh >"$OUT/suite/stdout.log" 2>&1 || rc=1
echo "=== suite (rc so far $rc)"
grep -E "^(== |checks|packages|FAIL|ok  |\[  |compute-sanitizer|memcheck|racecheck|initcheck|synccheck)" \
  "$OUT/suite/summary.txt" 2>/dev/null | head -60
[[ -f "$OUT/suite/verify.log.xz" ]] &&
  xz -dc "$OUT/suite/verify.log.xz" | grep -o 'ref=[a-z]*' | sort | uniq -c

# '<f2' operands on the GPU: an f16 package of the suite, B and C as
# float16 files, against the CPU executor (both accumulate in fp32 and
# round C once; their sums' order differs, so within fp16's rounding).
echo "=== f2"
RUN=$R/build-gpu/bin/spperm-run
W=$R/build-gpu/suite-work/suite
pkgs=$(ls -d "$W"/*.f16.spp 2>/dev/null | head -3)
[[ -n "$pkgs" ]] || { echo "f2: no f16 package in the suite"; rc=1; }
for p in $pkgs; do
  cols=$(python3 -c "import json,sys; print(json.load(open('$p/manifest.json'))['layers'][0]['cols'])")
  for k in 1 32 128; do
    python3 -c "import numpy as np; np.save('$OUT/f2/b.npy', np.random.default_rng($k).uniform(-1, 1, ($cols, $k)).astype(np.float16))"
    "$RUN" "$p" --device gpu --b "$OUT/f2/b.npy" --out "$OUT/f2/gpu.npy" >>"$OUT/f2/log" 2>&1 || { echo "f2: gpu run failed ($p K=$k)"; rc=1; continue; }
    "$RUN" "$p" --device cpu --b "$OUT/f2/b.npy" --out "$OUT/f2/cpu.npy" >>"$OUT/f2/log" 2>&1 || { echo "f2: cpu run failed ($p K=$k)"; rc=1; continue; }
    python3 - "$OUT/f2" "$(basename "$p")" "$k" <<'PY' || rc=1
import numpy as np, sys
d, name, k = sys.argv[1:4]
g, c = np.load(d + "/gpu.npy"), np.load(d + "/cpu.npy")
assert g.dtype == np.float16 and c.dtype == np.float16, (g.dtype, c.dtype)
g64, c64 = g.astype(np.float64), c.astype(np.float64)
err = np.linalg.norm(g64 - c64) / max(np.linalg.norm(c64), 1e-30)
ok = np.isfinite(g64).all() and err <= 2.0 ** -10
print(f"f2 {name} K={k}: C {g.shape} {g.dtype}, normwise GPU vs CPU {err:.2e} {'ok' if ok else 'FAIL'}")
sys.exit(0 if ok else 1)
PY
  done
done
tar cJf "$OUT/logs.tar.xz" -C "$OUT" suite f2 && rm -rf "$OUT/suite" "$OUT/f2"
exit $rc
