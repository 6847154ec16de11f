#!/usr/bin/env python3
"""Copy a package with its kernels' global loads or occupancy hint changed.

Lab tool for experiments on generated code that the code generator does not
emit yet (docs/results/direct-2026-11-28-s35): in the `.entry` functions
whose names match --entries, it can

  --nc          turn every `ld.global.` into `ld.global.nc.` (the read-only,
                non-coherent path of `__ldg`). Only valid where the kernel
                reads nothing that it, or a kernel it overlaps, writes: a
                variant of one row kernel whose first instruction is its
                griddepcontrol.wait, and no accumulator;
  --min-ctas N  add `.minnctapersm N` after `.maxntid` (what
                `__launch_bounds__(threads, N)` asks of ptxas),

then assembles the cubin with ptxas (-arch from the manifest's target),
records both files' sizes and SHA-256 in the manifest and recomputes its
own checksum as docs/Package.md ("The manifest's own checksum") says.
Prints each changed entry's registers and spill from `ptxas -v`.

Usage: ptx_loads.py SRC.spp DST.spp [--nc] [--min-ctas N]
                    [--entries REGEX] [--ptxas PATH]
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def edit_ptx(text, entries, nc, min_ctas):
    """Returns the edited PTX and the names of the entries it changed."""
    out, changed, current = [], [], None
    for line in text.splitlines(keepends=True):
        m = re.match(r"\.visible \.entry (\w+)\(", line)
        if m:
            current = m.group(1) if entries.search(m.group(1)) else None
            if current:
                changed.append(current)
        elif current and line.startswith("}"):
            current = None
        if current and nc:
            line = re.sub(r"\bld\.global\.(?!nc\.)", "ld.global.nc.", line)
        out.append(line)
        if current and min_ctas and line.startswith(".maxntid"):
            out.append(f".minnctapersm {min_ctas}\n")
    return "".join(out), changed


def write_manifest(path, manifest):
    """Writes the manifest with its own checksum as the last member."""
    body = dict(manifest)
    body.pop("manifest_sha256", None)
    text = json.dumps(body, indent=2)
    assert text.endswith("\n}")
    covered = text[:-2] + ",\n  "
    digest = hashlib.sha256(covered.encode()).hexdigest()
    with open(path, "w") as f:
        f.write(covered + f'"manifest_sha256": "{digest}"\n}}\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--nc", action="store_true")
    ap.add_argument("--min-ctas", type=int, default=0)
    ap.add_argument("--entries", default=r"^l\d+_csr")
    ap.add_argument("--ptxas", default=shutil.which("ptxas")
                    or "/usr/local/cuda/bin/ptxas")
    a = ap.parse_args()
    if os.path.exists(a.dst):
        sys.exit(f"ptx_loads.py: {a.dst}: exists")
    shutil.copytree(a.src, a.dst)
    mpath = os.path.join(a.dst, "manifest.json")
    with open(mpath) as f:
        manifest = json.load(f)
    code = manifest.get("code") or {}
    if "ptx" not in code:
        sys.exit(f"ptx_loads.py: {a.src}: no kernels.ptx")
    ptx = os.path.join(a.dst, code["ptx"]["file"])
    with open(ptx) as f:
        text, changed = edit_ptx(f.read(), re.compile(a.entries), a.nc,
                                 a.min_ctas)
    if not changed:
        sys.exit(f"ptx_loads.py: {a.src}: no entry matches {a.entries}")
    with open(ptx, "w") as f:
        f.write(text)
    code["ptx"]["size"] = os.path.getsize(ptx)
    code["ptx"]["sha256"] = sha256(ptx)
    if "cubin" in code:
        cubin = os.path.join(a.dst, code["cubin"]["file"])
        arch = manifest["target"]
        r = subprocess.run([a.ptxas, f"-arch={arch}", "-v", ptx, "-o", cubin],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"ptx_loads.py: ptxas failed on {ptx}:\n{r.stderr}")
        fn = None
        for line in r.stderr.splitlines():
            m = re.search(r"Function properties for (\w+)", line)
            if m:
                fn = m.group(1)
            m = re.search(r"Used (\d+) registers", line)
            if m and fn in changed:
                print(f"{os.path.basename(a.dst)} {fn}: {m.group(1)} registers")
            m = re.search(r"(\d+) bytes spill stores", line)
            if m and fn in changed and m.group(1) != "0":
                print(f"{os.path.basename(a.dst)} {fn}: "
                      f"{m.group(1)} bytes spill stores")
        code["cubin"]["size"] = os.path.getsize(cubin)
        code["cubin"]["sha256"] = sha256(cubin)
    write_manifest(mpath, manifest)


if __name__ == "__main__":
    main()
