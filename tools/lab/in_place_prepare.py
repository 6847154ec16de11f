#!/usr/bin/env python3
"""Generates the in-place kernels of some matrices for in_place_check.py.

For each matrix and K, runs spperm-opt's spperm-lower-to-gpu with
in-place-b=auto (docs/Kernels.md, "In-place column-major B") and the
upstream lowering to PTX on a one-layer csr module (identity order) and
writes, under OUT/<n>/: kernels.ptx (the gpu.binary's PTX) and case.json
(the matrix's file name, to be found under in_place_check.py's MATS, its
shape, K and the launches of spperm.in_place_b). The GPU machine has no
MLIR: this runs here.

    python3 tools/lab/in_place_prepare.py --opt build/bin/spperm-opt \
        --out .gpu/inplace --ks 8,32,36,128 MATRIX...
"""

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def shape(path):
    """Rows and columns from a Matrix Market or DLMC .smtx header."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        if ".smtx" in path:
            rows, cols, _ = (int(v) for v in f.readline().split(","))
            return rows, cols
        for line in f:
            if not line.startswith("%"):
                rows, cols = (int(v) for v in line.split()[:2])
                return rows, cols
    raise ValueError(f"{path}: no header")


# spperm-lower-to-gpu with in-place-b=auto on the csr layer as loaded
# (identity order), then the upstream lowering of spperm-pipeline
# (buildGpuToBinaryPipeline in Binary.cpp) for sm_90, to PTX.
PIPELINE = (
    "builtin.module(spperm-lower-to-gpu{in-place-b=auto},"
    "gpu.module(convert-nvgpu-to-nvvm,convert-scf-to-cf,"
    "convert-gpu-to-nvvm{index-bitwidth=64},reconcile-unrealized-casts),"
    "nvvm-attach-target{chip=sm_90 O=3 features=+ptx81},"
    "gpu-module-to-binary{format=isa})")

LAUNCH = re.compile(r"#spperm\.launch<(.*?)>")


def launches(text):
    """The launches of the spperm.in_place_b attribute."""
    at = text.find("spperm.in_place_b = [")
    if at < 0:
        return []
    out = []
    for m in LAUNCH.finditer(text, at):
        body = m.group(1)
        if "in-place" not in body:
            break
        fields = {}
        for key in ("name", "variant"):
            fields[key] = re.search(key + r' = "([^"]*)"', body).group(1)
        args = re.search(r"args = \[(.*?)\]", body).group(1)
        fields["args"] = re.findall(r'"([^"]*)"', args)
        for key in ("grid", "block"):
            fields[key] = [int(v) for v in re.search(
                key + r" = \[(.*?)\]", body).group(1).split(",")]
        fields["shared_bytes"] = int(
            re.search(r"shared_bytes = (\d+)", body).group(1))
        out.append(fields)
    return out


def ptx(text):
    """The PTX of the gpu.binary (its escapes undone)."""
    m = re.search(r'assembly = "(.*?)"', text, re.S)
    return re.sub(r"\\([0-9A-Fa-f]{2})",
                  lambda e: chr(int(e.group(1), 16)), m.group(1))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--opt", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--ks", default="8,32,36,128")
    p.add_argument("matrices", nargs="+")
    a = p.parse_args()
    shutil.rmtree(a.out, ignore_errors=True)
    n = 0
    for path in a.matrices:
        rows, cols = shape(path)
        for k in (int(v) for v in a.ks.split(",")):
            t = f"!spperm.matrix<{rows}x{cols}xf32, #spperm.csr>"
            module = (
                f"func.func @f(%b: tensor<{cols}x{k}xf32>) -> "
                f"tensor<{rows}x{k}xf32> {{\n"
                f'  %a = spperm.load "{os.path.abspath(path)}" : {t}\n'
                f"  %c = spperm.spmm %a, %b : {t}, tensor<{cols}x{k}xf32> -> "
                f"tensor<{rows}x{k}xf32>\n"
                f"  return %c : tensor<{rows}x{k}xf32>\n}}\n")
            with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
                f.write(module)
                f.flush()
                text = subprocess.run(
                    [a.opt, f.name, "--pass-pipeline=" + PIPELINE],
                    check=True, capture_output=True, text=True).stdout
            found = launches(text)
            if not found:
                print(f"{path} K={k}: no in-place kernels", file=sys.stderr)
                continue
            case = os.path.join(a.out, str(n))
            os.makedirs(case)
            with open(os.path.join(case, "kernels.ptx"), "w") as f:
                f.write(ptx(text))
            with open(os.path.join(case, "case.json"), "w") as f:
                json.dump({"matrix": os.path.basename(path), "rows": rows,
                           "cols": cols, "k": k, "launches": found}, f,
                          indent=1)
            print(f"{case}: {os.path.basename(path)} K={k}: "
                  f"{len(found)} kernels")
            n += 1


if __name__ == "__main__":
    main()
