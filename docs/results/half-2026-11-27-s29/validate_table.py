#!/usr/bin/env python3
"""Before/after of the uneven-rows batch rule (README, section 7).

Reads validate-batch-rule.logs.tar.xz (gpu_kinds.sh logs of the kinds
f32old / f32new / bf16old / bf16new: the 22 selected packages whose kernels
the first form of the rule changed, compiled before and after it) and prints
each layer's time per K (the runtime's choice, and in brackets the fastest
own variant), then the geomeans of after / before over the own variants:
  * for the first form of the rule (every such package's "new" kernels);
  * for the kept form, whose kernels are byte-identical (PTX) to the "old"
    ones for rmat-s18e16 and stencil-2d9-512 at every K and for the bf16
    packages of block-64k-b32-d0.0005, rmat-s16e16 and rmat-s17e8 at K = 512,
    and to the "new" ones everywhere else.
K = 8 is left out of the geomeans: no kernel of that K changed.
Usage: validate_table.py validate-batch-rule.logs.tar.xz
"""
import math
import os
import sys
import tarfile
from collections import defaultdict

KEPT_OLD = ({("rmat-s18e16", k) for k in (8, 32, 64, 128, 512)} |
            {("stencil-2d9-512", k) for k in (8, 32, 64, 128, 512)})
KEPT_OLD_BF16_512 = {"block-64k-b32-d0", "rmat-s16e16", "rmat-s17e8"}


def read(path):
    times = defaultdict(dict)
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            if not m.name.endswith(".verify.log"):
                continue
            kind = os.path.basename(m.name).split(".")[0]
            for line in tar.extractfile(m).read().decode().splitlines():
                if not line.startswith("bench "):
                    continue
                f = line.split()
                kv = dict(x.split("=", 1) for x in f[3:] if "=" in x)
                name = f[1].rsplit("/", 1)[-1].split(".")[0]
                own = (min(float(x) for x in kv["variant_ms"].split(","))
                       if "variant_ms" in kv else float(kv["spperm_ms"]))
                times[(name, int(kv["K"]))][kind] = (float(kv["spperm_ms"]), own)
    return times


def geomeans(ratios):
    return " ".join(
        f"K={k}: {math.exp(sum(map(math.log, v)) / len(v)):.3f} over {len(v)} "
        f"(min {min(v):.2f}, max {max(v):.2f})"
        for k, v in sorted(ratios.items()))


def main():
    times = read(sys.argv[1])
    for dt in ("f32", "bf16"):
        print(f"| layer | K | {dt} before (own best) | after (own best) | after / before |")
        print("|---|---|---|---|---|")
        first, kept = defaultdict(list), defaultdict(list)
        for (name, k), row in sorted(times.items()):
            if dt + "old" not in row:
                continue
            old, new = row[dt + "old"], row[dt + "new"]
            q = new[1] / old[1]
            print(f"| {name} | {k} | {old[0]:.4f} ({old[1]:.4f}) | "
                  f"{new[0]:.4f} ({new[1]:.4f}) | {q:.3f} |")
            if k == 8:
                continue
            first[k].append(q)
            keep_old = (name, k) in KEPT_OLD or (
                dt == "bf16" and k == 512 and name in KEPT_OLD_BF16_512)
            if not keep_old:
                kept[k].append(q)
        print(f"\n{dt}, first form: {geomeans(first)}")
        print(f"{dt}, kept form (layers it changes): {geomeans(kept)}\n")


if __name__ == "__main__":
    main()
