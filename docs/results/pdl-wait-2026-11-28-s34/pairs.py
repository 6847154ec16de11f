#!/usr/bin/env python3
"""Paired old/new times of spperm-verify --bench logs (gpu_kinds.sh).

Usage: pairs.py OLD.verify.log NEW.verify.log [...more OLD NEW pairs]
Per K: geomean of new/old over the matrices for spperm's time (the
runtime's choice), for each variant the two packages both time (same name,
e.g. csr.bsa) and for cuSPARSE's time (the control, untouched by the
change); the largest and smallest variant ratios.
"""
import lzma
import math
import re
import sys
from collections import defaultdict


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    out = {}
    for line in opener(path, "rt"):
        if not line.startswith("bench "):
            continue
        f = line.split()
        kv = dict(t.split("=", 1) for t in f[3:] if "=" in t)
        name = re.sub(r"\.[a-z0-9]*?(old|new)(k\d+)?\.spp$", "",
                      f[1].rsplit("/", 1)[-1])
        key = (name, f[2], int(kv["K"]))
        variants = dict(zip(kv.get("variants", "").split(","),
                            map(float, kv.get("variant_ms", "").split(",")
                                if kv.get("variant_ms") else [])))
        out[key] = (float(kv["spperm_ms"]), variants,
                    float(kv.get("cusparse_ms", "nan")))
    return out


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main():
    args = sys.argv[1:]
    old, new = {}, {}
    for i in range(0, len(args), 2):
        old.update(load(args[i]))
        new.update(load(args[i + 1]))
    by = defaultdict(lambda: defaultdict(list))
    for key in sorted(set(old) & set(new)):
        k = key[2]
        (so, vo, co), (sn, vn, cn) = old[key], new[key]
        by[k]["spperm"].append(sn / so)
        if co == co and cn == cn and co > 0:
            by[k]["cusparse"].append(cn / co)
        for v in set(vo) & set(vn):
            by[k]["variants"].append((vn[v] / vo[v], key[0], v, vo[v], vn[v]))
    print("| K | pairs | spperm new/old | variants new/old (n) | worst variant | best variant | cuSPARSE new/old |")
    print("|---|---|---|---|---|---|---|")
    for k in sorted(by):
        d = by[k]
        vs = sorted(d["variants"])
        worst = vs[-1] if vs else None
        best = vs[0] if vs else None
        fmt = lambda t: f"{t[0]:.3f} ({t[1]} {t[2]}: {t[3]*1e3:.2f} -> {t[4]*1e3:.2f} us)" if t else "-"
        print(f"| {k} | {len(d['spperm'])} | {gm(d['spperm']):.3f} | "
              f"{gm([v[0] for v in vs]):.3f} ({len(vs)}) | {fmt(worst)} | {fmt(best)} | {gm(d['cusparse']):.3f} |")


if __name__ == "__main__":
    main()
