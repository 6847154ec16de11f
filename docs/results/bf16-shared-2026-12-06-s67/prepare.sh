#!/usr/bin/env bash
# Here, after the README's build: the archives device.sh runs. b16-A and
# b16-B are session 66's (../subnormal16-2026-12-06-s66/prepare.sh: the
# bf16 selected package of every shared matrix, --format auto --strategy
# auto --dtype bf16); this splits b16-B (208 DLMC layers) into two halves
# that a call can check and time within its 600 s.
set -euo pipefail
cd "$(dirname "$0")/../../.."
S66=docs/results/subnormal16-2026-12-06-s66
[[ -f .gpu/b16-A.tar.xz && -d /tmp/b16/x/suite ]] || bash $S66/prepare.sh
archive_of() {
  (cd "$1" && python3 -c 'import json, sys
pk = [l.strip() for l in open(sys.argv[1]) if l.strip()]
files = {"suite/" + l["source"]["path"] for p in pk for l in json.load(open(p + "/manifest.json"))["layers"]}
print("\n".join(["suite/COMMIT"] + sorted(files) + pk))' "$2" | tar -cf - -T - | xz -T0 -6 >"$3")
}
# b16-B is the DLMC layers NR % 3 != 1 in name order; B1 and B2 take
# alternate ones of those.
(cd /tmp/b16/x && ls -d suite/dlmc__*.spp | awk 'NR % 3 != 1' | awk 'NR % 2 == 1' >/tmp/b16/B1.txt &&
  ls -d suite/dlmc__*.spp | awk 'NR % 3 != 1' | awk 'NR % 2 == 0' >/tmp/b16/B2.txt)
for n in B1 B2; do archive_of /tmp/b16/x /tmp/b16/$n.txt "$PWD/.gpu/b16-$n.tar.xz"; done
