#!/bin/bash
# Merge the old packages of kinds bf16, bk32 and bb (/tmp/old.tar.xz) with
# /tmp/cga.tar.xz and /tmp/caa.tar.xz into $1 (one suite/), dropping the
# packages whose kernels.ptx are identical in all three.
set -euo pipefail
rm -rf /tmp/m3 && mkdir -p /tmp/m3/old /tmp/m3/cga /tmp/m3/caa
for T in old cga caa; do tar -C /tmp/m3/$T -xJf /tmp/$T.tar.xz; done
rm -rf /tmp/m3/old/suite/*.f16old.spp /tmp/m3/old/suite/gen/*.f16old.spp \
  /tmp/m3/old/suite/*.bk128old.spp /tmp/m3/old/suite/gen/*.bk128old.spp
for o in /tmp/m3/old/suite/*old.spp /tmp/m3/old/suite/gen/*old.spp; do
  rel=${o#/tmp/m3/old/}; base=${rel%old.spp}
  p=/tmp/m3/cga/${base}cga.spp; v=/tmp/m3/caa/${base}caa.spp
  if cmp -s $o/kernels.ptx $p/kernels.ptx && cmp -s $o/kernels.ptx $v/kernels.ptx; then
    rm -rf $o $p $v; echo "same: $rel"
  else
    mv $p /tmp/m3/old/${base}cga.spp; mv $v /tmp/m3/old/${base}caa.spp
  fi
done
find /tmp/m3/old/suite -name '*.spp' -maxdepth 2 | sed -n 's/.*\.\([a-z0-9]*\)\.spp$/\1/p' | sort | uniq -c
tar -C /tmp/m3/old -cf - suite | xz -T2 -6 > "$1"; ls -la "$1"
