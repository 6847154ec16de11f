#!/usr/bin/env bash
# Here, after the README's build: the archives device.sh runs.
set -euo pipefail
cd "$(dirname "$0")/../../.."
bash tools/scripts/gpu_prepare.sh examples/bcsstk13.mtx.gz   # .gpu/deps (wipes .gpu)
PARTS="tc sub" BIG=0 ARCHIVE=$PWD/.gpu/suite-ts.tar.xz bash tools/scripts/gpu_suite_prepare.sh \
  suitesparse/bcsstk13.mtx.gz suitesparse/cond-mat.mtx.gz gnn/cora.mtx.gz \
  suitesparse/Maragal_6.mtx.gz suitesparse/cs4.mtx.gz \
  dlmc/transformer/magnitude_pruning/0.9/body_decoder_layer_0_ffn_conv1_fully_connected.smtx.gz
# archive_of DIR LIST OUT: the packages listed in LIST (paths under DIR,
# suite/NAME.spp) with the matrices they record and suite/COMMIT, as OUT.
archive_of() {
  (cd "$1" && python3 -c 'import json, sys
pk = [l.strip() for l in open(sys.argv[1]) if l.strip()]
files = {"suite/" + l["source"]["path"] for p in pk for l in json.load(open(p + "/manifest.json"))["layers"]}
print("\n".join(["suite/COMMIT"] + sorted(files) + pk))' "$2" | tar -cf - -T - | xz -T0 -6 >"$3")
}
# The selected package of every shared matrix (FORMATS=" ": no format x
# strategy packages), split into three archives so that each call carries
# less than 64 MiB: SuiteSparse and the graphs, then DLMC in two halves.
FORMATS=" " SELECTED=1 PARTS=main BIG=0 STAGE=/tmp/all/stage ARCHIVE=/tmp/all/all.tar.xz \
  bash tools/scripts/gpu_suite_prepare.sh
rm -rf /tmp/all/x && mkdir /tmp/all/x && xz -dc /tmp/all/all.tar.xz | tar -C /tmp/all/x -xf -
(cd /tmp/all/x && ls -d suite/suitesparse__*.spp suite/gnn__*.spp >/tmp/all/1.txt &&
  ls -d suite/dlmc__*.spp | awk 'NR % 2 == 1' >/tmp/all/d0.txt &&
  ls -d suite/dlmc__*.spp | awk 'NR % 2 == 0' >/tmp/all/d1.txt)
for n in 1 d0 d1; do archive_of /tmp/all/x /tmp/all/$n.txt "$PWD/.gpu/all-$n.tar.xz"; done
# The bf16 selected packages (NAME.auto-bf16.spp), split into b16-A (the 16
# SuiteSparse matrices, the 2 graphs and every third DLMC layer in name
# order) and b16-B (the other DLMC layers).
FORMATS=" " SELECTED=0 MAIN_EXTRA="auto-bf16|--format auto --strategy auto --dtype bf16" PARTS=main BIG=0 \
  STAGE=/tmp/b16/stage ARCHIVE=/tmp/b16/all.tar.xz bash tools/scripts/gpu_suite_prepare.sh
rm -rf /tmp/b16/x && mkdir /tmp/b16/x && xz -dc /tmp/b16/all.tar.xz | tar -C /tmp/b16/x -xf -
(cd /tmp/b16/x && { ls -d suite/suitesparse__*.spp suite/gnn__*.spp; ls -d suite/dlmc__*.spp | awk 'NR % 3 == 1'; } >/tmp/b16/A.txt &&
  ls -d suite/dlmc__*.spp | awk 'NR % 3 != 1' >/tmp/b16/B.txt)
for n in A B; do archive_of /tmp/b16/x /tmp/b16/$n.txt "$PWD/.gpu/b16-$n.tar.xz"; done
