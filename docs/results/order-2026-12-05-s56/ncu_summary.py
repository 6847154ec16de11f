#!/usr/bin/env python3
"""One line per profiled launch of an `ncu --print-details all` text
report (ncu.tar.xz: ncu-gen-*.txt, ncu-lab.txt): duration, elapsed and SM
active cycles, issued warps per scheduler, warp instructions (issued per
scheduler x active cycles x 4 schedulers x 132 SMs) and achieved occupancy.

    python ncu_summary.py ncu-gen-bf16.txt ncu-gen-f32.txt ncu-lab.txt
"""
import re
import sys

KEYS = ("Duration", "Elapsed Cycles", "SM Active Cycles",
        "Issued Warp Per Scheduler", "Achieved Occupancy")

for path in sys.argv[1:]:
    launches, cur = [], None
    for line in open(path):
        m = re.search(r"((?:row|l0_)[a-zA-Z_0-9]*(?:<[^>]*>)?)(?:\(.*?\))?"
                      r"\s+\((\d+), 1, 1\)x", line)
        if m:
            cur = {"name": m.group(1)}
            launches.append(cur)
            continue
        for key in KEYS:
            v = re.match(r"\s+" + re.escape(key) + r"\s+(?:\S+\s+)?([\d.,]+)\s*$",
                         line)
            if cur is not None and v and key not in cur:
                cur[key] = float(v.group(1).replace(",", ""))
    for c in launches:
        inst = c["Issued Warp Per Scheduler"] * c["SM Active Cycles"] * 4 * 132
        print(f"{path.split('/')[-1]:17s} {c['name']:14s} "
              f"us={c['Duration']:.2f} elapsed={c['Elapsed Cycles']:.0f} "
              f"active={c['SM Active Cycles']:.0f} "
              f"issued/scheduler={c['Issued Warp Per Scheduler']:.2f} "
              f"warp_instructions={inst / 1e6:.2f}M "
              f"occupancy={c['Achieved Occupancy']:.1f}%")
