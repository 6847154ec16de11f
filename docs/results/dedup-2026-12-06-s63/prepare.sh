#!/usr/bin/env bash
# Session 63, here (after the README's build and tools/scripts/gpu_prepare.sh):
# everything session 62 prepared (the Python GPU tests' packages, the
# subnormal packages), made again with this tree's compiler, and packages
# whose variants share kernels (spperm-dedup-kernels) for spperm-verify
# --device gpu to run every variant of.
set -euo pipefail
cd "$(dirname "$0")/../../.."
bash docs/results/users-2026-12-05-s62/prepare.sh
M=/work/shared/data/matrices
D=.gpu/dedup
rm -rf "$D" && mkdir -p "$D"
c() { build/bin/spperm-compile "$@" --data external -q; }
# The selector's package with its shortlist (csr variants of several row
# orders share every kernel).
cp examples/bcsstk13.mtx.gz "$D/"
c "$D/bcsstk13.mtx.gz" -o "$D/bcsstk13.spp"
c "$D/bcsstk13.mtx.gz" -o "$D/bcsstk13.k128.spp" --k 128
# The bell shortlist and its 3xTF32 twin, which shares the bell row kernels.
cp test/Inputs/blocks64.mtx "$D/"
c "$D/blocks64.mtx" -o "$D/blocks64.spp" --model test/Inputs/selector-shortlist.json
c "$D/blocks64.mtx" -o "$D/blocks64.k32.spp" --model test/Inputs/selector-shortlist.json --k 32
# A graph and a pruned transformer layer, any K.
cp $M/gnn/cora.mtx.gz "$D/"
c "$D/cora.mtx.gz" -o "$D/cora.spp"
cp $M/dlmc/transformer/magnitude_pruning/0.9/body_decoder_layer_0_ffn_conv1_fully_connected.smtx.gz "$D/ffn1.smtx.gz"
c "$D/ffn1.smtx.gz" -o "$D/ffn1.spp" --values random:1
# Shards of one matrix (the runtime runs a sharded layer whole on one GPU).
c "$D/bcsstk13.mtx.gz" -o "$D/bcsstk13.shards4.spp" --shards 4
# Launches, distinct kernels launched, and kernels in each kernels.ptx.
build/venv/bin/python - "$D"/*.spp <<'PY'
import json, re, sys
for pkg in sys.argv[1:]:
    m = json.load(open(pkg + "/manifest.json"))
    names = []
    for layer in m["layers"]:
        for v in [layer] + layer.get("alternatives", []):
            names += [k["name"] for k in v["kernels"]]
            if "transpose_b" in v:
                names.append(v["transpose_b"]["name"])
    ptx = open(pkg + "/kernels.ptx").read()
    print(f"{pkg}: {len(names)} launches, {len(set(names))} kernels, "
          f"{len(re.findall(r'[.]entry ', ptx))} in kernels.ptx")
PY
du -sh .gpu/deps .gpu/pypk.tar.xz .gpu/sub "$D"
