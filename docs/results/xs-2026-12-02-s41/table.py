#!/usr/bin/env python3
"""The xs prototype against the row-major call and SparseLinear today.

    table.py [--best CLASS] BENCH.json XS.log [XS.log ...]

BENCH.json: bench_sparse_linear.py's output (graph columns, µs); XS.log:
xs_proto's output (plain, not xz'd). Prints, per layer and K, the row-major
call, SparseLinear on a row-major X today (transposing kernel), the best xs
configuration per class, and best-of(SparseLinear today, CLASS) over the
row-major call (CLASS: xs-c by default, or xsp); then the geomeans per K
and the count within 10 %, over the pairs where CLASS ran. The best
configuration is chosen after the fact, per pair: an upper bound on what a
kernel choosing its configuration in advance reaches.
"""
import json
import math
import re
import sys

args = sys.argv[1:]
best_class = "xs-c"
if args[:1] == ["--best"]:
    best_class, args = args[1], args[2:]
bench = json.load(open(args[0]))
rows = {}
for r in bench["records"]:
    rows[(r["layer"], r["k"])] = r["ms"]


def short(name):
    """A layer name common to both files."""
    name = re.sub(r"^\d_", "", name.split("/")[-1])
    name = re.sub(r"\.(s?mtx)(\.gz)?$|\.spp$", "", name)
    name = name.replace("dlmc__", "").replace("transformer__", "tf__")
    name = name.replace("magnitude_pruning__", "magnitude_pruning_")
    name = name.replace("random_pruning__", "random_pruning_")
    name = name.replace("rn50__magnitude_pruning_0.8", "rn50__mag0.8")
    name = name.replace("__body_encoder_layer_0_ffn_conv1_fully_connected",
                        "__ffn_conv1")
    name = name.replace(
        "__body_decoder_layer_0_encdec_attention_multihead_attention_q_"
        "fully_connected", "__attn_q")
    return name


xs = {}
for path in args[1:]:
    for line in open(path):
        if not line.startswith("best "):
            continue
        d = dict(kv.split("=", 1) for kv in line.split()[1:])
        cls = d.get("class") or "xs-" + d["out"]
        us = float(d["graph_us"])
        if us > 1e6:
            continue
        key = (short(d["layer"]), int(d["k"]), cls)
        xs[key] = min(xs.get(key, math.inf), us)

classes = sorted({c for (_, _, c) in xs})
print("| layer | K | row-major | SparseLinear today | "
      + " | ".join(classes) + f" | best of today and {best_class} |")
print("|---|---|---|---|" + "---|" * len(classes) + "---|")
ratios = {}
for (pkg, k), ms in sorted(rows.items(), key=lambda x: (short(x[0][0]), x[0][1])):
    name = short(pkg)
    rm = ms["spperm_rowmajor_graph"] * 1e3
    sl = ms["sparse_linear_graph"] * 1e3
    cells = []
    for c in classes:
        v = xs.get((name, k, c))
        cells.append(f"{v:.2f} ({v / rm:.2f})" if v else "")
    if (name, k, best_class) not in xs:
        continue
    best = min(sl, xs[(name, k, best_class)])
    ratios.setdefault(k, []).append((best / rm, sl / rm))
    print(f"| {name} | {k} | {rm:.2f} | {sl:.2f} ({sl / rm:.2f}) | "
          + " | ".join(cells) + f" | {best / rm:.2f} |")
print()
for k, rs in sorted(ratios.items()):
    g = lambda xs_: math.exp(sum(map(math.log, xs_)) / len(xs_))
    print(f"K = {k}: SparseLinear today {g([b for _, b in rs]):.3f}, "
          f"best of today and {best_class} {g([a for a, _ in rs]):.3f} "
          f"(geomean over "
          f"the row-major call); within 10 %: {sum(b <= 1.1 for _, b in rs)} "
          f"-> {sum(a <= 1.1 for a, _ in rs)} of {len(rs)}")
