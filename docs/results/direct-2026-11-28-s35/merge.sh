#!/bin/bash
# Merge /tmp/old.tar.xz and /tmp/new.tar.xz into $1 (one suite/), dropping
# old/new pairs whose kernels.ptx are identical.
set -euo pipefail
OUTA=$1
rm -rf /tmp/mA /tmp/mB && mkdir -p /tmp/mA /tmp/mB
tar -C /tmp/mA -xJf /tmp/old.tar.xz
tar -C /tmp/mB -xJf /tmp/new.tar.xz
same=0; diff=0
for n in /tmp/mB/suite/*new.spp /tmp/mB/suite/gen/*new.spp; do
  rel=${n#/tmp/mB/}
  o=/tmp/mA/${rel%new.spp}old.spp
  if [[ ! -d $o ]]; then echo "no old for $rel"; exit 1; fi
  if cmp -s "$n/kernels.ptx" "$o/kernels.ptx"; then
    rm -rf "$n" "$o"; same=$((same+1))
  else
    mv "$o" "/tmp/mB/${rel%new.spp}old.spp"; diff=$((diff+1))
  fi
done
cp /tmp/mA/suite/COMPILER /tmp/mB/suite/COMPILER.old
echo "identical pairs dropped: $same; differing pairs kept: $diff"
find /tmp/mB/suite -name '*.spp' -maxdepth 2 | sed -n 's/.*\.\([a-z0-9]*\)\.spp$/\1/p' | sort | uniq -c
tar -C /tmp/mB -cf - suite | xz -T2 -6 > "$OUTA"
ls -la "$OUTA"
