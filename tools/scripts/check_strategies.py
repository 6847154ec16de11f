#!/usr/bin/env python3
"""Runs every permutation strategy on a set of matrices and summarizes.

For each matrix file: `spperm-inspect FILE --strategy all --json`; checks
that every strategy returned a valid permutation; collects times and the
quality metrics. Prints, per matrix group, the largest time of each
strategy, and the geometric-mean improvement of each strategy's own
objective over the identity order:

  plain, flipped, lpt, hybrid-1       cta_max_warp_load_sum   (lower)
  warp-aware, hybrid-2.3              hamming_warp_mean       (lower)
  cta-aware, hybrid-2.1, hybrid-2.2   window_line_fetches     (lower)
  bsa                                 dense_tile_nnz_share    (higher)

Usage: check_strategies.py INSPECT GROUP=DIR_OR_FILE [GROUP=...] [--json OUT]
Exit status 1 if any strategy failed or returned an invalid permutation.
"""

import argparse
import json
import math
import os
import subprocess
import sys

OBJECTIVE = {
    "plain": ("cta_max_warp_load_sum", -1), "flipped": ("cta_max_warp_load_sum", -1),
    "lpt": ("cta_max_warp_load_sum", -1), "hybrid-1": ("cta_max_warp_load_sum", -1),
    "warp-aware": ("hamming_warp_mean", -1), "hybrid-2.3": ("hamming_warp_mean", -1),
    "cta-aware": ("window_line_fetches", -1), "hybrid-2.1": ("window_line_fetches", -1),
    "hybrid-2.2": ("window_line_fetches", -1), "bsa": ("dense_tile_nnz_share", +1),
}


def files_of(path):
    if os.path.isfile(path):
        return [path]
    out = []
    for root, _, names in os.walk(path):
        out += [os.path.join(root, n) for n in sorted(names)
                if n.endswith((".mtx", ".smtx", ".mtx.gz", ".smtx.gz"))]
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inspect")
    ap.add_argument("groups", nargs="+")
    ap.add_argument("--json")
    args = ap.parse_args()

    failures = 0
    summary = {}
    for spec in args.groups:
        group, _, path = spec.partition("=")
        times, ratios, count = {}, {}, 0
        for f in files_of(path):
            run = subprocess.run([args.inspect, f, "--strategy", "all", "--json"],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                print(f"FAIL {f}: {run.stderr.strip()}")
                failures += 1
                continue
            record = json.loads(run.stdout)
            count += 1
            base = {s["strategy"]: s for s in record["strategies"]}["identity"]
            for s in record["strategies"]:
                name = s["strategy"]
                if not s["valid"]:
                    print(f"FAIL {f}: {name} returned an invalid permutation")
                    failures += 1
                times[name] = max(times.get(name, 0.0), s["time_ms"])
                if name in OBJECTIVE:
                    key, sign = OBJECTIVE[name]
                    b, v = base[key], s[key]
                    if b > 0 and v > 0:
                        # > 1 means better than identity.
                        r = (b / v) if sign < 0 else (v / b)
                        ratios.setdefault(name, []).append(math.log(r))
        summary[group] = {"matrices": count, "max_time_ms": times,
                          "geomean_improvement": {k: math.exp(sum(v) / len(v))
                                                  for k, v in ratios.items() if v}}

    names = ["identity", "plain", "flipped", "lpt", "warp-aware", "cta-aware",
             "hybrid-1", "hybrid-2.1", "hybrid-2.2", "hybrid-2.3", "bsa"]
    print("max time per strategy (ms)")
    print(f"{'group':<14}{'n':>5} " + " ".join(f"{n:>10}" for n in names))
    for g, s in summary.items():
        print(f"{g:<14}{s['matrices']:>5} " +
              " ".join(f"{s['max_time_ms'].get(n, float('nan')):>10.1f}" for n in names))
    print("geomean improvement of the strategy's own objective over identity (>1 = better)")
    print(f"{'group':<14}{'n':>5} " + " ".join(f"{n:>10}" for n in names[1:]))
    for g, s in summary.items():
        print(f"{g:<14}{s['matrices']:>5} " +
              " ".join(f"{s['geomean_improvement'].get(n, float('nan')):>10.3f}" for n in names[1:]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    print(f"check_strategies: {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
