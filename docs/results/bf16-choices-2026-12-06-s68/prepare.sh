#!/usr/bin/env bash
# Here, after the README's build: the archives device.sh runs. The
# packages are session 66's bf16 selected packages (extracted under
# /tmp/b16/x by ../bf16-shared-2026-12-06-s67/prepare.sh); this takes the
# 178 of them that ran slower than the faster of cuSPARSE and dense bf16
# at some K in that record (slow.py) and cuts them into two halves, each
# checked and timed within one call's 600 s.
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=docs/results/bf16-choices-2026-12-06-s68
S67=docs/results/bf16-shared-2026-12-06-s67
S66=docs/results/subnormal16-2026-12-06-s66
[[ -d /tmp/b16/x/suite ]] || bash $S67/prepare.sh
python3 $HERE/slow.py $S66/b16/bench.json.xz $S67/{a,b1,b2}/bench.json.xz \
  | sed 's|^|suite/|' >/tmp/b16/slow.txt
awk 'NR % 2 == 1' /tmp/b16/slow.txt >/tmp/b16/S1.txt
awk 'NR % 2 == 0' /tmp/b16/slow.txt >/tmp/b16/S2.txt
archive_of() {
  (cd "$1" && python3 -c 'import json, sys
pk = [l.strip() for l in open(sys.argv[1]) if l.strip()]
files = {"suite/" + l["source"]["path"] for p in pk for l in json.load(open(p + "/manifest.json"))["layers"]}
print("\n".join(["suite/COMMIT"] + sorted(files) + pk))' "$2" | tar -cf - -T - | xz -T0 -6 >"$3")
}
for n in S1 S2; do archive_of /tmp/b16/x /tmp/b16/$n.txt "$PWD/.gpu/b16-$n.tar.xz"; done
ls -l .gpu/b16-S1.tar.xz .gpu/b16-S2.tar.xz
