#!/usr/bin/env bash
# On the device, .gpu carried (tools/scripts/gpu_prepare.sh, then
# PARTS=sub tools/scripts/gpu_suite_prepare.sh, then mk.sh for
# .gpu/ak/before and .gpu/ak/after):
#   bash docs/results/atomic-k-2026-12-06-s65/device.sh suite   # the suite's sub part and its sanitizer runs
#   bash docs/results/atomic-k-2026-12-06-s65/device.sh bench   # --k packages, before and after, twice
#   bash docs/results/atomic-k-2026-12-06-s65/device.sh bench2  # KS="1 any" mk.sh packages of 2d58ed2^ (before)
#     and of 2a9b0dd (final): K = 1 with --k, and 1, 32, 128, 512 for any K, twice
#   bash docs/results/atomic-k-2026-12-06-s65/device.sh check   # .gpu/suite-main.tar.xz (PARTS=main, six
#     matrices in every format and strategy): every package checked, timed
#   bash docs/results/atomic-k-2026-12-06-s65/device.sh san     # .gpu/suite-san.tar.xz (PARTS=san): the
#     concurrency set, then memcheck of each kernel family at six K (a run
#     past the call's limit cuts only the sanitizer)
set -u
O=${OUT:?}
# timed_pairs GPU_TXT PREFIX KS A B: builds spperm-verify (once), then checks
# and times .gpu/ak/A and .gpu/ak/B at KS, alternating, twice
# ($O/PREFIX-{A,B}-{1,2}.log).
timed_pairs() {
  local gpu=$1 prefix=$2 ks=$3 rep w log V=build-gpu/bin/spperm-verify
  shift 3
  if [[ ! -x $V ]]; then
    . tools/scripts/shared_zlib.sh
    { cmake -G Ninja -S . -B build-gpu -DSPPERM_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release ${ZLIB_FLAGS[@]+"${ZLIB_FLAGS[@]}"} -DCMAKE_PREFIX_PATH="$PWD/.gpu/deps" &&
      cmake --build build-gpu -j 16 --target spperm-verify; } >"$O/build.log" 2>&1 || { tail -20 "$O/build.log"; return 1; }
  fi
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >"$O/$gpu"
  for rep in 1 2; do for w in "$@"; do
    log="$O/$prefix-$w-$rep.log"
    $V .gpu/ak/$w --device gpu --k "$ks" --jobs 1 --bench "$ks" --runs 20 >"$log" 2>&1
    echo "$w $rep rc=$? $(grep -c '^ok ' "$log") ok $(grep -c '^FAIL' "$log") FAIL"
  done; done
}
case "${1:?suite or bench}" in
suite)
  SETS="sub san" SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps OUT=$O/suite \
    bash tools/scripts/gpu_suite.sh >"$O/suite.out" 2>&1
  echo "suite rc=$?"
  cat "$O/suite/summary.txt"
  ;;
bench)
  timed_pairs gpu.txt own 32,128,512 before after || exit 1
  ;;
bench2)
  timed_pairs gpu2.txt any 1,32,128,512 before final || exit 1
  ;;
check)
  ARCHIVE=$PWD/.gpu/suite-main.tar.xz SETS="main" BENCH_KS=32,128,512 \
    SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps OUT=$O/check \
    bash tools/scripts/gpu_suite.sh >"$O/check.out" 2>&1
  echo "check rc=$?"
  grep -E "checks|^FAIL|PASSED|FAILED|^\| (32|128|512) " "$O/check/summary.txt" | head -40
  ;;
san)
  ARCHIVE=$PWD/.gpu/suite-san.tar.xz SETS="conc san" SAN_TOOLS="${SAN_TOOLS:-memcheck}" \
    SAN_KS="${SAN_KS:-1,5,32,100,200,520}" \
    SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps OUT=$O/san \
    timeout "${LIMIT:-540}" bash tools/scripts/gpu_suite.sh >"$O/san.out" 2>&1
  echo "san rc=$?"
  grep -E "^FAIL|PASSED|FAILED|concurren|memcheck|racecheck" "$O/san/summary.txt" | head -90
  ;;
esac
