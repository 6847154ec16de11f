#!/usr/bin/env python3
"""Checks that spperm-compile and spperm-opt's spperm-pipeline are one compiler.

  one_compiler.py flags COMPILE_HELP OPT_HELP
      every flag spperm-compile lists under COMPILATION OPTIONS is an option
      of spperm-pipeline in spperm-opt's help, with the same description, and
      the other way round.
  one_compiler.py kernels PKG OPT_OUTPUT
      the package's kernels.ptx holds exactly the kernels its layers launch,
      each as in the PTX of the gpu.binary spperm-opt printed (which also
      has those of the variants the package leaves out; block labels and
      local depots renumbered), with the same .version / .target; and its
      layers' launches (kernel names, grids, blocks) are the
      #spperm.launch attributes of the lowered spperm.spmm ops, in order
      (each layer's in-place kernels before its own kernels, its
      transposing kernel after them).
"""
import json
import re
import sys


def option_lines(lines, start, indent_of):
    """The `--name=... - description` lines below `start`, deeper than it."""
    out = {}
    base = indent_of(lines[start])
    for line in lines[start + 1:]:
        if not line.strip() or line.strip().startswith("="):
            continue  # an enum option's values
        if indent_of(line) <= base:
            break
        m = re.match(r"\s+(--?[a-z][a-z0-9-]*)(=<\w+>| <\w+>)?\s+- (.*)", line)
        if m:
            out[m.group(1).lstrip("-")] = m.group(3).strip()
    return out


def indent(line):
    return len(line) - len(line.lstrip(" "))


def flags(compile_help, opt_help):
    c = open(compile_help).read().splitlines()
    o = open(opt_help).read().splitlines()
    cstart = next(i for i, l in enumerate(c) if l.startswith("COMPILATION OPTIONS"))
    ostart = next(i for i, l in enumerate(o) if l.strip().startswith("--spperm-pipeline "))
    # spperm-compile's section starts at column 0; its options are indented.
    tool = option_lines(c, cstart, lambda l: -1 if l is c[cstart] else indent(l))
    pipeline = option_lines(o, ostart, indent)
    if not tool:
        sys.exit("no compilation option in spperm-compile --help")
    if tool != pipeline:
        for name in sorted(set(tool) | set(pipeline)):
            if tool.get(name) != pipeline.get(name):
                print(f"{name}: spperm-compile {tool.get(name)!r}, "
                      f"spperm-pipeline {pipeline.get(name)!r}")
        sys.exit("spperm-compile's tuning flags and spperm-pipeline's options differ")
    print(f"{len(tool)} options agree")


def unescape(s):
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), s)


def entries(ptx):
    """Each `.entry` of `ptx` by name: its text from the `.entry` line to its
    closing brace, block labels numbered from the entry (LLVM numbers them
    by the function's place in the module)."""
    out = {}
    for m in re.finditer(r"^\.visible \.entry (\w+)\(.*?^\}$", ptx, re.M | re.S):
        body = re.sub(r"\$L__BB\d+_", "$L__BB_", m.group(0))
        out[m.group(1)] = re.sub(r"__local_depot\d+", "__local_depot", body)
    return out


def kernels(pkg, opt_output):
    text = open(opt_output).read()
    m = re.search(r'assembly = "((?:[^"\\]|\\.)*)"', text)
    if not m:
        sys.exit("no gpu.binary assembly in the spperm-opt output")
    # The package's PTX holds the pipeline's kernels that its variants
    # launch, each as the pipeline made it (spperm-compile leaves out those
    # of the variants it does not package).
    pipeline_ptx = unescape(m.group(1))
    package_ptx = open(f"{pkg}/kernels.ptx").read()
    header = lambda ptx: re.findall(r"^\.(?:version|target|address_size) .*$", ptx, re.M)
    if header(pipeline_ptx) != header(package_ptx):
        sys.exit("kernels.ptx's .version / .target differ from spperm-pipeline's")
    pipeline_entries = entries(pipeline_ptx)
    package_entries = entries(package_ptx)
    for name, body in package_entries.items():
        if pipeline_entries.get(name) != body:
            sys.exit(f"kernels.ptx's {name} differs from spperm-pipeline's")
    launches = re.findall(
        r'#spperm\.launch<name = "([^"]+)".*?grid = \[([^\]]*)\], '
        r'block = \[([^\]]*)\]', text)
    manifest = json.load(open(f"{pkg}/manifest.json"))
    packaged = []
    for layer in manifest["layers"]:
        # In the order of the spperm.spmm's attributes: the in-place
        # kernels (spperm.in_place_b), the layer's kernels, its
        # transposing kernel; then its alternatives' in-place kernels and
        # kernels.
        own = (layer.get("in_place_b", []) + layer["kernels"] +
               ([layer["transpose_b"]] if "transpose_b" in layer else []))
        for variant_kernels in [own] + [a.get("in_place_b", []) + a["kernels"]
                                        for a in layer.get("alternatives", [])]:
            for k in variant_kernels:
                packaged.append((k["name"], ", ".join(map(str, k["grid"])),
                                 ", ".join(map(str, k["block"]))))
    # The package keeps one of the variants that would run the same
    # computation (docs/Package.md): its launches are the pipeline's, in
    # order, less whole alternatives (kernel names "l<i>a<j>_...").
    kept = {name.split("_")[0] for name, _, _ in packaged}
    expected = [launch for launch in launches
                if launch[0].split("_")[0] in kept]
    own = {name.split("_")[0] for name, _, _ in launches
           if "a" not in name.split("_")[0]}
    if packaged != expected or not own <= kept:
        sys.exit(f"launches differ:\n package  {packaged}\n pipeline {launches}")
    launched = {name for name, _, _ in packaged if name != "cusparse"}
    if set(package_entries) != launched:
        sys.exit(f"kernels.ptx's entries are not the launched kernels:\n"
                 f" not launched {sorted(set(package_entries) - launched)}\n"
                 f" missing {sorted(launched - set(package_entries))}")
    size = sum(len(b) for b in package_entries.values())
    print(f"{len(packaged)} launches and {size} bytes of PTX agree")


if __name__ == "__main__":
    {"flags": flags, "kernels": kernels}[sys.argv[1]](*sys.argv[2:])
