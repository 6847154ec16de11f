#!/bin/bash
# Drops from /tmp/cta.tar.xz (prep-cta.sh) the old/new pairs whose
# kernels.ptx are identical (layers without long rows), writing $1.
set -euo pipefail
rm -rf /tmp/mC && mkdir -p /tmp/mC && tar -C /tmp/mC -xJf /tmp/cta.tar.xz
same=0; diff=0
for n in /tmp/mC/suite/*new.spp /tmp/mC/suite/gen/*new.spp; do
  o=${n%new.spp}old.spp
  if cmp -s "$n/kernels.ptx" "$o/kernels.ptx"; then
    rm -rf "$n" "$o"; same=$((same+1))
  else
    diff=$((diff+1))
  fi
done
# Only the matrices the kept packages read.
keep=$(cat /tmp/mC/suite/*.spp/manifest.json 2>/dev/null | grep -o '"path": "m/[^"]*"' | sed 's/.*"m\/\(.*\)"/\1/' | sort -u)
(cd /tmp/mC/suite/m && find . -type f | sed 's#^\./##' | while read f; do grep -qxF "$f" <<<"$keep" || rm -f "$f"; done)
echo "identical pairs dropped: $same; differing pairs kept: $diff"
find /tmp/mC/suite -maxdepth 2 -name '*.spp' | sed -n 's/.*\.\([a-z0-9]*\)\.spp$/\1/p' | sort | uniq -c
tar -C /tmp/mC -cf - suite | xz -T2 -6 > "$1"
ls -la "$1"
