#!/usr/bin/env bash
# interrupt.sh SIGNAL DIR MATRIX: starts spperm-compile MATRIX -o DIR/p.spp
# with DIR/ptxas as its ptxas and DIR/tmp as its TMPDIR, sends SIGNAL once
# the fake ptxas has started, and prints the exit status, whether ptxas was
# killed, and how many packages, temporary package directories and
# temporary files are left.
set -u
sig=$1 dir=$2 matrix=$3
rm -f "$dir/ptxas.pid"
SPPERM_PTXAS="$dir/ptxas" TMPDIR="$dir/tmp" spperm-compile "$matrix" -o "$dir/p.spp" -q &
pid=$!
for _ in $(seq 600); do
  [[ -s "$dir/ptxas.pid" ]] && break
  sleep 0.1
done
kill "-$sig" "$pid"
wait "$pid"
echo "exit $?"
child=$(cat "$dir/ptxas.pid")
for _ in $(seq 50); do
  kill -0 "$child" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$child" 2>/dev/null; then
  echo "ptxas still running"
  kill -9 "$child"
else
  echo "ptxas killed"
fi
echo "left: $(ls -d "$dir/p.spp" 2>/dev/null | wc -l) $(ls -a "$dir" | grep -c '^\.p\.spp\.') $(ls -A "$dir/tmp" | wc -l)"
