#!/usr/bin/env python3
"""Section 4's table: the runtime's time (us) per layer and kind at K = 32
and 128, from the logs of nc.logs.tar.xz (k/KIND.verify.log).

Usage: nc_table.py DIR   (the unpacked archive's k/)
Kinds: b (bf16, direct entries), f (fp32, shuffle loop), fd (fp32, direct
entries: a build with the rule's dtype test removed); the suffix n: the
same package with ld.global.nc (tools/lab/ptx_loads.py --nc).
"""
import math
import os
import re
import sys


def load(path):
    out = {}
    for line in open(path):
        if not line.startswith("bench "):
            continue
        f = line.split()
        kv = dict(t.split("=", 1) for t in f[3:] if "=" in t)
        name = re.sub(r"\.[a-z0-9]+\.spp$", "", f[1].rsplit("/", 1)[-1])
        out[name.replace("suitesparse__", "")] = float(kv["spperm_ms"]) * 1e3
    return out


def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


root = sys.argv[1]
for k in ("32", "128"):
    kinds = [f"b{k}", f"b{k}n", f"fd{k}", f"fd{k}n", f"f{k}", f"f{k}n"]
    d = {c: load(os.path.join(root, c + ".verify.log")) for c in kinds}
    names = sorted(d[kinds[0]])
    print(f"| K = {k} | " + " | ".join(kinds) + " |")
    print("|---" * (len(kinds) + 1) + "|")
    for n in names:
        print(f"| {n} | " + " | ".join(f"{d[c][n]:.2f}" for c in kinds) + " |")

    def ratio(a, b):
        return geo([d[a][n] / d[b][n] for n in names])
    print(f"\nK = {k}: b/f {ratio(kinds[0], kinds[4]):.3f}, "
          f"bn/b {ratio(kinds[1], kinds[0]):.3f}, "
          f"fd/f {ratio(kinds[2], kinds[4]):.3f}, "
          f"fdn/fd {ratio(kinds[3], kinds[2]):.3f}, "
          f"fn/f {ratio(kinds[5], kinds[4]):.3f}\n")
