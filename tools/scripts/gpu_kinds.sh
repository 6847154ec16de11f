#!/usr/bin/env bash
#===- gpu_kinds.sh - Check and time a suite's packages kind by kind --------===#
#
# Part of the spperm project.
#
#===------------------------------------------------------------------------===#
#
# After gpu_suite.sh has unpacked an archive of gpu_suite_prepare.sh (with
# MAIN_EXTRA kinds such as "bf16|--dtype bf16" or "bf16k32|--dtype bf16
# --k 32"), runs spperm-verify over one kind of package at a time, each at
# its own K values, in the same device call:
#
#   bash tools/scripts/gpu_kinds.sh SUITE OUT KIND[:KS[:BENCH_KS]] ...
#
# SUITE is the unpacked suite/ (build-gpu/suite-work/suite); KIND the
# package suffix (auto.auto, bf16, f16, f32wide, bf16k32, ...). Each kind's
# packages, SUITE/*.KIND.spp and SUITE/gen/*.KIND.spp, move to
# SUITE/kinds/KIND beside links to the matrices their sources name, and
# spperm-verify checks them at KS (default 1,32,128,512) and, when given,
# times them at BENCH_KS; its output is OUT/KIND.verify.log. The exit status
# is the number of kinds with a failure (or no packages).
#
# Environment: VERIFY (default build-gpu/bin/spperm-verify), DEVICE (gpu),
# JOBS (14), MAX_BENCH_MS (50), SPPERM_LOG_CHOICES (1: the runtime's
# first-call choices in the log), LIMIT (seconds per kind, default none:
# spperm-verify is stopped there, its log keeping the packages it finished,
# and the kind counts as failed).
#
#===------------------------------------------------------------------------===#
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VERIFY="${VERIFY:-$ROOT/build-gpu/bin/spperm-verify}"
DEVICE="${DEVICE:-gpu}"
JOBS="${JOBS:-14}"
MAX_BENCH_MS="${MAX_BENCH_MS:-50}"
export SPPERM_LOG_CHOICES="${SPPERM_LOG_CHOICES:-1}"

if [[ $# -lt 3 ]]; then
  echo "usage: gpu_kinds.sh SUITE OUT KIND[:KS[:BENCH_KS]] ..." >&2
  exit 2
fi
SUITE=$(cd "$1" && pwd) || exit 2
OUT=$2
shift 2
mkdir -p "$OUT"
failed=0
for spec in "$@"; do
  IFS=: read -r kind ks bench <<<"$spec"
  ks=${ks:-1,32,128,512}
  dir="$SUITE/kinds/$kind"
  mkdir -p "$dir"
  # The shared matrices (m/) and the generated ones (gen/*.mtx), which the
  # packages name relative to their own directory.
  [[ -e "$SUITE/m" && ! -e "$dir/m" ]] && ln -s ../../m "$dir/m"
  for f in "$SUITE"/gen/*.mtx; do
    [[ -e "$f" && ! -e "$dir/$(basename "$f")" ]] &&
      ln -s "../../gen/$(basename "$f")" "$dir/"
  done
  shopt -s nullglob
  pkgs=("$SUITE"/*."$kind".spp "$SUITE"/gen/*."$kind".spp)
  shopt -u nullglob
  for p in ${pkgs[@]+"${pkgs[@]}"}; do
    mv "$p" "$dir/"
  done
  log="$OUT/$kind.verify.log"
  count=$(find "$dir" -maxdepth 1 -name "*.spp" | wc -l)
  if [[ $count == 0 ]]; then
    echo "== $kind: no packages" | tee "$log"
    failed=$((failed + 1))
    continue
  fi
  args=("$dir" --device "$DEVICE" --k "$ks" --jobs "$JOBS")
  [[ -n "$bench" ]] &&
    args+=(--bench "$bench" --max-bench-ms "$MAX_BENCH_MS")
  START=$SECONDS
  limit=()
  [[ -n "${LIMIT:-}" ]] && limit=(timeout "$LIMIT")
  ${limit[@]+"${limit[@]}"} "$VERIFY" "${args[@]}" >"$log" 2>&1
  rc=$?
  echo "== $kind: $count packages, K $ks${bench:+, timed at $bench}, $((SECONDS - START)) s${LIMIT:+ (limit $LIMIT s, rc $rc)}: $(grep '^summary' "$log" | tail -1)"
  [[ $rc == 0 ]] || failed=$((failed + 1))
done
exit "$failed"
