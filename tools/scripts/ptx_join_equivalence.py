#!/usr/bin/env python3
"""Checks that the parallel PTX path makes the same cubins as upstream's.

Every `spperm-opt ... -spperm-lower-to-gpu` RUN line of
test/Conversion/SpPermToGPU/*.mlir is lowered (with -spperm-dedup-kernels)
and then serialized twice: through upstream's one-module
`gpu-module-to-binary{format=isa}` and through `spperm-split-kernel-module`
+ `spperm-serialize-kernels` (docs/ConversionPasses.md). Both PTX texts are
assembled by ptxas -O3 and the cubins compared byte for byte.

    python3 tools/scripts/ptx_join_equivalence.py [--build build] [--work DIR]

Prints one line per module that differs or fails and a summary; exits 1 if
any does. Needs the build's spperm-opt, spperm-gen and CUDA's ptxas (no
GPU). A few minutes on 2 CPUs; test/Conversion/SpPermToGPU/
ptx-join-equivalence.test runs it.
"""

import argparse
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

LOWER = ("builtin.module({split}gpu.module(convert-nvgpu-to-nvvm,"
         "convert-scf-to-cf,convert-gpu-to-nvvm{{index-bitwidth=64}},"
         "reconcile-unrealized-casts),nvvm-attach-target{{chip={chip} O=3 "
         "{features}}},{serialize})")


def unescape(text):
    """An MLIR string attribute's text as the bytes it holds."""
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)),
                  text).replace('\\"', '"').replace("\\\\", "\\")


def cases(tests):
    """(file, options) of every RUN line that lowers to the gpu dialect."""
    for path in sorted(glob.glob(os.path.join(tests, "*.mlir"))):
        with open(path) as f:
            for line in f:
                m = re.match(r"// RUN: spperm-opt %s (.*?)\| FileCheck", line)
                if m and "lower-to-gpu" in m.group(1):
                    yield path, m.group(1).strip()


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(root, "build"))
    parser.add_argument("--work", default=None,
                        help="scratch directory (default: a new temporary)")
    # Found as spperm-compile finds it (docs/Kernels.md).
    ptxas = (os.environ.get("SPPERM_PTXAS") or shutil.which("ptxas") or
             os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                          "bin", "ptxas"))
    parser.add_argument("--ptxas", default=ptxas)
    args = parser.parse_args()
    opt = os.path.join(args.build, "bin", "spperm-opt")
    gen = os.path.join(args.build, "bin", "spperm-gen")
    tests = os.path.join(root, "test", "Conversion", "SpPermToGPU")
    work = args.work or tempfile.mkdtemp(prefix="ptx-join-")
    os.makedirs(work, exist_ok=True)

    modules = identical = 0
    bad = []
    for path, opts in cases(tests):
        name = os.path.basename(path)
        chip = (re.search(r"target=(sm_\d+)", opts) or [None, "sm_90"])[1]
        features = "features=+ptx81" if chip == "sm_90" else ""
        # The inputs a test generates first (%t), made once per file.
        scratch = os.path.join(work, "t_" + name)
        if not os.path.isdir(scratch):
            os.makedirs(scratch)
            with open(path) as f:
                for line in f:
                    m = re.match(r"// RUN: spperm-gen (.*)", line)
                    if m:
                        subprocess.run(
                            [gen] + shlex.split(m.group(1).replace("%t", scratch)),
                            capture_output=True)
        lowered = subprocess.run(
            [opt, path] + shlex.split(opts.replace("%t", scratch)) +
            ["-spperm-dedup-kernels"], capture_output=True, text=True,
            cwd=tests)
        if lowered.returncode:
            # A RUN line that expects a diagnostic (no module to compare).
            continue
        split = ["-split-input-file"] if "-split-input-file" in opts else []
        texts = {}
        for way, prefix, serialize in (
                ("upstream", "", "gpu-module-to-binary{format=isa}"),
                ("parallel", "spperm-split-kernel-module,",
                 "spperm-serialize-kernels")):
            pipeline = LOWER.format(split=prefix, chip=chip, features=features,
                                    serialize=serialize)
            out = subprocess.run([opt, "-", "--pass-pipeline=" + pipeline] +
                                 split, input=lowered.stdout,
                                 capture_output=True, text=True)
            if out.returncode:
                print(f"FAIL {way} {name} {opts}: {out.stderr[:300]}")
                bad.append((name, opts))
                texts = None
                break
            texts[way] = [unescape(t) for t in re.findall(
                r'assembly = "((?:[^"\\]|\\.)*)"', out.stdout)]
        if texts is None:
            continue
        if len(texts["upstream"]) != len(texts["parallel"]):
            print(f"COUNT {name} {opts}")
            bad.append((name, opts))
            continue
        for index, pair in enumerate(zip(texts["upstream"], texts["parallel"])):
            modules += 1
            cubins = []
            for tag, text in zip(("u", "p"), pair):
                ptx = os.path.join(work, tag + ".ptx")
                cubin = os.path.join(work, tag + ".cubin")
                with open(ptx, "w") as f:
                    f.write(text)
                run = subprocess.run([args.ptxas, "-arch=" + chip, "-O3", ptx,
                                      "-o", cubin], capture_output=True,
                                     text=True)
                if run.returncode:
                    print(f"PTXAS {tag} {name} {opts} #{index}: "
                          f"{run.stderr[:200]}")
                    cubins.append(None)
                    continue
                with open(cubin, "rb") as f:
                    cubins.append(f.read())
            if cubins[0] is not None and cubins[0] == cubins[1]:
                identical += 1
            else:
                print(f"DIFF {name} {opts} #{index}")
                bad.append((name, opts, index))
    print(f"modules {modules}, cubins identical {identical}, "
          f"differing or failing {len(bad)}")
    return 1 if bad or modules == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
