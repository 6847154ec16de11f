#!/usr/bin/env python3
"""What candidate rules for direct entries would have given, from the first
run (direct entries on every many-rows range; first.logs.tar.xz).

Usage: rules.py F32OLD F32NEW BF16OLD BF16NEW   (verify logs)
Per dtype and rule: geomean over the csr variants of new/old where the rule
applies (1 where it does not) and the largest ratio, at K = 8/32/64/128/512.
Power-law layers are named (rmat, skewed) here; the generator's rule tests
the range's longest row against 4 times its mean instead.
"""
import math
import sys

from per_variant import load


def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def plain(n):
    return not n.startswith(("rmat", "skewed"))


RULES = {
    "all": lambda n, rows, mean: True,
    "not power-law": lambda n, rows, mean: plain(n),
    "+ mean <= 24": lambda n, rows, mean: plain(n) and mean <= 24,
    "+ rows >= 32768": lambda n, rows, mean: plain(n) and rows >= 32768,
    "+ rows >= 32768, mean <= 24": lambda n, rows, mean:
        plain(n) and rows >= 32768 and mean <= 24,
}

for dtype, old_path, new_path in (("f32", sys.argv[1], sys.argv[2]),
                                  ("bf16", sys.argv[3], sys.argv[4])):
    old, new = load(old_path), load(new_path)
    for name, rule in RULES.items():
        cells = []
        for k in (8, 32, 64, 128, 512):
            xs = []
            for key, (ms, nnz, rows) in old.items():
                if key in new and key[1] == k and key[2].startswith("csr"):
                    xs.append(new[key][0] / ms
                              if rule(key[0], rows, nnz / rows) else 1.0)
            cells.append("%.3f (max %.2f)" % (geo(xs), max(xs)))
        print(f"{dtype:5s} {name:30s} " + "  ".join(cells))
