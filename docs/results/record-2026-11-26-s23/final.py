#!/usr/bin/env python3
"""Issue 27's targets from the suite's bench lines of selected packages.

Usage: final.py VERIFY_LOG.xz... [--meta META.json]

Reads the `bench` lines of NAME.auto.auto.spp (the default package, compiled
without --k) and NAME.auto-kK.auto.spp (compiled with --k K) and prints, per
K, package kind and matrix set: the geomean (min, count below 1) of
  * cuSPARSE / spperm, cuSPARSE timed right after the package in the same
    process (the best of its algorithms);
  * min(cuSPARSE, dense cuBLAS SGEMM) / spperm (the library check's
    candidates; dense only where the densified matrix fits its budget);
  * % of the compulsory-traffic roofline (BENCHMARK.md: 8 nnz + 4 (M + 1)
    + 4 N K + 4 M K bytes at META's copy bandwidth, or 2 nnz K flops at the
    fp32 peak, whichever is longer) on matrices of >= 1 M nnz;
then the default package over the --k package per K, the variants the
runtime chose (how often a 3xTF32 tensor-core variant, dense or cuSPARSE),
and the matrices below 1.0 against the faster library.
"""
import collections
import json
import lzma
import math
import re
import sys

FP32_PEAK_FLOPS = 66.9e12  # H100 SXM, non-tensor fp32
GRAPH_LIKE = ("rmat", "community", "skewed")


def geomean(v):
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")


def set_of(pkg):
    if pkg.startswith("dlmc__"):
        return "dlmc"
    if pkg.startswith("suitesparse__"):
        return "suitesparse"
    if pkg.startswith("gnn__"):
        return "gnn"
    if pkg.split(".")[0] in ("rmat20", "banded1m", "block1m"):
        return "big"
    return "gen-" + pkg.split("-")[0]


def main():
    args = sys.argv[1:]
    copy_gbs = 3000.0
    if "--meta" in args:
        i = args.index("--meta")
        copy_gbs = float(json.load(open(args[i + 1]))["floor"]["copy_gbs"])
        del args[i:i + 2]
    rows = []
    for f in args:
        for line in lzma.open(f, "rt"):
            if not line.startswith("bench "):
                continue
            d = dict(re.findall(r"(\w+)=(\S+)", line))
            pkg = line.split()[1].split("/")[-1]
            m = re.match(r"^(.*)\.(auto\.auto|auto-k(\d+)\.auto)\.spp$", pkg)
            if not m:
                continue
            k = int(d["K"])
            kind = "default" if m.group(2) == "auto.auto" else "--k K"
            s, c = float(d["spperm_ms"]), float(d["cusparse_ms"])
            dense = float(d.get("dense_ms", "0") or 0)
            lib = min(c, dense) if dense > 0 else c
            nnz, mr, nc = int(d["nnz"]), int(d["rows"]), int(d["cols"])
            traffic = 8 * nnz + 4 * (mr + 1) + 4 * nc * k + 4 * mr * k
            floor_ms = max(traffic / (copy_gbs * 1e9),
                           2.0 * nnz * k / FP32_PEAK_FLOPS) * 1e3
            # The variant the runtime chose (the bench line does not name
            # it): the candidate whose own time is nearest the package's,
            # the libraries included where the library check ran.
            times = [float(x) for x in d.get("variant_ms", "").split(",") if x]
            names = d.get("variants", "").split(",") if times else []
            if not times:
                times, names = [s], [d["format"] + "." + d["strategy"]]
            if d.get("path") == "checked":
                times, names = times + [c], names + ["cusparse"]
                if dense > 0:
                    times, names = times + [dense], names + ["dense"]
            if d.get("path") == "cusparse":
                chosen = "cusparse"
            else:
                chosen = names[min(range(len(times)), key=lambda i: abs(times[i] - s))]
            # The 3xTF32 twin's time over the fastest other generated
            # variant (> 1: the twin is faster), when the package has one.
            twin = [i for i, n in enumerate(names) if "3xtf32" in n]
            twin_gain = None
            if twin and times[twin[0]] > 0:
                others = [t for i, (t, n) in enumerate(zip(times, names))
                          if i != twin[0] and t > 0 and n not in ("cusparse", "dense")]
                if others:
                    twin_gain = min(others) / times[twin[0]]
            rows.append(dict(matrix=m.group(1), set=set_of(pkg), k=k, kind=kind,
                             vs_cusparse=c / s, vs_lib=lib / s,
                             roofline=floor_ms / s, nnz=nnz, chosen=chosen,
                             dense_won=dense > 0 and dense < c, twin_gain=twin_gain,
                             spperm_ms=s, cusparse_ms=c, dense_ms=dense))

    def summarize(sel):
        a = [r["vs_cusparse"] for r in sel]
        b = [r["vs_lib"] for r in sel]
        return "%d | %.3f (%.2f, %d) | %.3f (%.2f, %d)" % (
            len(sel), geomean(a), min(a), sum(x < 1 for x in a),
            geomean(b), min(b), sum(x < 1 for x in b))

    ks = sorted({r["k"] for r in rows})
    sets = sorted({r["set"] for r in rows})
    print("| K | package | set | n | vs cuSPARSE: geomean (min, below 1) | "
          "vs faster of cuSPARSE and dense |")
    print("|---|---|---|---|---|---|")
    for k in ks:
        for kind in ("default", "--k K"):
            sel_k = [r for r in rows if r["k"] == k and r["kind"] == kind]
            groups = [("all", sel_k),
                      ("shared (dlmc+suitesparse+gnn)",
                       [r for r in sel_k if r["set"] in ("dlmc", "suitesparse", "gnn")]),
                      ("suitesparse+gnn+graph-like gen",
                       [r for r in sel_k if r["set"] in ("suitesparse", "gnn") or
                        r["set"][4:] in GRAPH_LIKE or r["set"] == "big"])]
            groups += [(s, [r for r in sel_k if r["set"] == s]) for s in sets]
            for name, sel in groups:
                if sel:
                    print("| %d | %s | %s | %s |" % (k, kind, name, summarize(sel)))

    print("\n%% of the compulsory-traffic roofline, matrices of >= 1 M nnz "
          "(copy bandwidth %.0f GB/s): geomean (min)\n" % copy_gbs)
    print("| K | package | n | spperm | cuSPARSE |")
    print("|---|---|---|---|---|")
    for k in ks:
        for kind in ("default", "--k K"):
            sel = [r for r in rows if r["k"] == k and r["kind"] == kind and r["nnz"] >= 1_000_000]
            if sel:
                sp = [r["roofline"] for r in sel]
                cu = [r["roofline"] * r["spperm_ms"] / r["cusparse_ms"] for r in sel]
                print("| %d | %s | %d | %.1f %% (%.1f) | %.1f %% |" % (
                    k, kind, len(sel), 100 * geomean(sp), 100 * min(sp), 100 * geomean(cu)))

    print("\nThe default package over the --k K package (time ratio, > 1: the "
          "default is slower): geomean (max)\n")
    print("| K | n | geomean | max | worse than 1.10 |")
    print("|---|---|---|---|---|")
    by = {(r["matrix"], r["k"], r["kind"]): r for r in rows}
    for k in ks:
        rat = [by[(m, k, "default")]["spperm_ms"] / by[(m, k, "--k K")]["spperm_ms"]
               for (m, kk, kind) in by if kk == k and kind == "default" and (m, k, "--k K") in by]
        if rat:
            print("| %d | %d | %.3f | %.3f | %d |" % (k, len(rat), geomean(rat), max(rat),
                                                     sum(x > 1.10 for x in rat)))

    print("\nWhat the runtime chose (default package), per K: variants by family\n")
    for k in ks:
        c = collections.Counter()
        for r in rows:
            if r["k"] == k and r["kind"] == "default":
                ch = r["chosen"]
                c["3xtf32" if "3xtf32" in ch else ch.split(".")[0] if ch else "?"] += 1
        print("K=%d: %s" % (k, ", ".join("%s %d" % kv for kv in c.most_common())))
    print("\nThe 3xTF32 twin (default packages that have one): fastest "
          "generated variant, and chosen by the runtime\n")
    print("| K | packages with a twin | twin fastest generated (gain geomean, max) | chosen | chosen: vs cuSPARSE |")
    print("|---|---|---|---|---|")
    for k in ks:
        sel = [r for r in rows if r["k"] == k and r["kind"] == "default" and r["twin_gain"] is not None]
        if not sel:
            continue
        won = [r["twin_gain"] for r in sel if r["twin_gain"] > 1]
        ch = [r for r in sel if "3xtf32" in r["chosen"]]
        print("| %d | %d | %d (%s) | %d | %s |" % (
            k, len(sel), len(won),
            "%.3f, %.3f" % (geomean(won), max(won)) if won else "-", len(ch),
            "%.3f" % geomean([r["vs_cusparse"] for r in ch]) if ch else "-"))

    print("\nBelow 1.0 against the faster of cuSPARSE and dense:\n")
    for r in sorted(rows, key=lambda r: r["vs_lib"]):
        if r["vs_lib"] >= 1.0:
            break
        print("%s K=%d %s: %.3f (spperm %.4f ms, cuSPARSE %.4f, dense %.4f, chose %s)" % (
            r["matrix"], r["k"], r["kind"], r["vs_lib"], r["spperm_ms"], r["cusparse_ms"],
            r["dense_ms"], r["chosen"]))


if __name__ == "__main__":
    main()
