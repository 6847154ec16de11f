#!/usr/bin/env python3
"""Per-variant new/old times of two spperm-verify --bench logs at one K.

Usage: per_variant.py OLD.verify.log NEW.verify.log K [VARIANT_PREFIX]
Prints, sorted, new/old, the matrix, the variant, old and new times (us) and
the matrix's mean row length.
"""
import re
import sys


def load(path):
    out = {}
    for line in open(path):
        if not line.startswith("bench "):
            continue
        f = line.split()
        kv = dict(t.split("=", 1) for t in f[3:] if "=" in t)
        name = re.sub(r"\.[a-z0-9]*?(old|new)\.spp$", "",
                      f[1].rsplit("/", 1)[-1]).replace("suitesparse__", "")
        for v, ms in zip(kv.get("variants", "").split(","),
                         kv.get("variant_ms", "").split(",")):
            if ms:
                out[(name, int(kv["K"]), v)] = (float(ms), int(kv["nnz"]),
                                                int(kv["rows"]))
    return out


if __name__ == "__main__":
    old, new, k = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
    prefix = sys.argv[4] if len(sys.argv) > 4 else ""
    rows = []
    for key, (ms, nnz, nrows) in old.items():
        if key in new and key[1] == k and key[2].startswith(prefix):
            rows.append((new[key][0] / ms, key[0][:40], key[2], ms * 1e3,
                         new[key][0] * 1e3, nnz / nrows))
    for r in sorted(rows):
        print("%.3f %-40s %-28s %8.2f %8.2f  mean=%.1f" % r)
