#!/usr/bin/env python3
# ===- profile_table.py - Tables of gpu_profile.sh's ncu metrics ----------=== #
#
# Usage: profile_table.py PROFILE_DIR SUITE_DIR LIST
#
# For each "PACKAGE K" line of LIST, reads PROFILE_DIR/NAME.kK.csv (ncu
# --csv --print-units base) and prints a Markdown table with one row per
# distinct kernel (the package's generated kernels first, then cuSPARSE's
# and the runtime's helpers), the fastest launch of each: time, DRAM bytes
# read + written, L2 (lts) bytes, L1 bytes, L2 and L1 hit rates, achieved
# occupancy, SM, L1, L2 and DRAM throughput (% of peak), registers, grid x block — under a line
# with the layer's shape and its compulsory traffic (A's arrays once, B and
# C once: the roofline's bytes, docs/results/perf-notes.md).
#
# ===----------------------------------------------------------------------=== #
import csv
import json
import os
import sys
from collections import defaultdict


def launches(path):
    """{launch id: {"kernel": name, metric: value}} from ncu's CSV log."""
    out = defaultdict(dict)
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    for row in csv.DictReader(lines):
        try:
            i = int(row["ID"])
        except (KeyError, ValueError):
            continue
        out[i]["kernel"] = row["Kernel Name"]
        value = row["Metric Value"].replace(",", "")
        try:
            out[i][row["Metric Name"]] = float(value)
        except ValueError:
            out[i][row["Metric Name"]] = value
    return out


def main():
    pdir, sdir, listfile = sys.argv[1:4]
    for line in open(listfile):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pkg, k = line.split()
        k = int(k)
        name = f"{os.path.basename(pkg)[:-4]}.k{k}"
        manifest = json.load(open(os.path.join(sdir, pkg, "manifest.json")))
        layer = manifest["layers"][0]
        rows, cols, nnz = layer["rows"], layer["cols"], layer["nnz"]
        ours = {kk["name"] for kk in layer.get("kernels", [])}
        compulsory = nnz * 8 + (rows + 1) * 4 + (rows + cols) * k * 4
        print(f"\n### {name}: {rows} x {cols}, nnz {nnz}, K = {k}, "
              f"format {layer.get('format')}, strategy {layer.get('strategy', {}).get('name', '?') if isinstance(layer.get('strategy'), dict) else layer.get('strategy')}; "
              f"compulsory {compulsory / 1e6:.1f} MB = {compulsory / 3.0e12 * 1e6:.1f} us at 3.0 TB/s\n")
        path = os.path.join(pdir, name + ".csv")
        if not os.path.exists(path):
            print("(no profile)")
            continue
        best = {}
        for m in launches(path).values():
            t = m.get("gpu__time_duration.sum")
            if not isinstance(t, float):
                continue
            kern = m["kernel"]
            if kern not in best or t < best[kern]["gpu__time_duration.sum"]:
                best[kern] = m
        print("| kernel | us | DRAM MB | L2 MB | L1 MB | L2 hit % | L1 hit % | occupancy % | SM % | L1 % | L2 % | DRAM % | regs | grid x block |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        order = sorted(best, key=lambda n: (n not in ours, n))

        def g(m, key, scale=1.0, fmt="{:.1f}"):
            v = m.get(key)
            return fmt.format(v * scale) if isinstance(v, float) else "-"

        for kern in order:
            m = best[kern]
            dram = (m.get("dram__bytes_read.sum", 0.0) or 0.0) + (m.get("dram__bytes_write.sum", 0.0) or 0.0)
            short = kern if len(kern) <= 60 else kern[:57] + "..."
            tag = "**spperm** " if kern in ours else ""
            print(f"| {tag}`{short}` | {g(m, 'gpu__time_duration.sum', 1e-3)} | {dram / 1e6:.1f} | "
                  f"{g(m, 'lts__t_bytes.sum', 1e-6)} | {g(m, 'l1tex__t_bytes.sum', 1e-6)} | "
                  f"{g(m, 'lts__t_sector_hit_rate.pct')} | "
                  f"{g(m, 'l1tex__t_sector_hit_rate.pct')} | "
                  f"{g(m, 'sm__warps_active.avg.pct_of_peak_sustained_active')} | "
                  f"{g(m, 'sm__throughput.avg.pct_of_peak_sustained_elapsed')} | "
                  f"{g(m, 'l1tex__throughput.avg.pct_of_peak_sustained_elapsed')} | "
                  f"{g(m, 'lts__throughput.avg.pct_of_peak_sustained_elapsed')} | "
                  f"{g(m, 'dram__throughput.avg.pct_of_peak_sustained_elapsed')} | "
                  f"{g(m, 'launch__registers_per_thread', 1, '{:.0f}')} | "
                  f"{g(m, 'launch__grid_size', 1, '{:.0f}')} x {g(m, 'launch__block_size', 1, '{:.0f}')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
