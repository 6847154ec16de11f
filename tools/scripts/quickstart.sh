#!/usr/bin/env bash
#===- quickstart.sh - Set up spperm and run it on the bundled example ------===#
#
# Installs what is missing, builds, and runs the main job on the bundled
# example matrix (examples/bcsstk13.mtx.gz): its features, then compile it to
# a package (strategy and format chosen automatically) and compute C = A * B
# with the runtime on the CPU, checked against a float64 NumPy reference.
#
#===------------------------------------------------------------------------===#
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

spperm_install_packages
spperm_build

bin="$SPPERM_BUILD/bin"
example="$SPPERM_ROOT/examples/bcsstk13.mtx.gz"
work="$SPPERM_BUILD/quickstart"
mkdir -p "$work"

echo "== spperm-inspect: the matrix"
"$bin/spperm-inspect" "$example"

echo
echo "== spperm-compile: package (auto strategy and format), report"
"$bin/spperm-compile" "$example" -o "$work/bcsstk13.spp" --values random:1 \
  --report "$work/report.html"
/usr/bin/python3 - "$work/bcsstk13.spp/manifest.json" <<'PY'
import json, sys
layer = json.load(open(sys.argv[1]))["layers"][0]
print(f"layer {layer['name']}: {layer['rows']} x {layer['cols']}, "
      f"{layer['nnz']} nnz, strategy {layer['strategy']}, format {layer['format']}")
PY

echo
echo "== spperm-run --device cpu: C = A * B for K = 32"
/usr/bin/python3 -c "import numpy as np; np.save('$work/b.npy', np.random.default_rng(1).uniform(-1, 1, (2003, 32)).astype(np.float32))"
"$bin/spperm-run" "$work/bcsstk13.spp" --device cpu --b "$work/b.npy" \
  --out "$work/c.npy"
/usr/bin/python3 "$SPPERM_ROOT/test/tools/spperm-run/spmm.py" check \
  "$example" "$work/b.npy" "$work/c.npy" --values random:1
echo "outputs in $work (report.html: features and choices)"
