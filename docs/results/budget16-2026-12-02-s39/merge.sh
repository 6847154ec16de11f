#!/bin/bash
# Merge /tmp/old.tar.xz and /tmp/new.tar.xz (prep2.sh) into $1 (one suite/),
# keeping the old/new pairs whose variants differ (strategy, format, format
# parameters and kernels of the layer and its alternatives, from
# manifest.json): the size budget's choices. kernels.ptx cannot tell them
# apart, as it holds the kernels of every candidate, dropped or not.
set -euo pipefail
OUTA=$1
rm -rf /tmp/mA /tmp/mB && mkdir -p /tmp/mA /tmp/mB
tar -C /tmp/mA -xJf /tmp/old.tar.xz
tar -C /tmp/mB -xJf /tmp/new.tar.xz
same=0; diff=0
for n in /tmp/mB/suite/*new.spp /tmp/mB/suite/gen/*new.spp; do
  [[ -d $n ]] || continue
  rel=${n#/tmp/mB/}
  o=/tmp/mA/${rel%new.spp}old.spp
  if [[ ! -d $o ]]; then echo "no old for $rel"; exit 1; fi
  if python3 - "$o/manifest.json" "$n/manifest.json" <<'PY'
import json, sys
def variants(path):
    out = []
    for l in json.load(open(path))["layers"]:
        for v in [l] + l.get("alternatives", []):
            out.append((v["strategy"], v["format"], json.dumps(v["format_params"], sort_keys=True),
                        tuple(k["name"] for k in v["kernels"])))
    return out
sys.exit(0 if variants(sys.argv[1]) == variants(sys.argv[2]) else 1)
PY
  then
    rm -rf "$n" "$o"; same=$((same+1))
  else
    echo "differ: $(basename "$n")"
    mv "$o" "/tmp/mB/${rel%new.spp}old.spp"; diff=$((diff+1))
  fi
done
cp /tmp/mA/suite/COMPILER /tmp/mB/suite/COMPILER.old
echo "same variants dropped: $same; differing pairs kept: $diff"
tar -C /tmp/mB -cf - suite | xz -T2 -6 > "$OUTA"
ls -la "$OUTA"
