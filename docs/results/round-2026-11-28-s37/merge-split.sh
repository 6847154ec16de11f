#!/bin/bash
# Merge /tmp/{old,prt,vec}.tar.xz into $1 (one suite/), dropping the
# packages whose kernels.ptx are identical in all three.
set -euo pipefail
rm -rf /tmp/m3 && mkdir -p /tmp/m3/old /tmp/m3/prt /tmp/m3/vec
for T in old prt vec; do tar -C /tmp/m3/$T -xJf /tmp/$T.tar.xz; done
for o in /tmp/m3/old/suite/*old.spp /tmp/m3/old/suite/gen/*old.spp; do
  rel=${o#/tmp/m3/old/}; base=${rel%old.spp}
  p=/tmp/m3/prt/${base}prt.spp; v=/tmp/m3/vec/${base}vec.spp
  if cmp -s $o/kernels.ptx $p/kernels.ptx && cmp -s $o/kernels.ptx $v/kernels.ptx; then
    rm -rf $o $p $v; echo "same: $rel"
  else
    mv $p /tmp/m3/old/${base}prt.spp; mv $v /tmp/m3/old/${base}vec.spp
  fi
done
find /tmp/m3/old/suite -name '*.spp' -maxdepth 2 | sed -n 's/.*\.\([a-z0-9]*\)\.spp$/\1/p' | sort | uniq -c
tar -C /tmp/m3/old -cf - suite | xz -T2 -6 > "$1"; ls -la "$1"
