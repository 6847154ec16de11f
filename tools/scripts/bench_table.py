#!/usr/bin/env python3
"""Benchmark record and table from spperm-verify's `bench` lines.

Usage: bench_table.py VERIFY_LOG OUT.json [META.json]

Per source matrix (the package name up to .FORMAT.STRATEGY.spp) and K:
  * best: the fastest spperm package of that matrix (format x strategy), an
    oracle over what spperm can generate;
  * selected: the package compiled with --strategy auto --format auto
    (NAME.auto.auto.spp, or NAME.auto-kK.spp compiled with --k K), when the
    suite has one: what spperm picks ("cusparse" when the selector chose
    the library);
  * cuSPARSE: the best of its algorithms (timed on the csr/identity
    package); and, paired, the same timed right after the selected package
    in the same process (its `paired` speedup: the comparison in which a
    layer that runs cuSPARSE itself is a tie, not run-to-run noise);
  * speedups (cuSPARSE / spperm) and % of the compulsory-traffic roofline
    (../shared/docs/BENCHMARK.md): 8 nnz + 4 (M + 1) + 4 N K + 4 M K bytes
    at the copy bandwidth measured in the same run (META's floor.copy_gbs,
    else 3000 GB/s), or 2 nnz K flops at the fp32 peak, whichever is
    longer.
  * the permutation's own gain: the identity package of the best (and the
    selected) variant's format over that variant (same kernel family, the
    rows in their original order).
  * the ceiling: cuSPARSE's time over the larger of the roofline floor and
    the time of an empty kernel (META's floor.empty_kernel_ms), the best
    speedup any kernel could be timed at.
A suite of selected packages alone (no csr/identity package) takes each
one's paired cuSPARSE and dense times as the reference and the selected
package as the best. Geometric means by matrix group. Writes META (GPU,
driver, clocks, floor, commit), every measurement and the table to
OUT.json and prints the summary and the table (groups other than DLMC per
matrix) as Markdown.
"""
import json
import math
import os
import re
import sys
from collections import defaultdict

FP32_PEAK_FLOPS = 66.9e12  # H100 SXM, non-tensor fp32

line_re = re.compile(r"^bench (\S+) (\S+) K=(\d+) (.*)$")


def group_of(matrix):
    for g in ("dlmc", "suitesparse", "gnn"):
        if matrix.startswith(g):
            return g
    return "generated"


def geomean(values):
    values = [v for v in values if v > 0]
    if not values:
        return float("nan")
    return math.exp(sum(map(math.log, values)) / len(values))


def main():
    log, out = sys.argv[1], sys.argv[2]
    meta = json.load(open(sys.argv[3])) if len(sys.argv) > 3 else {}
    copy_gbs = float(meta.get("floor", {}).get("copy_gbs", 3000.0))
    launch_ms = float(meta.get("floor", {}).get("empty_kernel_ms", 0.0))

    records = []
    for line in open(log):
        m = line_re.match(line)
        if not m:
            continue
        fields = dict(kv.split("=", 1) for kv in m.group(4).split())
        pkg = os.path.basename(m.group(1))
        matrix = re.sub(r"\.[a-z]+\.[a-z0-9.-]+\.spp$", "", pkg)
        # Selected: NAME.auto.auto.spp (chosen for any K) or NAME.auto-kK.spp
        # (compiled with --k K, chosen for that K).
        m_auto = re.match(r"^(.*)\.(auto\.auto|auto-k\d+)\.spp$", pkg)
        if m_auto:
            matrix = m_auto.group(1)
        rec = {"package": pkg, "matrix": matrix, "layer": m.group(2),
               "k": int(m.group(3)), "selected": bool(m_auto)}
        suffix = pkg[len(matrix) + 1:-len(".spp")]
        for key, value in fields.items():
            try:
                rec[key] = float(value) if key.endswith("_ms") else (
                    int(value) if value.isdigit() else value)
            except ValueError:
                rec[key] = value
        # Experiment packages (gpu_suite_prepare.sh's MAIN_EXTRA/BIG_EXTRA,
        # e.g. NAME.csr.lpt-b2.spp) are recorded but are not candidates.
        rec["extra"] = not rec["selected"] and \
            suffix != f'{rec.get("format")}.{rec.get("strategy")}'
        records.append(rec)

    # Time of each (matrix, K, format, strategy) package.
    by_variant = {}
    for r in records:
        if not r["selected"] and not r["extra"] and r.get("spperm_ms", -1) > 0:
            by_variant[(r["matrix"], r["k"], r["format"], r["strategy"])] = r["spperm_ms"]

    best = defaultdict(lambda: {"spperm_ms": math.inf})
    for r in records:
        b = best[(r["matrix"], r["k"])]
        b.update(rows=r["rows"], cols=r.get("cols", r["rows"]), nnz=r["nnz"])
        ms = r.get("spperm_ms", -1)
        if r["selected"]:
            if ms > 0:
                b["selected_ms"] = ms
                b["selected_variant"] = ("cusparse" if r.get("path") == "cusparse"
                                         else f'{r["format"]}/{r["strategy"]}')
        elif not r["extra"] and ms > 0 and ms < b["spperm_ms"]:
            b.update(spperm_ms=ms, variant=f'{r["format"]}/{r["strategy"]}')
        if r.get("cusparse_ms", -1) > 0:
            # The selected package's own baseline, timed right after it in
            # the same process (spperm-verify), is kept apart: the paired
            # comparison. The table's cuSPARSE column is the reference one,
            # timed beside csr/identity.
            if r["selected"]:
                b["paired_cusparse_ms"] = r["cusparse_ms"]
                b["paired_cusparse_alg"] = r.get("cusparse_alg", "?")
                if r.get("dense_ms", -1) > 0:
                    b["paired_dense_ms"] = r["dense_ms"]
            else:
                b["cusparse_ms"] = r["cusparse_ms"]
                b["cusparse_alg"] = r["cusparse_alg"]
                if r.get("dense_ms", -1) > 0:
                    b["dense_ms"] = r["dense_ms"]

    # A suite of selected packages alone (gpu_suite_prepare.sh with
    # FORMATS=" "): the selected package is the only candidate, so it is
    # the best too, and its paired cuSPARSE (and dense) times are the
    # reference.
    for b in best.values():
        if "cusparse_ms" not in b and "paired_cusparse_ms" in b:
            b["cusparse_ms"] = b["paired_cusparse_ms"]
            b["cusparse_alg"] = b["paired_cusparse_alg"]
            if "paired_dense_ms" in b:
                b["dense_ms"] = b["paired_dense_ms"]
        if not math.isfinite(b["spperm_ms"]) and "selected_ms" in b:
            b.update(spperm_ms=b["selected_ms"], variant=b["selected_variant"])

    table = []
    for (matrix, k), b in sorted(best.items()):
        if "cusparse_ms" not in b or not math.isfinite(b["spperm_ms"]):
            continue
        m_, n_, nnz = b["rows"], b["cols"], b["nnz"]
        traffic = 8 * nnz + 4 * (m_ + 1) + 4 * n_ * k + 4 * m_ * k
        floor_ms = max(traffic / (copy_gbs * 1e9),
                       2.0 * nnz * k / FP32_PEAK_FLOPS) * 1e3
        row = {"matrix": matrix, "group": group_of(matrix), "k": k,
               "rows": m_, "cols": n_, "nnz": nnz, "floor_ms": floor_ms,
               "cusparse_ms": b["cusparse_ms"],
               "cusparse_alg": b["cusparse_alg"],
               "best_ms": b["spperm_ms"], "best_variant": b["variant"],
               "best_speedup": b["cusparse_ms"] / b["spperm_ms"],
               "best_roofline": floor_ms / b["spperm_ms"],
               "cusparse_roofline": floor_ms / b["cusparse_ms"],
               "ceiling_speedup": b["cusparse_ms"] / max(floor_ms, launch_ms)}
        fmt_best = b["variant"].split("/")[0]
        ident = by_variant.get((matrix, k, fmt_best, "identity"))
        if ident:
            row["best_permutation_gain"] = ident / b["spperm_ms"]
        # The other library a user would reach for: cuBLAS GEMM on the
        # densified matrix (where it fits the runtime's budget).
        if "dense_ms" in b:
            row["dense_ms"] = b["dense_ms"]
        library_ms = min(b["cusparse_ms"], b.get("dense_ms", math.inf))
        row["library_ms"] = library_ms
        row["best_vs_library"] = library_ms / b["spperm_ms"]
        if "selected_ms" in b:
            row["selected_vs_library"] = library_ms / b["selected_ms"]
            paired_library = min(b.get("paired_cusparse_ms", math.inf),
                                 b.get("paired_dense_ms", math.inf))
            if math.isfinite(paired_library):
                row["paired_vs_library"] = paired_library / b["selected_ms"]
        if "selected_ms" in b:
            row.update(selected_ms=b["selected_ms"],
                       selected_variant=b["selected_variant"],
                       selected_speedup=b["cusparse_ms"] / b["selected_ms"],
                       selected_roofline=floor_ms / b["selected_ms"],
                       selected_of_best=b["spperm_ms"] / b["selected_ms"])
            if "paired_cusparse_ms" in b:
                row.update(paired_cusparse_ms=b["paired_cusparse_ms"],
                           paired_speedup=b["paired_cusparse_ms"] / b["selected_ms"])
            ident = by_variant.get((matrix, k, b["selected_variant"].split("/")[0],
                                    "identity"))
            if ident:
                row["selected_permutation_gain"] = ident / b["selected_ms"]
        table.append(row)

    summary = []
    for k in sorted({t["k"] for t in table}):
        rows = [t for t in table if t["k"] == k]
        groups = [("all", rows)] + [
            (g, [t for t in rows if t["group"] == g])
            for g in ("dlmc", "suitesparse", "gnn", "generated")]
        groups.append((">=1M nnz", [t for t in rows if t["nnz"] >= 1_000_000]))
        for name, sel in groups:
            if not sel:
                continue
            entry = {"k": k, "set": name, "matrices": len(sel)}
            entry["dense_wins"] = sum(
                1 for t in sel if t.get("dense_ms", math.inf) < t["cusparse_ms"])
            for what in ("best_vs_library", "selected_vs_library",
                         "paired_vs_library"):
                sp = [t[what] for t in sel if what in t]
                if sp:
                    entry[f"{what}_geomean"] = geomean(sp)
                    entry[f"{what}_min"] = min(sp)
                    entry[f"{what}_below_1"] = sum(s < 1 for s in sp)
            for what in ("best", "selected", "paired"):
                sp = [t[f"{what}_speedup"] for t in sel if f"{what}_speedup" in t]
                if not sp:
                    continue
                entry[f"{what}_geomean"] = geomean(sp)
                entry[f"{what}_min"] = min(sp)
                entry[f"{what}_below_1"] = sum(s < 1 for s in sp)
                if what != "paired":
                    entry[f"{what}_roofline_geomean"] = geomean(
                        [t[f"{what}_roofline"] for t in sel if f"{what}_roofline" in t])
            entry["cusparse_roofline_geomean"] = geomean(
                [t["cusparse_roofline"] for t in sel])
            entry["ceiling_geomean"] = geomean([t["ceiling_speedup"] for t in sel])
            for what in ("best", "selected"):
                gains = [t[f"{what}_permutation_gain"] for t in sel
                         if f"{what}_permutation_gain" in t]
                if gains:
                    entry[f"{what}_permutation_gain_geomean"] = geomean(gains)
            if any("selected_of_best" in t for t in sel):
                entry["selected_of_best_geomean"] = geomean(
                    [t["selected_of_best"] for t in sel if "selected_of_best" in t])
            summary.append(entry)

    json.dump({"meta": meta, "summary": summary, "table": table,
               "measurements": records}, open(out, "w"), indent=1)

    def fmt(v, spec=".3f"):
        return "-" if v is None or (isinstance(v, float) and math.isnan(v)) \
            else format(v, spec)

    print("| K | set | matrices | best: geomean (min, below 1) | selected: geomean "
          "(min, below 1) | selected, paired: geomean (min, below 1) | "
          "% roofline best / selected / cuSPARSE | "
          "permutation gain best / selected | ceiling |")
    print("|---|---|---|---|---|---|---|---|---|")
    for e in summary:
        print(f'| {e["k"]} | {e["set"]} | {e["matrices"]} | '
              f'{fmt(e.get("best_geomean"))} ({fmt(e.get("best_min"), ".2f")}, '
              f'{e.get("best_below_1", "-")}) | {fmt(e.get("selected_geomean"))} '
              f'({fmt(e.get("selected_min"), ".2f")}, {e.get("selected_below_1", "-")}) | '
              f'{fmt(e.get("paired_geomean"))} ({fmt(e.get("paired_min"), ".2f")}, '
              f'{e.get("paired_below_1", "-")}) | '
              f'{fmt(100 * e.get("best_roofline_geomean", float("nan")), ".0f")} / '
              f'{fmt(100 * e.get("selected_roofline_geomean", float("nan")), ".0f")} / '
              f'{fmt(100 * e["cusparse_roofline_geomean"], ".0f")} | '
              f'{fmt(e.get("best_permutation_gain_geomean"), ".2f")} / '
              f'{fmt(e.get("selected_permutation_gain_geomean"), ".2f")} | '
              f'{fmt(e["ceiling_geomean"], ".2f")} |')
    print()
    print("Against the best of cuSPARSE and dense cuBLAS GEMM (the library "
          "check's candidates; dense where it fits the budget):")
    print()
    print("| K | set | matrices | dense faster than cuSPARSE | best | selected | "
          "selected, paired |")
    print("|---|---|---|---|---|---|---|")
    for e in summary:
        cells = []
        for what in ("best_vs_library", "selected_vs_library",
                     "paired_vs_library"):
            cells.append(f'{fmt(e.get(what + "_geomean"))} '
                         f'({fmt(e.get(what + "_min"), ".2f")}, '
                         f'{e.get(what + "_below_1", "-")})')
        print(f'| {e["k"]} | {e["set"]} | {e["matrices"]} | {e["dense_wins"]} | '
              + " | ".join(cells) + " |")
    print()
    print("| matrix | K | rows | nnz | cuSPARSE ms (alg) | best ms (variant) | speedup | "
          "% roofline | selected ms (variant) | speedup | paired cuSPARSE ms | paired speedup |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for t in table:
        if t["group"] == "dlmc":
            continue  # summarized above; every row is in the JSON
        sel = (f'{t["selected_ms"]:.4f} ({t["selected_variant"]}) | '
               f'{t["selected_speedup"]:.2f}') if "selected_ms" in t else "- | -"
        sel += (f' | {t["paired_cusparse_ms"]:.4f} | {t["paired_speedup"]:.2f}'
                if "paired_speedup" in t else " | - | -")
        print(f'| {t["matrix"]} | {t["k"]} | {t["rows"]} | {t["nnz"]} | '
              f'{t["cusparse_ms"]:.4f} ({t["cusparse_alg"].replace("cusparse-", "")}) | '
              f'{t["best_ms"]:.4f} ({t["best_variant"]}) | {t["best_speedup"]:.2f} | '
              f'{100 * t["best_roofline"]:.0f} | {sel} |')


if __name__ == "__main__":
    main()
