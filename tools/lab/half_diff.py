#!/usr/bin/env python3
"""Where a 16-bit package's GPU result differs from the CPU executor's.

Runs spperm-run on the GPU and on the CPU with the same B (float32 .npy,
rounded to the layer's type by spperm-run) and prints, per K, how many
elements differ by more than one unit in the last place of the type, and the
rows and columns of the first ones (tools/lab: a debugging aid for the half
precision kernels, docs/Kernels.md "Half precision").
Usage: half_diff.py SPPERM_RUN PACKAGE K [K ...]
"""
import os
import subprocess
import sys
import tempfile

import numpy as np


def main():
    run, pkg = sys.argv[1], sys.argv[2]
    manifest = open(os.path.join(pkg, "manifest.json")).read()
    import json
    layer = json.loads(manifest)["layers"][0]
    cols, dtype = layer["cols"], layer.get("dtype", "f32")
    unit = {"f16": 2.0 ** -10, "bf16": 2.0 ** -7}.get(dtype, 2.0 ** -23)
    with tempfile.TemporaryDirectory() as tmp:
        for k in (int(x) for x in sys.argv[3:]):
            b = np.random.default_rng(k).uniform(-1, 1, (cols, k)).astype(
                np.float32)
            np.save(f"{tmp}/b.npy", b)
            out = {}
            for device in ("gpu", "cpu"):
                subprocess.run([run, pkg, "--device", device, "--b",
                                f"{tmp}/b.npy", "--out",
                                f"{tmp}/{device}.npy"], check=True)
                out[device] = np.load(f"{tmp}/{device}.npy").astype(
                    np.float64)
            g, c = out["gpu"], out["cpu"]
            diff = np.abs(g - c)
            bad = diff > 1.01 * unit * np.maximum(np.abs(c), 1e-30)
            rows, cols_ = np.nonzero(bad)
            print(f"K={k} dtype={dtype}: {int(bad.sum())} of {bad.size} "
                  f"elements beyond 1 ulp; normwise "
                  f"{np.linalg.norm(g - c) / np.linalg.norm(c):.3g}; "
                  f"bad rows {sorted(set(rows.tolist()))[:12]} "
                  f"cols {sorted(set(cols_.tolist()))[:16]}")
            for r, j in list(zip(rows, cols_))[:5]:
                print(f"  C[{r},{j}] gpu {g[r, j]:.6g} cpu {c[r, j]:.6g}")


if __name__ == "__main__":
    main()
