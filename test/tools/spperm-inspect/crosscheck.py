#!/usr/bin/env python3
"""Cross-checks `spperm-inspect --json` against an independent reader.

The reference is SciPy (`scipy.io.mmread(...).tocsr()`) for Matrix Market
files and a small parser written here for DLMC `.smtx` files. For each matrix
every contract key must agree exactly (integers) or to 1e-12 (floats).

Usage:
  crosscheck.py INSPECT --random N [--seed S] [--workdir DIR]
      N random matrices (every field/symmetry, duplicates, empty rows,
      explicit zeros, plain and gzip, .mtx and .smtx), written to DIR.
  crosscheck.py INSPECT FILE_OR_DIR...
      every .mtx/.smtx(.gz) file found.
Prints one line per failure and a summary; exits 1 on any mismatch.
"""

import argparse
import gzip
import json
import math
import os
import subprocess
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp


def read_smtx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        lines = [l for l in f.read().split("\n") if l.strip()]
    rows, cols, nnz = (int(x) for x in lines[0].replace(",", " ").split())
    offsets = np.array(lines[1].split(), dtype=np.int64) if rows else np.zeros(1, np.int64)
    colidx = np.array(lines[2].split(), dtype=np.int64) if nnz else np.zeros(0, np.int64)
    r = np.repeat(np.arange(rows), np.diff(offsets))
    m = sp.coo_matrix((np.ones(nnz), (r, colidx)), shape=(rows, cols))
    return m.tocsr()


def reference(path):
    base = path[:-3] if path.endswith(".gz") else path
    if base.endswith(".smtx"):
        m = read_smtx(path)
    else:
        m = sp.coo_matrix(scipy.io.mmread(path)).tocsr()
    rows, cols = m.shape
    lengths = np.diff(m.indptr)
    out = {
        "rows": rows,
        "cols": cols,
        "nnz": int(m.nnz),
        "density": (m.nnz / (rows * cols)) if rows and cols else 0.0,
        "empty_rows": int((lengths == 0).sum()),
        "row_nnz": {
            "mean": float(lengths.mean()) if rows else 0.0,
            "std": float(lengths.std()) if rows else 0.0,
            "min": int(lengths.min()) if rows else 0,
            "max": int(lengths.max()) if rows else 0,
        },
    }
    return out


def compare(path, got, want, prefix=""):
    errors = []
    for key, w in want.items():
        g = got.get(key)
        if isinstance(w, dict):
            errors += compare(path, g or {}, w, prefix + key + ".")
        elif isinstance(w, float):
            if g is None or not math.isclose(g, w, rel_tol=1e-12, abs_tol=1e-12):
                errors.append(f"{path}: {prefix}{key} = {g}, expected {w}")
        elif g != w:
            errors.append(f"{path}: {prefix}{key} = {g}, expected {w}")
    return errors


def write_random(rng, directory, index):
    """Writes one random matrix file and returns its path."""
    kind = rng.choice(["mtx", "smtx"], p=[0.75, 0.25])
    rows = int(rng.integers(0, 60))
    cols = int(rng.integers(0 if rows == 0 else 1, 60))
    symmetry = "general"
    if kind == "mtx" and rng.random() < 0.5 and rows > 0:
        symmetry = str(rng.choice(["symmetric", "skew-symmetric"]))
        cols = rows
    field = str(rng.choice(["real", "integer", "pattern"]))
    count = int(rng.integers(0, max(1, rows * cols // 2) + 1)) if rows and cols else 0
    entries = []
    for _ in range(count):
        i, j = int(rng.integers(0, rows)), int(rng.integers(0, cols))
        if symmetry != "general" and j > i:
            i, j = j, i
        if symmetry == "skew-symmetric" and i == j:
            continue
        entries.append((i, j))
    if entries and rng.random() < 0.3:  # duplicates
        entries += [entries[int(rng.integers(0, len(entries)))] for _ in range(3)]
    gz = rng.random() < 0.4
    name = os.path.join(directory, f"r{index}.{kind}" + (".gz" if gz else ""))
    if kind == "mtx":
        lines = [f"%%MatrixMarket matrix coordinate {field} {symmetry}",
                 "% random test matrix", f"{rows} {cols} {len(entries)}"]
        for i, j in entries:
            if field == "pattern":
                lines.append(f"{i + 1} {j + 1}")
            elif field == "integer":
                lines.append(f"{i + 1} {j + 1} {int(rng.integers(-5, 6))}")
            else:
                v = 0.0 if rng.random() < 0.1 else float(rng.normal())
                lines.append(f"{i + 1} {j + 1} {v!r}")
        text = "\n".join(lines) + "\n"
    else:
        entries = sorted(set(entries))
        offsets = [0] * (rows + 1)
        for i, _ in entries:
            offsets[i + 1] += 1
        for r in range(rows):
            offsets[r + 1] += offsets[r]
        text = (f"{rows}, {cols}, {len(entries)}\n" +
                " ".join(map(str, offsets)) + "\n" +
                " ".join(str(j) for _, j in entries) + "\n")
    data = text.encode()
    with open(name, "wb") as f:
        f.write(gzip.compress(data) if gz else data)
    return name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inspect")
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--random", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workdir", default=".")
    args = ap.parse_intermixed_args()

    files = []
    for p in args.paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, n) for n in sorted(names)
                          if n.endswith((".mtx", ".smtx", ".mtx.gz", ".smtx.gz"))]
        else:
            files.append(p)
    if args.random:
        os.makedirs(args.workdir, exist_ok=True)
        rng = np.random.default_rng(args.seed)
        files += [write_random(rng, args.workdir, i) for i in range(args.random)]

    failures = []
    for path in sorted(files):
        run = subprocess.run([args.inspect, path, "--json"], capture_output=True, text=True)
        if run.returncode != 0:
            failures.append(f"{path}: spperm-inspect failed: {run.stderr.strip()}")
            continue
        failures += compare(path, json.loads(run.stdout), reference(path))
    for f in failures:
        print("MISMATCH", f)
    print(f"crosscheck: {len(files)} matrices, {len(failures)} mismatches")
    return 1 if failures or not files else 0


if __name__ == "__main__":
    sys.exit(main())
