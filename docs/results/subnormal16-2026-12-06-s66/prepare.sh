#!/usr/bin/env bash
# Here, after the README's build: the archives device.sh runs.
set -euo pipefail
cd "$(dirname "$0")/../../.."
bash tools/scripts/gpu_prepare.sh examples/bcsstk13.mtx.gz   # .gpu/deps (wipes .gpu)
PARTS="tc sub" BIG=0 ARCHIVE=$PWD/.gpu/suite-ts.tar.xz bash tools/scripts/gpu_suite_prepare.sh \
  suitesparse/bcsstk13.mtx.gz suitesparse/cond-mat.mtx.gz gnn/cora.mtx.gz \
  suitesparse/Maragal_6.mtx.gz suitesparse/cs4.mtx.gz \
  dlmc/transformer/magnitude_pruning/0.9/body_decoder_layer_0_ffn_conv1_fully_connected.smtx.gz
# The selected package of every shared matrix (FORMATS=" ": no format x
# strategy packages), split into three archives so that each call carries
# less than 64 MiB: SuiteSparse and the graphs, then DLMC in two halves.
FORMATS=" " SELECTED=1 PARTS=main BIG=0 STAGE=/tmp/all/stage ARCHIVE=/tmp/all/all.tar.xz \
  bash tools/scripts/gpu_suite_prepare.sh
rm -rf /tmp/all/x && mkdir /tmp/all/x && xz -dc /tmp/all/all.tar.xz | tar -C /tmp/all/x -xf -
(cd /tmp/all/x && tar -cf - suite/COMMIT suite/m/suitesparse suite/m/gnn suite/suitesparse__* suite/gnn__* |
  xz -T0 -6 >"$OLDPWD/.gpu/all-1.tar.xz")
for i in 0 1; do
  (cd /tmp/all/x && ls -d suite/dlmc__*.spp | awk -v i=$i 'NR % 2 == 1 - i' >/tmp/all/pk.txt &&
    python3 -c 'import json, sys
pk = [l.strip() for l in open(sys.argv[1])]
files = {"suite/" + l["source"]["path"] for p in pk for l in json.load(open(p + "/manifest.json"))["layers"]}
print("\n".join(["suite/COMMIT"] + sorted(files) + pk))' /tmp/all/pk.txt >/tmp/all/files.txt &&
    tar -cf - -T /tmp/all/files.txt | xz -T0 -6 >"$OLDPWD/.gpu/all-d$i.tar.xz")
done
# The bf16 selected packages (NAME.auto-bf16.spp), split into b16-A (the 16
# SuiteSparse matrices, the 2 graphs and every third DLMC layer in name
# order) and b16-B (the other DLMC layers).
FORMATS=" " SELECTED=0 MAIN_EXTRA="auto-bf16|--format auto --strategy auto --dtype bf16" PARTS=main BIG=0 \
  STAGE=/tmp/b16/stage ARCHIVE=/tmp/b16/all.tar.xz bash tools/scripts/gpu_suite_prepare.sh
rm -rf /tmp/b16/x && mkdir /tmp/b16/x && xz -dc /tmp/b16/all.tar.xz | tar -C /tmp/b16/x -xf -
(cd /tmp/b16/x && python3 -c 'import json, os
pk = sorted(p for p in os.listdir("suite") if p.endswith(".spp"))
dl = [p for p in pk if p.startswith("dlmc__")]
parts = {"A": [p for p in pk if not p.startswith("dlmc__")] + dl[0::3],
         "B": [p for i, p in enumerate(dl) if i % 3 != 0]}
for name, part in parts.items():
    files = {"suite/" + l["source"]["path"] for p in part for l in json.load(open("suite/" + p + "/manifest.json"))["layers"]}
    open("/tmp/b16/" + name + ".files", "w").write("\n".join(["suite/COMMIT"] + sorted(files) + ["suite/" + p for p in part]) + "\n")')
for n in A B; do (cd /tmp/b16/x && tar -cf - -T /tmp/b16/$n.files | xz -T0 -6 >"$OLDPWD/.gpu/b16-$n.tar.xz"); done
