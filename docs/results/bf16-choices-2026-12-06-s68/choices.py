#!/usr/bin/env python3
"""Joins the runtime's first-call choices (SPPERM_LOG_CHOICES lines of
verify.log) with the steady-state timings of the same call (bench.json),
per package and K, and sorts each measurement where spperm ran slower
than the faster of cuSPARSE and dense GEMM into:

  library   the runtime ran a library call (its check found its kernels
            no faster than 0.98 of the library's), so the gap is between
            two timings of one library call;
  kernel    the runtime kept its kernels, the check timing them faster
            than the library, and the steady-state timings disagree.

A log line names its layer and K, not its package: a line is joined with
the measurement whose layer, K and variant list it matches, and left out
when several measurements match.

Usage: choices.py DIR...   (each DIR with verify.log.xz and bench.json.xz)
"""
import collections
import json
import lzma
import re
import statistics
import sys

LINE = re.compile(r"^spperm: layer '([^']*)', k = (\d+): (.*) checked ([0-9.]+) ms "
                  r"against (\S+) ([0-9.]+) ms: runs (.*)$")
rows, logs = [], collections.defaultdict(list)
for d in sys.argv[1:]:
    rows += json.load(lzma.open(f"{d}/bench.json.xz"))["measurements"]
    for line in lzma.open(f"{d}/verify.log.xz", "rt"):
        m = LINE.match(line.strip())
        if not m:
            continue
        names = tuple(re.findall(r"(\w+/[\w-]+) (?:[0-9.]+ ms|\(no kernels)", m[3]))
        logs[(m[1], int(m[2]), names)].append(
            dict(generated=float(m[4]), library=m[5], library_ms=float(m[6]), runs=m[7]))


def signature(r):
    return tuple(v.split(".")[0] + "/" + v.split(".")[1] for v in r["variants"].split(","))


joined, ambiguous = [], 0
count = collections.Counter((r["layer"], r["k"], signature(r)) for r in rows)
for r in rows:
    key = (r["layer"], r["k"], signature(r))
    if count[key] != 1 or not logs[key]:
        ambiguous += 1
        continue
    # The last: K = 32 is decided twice (the check's runtime, then the
    # timing's), and the timing ran on the second decision.
    joined.append((r, logs[key][-1]))
print(f"{len(rows)} measurements, {len(joined)} joined with their choice, {ambiguous} left out")
print()
print("| K | joined | slower than the faster library | of which library ran | kernels kept | gap median µs (library / kernels) | largest gap µs | kernels kept, library ≥ 3 % faster in steady state |")
print("|---|---|---|---|---|---|---|---|")
for k in sorted({r["k"] for r, _ in joined}):
    slow = collections.defaultdict(list)
    n = 0
    for r, c in joined:
        if r["k"] != k:
            continue
        n += 1
        libs = [t for t in (r["cusparse_ms"], r["dense_ms"]) if t > 0]
        best = min(libs)
        kind = "kernel" if c["runs"].startswith("variant") else "library"
        if r["spperm_ms"] > best:
            slow[kind].append((r["spperm_ms"] - best) * 1e3)
        if kind == "kernel" and best < 0.97 * r["spperm_ms"]:
            slow["wrong"].append(r)
    gaps = slow["library"] + slow["kernel"]
    med = lambda xs: f"{statistics.median(xs):.2f}" if xs else "—"
    print(f"| {k} | {n} | {len(gaps)} | {len(slow['library'])} | {len(slow['kernel'])} | "
          f"{med(slow['library'])} / {med(slow['kernel'])} | {max(gaps, default=0):.2f} | {len(slow['wrong'])} |")

# The check's own times against the same call's steady-state ones: the
# library it checked against (dense GEMM or cuSPARSE's algorithm) and the
# variant it ran.
print()
print("| K | check / steady state: dense GEMM (n) | cuSPARSE (n) | generated kernels (n) |")
print("|---|---|---|---|")
for k in sorted({r["k"] for r, _ in joined}):
    dense, sparse, kernels = [], [], []
    for r, c in joined:
        if r["k"] != k:
            continue
        if c["library"].startswith("cublas") and r["dense_ms"] > 0:
            dense.append(c["library_ms"] / r["dense_ms"])
        elif c["library"] == r.get("cusparse_alg"):
            sparse.append(c["library_ms"] / r["cusparse_ms"])
        if c["runs"].startswith("variant"):
            v = float(r["variant_ms"].split(",")[int(c["runs"].split()[1])])
            if v > 0:
                kernels.append(c["generated"] / v)
    med = lambda xs: f"{statistics.median(xs):.3f} ({len(xs)})" if xs else "—"
    print(f"| {k} | {med(dense)} | {med(sparse)} | {med(kernels)} |")
