#!/usr/bin/env python3
#===- train.py - Train, validate and export the learned selector -----------===#
#
# Part of the spperm project.
#
#===------------------------------------------------------------------------===#
"""Trains the learned selector on a sweep dataset (docs/Selector.md).

One gradient-boosted regression ensemble per candidate (scikit-learn's
GradientBoostingRegressor, squared loss, fixed seed) predicts log2(time of
the candidate / time of the fastest candidate) from the static features and
log2(K). The selector takes the candidate with the lowest prediction, but
keeps cuSPARSE unless that candidate is predicted faster than cuSPARSE by
the model's `margin` (log2 units): a near-tie goes to the library, so a
wrong guess there costs nothing.

Validation holds out whole groups (a DLMC pruning method, a matrix family)
in turn: the model is trained on the other groups and its choices on the
held-out group are scored against the oracle (the fastest candidate) and
against the best cuSPARSE algorithm. The report (Markdown) gives per group:
rows, % of oracle (geomean of oracle time / selected time), geomean speedup
over cuSPARSE of the selection and of the oracle, and the rows where the
selection is slower than cuSPARSE.

Usage (one command retrains the shipped model from the committed dataset):
  train.py [--data tools/selector/dataset/sm_90.csv]
           [--model tools/selector/models/sm_90.json]
           [--report tools/selector/dataset/sm_90.validation.md]
  train.py --check    # retrain and compare with the shipped model, byte for byte
"""

import argparse
import csv
import json
import math
import os
import sys

import numpy as np
from sklearn.ensemble import GradientBoostingRegressor

HERE = os.path.dirname(os.path.abspath(__file__))
PARAMS = dict(n_estimators=60, max_depth=3, learning_rate=0.1,
              min_samples_leaf=8, subsample=1.0, random_state=0)
MARGINS = [0.0, 0.05, 0.1, 0.15, 0.2, 0.3]
# The model's domain: a matrix beyond the training range on the risky side
# of these inputs (rows more imbalanced, warps emptier than any the model
# has seen) gets cuSPARSE instead of an extrapolated guess. The other side
# (better balanced, fuller warps) is where generated kernels do best.
DOMAIN = {"cta_imbalance.mean": "max", "warp_utilization": "min"}
UNBOUNDED = 1e300
# The margin shipped: the largest (fewest losses to cuSPARSE) that keeps the
# held-out selection at >= 97 % of the oracle; if none does, the largest
# within 0.1 point of the best.
TARGET = 0.97


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise SystemExit("train.py: error: %s: no rows" % path)
    cols = list(rows[0].keys())
    cands = [c[2:] for c in cols if c.startswith("t:")]
    meta = {"name", "set", "group", "k", "cusparse_alg"}
    # Inputs: the features every row has (the row-length histogram's
    # buckets exist only where some row falls in them) and log2(K).
    feats = [c for c in cols if c not in meta and not c.startswith("t:")
             and all(r[c] != "" for r in rows)]
    x = np.array([[float(r[f]) for f in feats] + [math.log2(float(r["k"]))]
                  for r in rows])
    t = np.array([[float(r["t:" + c]) if r["t:" + c] else np.nan for c in cands]
                  for r in rows])
    groups = np.array([r["group"] for r in rows])
    return rows, feats + ["log2_k"], cands, x, t, groups


def fit(x, y):
    """One ensemble per candidate (column of y), on the rows it ran on."""
    models = []
    for c in range(y.shape[1]):
        ok = np.isfinite(y[:, c])
        m = GradientBoostingRegressor(**PARAMS)
        m.fit(x[ok], y[ok, c])
        models.append(m)
    return models


def domain_of(x, feats):
    out = {}
    for f, side in DOMAIN.items():
        v = x[:, feats.index(f)]
        out[f] = ([-UNBOUNDED, float(v.max())] if side == "max"
                  else [float(v.min()), UNBOUNDED])
    return out


def choose(models, x, cus, margin, domain, feats):
    p = np.column_stack([m.predict(x) for m in models])
    pick = np.argmin(p, axis=1)
    keep = p[np.arange(len(x)), pick] + margin <= p[:, cus]
    for f, (lo, hi) in domain.items():
        v = x[:, feats.index(f)]
        keep &= (v >= lo) & (v <= hi)
    return np.where(keep, pick, cus), p


def score(t, pick, cus):
    """(% of oracle, speedup of selection, speedup of oracle, losses)."""
    n = len(t)
    sel = t[np.arange(n), pick]
    sel = np.where(np.isfinite(sel), sel, np.inf)
    best = np.nanmin(t, axis=1)
    gm = lambda v: float(np.exp(np.mean(np.log(v))))
    return (gm(best / sel), gm(t[:, cus] / sel), gm(t[:, cus] / best),
            int(np.sum(sel > t[:, cus])))


def export(models, feats, cands, margin, domain, target):
    def tree(est):
        tr = est.tree_
        return {"left": tr.children_left.tolist(),
                "right": tr.children_right.tolist(),
                "feature": tr.feature.tolist(),
                "threshold": [float(v) for v in tr.threshold],
                "value": [float(v) for v in tr.value[:, 0, 0]]}
    out = {
        "format": "spperm-selector", "version": 1, "target": target,
        "features": feats,
        "candidates": [{"strategy": "identity", "format": "cusparse"}
                       if c == "cusparse" else
                       {"strategy": c.split(".", 1)[1], "format": c.split(".", 1)[0]}
                       for c in cands],
        "learning_rate": PARAMS["learning_rate"],
        "margin": margin,
        "domain": domain,
        "init": [float(m.init_.constant_[0][0]) for m in models],
        "trees": [[tree(e) for e in m.estimators_[:, 0]] for m in models],
        "training": {"params": PARAMS, "sklearn": __import__("sklearn").__version__},
    }
    return json.dumps(out, separators=(",", ":"), sort_keys=False) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.path.join(HERE, "dataset", "sm_90.csv"))
    ap.add_argument("--model", default=os.path.join(HERE, "models", "sm_90.json"))
    ap.add_argument("--report", default=os.path.join(HERE, "dataset", "sm_90.validation.md"))
    ap.add_argument("--target", default="sm_90")
    ap.add_argument("--check", action="store_true",
                    help="retrain and compare with --model instead of writing it")
    args = ap.parse_args()
    rows, feats, cands, x, t, groups = load(args.data)
    cands = cands if "cusparse" in cands else cands + ["cusparse"]
    cus = cands.index("cusparse")
    best = np.nanmin(t, axis=1)
    y = np.log2(t / best[:, None])

    # Leave-one-group-out: the choices on each group come from a model that
    # never saw it. The margin is picked on these held-out choices (fewest
    # losses to cuSPARSE, then the best % of oracle), then the shipped model
    # is trained on everything.
    names = sorted(set(groups))
    held = {}
    for g in names:
        tr = groups != g
        held[g] = (fit(x[tr], y[tr]), domain_of(x[tr], feats))
    results = {}
    for margin in MARGINS:
        pick = np.empty(len(x), dtype=int)
        for g in names:
            te = groups == g
            pick[te], _ = choose(held[g][0], x[te], cus, margin, held[g][1], feats)
        results[margin] = pick
    # Otherwise the largest margin within 0.1 point of the best % of oracle.
    oracle_share = {m: score(t, results[m], cus)[0] for m in MARGINS}
    meeting = [m for m in MARGINS if oracle_share[m] >= TARGET]
    margin = max(meeting or [m for m in MARGINS
                             if oracle_share[m] >= max(oracle_share.values()) - 0.001])
    pick = results[margin]

    lines = ["# Selector validation: leave one group out (%s)" % os.path.basename(args.data), "",
             "Each group's choices come from a model trained on the other groups. "
             "`%% of oracle` = geomean(oracle time / selected time); speedups are over the best "
             "cuSPARSE algorithm; `losses` = rows where the selection is slower than cuSPARSE "
             "(in parentheses: by more than 3.5 %%, the 90th percentile of the run-to-run "
             "difference of the same package's time). Domain: %s. "
             "Margin %.2f (log2): the largest of %s whose held-out %% of oracle is >= %d %% "
             "(or, if none is, within 0.1 point of the best)."
             % (", ".join("%s (%s)" % kv for kv in DOMAIN.items()), margin, MARGINS,
                round(100 * TARGET)),
             "", "| group | rows | % of oracle | selected speedup | oracle speedup | losses |",
             "|---|---|---|---|---|---|"]
    def beyond(m, p):
        sel = t[m][np.arange(int(m.sum())), p[m]]
        return int(np.sum(sel > 1.035 * t[m][:, cus]))
    for g in names + ["all"]:
        m = np.ones(len(x), bool) if g == "all" else groups == g
        o, s, so, losses = score(t[m], pick[m], cus)
        lines.append("| %s | %d | %.1f | %.3f | %.3f | %d (%d) |" % (
            "**all**" if g == "all" else g, int(m.sum()), 100 * o, s, so, losses,
            beyond(m, pick)))
    lines += ["", "Per K (all groups, held out):", "", "| K | rows | % of oracle | selected speedup | oracle speedup | losses |", "|---|---|---|---|---|---|"]
    ks = np.array([int(r["k"]) for r in rows])
    for k in sorted(set(ks)):
        m = ks == k
        o, s, so, losses = score(t[m], pick[m], cus)
        lines.append("| %d | %d | %.1f | %.3f | %.3f | %d (%d) |" % (
            k, int(m.sum()), 100 * o, s, so, losses, beyond(m, pick)))
    lines += ["", "By margin (all groups, held out):", "", "| margin | % of oracle | selected speedup | losses |", "|---|---|---|---|"]
    for mg in MARGINS:
        o, s, _, losses = score(t, results[mg], cus)
        lines.append("| %.2f | %.1f | %.3f | %d (%d) |" % (
            mg, 100 * o, s, losses, beyond(np.ones(len(x), bool), results[mg])))
    counts = {}
    for c in pick:
        counts[cands[c]] = counts.get(cands[c], 0) + 1
    lines += ["", "Choices (held out): " + ", ".join("%s %d" % kv for kv in sorted(counts.items(), key=lambda kv: -kv[1])), ""]

    full = fit(x, y)
    text = export(full, feats, cands, margin, domain_of(x, feats), args.target)

    # The shipped model on the sweep's own matrices: what a user compiling
    # these matrices gets (in-sample, so better than the held-out numbers).
    in_sample, _ = choose(full, x, cus, margin, domain_of(x, feats), feats)
    sets = np.array([r["set"] for r in rows])
    lines += ["## The shipped model on the sweep's matrices (in-sample)", "",
              "| set | K | rows | % of oracle | selected speedup (min, # < 1) | oracle speedup |",
              "|---|---|---|---|---|---|"]
    for st in sorted(set(sets)):
        for k in sorted(set(ks)):
            m = (sets == st) & (ks == k)
            o, sp, so, _ = score(t[m], in_sample[m], cus)
            ratio = t[m][:, cus] / t[m][np.arange(int(m.sum())), in_sample[m]]
            lines.append("| %s | %d | %d | %.1f | %.3f (%.2f, %d) | %.3f |" % (
                st, k, int(m.sum()), 100 * o, sp, ratio.min(), int(np.sum(ratio < 1)), so))
    lines.append("")
    report = "\n".join(lines)
    if args.check:
        open(args.report, "w").write(report)
        shipped = open(args.model).read()
        if shipped != text:
            print("train.py: error: %s differs from the model retrained from %s"
                  % (args.model, args.data), file=sys.stderr)
            return 1
        print("train.py: %s reproduced from %s" % (args.model, args.data))
        return 0
    os.makedirs(os.path.dirname(os.path.abspath(args.model)), exist_ok=True)
    open(args.model, "w").write(text)
    open(args.report, "w").write(report)
    print(report)
    print("train.py: wrote %s (%d candidates, %d inputs, %d bytes) and %s"
          % (args.model, len(cands), len(feats), len(text), args.report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
