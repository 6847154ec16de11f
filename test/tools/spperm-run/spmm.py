#!/usr/bin/env python3
"""Helpers for the spperm-run tests: dense operands, a float64 reference,
and controlled damage to package files.

Usage:
  spmm.py make-b ROWS K SEED OUT.npy [--special]
      a ROWS x K float32 array, uniform in [-1, 1); with --special, one NaN,
      one +Inf and one -Inf in it (K >= 3).
  spmm.py check MATRIX.mtx B.npy C.npy [--values SPEC] [--tol T] [--dtype T]
      C must equal A @ B (A read here, independently of spperm, with the
      DESIGN contract's --values rules; computed in float64) to a relative
      Frobenius error <= T (default 1e-5) over the finite entries of the
      reference, and NaN / +-Inf exactly where it has them. Prints `ok: ...`
      or `MISMATCH: ...` (exit 1).
  spmm.py flip FILE OFFSET
      XORs the byte at OFFSET (negative: from the end) with 0x01.
  spmm.py replace FILE OLD NEW
      replaces the first occurrence of the text OLD (which must exist).
"""

import gzip
import sys

import numpy as np
import scipy.sparse as sp

MASK64 = (1 << 64) - 1


def splitmix64(x):
    z = (x + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def random_value(seed, entry):
    return np.float32((splitmix64(seed ^ entry) >> 40) / 2.0**23 - 1.0)


def read_smtx(path, values):
    """A DLMC .smtx file (pattern) as a float64 CSR matrix."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        lines = [l for l in f.read().split("\n") if l.strip()]
    rows, cols, nnz = (int(x) for x in lines[0].replace(",", " ").split())
    offsets = [int(x) for x in lines[1].split()] if rows else [0]
    colidx = [int(x) for x in lines[2].split()] if nnz else []
    r = [i for i in range(rows) for _ in range(offsets[i + 1] - offsets[i])]
    if values.startswith("random:"):
        seed = int(values.split(":")[1])
        v = [float(random_value(seed, e)) for e in range(nnz)]
    else:
        v = [1.0] * nnz
    a = sp.coo_matrix((v, (r, colidx)), shape=(rows, cols), dtype=np.float64)
    return a.tocsr()


def read_mtx(path, values):
    """A Matrix Market coordinate file as a float64 CSR matrix."""
    if path.endswith((".smtx", ".smtx.gz")):
        return read_smtx(path, values)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        lines = f.read().split("\n")
    banner = lines[0].split()
    field, symmetry = banner[3].lower(), banner[4].lower()
    body = [l for l in lines[1:] if l.strip() and not l.startswith("%")]
    rows, cols, nnz = (int(x) for x in body[0].split())
    r, c, v = [], [], []
    for e, line in enumerate(body[1 : 1 + nnz]):
        parts = line.split()
        i, j = int(parts[0]) - 1, int(parts[1]) - 1
        if values == "ones":
            x = 1.0
        elif values.startswith("random:"):
            x = float(random_value(int(values.split(":")[1]), e))
        elif field == "pattern":
            x = 1.0
        else:
            x = float(parts[2])
        r.append(i)
        c.append(j)
        v.append(x)
        if symmetry != "general" and i != j:
            r.append(j)
            c.append(i)
            v.append(-x if symmetry == "skew-symmetric" else x)
    a = sp.coo_matrix((v, (r, c)), shape=(rows, cols), dtype=np.float64)
    return a.tocsr()


def check(args):
    matrix, b_path, c_path = args[:3]
    values, tol, dtype = "file", 1e-5, "float32"
    rest = args[3:]
    while rest:
        if rest[0] == "--values":
            values = rest[1]
        elif rest[0] == "--tol":
            tol = float(rest[1])
        elif rest[0] == "--dtype":
            dtype = rest[1]
        else:
            sys.exit("unknown option " + rest[0])
        rest = rest[2:]
    a = read_mtx(matrix, values)
    b = np.load(b_path)
    c = np.load(c_path)
    if c.dtype != np.dtype(dtype) or c.ndim != 2:
        print("MISMATCH: C has dtype %s and %d dimensions" % (c.dtype, c.ndim))
        return 1
    want = a @ b.astype(np.float64)
    if c.shape != want.shape:
        print("MISMATCH: C has shape %s, expected %s" % (c.shape, want.shape))
        return 1
    # NaN and +-Inf in B must come through where the reference has them;
    # the error is measured over the finite entries.
    finite = np.isfinite(want)
    special = int(np.sum(~finite))
    wrong = int(np.sum(~finite & ~((np.isnan(want) & np.isnan(c)) | (want == c))))
    if wrong:
        print("MISMATCH: %d of the %d non-finite entries of the reference differ in C"
              % (wrong, special))
        return 1
    want = np.where(finite, want, 0.0)
    got = np.where(finite, c.astype(np.float64), 0.0)
    norm = np.linalg.norm(want)
    err = np.linalg.norm(got - want)
    rel = err / norm if norm > 0 else err
    verdict = "ok" if rel <= tol else "MISMATCH"
    print("%s: C %s, relative error %.3g%s" % (
        verdict, c.shape, rel, ", %d non-finite entries as expected" % special if special else ""))
    return 0 if rel <= tol else 1


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "make-b":
        rows, k, seed = int(args[0]), int(args[1]), int(args[2])
        rng = np.random.default_rng(seed)
        b = rng.uniform(-1, 1, (rows, k)).astype("<f4")
        if "--special" in args[4:]:
            b[0, 0], b[rows // 2, 1], b[rows - 1, 2] = np.nan, np.inf, -np.inf
        np.save(args[3], b)
        return 0
    if cmd == "check":
        return check(args)
    if cmd == "flip":
        data = bytearray(open(args[0], "rb").read())
        data[int(args[1])] ^= 0x01
        open(args[0], "wb").write(bytes(data))
        return 0
    if cmd == "replace":
        text = open(args[0], "rb").read()
        old, new = args[1].encode(), args[2].encode()
        if old not in text:
            sys.exit("%s: '%s' not found" % (args[0], args[1]))
        open(args[0], "wb").write(text.replace(old, new, 1))
        return 0
    sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    sys.exit(main())
