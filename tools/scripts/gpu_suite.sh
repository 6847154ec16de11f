#!/usr/bin/env bash
#===- gpu_suite.sh - The GPU correctness suite, in one device call ---------===#
#
# Part of the spperm project.
#
#===------------------------------------------------------------------------===#
#
# Runs on the GPU machine, from the repository root, with .gpu/ carried
# (made here by gpu_prepare.sh for deps/ and gpu_suite_prepare.sh for
# suite.tar.xz):
#   SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps OUT=$OUT \
#     bash tools/scripts/gpu_suite.sh
# Builds the MLIR-free half, runs RuntimeTests (its GPU tests must run, not
# skip), unpacks the suite, regenerates the big matrices, runs spperm-verify
# over every package for K in $KS (default 1,32,128,200,256,512: 200 runs
# the range variants of packages for any K; timings for BENCH_KS, default
# 32,128,256,512: BENCHMARK.md's K and 256), spperm-run with float16 B and
# C files on the GPU against the CPU executor (f16 packages), then
# compute-sanitizer memcheck, racecheck, initcheck and synccheck on one
# package per kernel family (suite/san/*.spp) and the subnormal packages
# (suite/sub/*.spp: the only values on which the atomic adds' compare-
# and-swap loops run).
# Writes $OUT/summary.txt (what docs/results/ keeps) and $OUT/verify.log;
# exits non-zero on any failure.
#
#===------------------------------------------------------------------------===#
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD="$ROOT/build-gpu"
OUTDIR="${OUT:-$BUILD/gpu-suite}"
KS="${KS:-1,32,128,200,256,512,520}"
BENCH_KS="${BENCH_KS:-32,128,256,512}"
# Timed runs per measurement (spperm-verify --runs, --max-bench-ms) and
# packages checked at once for the main set: 1 by default — with 8 threads,
# packages that run cuSPARSE (the library check, the cusparse format) made
# every check ~100x slower in driver contention (1,444 packages: 736 checks
# in 540 s with 8 jobs, 2,148 in 140 s with 1).
RUNS="${RUNS:-20}"
MAX_BENCH_MS="${MAX_BENCH_MS:-0}"
MAIN_JOBS="${MAIN_JOBS:-1}"
# Which parts run: main (the shared matrices, or those of MAIN_GLOB, and
# the sweep's generated ones in suite/gen unless GEN=0), big (the generated
# >= 1 M-row ones),
# tc (tensor-core variants), sub (subnormal values, SUB_KS), san
# (compute-sanitizer), conc (concurrent calls
# from several threads and streams); BIG_GLOB (space-separated globs) narrows
# the big packages.
SETS="${SETS:-main big tc sub san conc aot}"
# The K values the compute-sanitizer runs check: SpMV, the scalar kernels,
# the K buckets 8, 32, 64, 128, 256, 512 and, between them, every group
# size of the variants for any K (docs/Kernels.md, "Variants by K"): vec4
# with 2, 8, 16, 32 lanes (K = 4, 12 or 24, 44 or 48, 96 or 100) and, in
# 16 bits, vec8 with 4, 8, 16 lanes (K = 24, 48, 96; its 1-lane class
# takes K = 8 only in packages without that bucket) and vec4 with 2, 8,
# 16, 32 (K = 4, 12, 44, 100), and the range variants of K = 100, 200
# and 520 (above the largest bucket: a grid grown by one slice;
# docs/Kernels.md, "Range variants"). A package compiled for one K (its
# manifest's `k`) is checked at that K too.
SAN_KS="${SAN_KS:-1,4,5,8,12,24,32,44,48,64,96,100,128,200,256,512,520}"
# The K values of the tensor-core packages' checks (TF32/FP16 variants
# take multiples of 8; 1 and 12 run their fp32 variants; 200 their range
# variant).
TC_KS="${TC_KS:-1,8,12,16,32,128,200,512}"
# The K values of the subnormal packages' checks: SpMV, the small K the
# scalar and 2-lane kernels take, the buckets and the largest.
SUB_KS="${SUB_KS:-1,2,3,4,5,8,16,32,128,256,512}"
# The compute-sanitizer tools those runs take, space-separated.
SAN_TOOLS="${SAN_TOOLS:-memcheck racecheck initcheck synccheck}"
# The packages of suite/san and suite/sub the sanitizer runs
# (space-separated globs of their names without .spp; sub.* names the
# subnormal ones).
SAN_GLOB="${SAN_GLOB:-*}"
BIG_GLOB="${BIG_GLOB:-*}"
# The archive gpu_suite_prepare.sh made (its ARCHIVE): two archives can run
# one after the other in one device call.
ARCHIVE="${ARCHIVE:-$ROOT/.gpu/suite.tar.xz}"
JOBS="${JOBS:-$(nproc)}"
mkdir -p "$OUTDIR"
SUMMARY="$OUTDIR/summary.txt"
: >"$SUMMARY"
FAILURES=0
say() { echo "== $*" | tee -a "$SUMMARY"; }
fail() { echo "FAIL: $*" | tee -a "$SUMMARY"; FAILURES=$((FAILURES + 1)); }
# The result of one spperm-verify run over a set of packages (LABEL, its
# LOG, its exit status RC): the checks passed and failed into the summary,
# and a failure for any FAIL, for a run that checked nothing, or for a
# nonzero exit.
summarize_checks() {
  local label=$1 log=$2 rc=$3 n
  echo "$label checks passed: $(grep -c '^ok ' "$log")" | tee -a "$SUMMARY"
  n=$(grep -c '^FAIL' "$log")
  echo "$label checks failed: $n" | tee -a "$SUMMARY"
  grep '^FAIL' "$log" | head -20 | tee -a "$SUMMARY"
  [[ "$n" == 0 ]] || fail "$n $label checks failed"
  grep -q '^ok ' "$log" || fail "$label: no check ran"
  [[ $rc == 0 ]] || fail "$label: spperm-verify exited $rc"
}

say "gpu_suite: $(date -u +%FT%TZ)"
say "SPPERM_DEPENDENT_LAUNCH=${SPPERM_DEPENDENT_LAUNCH:-1 (default)}"
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1 || true; } | tee -a "$SUMMARY"
GENERATOR="Unix Makefiles"
command -v ninja >/dev/null && GENERATOR=Ninja
START=$SECONDS
mkdir -p "$BUILD"
# The Python extension links the machine's shared zlib (ZLIB_FLAGS).
. "$ROOT/tools/scripts/shared_zlib.sh"
if ! cmake -G "$GENERATOR" -S "$ROOT" -B "$BUILD" -DSPPERM_ENABLE_COMPILER=OFF ${ZLIB_FLAGS[@]+"${ZLIB_FLAGS[@]}"} \
    -DCMAKE_BUILD_TYPE=Release ${SPPERM_CMAKE_ARGS:-} >"$BUILD/configure.log" 2>&1 ||
   ! cmake --build "$BUILD" -j "$JOBS" >"$BUILD/build.log" 2>&1; then
  tail -n 30 "$BUILD/build.log" "$BUILD/configure.log" 2>/dev/null
  fail "configure/build"
  exit 1
fi
say "built in $((SECONDS - START)) s"

say "RuntimeTests"
"$BUILD/unittests/Runtime/RuntimeTests" >"$OUTDIR/RuntimeTests.log" 2>&1
rc=$?
grep -E "^\[  (PASSED|SKIPPED|FAILED) " "$OUTDIR/RuntimeTests.log" | tee -a "$SUMMARY"
[[ $rc == 0 ]] || fail "RuntimeTests (see RuntimeTests.log)"
if grep "^\[  SKIPPED \] Gpu" "$OUTDIR/RuntimeTests.log" | grep -vq WithoutAGpu; then
  fail "GPU unit tests were skipped on the GPU machine"
fi

# The floors of the timing protocol (tools/lab/floor.cu) and the record's
# header: GPU, driver, clocks at the start, the commit the packages were
# compiled at.
FLOOR=""
FLOOR_WHY="no nvcc"
if command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]]; then
  NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  if ! "$NVCC" -O2 -o "$BUILD/floor" "$ROOT/tools/lab/floor.cu" >"$BUILD/floor.build.log" 2>&1; then
    FLOOR_WHY="nvcc failed: $(tail -n 1 "$BUILD/floor.build.log")"
  else
    FLOOR=$("$BUILD/floor" 2>&1 | grep '^floor ')
    FLOOR_WHY="floor failed: $("$BUILD/floor" 2>&1 | tail -1)"
  fi
fi
echo "${FLOOR:-floor: not measured ($FLOOR_WHY)}" | tee -a "$SUMMARY"
# What a second launch costs, in stream order and as a programmatic
# dependent (tools/lab/pdl.cu; docs/Kernels.md, "Launch overlap").
if [[ -n "$FLOOR" ]]; then
  if "$NVCC" -O2 -arch=sm_90 -o "$BUILD/pdl" "$ROOT/tools/lab/pdl.cu" >"$BUILD/pdl.build.log" 2>&1; then
    "$BUILD/pdl" 2>&1 | grep '^pdl ' | tee -a "$SUMMARY" || fail "tools/lab/pdl.cu"
  else
    echo "pdl: not measured (nvcc failed: $(tail -n 1 "$BUILD/pdl.build.log"))" | tee -a "$SUMMARY"
  fi
fi

WORK="$BUILD/suite-work"
rm -rf "$WORK" && mkdir -p "$WORK"
xz -dc "$ARCHIVE" | tar -C "$WORK" -xf -
S="$WORK/suite"
python3 - "$OUTDIR/meta.json" "$FLOOR" "$S/COMMIT" "$RUNS" <<'PY'
import json, os, shlex, subprocess, sys
out, floor, commit, runs = sys.argv[1:5]
meta = {"commit": open(commit).read().strip() if os.path.exists(commit) else "unknown"}
try:
    q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm",
                        "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    name, driver, sm, mem, smmax = [x.strip() for x in q.split(",")]
    meta.update(gpu=name, driver=driver, clock_sm=sm, clock_mem=mem, clock_sm_max=smmax)
except Exception as e:
    meta["gpu"] = f"unknown ({e})"
if floor:
    kv = dict(t.split("=", 1) for t in shlex.split(floor)[1:])
    meta["floor"] = {k: (v if k == "device" else float(v)) for k, v in kv.items()}
meta["timing"] = f"CUDA events per run, runs queued behind a host flag (nvbench blocking), median of {runs} after 5 warm-ups (spperm-verify --bench; fewer runs past --max-bench-ms)"
json.dump(meta, open(out, "w"), indent=1)
PY
[[ -s "$OUTDIR/meta.json" ]] || echo '{}' >"$OUTDIR/meta.json"
if compgen -G "$S/big/*.spp" >/dev/null; then
  START=$SECONDS
  "$BUILD/bin/spperm-gen" rmat --scale 20 --edge-factor 16 --seed 1 -o "$S/big/rmat20.mtx"
  "$BUILD/bin/spperm-gen" banded --rows 1048576 --half-width 5 --seed 1 -o "$S/big/banded1m.mtx"
  "$BUILD/bin/spperm-gen" block --rows 1048576 --cols 1048576 --block 32 --block-density 0.00001 --seed 1 -o "$S/big/block1m.mtx"
  say "regenerated the big matrices in $((SECONDS - START)) s"
fi
# The selector sweep's generated matrices (gpu_suite_prepare.sh GEN_LIST):
# one "FILE KIND ARGS..." line each, regenerated bit for bit by spperm-gen.
if [[ -s "$S/gen/GEN.txt" ]]; then
  START=$SECONDS
  while read -r file args; do
    # shellcheck disable=SC2086
    "$BUILD/bin/spperm-gen" $args -o "$S/gen/$file" || fail "spperm-gen $args"
  done <"$S/gen/GEN.txt"
  say "regenerated $(wc -l <"$S/gen/GEN.txt") generated matrices in $((SECONDS - START)) s"
fi

say "spperm-verify: K in $KS, poisoned C, float64 reference from the source, normwise tolerance 1e-5; timings for K in $BENCH_KS"
START=$SECONDS
if [[ " $SETS " == *" main "* ]]; then
  MAIN_DIR="$S"
  if [[ -n "${MAIN_GLOB:-}" ]]; then
    # A share of the main set (a long sweep split over device calls): links
    # to the packages that match, beside a link to the matrices they name.
    MAIN_DIR="$WORK/share"
    mkdir -p "$MAIN_DIR"
    ln -s ../suite/m "$MAIN_DIR/m"
    for g in $MAIN_GLOB; do
      for pkg in "$S"/$g; do
        [[ -d "$pkg" ]] && ln -s "$pkg" "$MAIN_DIR/$(basename "$pkg")"
      done
    done
    say "main set: $(ls -d "$MAIN_DIR"/*.spp 2>/dev/null | wc -l) packages matching $MAIN_GLOB"
  fi
  "$BUILD/bin/spperm-verify" "$MAIN_DIR" --device gpu --k "$KS" --bench "$BENCH_KS" --runs "$RUNS" --max-bench-ms "$MAX_BENCH_MS" --jobs "$MAIN_JOBS" >>"$OUTDIR/verify.log" 2>&1 || true
  if [[ "${GEN:-1}" == 1 ]] && compgen -G "$S/gen/*.spp" >/dev/null; then
    "$BUILD/bin/spperm-verify" "$S/gen" --device gpu --k "$KS" --bench "$BENCH_KS" --runs "$RUNS" --max-bench-ms "$MAX_BENCH_MS" --jobs "$MAIN_JOBS" >>"$OUTDIR/verify.log" 2>&1 || true
  fi
fi
if [[ " $SETS " == *" big "* ]]; then
  if [[ "$BIG_GLOB" == "*" ]]; then
    # Six packages at once: their host work (rebuilding the layer,
    # the float64 reference) overlaps; GPU work is serialized.
    "$BUILD/bin/spperm-verify" "$S/big" --device gpu --k "$KS" --bench "$BENCH_KS" --runs "$RUNS" --jobs 6 >>"$OUTDIR/verify.log" 2>&1 || true
  else
    for pkg in $(for g in $BIG_GLOB; do echo "$S"/big/$g.spp; done); do
      [[ -e "$pkg" ]] || continue
      "$BUILD/bin/spperm-verify" "$pkg" --device gpu --k "$KS" --bench "$BENCH_KS" --runs "$RUNS" --jobs 1 >>"$OUTDIR/verify.log" 2>&1 || true
    done
  fi
fi
touch "$OUTDIR/verify.log"
if [[ " $SETS " == *" tc "* ]] && compgen -G "$S/tc/*.spp" >/dev/null; then
  # Tensor-core variants (opt-in precision): TF32/FP16 inputs carry a
  # relative error of about 2^-11 per product, so the bound is 5e-3.
  say "tensor-core packages: K in $TC_KS (1 and 12 through the fp32 variants), tolerance 5e-3"
  "$BUILD/bin/spperm-verify" "$S/tc" --device gpu --k "$TC_KS" --tolerance 5e-3 \
    --bench "$BENCH_KS" --jobs 8 >"$OUTDIR/tc.log" 2>&1
  rc=$?
  summarize_checks tc "$OUTDIR/tc.log" $rc
  grep -A12 '^summary' "$OUTDIR/tc.log" | tee -a "$SUMMARY"
fi
if [[ " $SETS " == *" sub "* ]] && compgen -G "$S/sub/*.spp" >/dev/null; then
  # Subnormal values through the generated kernels (docs/Kernels.md,
  # "Subnormals"): the normal tolerance, with the verifier's allowance of
  # 2^-149 an entry for what fp32 cannot hold.
  say "subnormal packages: K in $SUB_KS"
  "$BUILD/bin/spperm-verify" "$S/sub" --device gpu --k "$SUB_KS" --jobs 1 \
    >"$OUTDIR/sub.log" 2>&1
  rc=$?
  summarize_checks subnormal "$OUTDIR/sub.log" $rc
fi
say "verified in $((SECONDS - START)) s"
grep -c '^ok ' "$OUTDIR/verify.log" | sed 's/^/checks passed: /' | tee -a "$SUMMARY"
nfail=$(grep -c '^FAIL' "$OUTDIR/verify.log")
echo "checks failed: $nfail" | tee -a "$SUMMARY"
grep '^FAIL' "$OUTDIR/verify.log" | head -40 | tee -a "$SUMMARY"
grep -A40 '^summary' "$OUTDIR/verify.log" | tee -a "$SUMMARY"
python3 - "$OUTDIR/verify.log" <<'PY' | tee -a "$SUMMARY"
import re, sys, collections
rows = collections.defaultdict(lambda: [0, 0.0])
pk = set()
for line in open(sys.argv[1]):
    m = re.match(r'(ok  |FAIL) (\S+) \S+ K=(\d+) format=(\S+) strategy=(\S+) variant=(\S+) rel_err=(\S+)', line)
    if not m: continue
    pk.add(m.group(2))
    key = (m.group(4), m.group(5), int(m.group(3)))
    rows[key][0] += 1
    rows[key][1] = max(rows[key][1], float(m.group(7)))
print(f"packages: {len(pk)}")
print("| format | strategy | K | checks | max rel. error |")
print("|---|---|---|---|---|")
for (f, s, k), (n, e) in sorted(rows.items()):
    print(f"| {f} | {s} | {k} | {n} | {e:.2e} |")
PY
[[ "$nfail" == 0 ]] || fail "$nfail checks failed"

say "benchmark: best and selected (auto) spperm package vs best cuSPARSE algorithm, per matrix"
python3 "$ROOT/tools/scripts/bench_table.py" "$OUTDIR/verify.log" "$OUTDIR/bench.json" "$OUTDIR/meta.json" | tee -a "$SUMMARY"

# The AOT example (examples/aot): the runtime installed, the example built
# against it with find_package(spperm), run on the GPU against the CPU
# executor.
if [[ " $SETS " == *" aot "* ]] && [[ -d "$S/aot/block.spp" ]]; then
  say "AOT example"
  if cmake --install "$BUILD" --prefix "$BUILD/install" >"$BUILD/aot.log" 2>&1 &&
     cmake -S "$ROOT/examples/aot" -B "$BUILD/aot" -G "$GENERATOR" \
       -DCMAKE_PREFIX_PATH="$BUILD/install" >>"$BUILD/aot.log" 2>&1 &&
     cmake --build "$BUILD/aot" >>"$BUILD/aot.log" 2>&1; then
    "$BUILD/aot/spperm-aot-example" "$S/aot/block.spp" 64 2>&1 | tee -a "$SUMMARY"
    rc=${PIPESTATUS[0]}
    grep -q "every GPU layer matches" "$SUMMARY" || rc=1
    [[ $rc == 0 ]] || fail "the AOT example (exit $rc)"
  else
    tail -n 20 "$BUILD/aot.log" | tee -a "$SUMMARY"
    fail "the AOT example did not build against the installed runtime"
  fi
fi

# Float16 operand files (`<f2` B and C, docs/DESIGN.md): spperm-run on the
# GPU against the CPU executor for up to three f16 packages of the main set,
# K = 1, 32, 128. Both accumulate in fp32 and round C once; their sums'
# order differs, so they agree within fp16's rounding (normwise 2^-10).
if [[ " $SETS " == *" main "* ]]; then
  f2pkgs=$(ls -d "$S"/*.f16.spp 2>/dev/null | head -3)
  if [[ -n "$f2pkgs" ]]; then
    say "float16 B and C files: spperm-run --device gpu vs cpu"
    F2="$BUILD/f2"
    mkdir -p "$F2"
    for pkg in $f2pkgs; do
      cols=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['layers'][0]['cols'])" "$pkg/manifest.json")
      for k in 1 32 128; do
        python3 -c "import numpy as np, sys; np.save(sys.argv[1], np.random.default_rng(int(sys.argv[3])).uniform(-1, 1, (int(sys.argv[2]), int(sys.argv[3]))).astype(np.float16))" "$F2/b.npy" "$cols" "$k"
        if ! "$BUILD/bin/spperm-run" "$pkg" --device gpu --b "$F2/b.npy" --out "$F2/gpu.npy" >>"$F2/log" 2>&1 ||
           ! "$BUILD/bin/spperm-run" "$pkg" --device cpu --b "$F2/b.npy" --out "$F2/cpu.npy" >>"$F2/log" 2>&1; then
          fail "f2: spperm-run failed on $(basename "$pkg") at K=$k"
          tail -n 3 "$F2/log" >>"$SUMMARY"
          continue
        fi
        python3 - "$F2" "$(basename "$pkg")" "$k" <<'PY' 2>&1 | tee -a "$SUMMARY"
import numpy as np, sys
d, name, k = sys.argv[1:4]
g, c = np.load(d + "/gpu.npy"), np.load(d + "/cpu.npy")
g64, c64 = g.astype(np.float64), c.astype(np.float64)
err = np.linalg.norm(g64 - c64) / max(np.linalg.norm(c64), 1e-30)
ok = (g.dtype == np.float16 and c.dtype == np.float16 and g.shape == c.shape
      and np.isfinite(g64).all() and err <= 2.0 ** -10)
print(f"f2 {name} K={k}: C {g.shape} {g.dtype}, normwise GPU vs CPU "
      f"{err:.2e} {'ok' if ok else 'FAIL'}")
PY
        grep -q "^f2 $(basename "$pkg") K=$k: .* ok$" "$SUMMARY" ||
          fail "f2: $(basename "$pkg") at K=$k"
      done
    done
  fi
fi

# The checks' --tolerance for a package of suite/san or suite/sub: 5e-3
# where TF32 or FP16 tensor cores round fp32 operands (names *tf32*, *f16*;
# not 3xtf32), else 1e-5 — also for 16-bit operands (*.dtype-f16, -bf16,
# sub.*.bf16), whose check bounds the error of an fp32 sum before C's
# rounding.
san_tolerance() {
  case "$(basename "$1")" in
  sub.* | *dtype-*16* | *3xtf32*) echo 1e-5 ;;
  *tf32* | *f16*) echo 5e-3 ;;
  *) echo 1e-5 ;;
  esac
}

# KS with the K of each layer of package PKG compiled for one K (its
# manifest's `k`) added: such a layer runs at its own K only.
with_own_ks() { # KS PKG
  local ks=$1 own
  for own in $(python3 -c 'import json, sys
print(" ".join(sorted({str(l["k"]) for l in json.load(open(sys.argv[1] + "/manifest.json"))["layers"] if l.get("k")})))' "$2"); do
    [[ ",$ks," == *",$own,"* ]] || ks="$ks,$own"
  done
  echo "$ks"
}

# Concurrency (docs/Testing.md, "Concurrency"): every package of suite/san
# (one per kernel family) and the hbp package of runtime/unittests/Inputs/legacy-hbp
# (kernels with module-level tickets, from before the "tickets" parameter)
# called from CONC_THREADS threads at once, each with its own stream and C,
# K cycling through CONC_KS (and a package's own K, if compiled for one),
# C poisoned before and checked after every call; then timed without
# checks on 1 and CONC_THREADS threads; then compute-sanitizer racecheck on
# the hbp packages' concurrent calls.
CONC_THREADS="${CONC_THREADS:-8}"
CONC_CALLS="${CONC_CALLS:-60}"
CONC_KS="${CONC_KS:-1,5,8,32,64,128,512}"
if [[ " $SETS " == *" conc "* ]]; then
  say "concurrency: $CONC_THREADS threads x $CONC_CALLS calls, K = $CONC_KS"
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for pkg in "$S"/san/*.spp "$ROOT"/runtime/unittests/Inputs/legacy-hbp/*.spp ${CONC_EXTRA:-}; do
    [[ -e "$pkg" ]] || continue
    tol=$(san_tolerance "$pkg")
    log="$BUILD/conc.$(basename "$pkg" .spp).log"
    "$BUILD/bin/spperm-verify" "$pkg" --device gpu --k "$(with_own_ks "$CONC_KS" "$pkg")" --tolerance "$tol" \
      --jobs 1 --threads "$CONC_THREADS" --calls "$CONC_CALLS" >"$log" 2>&1
    rc=$?
    line=$(grep ' concurrent threads=' "$log" | sed "s|^\(....\) .*/\([^/]*\.spp\) |\1 \2 |")
    echo "${line:-$(basename "$pkg"): no concurrency line (exit $rc)}" | tee -a "$SUMMARY"
    [[ $rc == 0 ]] || { fail "concurrency: $(basename "$pkg") (exit $rc)"; grep -m 12 FAIL "$log" >>"$SUMMARY"; }
    if [[ "$pkg" == *hbp* && -x "$CS" ]]; then
      rlog="$BUILD/conc.$(basename "$pkg" .spp).racecheck.log"
      "$CS" --tool racecheck --kernel-name "regex=^l[0-9]+_" --error-exitcode 3 \
        "$BUILD/bin/spperm-verify" "$pkg" --device gpu --k 8,32 --jobs 1 --threads 4 --calls 8 >"$rlog" 2>&1
      rc=$?
      line="$(basename "$pkg") concurrent racecheck: $(grep -E 'RACECHECK SUMMARY' "$rlog" | tail -1) (exit $rc; $(grep ' concurrent threads=' "$rlog" | sed 's/.* concurrent //; s/ max_rel.*//'))"
      echo "$line" | tee -a "$SUMMARY"
      [[ $rc == 0 ]] || fail "$line"
    fi
  done
fi

if [[ " $SETS " != *" san "* ]]; then
  say "compute-sanitizer: not in SETS"
elif command -v compute-sanitizer >/dev/null || [[ -x /usr/local/cuda/bin/compute-sanitizer ]]; then
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  read -ra san_globs <<<"$SAN_GLOB"
  # shellcheck disable=SC2086
  for pkg in $(for g in "${san_globs[@]}"; do printf '%s\n' "$S"/san/$g.spp "$S"/sub/$g.spp; done | sort -u); do
    [[ -e "$pkg" ]] || continue
    # A package compiled for one K (its layers' manifest `k`) runs at it too.
    ks=$(with_own_ks "$SAN_KS" "$pkg")
    for tool in $SAN_TOOLS; do
      log="$BUILD/san.$(basename "$pkg" .spp).$tool.log"
      tol=$(san_tolerance "$pkg")
      # racecheck looks at spperm's kernels only (named l<layer>_...): it
      # reports hazards inside cuSPARSE's own kernels, which the library
      # check and the cusparse format run, that are not ours to fix. It
      # runs without the library check's dense candidate
      # (SPPERM_DENSE_BUDGET_MB=0): under racecheck, cuBLASLt's bf16 GEMM
      # on the H100 raises a hardware exception the sanitizer cannot handle
      # (memcheck of the same calls is clean;
      # docs/results/san-2026-11-27-s31).
      filter=()
      budget=${SPPERM_DENSE_BUDGET_MB:-}
      if [[ "$tool" == racecheck ]]; then
        filter=(--kernel-name "regex=^l[0-9]+_")
        budget=0
      fi
      SPPERM_DENSE_BUDGET_MB=$budget "$CS" --tool "$tool" "${filter[@]}" --error-exitcode 3 "$BUILD/bin/spperm-verify" "$pkg" --device gpu --k "$ks" --tolerance "$tol" --jobs 1 >"$log" 2>&1
      rc=$?
      # A run that checked nothing (no K of the list in the package) is a
      # gap, not a pass.
      [[ $rc == 0 ]] && ! grep -q '^ok ' "$log" && rc=5
      checks="$(grep -c '^ok ' "$log") checks, variants $(sed -n 's/.* variant=\([^ ]*\) .*/\1/p' "$log" | sort -u | tr '\n' ' ')"
      [[ $rc == 0 ]] && grep -q '^FAIL' "$log" && rc=4
      line="$(basename "$pkg") $tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1) (exit $rc; $checks)"
      echo "$line" | tee -a "$SUMMARY"
      [[ $rc == 0 ]] || { fail "$line"; grep -m20 -A8 '^=========  *[A-Z]' "$log" >>"$OUTDIR/sanitizer-errors.log"; }
    done
  done
else
  fail "compute-sanitizer not found"
fi
xz -9 "$OUTDIR/verify.log"
say "failures: $FAILURES"
exit $((FAILURES > 0))
