#!/usr/bin/env python3
"""End-to-end CPU check: spperm-compile + spperm-run --device cpu against an
independent float64 reference, for every matrix x format x strategy x K.

The reference reads the matrix here (NumPy, not the sparse core) with the
DESIGN contract's `--values random:SEED` rule, and computes A @ B in
float64. Every (matrix, format, strategy) is compiled once with --k 0 (any
K) and run for each K with a fresh random B; C must have the right shape and
relative Frobenius error <= 1e-5 (NaN never passes).

Usage: check_cpu_executor.py BUILD_BIN OUTDIR FILE_OR_DIR... [--formats ...]
       [--strategies ...] [--ks 1 5 32] [--seed 7]
Prints one line per failure and a summary table; exit 1 on any failure.
"""

import argparse
import gzip
import os
import subprocess
import sys

import numpy as np
import scipy.sparse as sp


def random_values(seed, count):
    """u(splitmix64(seed ^ e)) for e = 0 .. count-1, vectorized."""
    with np.errstate(over="ignore"):
        x = np.uint64(seed) ^ np.arange(count, dtype=np.uint64)
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return ((z >> np.uint64(40)).astype(np.float64) / 2.0**23 - 1.0).astype(np.float32)


def read_matrix(path, seed):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        text = f.read()
    if path.endswith((".smtx", ".smtx.gz")):
        lines = [l for l in text.split("\n") if l.strip()]
        rows, cols, nnz = (int(x) for x in lines[0].replace(",", " ").split())
        offsets = np.array(lines[1].split(), dtype=np.int64)
        c = np.array(lines[2].split(), dtype=np.int64) if nnz else np.zeros(0, np.int64)
        r = np.repeat(np.arange(rows), np.diff(offsets))
        v = random_values(seed, nnz).astype(np.float64)
        return sp.coo_matrix((v, (r, c)), shape=(rows, cols)).tocsr()
    lines = text.split("\n")
    symmetry = lines[0].split()[4].lower()
    body = [l for l in lines[1:] if l.strip() and not l.lstrip().startswith("%")]
    rows, cols, nnz = (int(x) for x in body[0].split())
    ij = np.array([l.split()[:2] for l in body[1:1 + nnz]], dtype=np.int64).reshape(-1, 2)
    r, c = ij[:, 0] - 1, ij[:, 1] - 1
    v = random_values(seed, nnz).astype(np.float64)
    if symmetry != "general":
        off = r != c
        sign = -1.0 if symmetry == "skew-symmetric" else 1.0
        r, c, v = (np.concatenate([r, c[off]]), np.concatenate([c, r[off]]),
                   np.concatenate([v, sign * v[off]]))
    return sp.coo_matrix((v, (r, c)), shape=(rows, cols)).tocsr()


def files_of(paths):
    out = []
    for p in paths:
        if os.path.isfile(p):
            out.append(p)
            continue
        for root, _, names in os.walk(p):
            out += [os.path.join(root, n) for n in names
                    if n.endswith((".mtx", ".smtx", ".mtx.gz", ".smtx.gz"))]
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("outdir")
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--formats", nargs="+", default=["csr", "bell", "hbp"])
    ap.add_argument("--strategies", nargs="+",
                    default=["identity", "lpt", "warp-aware", "bsa"])
    ap.add_argument("--ks", nargs="+", type=int, default=[1, 5, 32])
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()

    os.makedirs(args.outdir, exist_ok=True)
    rng = np.random.default_rng(12345)
    failures, runs, worst = 0, 0, 0.0
    for path in files_of(args.paths):
        a = read_matrix(path, args.seed)
        for fmt in args.formats:
            for strategy in args.strategies:
                pkg = os.path.join(args.outdir, "p.spp")
                comp = subprocess.run(
                    [os.path.join(args.bin, "spperm-compile"), path, "-o", pkg,
                     "--format", fmt, "--strategy", strategy,
                     "--values", f"random:{args.seed}"],
                    capture_output=True, text=True)
                if comp.returncode != 0:
                    print(f"FAIL compile {path} {fmt} {strategy}: {comp.stderr.strip()}")
                    failures += 1
                    continue
                for k in args.ks:
                    b = rng.uniform(-1, 1, size=(a.shape[1], k)).astype(np.float32)
                    bp = os.path.join(args.outdir, "b.npy")
                    cp = os.path.join(args.outdir, "c.npy")
                    np.save(bp, b)
                    if os.path.exists(cp):
                        os.remove(cp)
                    run = subprocess.run(
                        [os.path.join(args.bin, "spperm-run"), pkg, "--device", "cpu",
                         "--b", bp, "--out", cp], capture_output=True, text=True)
                    runs += 1
                    if run.returncode != 0:
                        print(f"FAIL run {path} {fmt} {strategy} k={k}: {run.stderr.strip()}")
                        failures += 1
                        continue
                    c = np.load(cp).astype(np.float64)
                    want = a @ b.astype(np.float64)
                    if c.shape != want.shape:
                        print(f"FAIL {path} {fmt} {strategy} k={k}: shape {c.shape} != {want.shape}")
                        failures += 1
                        continue
                    norm = np.linalg.norm(want)
                    rel = np.linalg.norm(c - want) / norm if norm > 0 else np.linalg.norm(c)
                    if not (rel <= 1e-5):
                        print(f"FAIL {path} {fmt} {strategy} k={k}: relative error {rel:.3g}")
                        failures += 1
                    worst = max(worst, rel) if rel == rel else float("nan")
    print(f"check_cpu_executor: {len(files_of(args.paths))} matrices, {runs} runs, "
          f"{failures} failures, worst relative error {worst:.3g}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
