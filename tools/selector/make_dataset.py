#!/usr/bin/env python3
#===- make_dataset.py - The selector's dataset from a sweep ----------------===#
#
# Part of the spperm project.
#
#===------------------------------------------------------------------------===#
"""Builds the learned selector's dataset (docs/Selector.md) from a sweep.

The sweep is a GPU-suite run (tools/scripts/gpu_suite.sh) over one package
per matrix and candidate; its verify.log holds a `bench` line per package,
layer and K with the candidate's median time, and for the csr/identity
package the best cuSPARSE algorithm's. This script joins those times with
each matrix's static features (`spperm-inspect --json`, flattened to the
names the C++ selector uses: `rows`, `row_nnz.mean`, ...) into one CSV row
per matrix and K:

  name, set, group, k, <features...>, t:<format>.<strategy>..., t:cusparse,
  cusparse_alg

Times are in milliseconds; a candidate that did not run (or failed its
check, and so was never timed) is left empty. `group` is what the training
script holds out: the pruning method for DLMC, the family otherwise.

Usage:
  make_dataset.py --log verify.log[.xz] [--log ...] --meta meta.json \
      --out tools/selector/dataset/sm_90.csv
"""

import argparse
import collections
import csv
import json
import lzma
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "..", "shared", "data", "matrices")
GENERATED = os.path.join(ROOT, "tools", "selector", "generated.txt")


def open_text(path):
    return lzma.open(path, "rt") if path.endswith(".xz") else open(path)


def parse_logs(paths):
    """{(name, k): {candidate: ms}} and {(name, k): (cusparse ms, alg)}."""
    times = collections.defaultdict(dict)
    cusparse = {}
    for path in paths:
        for line in open_text(path):
            if not line.startswith("bench "):
                continue
            words = line.split()
            kv = dict(w.split("=", 1) for w in words[3:] if "=" in w)
            pkg = os.path.basename(words[1])
            suffix = ".%s.%s.spp" % (kv["format"], kv["strategy"])
            if not pkg.endswith(suffix):
                continue
            name = pkg[: -len(suffix)]
            if os.path.basename(os.path.dirname(words[1])) == "gen":
                name = "gen__" + name
            key = (name, int(kv["K"]))
            ms = float(kv["spperm_ms"])
            if ms > 0:
                times[key]["%s.%s" % (kv["format"], kv["strategy"])] = ms
            if "cusparse_ms" in kv and float(kv["cusparse_ms"]) > 0:
                cusparse[key] = (float(kv["cusparse_ms"]), kv["cusparse_alg"])
    return times, cusparse


def source_of(name, tmp, generated):
    """The matrix file of a dataset name (generated ones are made in tmp)."""
    if name.startswith("gen__"):
        gen = name[len("gen__"):]
        path = os.path.join(tmp, gen + ".mtx")
        if not os.path.exists(path):
            subprocess.run([os.path.join(ROOT, "build", "bin", "spperm-gen")] +
                           generated[gen].split() + ["-o", path],
                           check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        return path
    rel = name.replace("__", "/")
    for ext in (".smtx.gz", ".mtx.gz"):
        if os.path.exists(os.path.join(DATA, rel + ext)):
            return os.path.join(DATA, rel + ext)
    raise SystemExit("make_dataset.py: error: no matrix file for " + name)


def flatten(features):
    out = {}
    for key, value in features.items():
        if key in ("model", "strategies"):
            continue
        if isinstance(value, dict):
            for sub, v in value.items():
                out["%s.%s" % (key, sub)] = v
        else:
            out[key] = value
    return out


def group_of(name):
    """(set, group): DLMC by pruning method, the rest by family."""
    parts = name.split("__")
    if parts[0] == "dlmc":
        return "dlmc", "dlmc/" + parts[2]
    if parts[0] == "gen":
        return "generated", parts[1].split("-")[0]
    return parts[0], parts[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--log", action="append", required=True)
    ap.add_argument("--meta", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    times, cusparse = parse_logs(args.log)
    generated = {}
    for line in open(GENERATED):
        if line.strip() and not line.startswith("#"):
            name, rest = line.split(None, 1)
            generated[name] = rest.strip()
    candidates = sorted({c for v in times.values() for c in v})
    names = sorted({n for n, _ in times})
    features = {}
    inspect = os.path.join(ROOT, "build", "bin", "spperm-inspect")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            src = source_of(name, tmp, generated)
            out = subprocess.run([inspect, src, "--json"], check=True,
                                 capture_output=True, text=True).stdout
            features[name] = flatten(json.loads(out))
            if name.startswith("gen__"):
                os.remove(src)
    feature_names = sorted({f for v in features.values() for f in v})
    header = (["name", "set", "group", "k"] + feature_names +
              ["t:" + c for c in candidates] + ["t:cusparse", "cusparse_alg"])
    rows = 0
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for (name, k) in sorted(times):
            if (name, k) not in cusparse:
                continue
            s, g = group_of(name)
            t = times[(name, k)]
            cu = cusparse[(name, k)]
            w.writerow([name, s, g, k] +
                       [features[name].get(fn, "") for fn in feature_names] +
                       ["%.6g" % t[c] if c in t else "" for c in candidates] +
                       ["%.6g" % cu[0], cu[1]])
            rows += 1
    meta = json.load(open(args.meta))
    meta["candidates"] = candidates + ["cusparse"]
    meta["rows"] = rows
    meta["matrices"] = len(names)
    with open(os.path.splitext(args.out)[0] + ".meta.json", "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    print("make_dataset.py: %d rows (%d matrices x K), %d candidates + cusparse -> %s"
          % (rows, len(names), len(candidates), args.out))


if __name__ == "__main__":
    sys.exit(main())
