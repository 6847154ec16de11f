#!/usr/bin/env python3
"""Compares two bench records of bench_table.py (OUT.json, optionally .xz).

Usage: compare_bench.py OLD.json[.xz] NEW.json[.xz]

For the (package, K) pairs both records measured: whether each selected
package ran the same variant (format, strategy, path), and per set
(selected / the csr-identity packages), matrix group (shared or generated)
and K the geometric mean of new/old spperm times (over the pairs with the
same variant, and over all) and of new/old cuSPARSE times, the control that
spperm's code does not touch: a run-wide drift shows in both.
"""
import json
import lzma
import math
import sys
from collections import defaultdict

GENERATED = ("rmat", "banded", "uniform", "block", "skewed", "stencil",
             "community", "bsr")


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return {(m["package"], m["k"]): m for m in json.load(f)["measurements"]}


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main(old_path, new_path):
    old, new = load(old_path), load(new_path)
    common = [k for k in new if k in old]
    print(f"old {len(old)} measurements, new {len(new)}, both {len(common)}")
    groups = defaultdict(lambda: defaultdict(list))
    same = different = 0
    for key in common:
        o, n = old[key], new[key]
        variant_same = all(o.get(f) == n.get(f) for f in ("format", "strategy", "path"))
        if n["selected"]:
            same += variant_same
            different += not variant_same
        group = "generated" if n["matrix"].startswith(GENERATED) else "shared"
        g = groups[("selected" if n["selected"] else "csr/identity", group, key[1])]
        g["cusparse"].append(n["cusparse_ms"] / o["cusparse_ms"])
        g["all"].append(n["spperm_ms"] / o["spperm_ms"])
        if variant_same:
            g["same"].append(n["spperm_ms"] / o["spperm_ms"])
    print(f"selected packages: same variant {same}, different {different}")
    print("| set | group | K | pairs | spperm new/old, same variant | all | cuSPARSE new/old |")
    print("|---|---|---|---|---|---|---|")
    for (kind, group, k), g in sorted(groups.items()):
        print(f"| {kind} | {group} | {k} | {len(g['all'])} | {geomean(g['same']):.3f} "
              f"({len(g['same'])}) | {geomean(g['all']):.3f} | {geomean(g['cusparse']):.3f} |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
