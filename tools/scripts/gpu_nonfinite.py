#!/usr/bin/env python3
#===- gpu_nonfinite.py - Non-finite B on the GPU and the CPU executor ------===#
#
# Part of the spperm project.
#
#===------------------------------------------------------------------------===#
"""Runs each package with a B holding NaN and infinity in some rows on the
GPU and on the CPU executor (spperm-run --device gpu|cpu) and checks that
both give non-finite values in the same places and agree elsewhere
(docs/Formats.md, "Non-finite B").

Usage: gpu_nonfinite.py SPPERM_RUN PKG.spp [PKG.spp ...]
"""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np


def main():
    run, pkgs = sys.argv[1], sys.argv[2:]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for pkg in pkgs:
            manifest = json.load(open(os.path.join(pkg, "manifest.json")))
            for layer in manifest["layers"]:
                # The runtime's library check may run cuSPARSE or a dense
                # GEMM instead of the kernels, each with its own propagation.
                if layer.get("library_check"):
                    print("skip %s %s: checked against the library at run "
                          "time" % (os.path.basename(pkg), layer["name"]))
                    continue
                n, k = layer["cols"], layer.get("k") or 32
                rng = np.random.default_rng(5)
                b = rng.uniform(-1, 1, (n, k)).astype(np.float32)
                # At least one NaN row and one row with infinities (in its
                # first column at least, for K = 1).
                rows = rng.choice(n, size=min(n, max(2, n // 50)),
                                  replace=False)
                b[rows[::2]] = np.nan
                b[rows[1::2], : max(1, k // 2)] = np.inf
                bp = os.path.join(tmp, "b.npy")
                np.save(bp, b)
                out = {}
                for device in ("gpu", "cpu"):
                    cp = os.path.join(tmp, device + ".npy")
                    r = subprocess.run([run, pkg, "--layer", layer["name"],
                                        "--device", device, "--b", bp,
                                        "--out", cp],
                                       capture_output=True, text=True)
                    if r.returncode != 0:
                        print("FAIL %s %s %s: %s" % (pkg, layer["name"], device,
                                                     r.stderr.strip()))
                        bad += 1
                        break
                    out[device] = np.load(cp)
                if len(out) != 2:
                    continue
                g, c = out["gpu"], out["cpu"]
                same = np.array_equal(np.isfinite(g), np.isfinite(c)) and \
                    np.array_equal(np.isnan(g), np.isnan(c))
                fin = np.isfinite(c)
                err = float(np.max(np.abs(g[fin] - c[fin]) /
                                   (1 + np.abs(c[fin])))) if fin.any() else 0.0
                ok = same and err <= 1e-4
                bad += not ok
                print("%s %s %s: %d of %d C elements non-finite (%d rows of B), "
                      "masks %s, max error elsewhere %.2e" % (
                          "ok  " if ok else "FAIL", os.path.basename(pkg),
                          layer["name"], int((~fin).sum()), c.size, len(rows),
                          "equal" if same else "DIFFER", err))
    print("gpu_nonfinite: %d failure(s)" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
