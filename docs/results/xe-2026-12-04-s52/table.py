#!/usr/bin/env python3
"""The tables of README.md from this record's files.

    python3 table.py bench.json xe.log.xz xe2.log.xz

Table 1: per layer and K, the row-major call and SparseLinear through the
transposing kernel (bench.json, CUDA graphs), and the best xe and xeg
configuration of the first sweep (xe.log), each over the row-major call.
Table 2 (xe2.log): the best full xeg configuration of the second sweep,
the same configuration with rotated entry copies, and its staging alone.
"""
import collections
import json
import lzma
import math
import sys


def short(layer):
    for pre in ("dlmc__", "dlmc_", "gnn__", "gnn_"):
        if layer.startswith(pre):
            layer = layer[len(pre):]
    for suf in (".smtx.gz", ".mtx.gz"):
        layer = layer.replace(suf, "")
    return (layer.replace("__", "_").replace("magnitude_pruning_", "mag ")
            .replace("random_pruning_", "rand ")
            .replace("_body_encoder_layer_0_", " ")
            .replace("_body_decoder_layer_0_encdec_attention_multihead_attention_", " ")
            .replace("_fully_connected", "").replace("_bottleneck_1_block_", " ")
            .replace("transformer", "tf"))


def lines(path):
    with lzma.open(path, "rt") if path.endswith(".xz") else open(path) as f:
        for line in f:
            if line.startswith("xe "):
                yield dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)


def main(bench, first, second):
    ref = {}
    for r in json.load(open(bench))["records"]:
        ref[(short(r["layer"]), r["k"])] = (r["ms"]["spperm_rowmajor_graph"] * 1e3,
                                             r["ms"]["sparse_linear_graph"] * 1e3)
    best = collections.defaultdict(lambda: {"xe": (1e30, ""), "xeg": (1e30, "")})
    for d in lines(first):
        key = (short(d["layer"]), int(d["k"]))
        cls = d["kernel"].split(".")[0]
        t = float(d["graph_us"])
        if t < best[key][cls][0]:
            best[key][cls] = (t, d["kernel"])
    print("| layer | K | row-major | SparseLinear (transposing) | xe | xeg |")
    print("|---|---|---|---|---|---|")
    ratios = collections.defaultdict(list)
    for key in sorted(best, key=lambda k: (k[0], k[1])):
        rm, sl = ref[key]
        xe, xeg = best[key]["xe"], best[key]["xeg"]
        b = min(xe[0], xeg[0])
        ratios[key[1]].append((sl / rm, b / rm, min(sl, b) / rm))
        print(f"| {key[0]} | {key[1]} | {rm:.2f} | {sl:.2f} ({sl / rm:.2f}) | "
              f"{xe[0]:.2f} ({xe[0] / rm:.2f}) `{xe[1]}` | "
              f"{xeg[0]:.2f} ({xeg[0] / rm:.2f}) `{xeg[1]}` |")
    print()
    print("| K | SparseLinear / row-major | best xe or xeg / row-major | better of the two / row-major |")
    print("|---|---|---|---|")
    for k in sorted(ratios):
        g = [math.exp(sum(math.log(r[i]) for r in ratios[k]) / len(ratios[k]))
             for i in range(3)]
        print(f"| {k} | {g[0]:.3f} | {g[1]:.3f} | {g[2]:.3f} |")
    print()
    by = collections.defaultdict(dict)
    for d in lines(second):
        by[(short(d["layer"]), int(d["k"]))][d["kernel"]] = float(d["graph_us"])
    print("| layer | K | best xeg (second sweep) | rotated entry copies | staging alone | the walk (difference) |")
    print("|---|---|---|---|---|---|")
    for key, m in by.items():
        full = {k: v for k, v in m.items() if k.startswith("xeg.")}
        b = min(full, key=full.get)
        rest = b[4:]
        so = m.get("xeg-so." + rest)
        print(f"| {key[0]} | {key[1]} | {full[b]:.2f} `{b}` | {m.get('xeg-r.' + rest):.2f} | "
              f"{so:.2f} | {full[b] - so:.2f} |")


if __name__ == "__main__":
    main(*sys.argv[1:4])
