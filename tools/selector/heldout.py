#!/usr/bin/env python3
#===- heldout.py - Held-out models for the end-to-end selector check -------===#
#
# Part of the spperm project.
#
#===------------------------------------------------------------------------===#
"""Writes one selector model per validation group, trained without that
group (train.py's leave-one-group-out models, with the shipped model's
margins, bell penalty and shortlist), and the per-matrix flags that compile
each matrix of the dataset with the model that never saw it, for each K:
the end-to-end form of train.py's held-out table (docs/Selector.md,
"Validation on the GPU").

  heldout.py --out DIR
      DIR/models/GROUP.json   the held-out models
      DIR/extra.txt           "NAME SUFFIX|FLAGS;..." per matrix, for
                              gpu_suite_prepare.sh's MATRIX_EXTRA
  heldout.py --score VERIFY_LOG
      % of the sweep's oracle per group, from the bench lines of a run of
      those packages (gpu_suite.sh)
"""

import argparse
import json
import math
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import train  # noqa: E402

DATA = os.path.join(HERE, "dataset", "sm_90.csv")
SHIPPED = os.path.join(HERE, "models", "sm_90.json")


def slug(group):
    return group.replace("/", "-")


def package_name(name):
    """The package prefix gpu_suite_prepare.sh gives a dataset matrix."""
    return name[len("gen__"):] if name.startswith("gen__") else name


def write_models(out):
    rows, feats, cands, x, t, groups = train.load(DATA)
    cands = cands if "cusparse" in cands else cands + ["cusparse"]
    best = np.nanmin(t, axis=1)
    y = np.log2(t / best[:, None])
    shipped = json.load(open(SHIPPED))
    os.makedirs(os.path.join(out, "models"), exist_ok=True)
    for g in sorted(set(groups)):
        tr = groups != g
        models = train.fit(x[tr], y[tr])
        text = json.loads(train.export(
            models, feats, cands, shipped["margin"], shipped["checked_margin"],
            shipped["format_penalty"]["bell"], train.domain_of(x[tr], feats),
            shipped["target"]))
        text["shortlist"] = shipped["shortlist"]
        with open(os.path.join(out, "models", slug(g) + ".json"), "w") as f:
            json.dump(text, f, separators=(",", ":"))
        print("heldout.py: model without %s (%d rows)" % (g, int(tr.sum())))
    with open(os.path.join(out, "extra.txt"), "w") as f:
        seen = set()
        for r in rows:
            if r["name"] in seen:
                continue
            seen.add(r["name"])
            model = os.path.abspath(os.path.join(out, "models", slug(r["group"]) + ".json"))
            f.write("%s %s\n" % (package_name(r["name"]), ";".join(
                "ho-k%d|--k %d --model %s" % (k, k, model) for k in (1, 32, 128, 512))))


def score(log):
    rows, feats, cands, x, t, groups = train.load(DATA)
    cus = cands.index("cusparse")
    oracle = {(package_name(r["name"]), int(r["k"])): (float(np.nanmin(t[i])), float(t[i, cus]), r["group"])
              for i, r in enumerate(rows)}
    got = {}
    pat = re.compile(r"^bench \S+/([^/\s]+)\.ho-k(\d+)\.spp \S+ K=(\d+) .* spperm_ms=(\S+)(?: variant_ms=(\S+))?.* cusparse_ms=(\S+)")
    for line in open(log, errors="replace"):
        m = pat.match(line)
        if not m:
            continue
        name, k = m.group(1), int(m.group(3))
        variants = [float(v) for v in m.group(5).split(",")] if m.group(5) else []
        got[(name, k)] = (float(m.group(4)), float(m.group(6)), variants)
    print("| group | rows | % of the sweep's oracle | the same, via cuSPARSE now | % of the best shortlisted variant now | selected / cuSPARSE now (min, # < 1) |")
    print("|---|---|---|---|---|---|")
    per = {}
    for key, (o, c, g) in oracle.items():
        if key in got:
            per.setdefault(g, []).append((o, c) + got[key])
    missing = len(oracle) - sum(len(v) for v in per.values())
    allrows = []
    for g in sorted(per) + ["all"]:
        v = allrows if g == "all" else per[g]
        if g != "all":
            allrows += v
        sel = np.array([r[2] for r in v])
        direct = train.gm(np.array([r[0] for r in v]) / sel)
        # Clock drift between the sweep and this run cancels in the ratio
        # to cuSPARSE timed beside each package.
        via = train.gm((np.array([r[3] for r in v]) / sel) / (np.array([r[1] for r in v]) / np.array([r[0] for r in v])))
        short = [min([x for x in r[4] if x > 0] + [r[3]]) / r[2] for r in v]
        ratio = np.array([r[3] for r in v]) / sel
        print("| %s | %d | %.1f | %.1f | %.1f | %.3f (%.2f, %d) |" % (
            "**all**" if g == "all" else g, len(v), 100 * direct, 100 * via,
            100 * train.gm(np.array(short)), train.gm(ratio), ratio.min(), int(np.sum(ratio < 1))))
    print("\n(%d dataset rows without a bench line)" % missing)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out")
    ap.add_argument("--score")
    args = ap.parse_args()
    if args.out:
        write_models(args.out)
    if args.score:
        score(args.score)
    return 0


if __name__ == "__main__":
    sys.exit(main())
