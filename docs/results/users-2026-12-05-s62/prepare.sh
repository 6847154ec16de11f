#!/usr/bin/env bash
# Session 62, here (after the README's build and tools/scripts/gpu_prepare.sh):
# the Python GPU tests' packages (gpu_python_prepare.sh) and packages of a
# matrix whose values are fp32 subnormals, to check on the GPU that the
# kernels carry subnormals through (no flush to zero) in every family.
set -euo pipefail
cd "$(dirname "$0")/../../.."
rm -rf .gpu/base .gpu/gen .gpu/new .gpu/x .gpu/x2 .gpu/sub
bash tools/scripts/gpu_python_prepare.sh
mkdir -p .gpu/sub
# 3,000 x 3,000, about 12 entries a row (a few rows of 400), values
# +-[1e-40, 1e-38]: every product with B and most sums are subnormal.
build/venv/bin/python - <<'PY'
import numpy as np, scipy.sparse as sp, scipy.io
rng = np.random.default_rng(62)
n = 3000
a = sp.random(n, n, density=12 / n, format="csr", random_state=rng)
long_rows = sp.random(8, n, density=400 / n, format="csr", random_state=rng)
a = sp.vstack([long_rows, a[8:]]).tocsr()
a.data = (np.sign(rng.standard_normal(a.nnz)) *
          10.0 ** rng.uniform(-40, -38, a.nnz)).astype(np.float64)
scipy.io.mmwrite(".gpu/sub/sub.mtx", a, precision=9)
PY
for f in csr bell hbp; do
  for d in f32 bf16; do
    build/bin/spperm-compile .gpu/sub/sub.mtx -o .gpu/sub/sub.$f.$d.spp \
      --format $f --dtype $d --data external -q
  done
done
build/bin/spperm-compile .gpu/sub/sub.mtx -o .gpu/sub/sub.auto.f32.spp \
  --data external -q
du -sh .gpu/deps .gpu/pypk.tar.xz .gpu/sub
