#!/usr/bin/env bash
#===- gpu_suite_prepare.sh - Packages for the GPU suite --------------------===#
#
# Part of the spperm project.
#
#===------------------------------------------------------------------------===#
#
# Run here (after the README's build): fills .gpu/ (see gpu_prepare.sh for
# deps/) with suite.tar.xz, which holds
#   suite/m/...          the matrices (a copy of ../shared/data/matrices)
#   suite/*.spp          one package per matrix x format x strategy, with
#                        external data (the package records m/FILE) and
#                        values random:3, and NAME.auto.auto.spp (what
#                        spperm-compile selects; SELECTED=0 leaves it out)
#   suite/COMMIT         the commit (and whether the tree was dirty) the
#                        packages were compiled at
#   suite/san/*.spp      one package per kernel family for compute-sanitizer
#   suite/sub/*.spp      a matrix of subnormal values in each format (csr
#                        and bell also with split long rows, bell also
#                        with dense tiles), fp32, bf16 and f16, the
#                        generated kernels only
#   suite/big/*.spp      the generated >= 1 M-row matrices' packages; the
#                        matrices themselves are regenerated on the device by
#                        spperm-gen (deterministic; gpu_suite.sh checks the
#                        sha256 through the package reader)
# Then gpu_suite.sh runs it in one device call.
#
# Usage: gpu_suite_prepare.sh [MATRIX_GLOB...]   (default: every matrix)
#   env FORMATS (csr bell hbp), STRATEGIES (identity lpt warp-aware bsa),
#   STAGE (.gpu/stage) and ARCHIVE (.gpu/suite.tar.xz) to prepare a second
#   archive while the first one runs,
#   BIG=0 to leave the generated matrices out, SELECTED, JOBS (nproc),
#   BIG_EXTRA: more packages of the generated matrices for experiments,
#   ";"-separated "SUFFIX|FLAGS" (e.g. "csr.lpt-b2|--format csr --strategy
#   lpt --batch 2" makes big/rmat20.csr.lpt-b2.spp); MAIN_EXTRA: the same
#   for the shared matrices; GEN_LIST: a file of generated matrices (lines
#   "NAME KIND ARGS", tools/selector/generated.txt), compiled like the
#   shared ones into suite/gen/ and regenerated on the device from
#   suite/gen/GEN.txt. DEPENDENT_ONLY=1 keeps only the main and gen
#   packages that have a kernel marked dependent_launch (a variant of
#   several launches): a re-sweep of what launch overlap changed.
#   MATRIX_EXTRA: a file of lines "NAME SUFFIX|FLAGS;..." that adds
#   packages for the one matrix whose package prefix is NAME (a shared
#   matrix's path with "/" as "__" and no extension, or a generated one's
#   name), e.g. compiled with a model that never saw it
#   (tools/selector/heldout.py).
#   COMPILE_FLAGS: flags added to every main, gen and big package (e.g.
#   "--k-buckets 256,512" for a sweep of those K). COMPILER: the
#   spperm-compile of the main, gen and big packages (default: this
#   checkout's), e.g. an older build's copy for a before/after archive
#   (suite/COMPILER then names it).
#
#===------------------------------------------------------------------------===#
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN="$ROOT/build/bin"
COMPILER="${COMPILER:-$BIN/spperm-compile}"
DATA="$ROOT/../shared/data/matrices"
STAGE="${STAGE:-$ROOT/.gpu/stage}"
ARCHIVE="${ARCHIVE:-$ROOT/.gpu/suite.tar.xz}"
FORMATS="${FORMATS:-csr bell hbp}"
STRATEGIES="${STRATEGIES:-identity lpt warp-aware bsa}"
BIG="${BIG:-1}"
SELECTED="${SELECTED:-1}"
# Parts of the archive: main (the shared matrices), big, san, tc (the
# tensor-core variants: bell with --precision tf32 and f16), sub (subnormal
# values in each format, fp32, bf16 and f16), aot (the example
# application's package).
PARTS="${PARTS:-main big san tc sub aot}"
[[ " $PARTS " == *" big "* ]] || BIG=0
JOBS="${JOBS:-$(nproc)}"

rm -rf "$STAGE"
mkdir -p "$STAGE/suite/m" "$STAGE/suite/big"
(cd "$ROOT" && echo "$(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- 2>/dev/null || echo -dirty)") >"$STAGE/suite/COMMIT"
# An archive whose packages another build compiled says which (COMPILER).
[[ "$COMPILER" == "$BIN/spperm-compile" ]] || echo "$COMPILER" >"$STAGE/suite/COMPILER"
if [[ $# -gt 0 ]]; then
  matrices=("$@")
else
  mapfile -t matrices < <(cd "$DATA" && find . -name '*.mtx.gz' -o -name '*.smtx.gz' | sed 's|^\./||' | sort)
fi
matrices_main=("${matrices[@]}")
[[ " $PARTS " == *" main "* ]] || matrices_main=()
# The main and tc parts compile the shared matrices: only they carry them.
[[ " $PARTS " == *" main "* || " $PARTS " == *" tc "* ]] || matrices=()
for m in ${matrices[@]+"${matrices[@]}"}; do
  mkdir -p "$STAGE/suite/m/$(dirname "$m")"
  cp "$DATA/$m" "$STAGE/suite/m/$m"
done

# One line per package: SOURCE OUTPUT FLAGS...
jobs_file="$STAGE/jobs.txt"
: >"$jobs_file"
# add_jobs SOURCE PREFIX EXTRAS: PREFIX.FORMAT.STRATEGY.spp for every format
# x strategy, PREFIX.auto.auto.spp (SELECTED=1), and the ";"-separated
# "SUFFIX|FLAGS" of EXTRAS as PREFIX.SUFFIX.spp.
declare -A per_matrix=()
if [[ -n "${MATRIX_EXTRA:-}" ]]; then
  while read -r name rest; do
    [[ -n "$name" ]] && per_matrix[$name]=$rest
  done <"$MATRIX_EXTRA"
fi
add_jobs() {
  local src=$1 prefix=$2 f s e extras more
  more=${per_matrix[$(basename "$prefix")]:-}
  for f in $FORMATS; do
    for s in $STRATEGIES; do
      echo "$src $prefix.$f.$s.spp --format $f --strategy $s" >>"$jobs_file"
    done
  done
  [[ "$SELECTED" != 1 ]] || echo "$src $prefix.auto.auto.spp --format auto --strategy auto" >>"$jobs_file"
  IFS=';' read -ra extras <<<"$3${more:+;$more}"
  for e in ${extras[@]+"${extras[@]}"}; do
    [[ -n "$e" ]] || continue
    echo "$src $prefix.${e%%|*}.spp ${e#*|}" >>"$jobs_file"
  done
}
for m in ${matrices_main[@]+"${matrices_main[@]}"}; do
  name=$(echo "$m" | sed 's|/|__|g; s|\.s\?mtx\.gz$||')
  add_jobs "$STAGE/suite/m/$m" "$STAGE/suite/$name" "${MAIN_EXTRA:-}"
done
if [[ -n "${GEN_LIST:-}" ]]; then
  mkdir -p "$STAGE/suite/gen"
  : >"$STAGE/suite/gen/GEN.txt"
  while read -r name args; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    # shellcheck disable=SC2086
    "$BIN/spperm-gen" $args -o "$STAGE/suite/gen/$name.mtx" >/dev/null
    echo "$name.mtx $args" >>"$STAGE/suite/gen/GEN.txt"
    add_jobs "$STAGE/suite/gen/$name.mtx" "$STAGE/suite/gen/$name" "${MAIN_EXTRA:-}"
  done <"$GEN_LIST"
fi
if [[ "$BIG" == 1 ]]; then
  # Graph500 R-MAT scale 20 (1 M rows, 16 M nnz), a banded 1 M-row matrix
  # (half-width 5, 11.5 M nnz) and a block-sparse 1 M x 1 M one (32 x 32
  # dense tiles with probability 1e-5, 10.9 M nnz); regenerated on the
  # device.
  "$BIN/spperm-gen" rmat --scale 20 --edge-factor 16 --seed 1 -o "$STAGE/suite/big/rmat20.mtx"
  "$BIN/spperm-gen" banded --rows 1048576 --half-width 5 --seed 1 -o "$STAGE/suite/big/banded1m.mtx"
  "$BIN/spperm-gen" block --rows 1048576 --cols 1048576 --block 32 --block-density 0.00001 --seed 1 -o "$STAGE/suite/big/block1m.mtx"
  for m in rmat20 banded1m block1m; do
    add_jobs "$STAGE/suite/big/$m.mtx" "$STAGE/suite/big/$m" "${BIG_EXTRA:-}"
  done
fi
echo "compiling $(wc -l <"$jobs_file") packages with $JOBS jobs"
export COMPILE_FLAGS="${COMPILE_FLAGS:-}"
# shellcheck disable=SC2016
xargs -r -P "$JOBS" -L 1 bash -c 'src=$1 out=$2; shift 2; "$0" "$src" -o "$out" "$@" --data external --values random:3 $COMPILE_FLAGS' "$COMPILER" <"$jobs_file"
mkdir -p "$STAGE/suite/san"
if [[ " $PARTS " == *" tc "* ]]; then
  mkdir -p "$STAGE/suite/tc"
  # The packages record their sources relative to suite/tc/: reach the
  # matrices through a link.
  ln -s ../m "$STAGE/suite/tc/m"
  "$BIN/spperm-gen" block --rows 2048 --cols 1000 --block 32 --block-density 0.2 --seed 3 -o "$STAGE/suite/tc/blocks.mtx"
  for p in tf32 f16; do
    for blk in 16 32; do
      "$BIN/spperm-compile" "$STAGE/suite/tc/blocks.mtx" -o "$STAGE/suite/tc/blocks.b$blk.$p.spp" \
        --format bell --block "$blk" --strategy identity --precision "$p" --values random:3
      # Half-dense blocks: the residual and the blocks both matter.
      "$BIN/spperm-compile" "$STAGE/suite/tc/blocks.mtx" -o "$STAGE/suite/tc/blocks.b$blk.d05.$p.spp" \
        --format bell --block "$blk" --delta 0.9 --strategy bsa --precision "$p" --values random:3
    done
    for m in "${matrices[@]}"; do
      name=$(echo "$m" | sed 's|/|__|g; s|\.s\?mtx\.gz$||')
      "$BIN/spperm-compile" "$STAGE/suite/tc/m/$m" -o "$STAGE/suite/tc/$name.$p.spp" --format bell \
        --strategy bsa --precision "$p" --data external --values random:3 2>/dev/null ||
        echo "skipped $m for $p (not compilable as bell)"
    done
  done
  rm -f "$STAGE/suite/tc/"*.mtx
fi
# compute-sanitizer targets, data embedded: one package (or more) per kernel
# family and launch shape, which gpu_suite.sh runs under memcheck, racecheck,
# initcheck and synccheck for the K of its SAN_KS (spmv, scalar, the K
# buckets and every group size between them). The manifest's kernel list of
# each is in suite/san/FAMILIES.txt.
if [[ " $PARTS " == *" san "* ]]; then
  san() { # NAME SOURCE FLAGS...
    local name=$1 src=$2
    shift 2
    "$BIN/spperm-compile" "$src" -o "$STAGE/suite/san/$name.spp" --values random:3 "$@"
  }
  # Tensor-core variants (bell, 32 x 32 blocks, half dense).
  "$BIN/spperm-gen" block --rows 2048 --cols 1000 --block 32 --block-density 0.2 --seed 3 -o "$STAGE/blocks.mtx"
  for p in tf32 f16 3xtf32; do
    san "blocks.bell.$p" "$STAGE/blocks.mtx" --format bell --block 32 --delta 0.9 --strategy bsa --precision "$p"
  done
  # fp32-accurate tensor cores for one K (chunk groups: 16 warps a slice),
  # and condensed tiles in bell-tile (K = 512: 4 chunk groups), the row
  # kernel's prologue (SpMV) and the tensor-core kernel.
  san blocks.bell.3xtf32.k512 "$STAGE/blocks.mtx" --format bell --strategy bsa --precision 3xtf32 --k 512
  san blocks.bell.condensed "$STAGE/blocks.mtx" --format bell --strategy bsa --bell-columns condensed
  san blocks.bell.condensed.k512 "$STAGE/blocks.mtx" --format bell --strategy bsa --bell-columns condensed --k 512
  san blocks.bell.condensed.3xtf32 "$STAGE/blocks.mtx" --format bell --strategy bsa --bell-columns condensed --precision 3xtf32
  # A skewed matrix (long rows: the split kernels, SpMV row ranges) in every
  # format; HBP with 512-column blocks stages its B tile in shared memory
  # (with the default 4096 columns only the 1-column variants fit).
  "$BIN/spperm-gen" skewed --rows 4096 --cols 4096 --seed 2 -o "$STAGE/skewed.mtx"
  for fs in csr:lpt bell:bsa hbp:identity; do
    san "skewed.${fs%%:*}" "$STAGE/skewed.mtx" --format "${fs%%:*}" --strategy "${fs##*:}"
  done
  san skewed.hbp512 "$STAGE/skewed.mtx" --format hbp --col-block 512 --strategy lpt
  # A SuiteSparse matrix of 22 K rows as hbp (fixed and competitive blocks):
  # the concurrency set compares it with its older twin in CONC_EXTRA.
  san cs4.hbp "$DATA/suitesparse/cs4.mtx.gz" --format hbp --strategy identity
  # Packages for one K (the k<K> variants, K a constant), and cuSPARSE: the
  # cusparse format and a selected package whose library check runs.
  san skewed.csr.k32 "$STAGE/skewed.mtx" --format csr --strategy lpt --k 32
  san skewed.csr.k5 "$STAGE/skewed.mtx" --format csr --strategy lpt --k 5
  san skewed.cusparse "$STAGE/skewed.mtx" --format cusparse --strategy identity
  # Many rows (the loop over broadcast batches; R-MAT scale 15, 262 K
  # entries, power-law rows) sorted by length into row ranges with their own
  # launches; a DLMC layer (few long rows: groups
  # sharing a row through shared memory, straight-line batches).
  "$BIN/spperm-gen" rmat --scale 15 --edge-factor 8 --seed 4 -o "$STAGE/many.mtx"
  san many.csr.lpt "$STAGE/many.mtx" --format csr --strategy lpt
  san many.bell.identity "$STAGE/many.mtx" --format bell --strategy identity
  # hbp with both kinds of blocks: 11 K stored 64 x 512 blocks for 1,024
  # warps, 8,192 of them fixed and the rest competitive.
  san many.hbp64 "$STAGE/many.mtx" --format hbp --row-block 64 --col-block 512 --strategy lpt
  dlmc="$DATA/dlmc/rn50/magnitude_pruning/0.8/bottleneck_1_block_group3_4_1.smtx.gz"
  san dlmc.csr.identity "$dlmc" --format csr --strategy identity
  san dlmc.csr.bsa.k128 "$dlmc" --format csr --strategy bsa --k 128
  # Long rows in CTAs of the row kernel (csr+long): a 0.98 layer with a
  # few rows of 100-300 entries, at K = 32 and 128 and for every K (the
  # bell one with the dense blocks of long rows in its long-row CTAs).
  dlmc98="$DATA/dlmc/rn50/magnitude_pruning/0.98/bottleneck_3_block_group4_1_1.smtx.gz"
  san dlmc98.csr.identity "$dlmc98" --format csr --strategy identity
  san dlmc98.csr.identity.k128 "$dlmc98" --format csr --strategy identity --k 128
  san dlmc98.bell.identity "$dlmc98" --format bell --strategy identity --block 4 --delta 0.1
  # The csr-window kernel: one column range (K = 128), column ranges added
  # atomically with a partial last K tile (K = 200), and long rows of a
  # skewed matrix in windows (K = 256).
  san dlmc.csr.window.k128 "$dlmc" --format csr --strategy identity --k 128 --row-windows always
  san dlmc98.csr.window.k200 "$dlmc98" --format csr --strategy identity --k 200 --row-windows always
  san skewed.csr.window.k256 "$STAGE/skewed.mtx" --format csr --strategy lpt --k 256 --row-windows always
  # The selector's choice for K = 32, with the runtime's library check.
  san dlmc.auto.k32 "$dlmc" --format auto --strategy auto --k 32
  # 16-bit operands, named *.dtype-TYPE (docs/Kernels.md, "Half
  # precision"; values of the same type unless named): the tensor-core
  # kernel on the operands as they are and bell-tile, both into the fp32
  # accumulator the row kernel adds and rounds; split long rows (SpMM and
  # SpMV) and hbp through the accumulator and the round kernel; the batch
  # loop of many rows (the batches of 4 of power-law ranges); groups
  # sharing a row, straight-line batches and long rows in CTAs (DLMC,
  # narrow column indices);
  # csr-window (16-bit K tiles of 256: one column range, and column
  # ranges added into the accumulator); a package for one K; fp32 values;
  # the selector's choice with the 16-bit library check.
  for t in bf16 f16; do
    san "blocks.bell.dtype-$t" "$STAGE/blocks.mtx" --format bell --block 32 --delta 0.9 --strategy bsa --dtype "$t" --precision f16
    san "skewed.csr.dtype-$t" "$STAGE/skewed.mtx" --format csr --strategy lpt --dtype "$t"
  done
  san blocks.bell.condensed.dtype-bf16 "$STAGE/blocks.mtx" --format bell --strategy bsa --bell-columns condensed --dtype bf16
  san skewed.hbp.dtype-bf16 "$STAGE/skewed.mtx" --format hbp --strategy identity --dtype bf16
  san skewed.bell.dtype-bf16 "$STAGE/skewed.mtx" --format bell --strategy bsa --dtype bf16
  san skewed.csr.k32.dtype-bf16 "$STAGE/skewed.mtx" --format csr --strategy lpt --dtype bf16 --k 32
  san skewed.csr.dtype-bf16v32 "$STAGE/skewed.mtx" --format csr --strategy lpt --dtype bf16 --values-dtype f32
  san many.csr.lpt.dtype-bf16 "$STAGE/many.mtx" --format csr --strategy lpt --dtype bf16
  san many.bell.identity.dtype-f16 "$STAGE/many.mtx" --format bell --strategy identity --dtype f16
  san dlmc.csr.identity.dtype-bf16 "$dlmc" --format csr --strategy identity --dtype bf16
  san dlmc98.csr.identity.dtype-bf16 "$dlmc98" --format csr --strategy identity --dtype bf16
  san dlmc.csr.window.k256.dtype-bf16 "$dlmc" --format csr --strategy identity --k 256 --row-windows always --dtype bf16
  san skewed.csr.window.k512.dtype-bf16 "$STAGE/skewed.mtx" --format csr --strategy lpt --k 512 --row-windows always --dtype bf16
  san dlmc.auto.k32.dtype-bf16 "$dlmc" --format auto --strategy auto --k 32 --dtype bf16
  rm -f "$STAGE/blocks.mtx" "$STAGE/skewed.mtx" "$STAGE/many.mtx"
  for pkg in "$STAGE"/suite/san/*.spp; do
    python3 -c 'import json, sys
m = json.load(open(sys.argv[1] + "/manifest.json"))
for l in m["layers"]:
    print(sys.argv[1].split("/")[-1], l["format"], " ".join(sorted({k["family"] + "/" + k["variant"] for k in l["kernels"]})))' "$pkg"
  done >"$STAGE/suite/san/FAMILIES.txt"
  cat "$STAGE/suite/san/FAMILIES.txt"
fi
# Subnormal values through every family's own kernels (docs/Kernels.md,
# "Subnormals"): a 3,000-row matrix, about 12 entries a row and 8 rows of
# about 400, values +-[1e-40, 1e-38], so that every product with B and most
# sums are fp32 subnormals. csr and bell as compiled by default (long rows
# in CTAs of their own: plain stores) and with --long-rows split (chunks
# added atomically), hbp (atomic adds of its blocks); --no-library-check:
# cuSPARSE flushes them (docs/Limits.md), which is not what this checks.
# The same matrix with 48 dense 32 x 32 blocks on the diagonal of rows
# 1,024-2,559 (56 % of its entries: a 16-bit layer runs its tiles in
# bell-tile at K >= 256 when at least half are in them) gives bf16 packages
# with dense tiles: bell-tile (sub.bell-tile.bf16) and the tensor cores
# (sub.bell-tc.bf16). f16 cannot
# hold those values, so its packages (every format above, tiles and tensor
# cores too) take the matrix with values +-[2^-24, 2^-14], f16's
# subnormals: values of A converted from them, and many elements of C
# rounded to them.
if [[ " $PARTS " == *" sub "* ]]; then
  mkdir -p "$STAGE/suite/sub"
  # subnormal_matrix OUT LOG10_LO LOG10_HI BLOCKS
  subnormal_matrix() {
    python3 - "$@" <<'PY'
import random, sys
out, lo, hi, blocks = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
rng = random.Random(62)
n = 3000
rows = []
for r in range(n):
    per_row = 400 if r < 8 else 12
    rows.append({c: rng.choice((-1, 1)) * 10.0 ** rng.uniform(lo, hi)
                 for c in sorted(rng.sample(range(n), rng.randint(per_row // 2, per_row * 3 // 2)))})
for b in range(blocks):
    for r in range(1024 + 32 * b, 1056 + 32 * b):
        for c in range(1024 + 32 * b, 1056 + 32 * b):
            rows[r][c] = rng.choice((-1, 1)) * 10.0 ** rng.uniform(lo, hi)
entries = [f"{r + 1} {c + 1} {v:.9e}" for r in range(n) for c, v in sorted(rows[r].items())]
with open(out, "w") as f:
    f.write("%%MatrixMarket matrix coordinate real general\n")
    f.write(f"{n} {n} {len(entries)}\n" + "\n".join(entries) + "\n")
PY
  }
  # compile_sub NAME MATRIX FLAGS...: suite/sub/sub.NAME.spp
  compile_sub() {
    local name=$1 matrix=$2
    shift 2
    "$BIN/spperm-compile" "$matrix" -o "$STAGE/suite/sub/sub.$name.spp" "$@" --no-library-check -q
  }
  subnormal_matrix "$STAGE/sub.mtx" -40 -38 0
  subnormal_matrix "$STAGE/sub-blocks.mtx" -40 -38 48
  # f16's smallest subnormal is 2^-24 (10^-7.22), its smallest normal 2^-14.
  subnormal_matrix "$STAGE/sub-f16.mtx" -7.2 -4.22 48
  tile=(--format bell --block 32 --delta 0.9 --strategy identity)
  for d in f32 bf16 f16; do
    m="$STAGE/sub.mtx"
    [[ $d == f16 ]] && m="$STAGE/sub-f16.mtx"
    for f in csr bell hbp; do
      compile_sub "$f.$d" "$m" --format "$f" --strategy lpt --dtype "$d"
    done
    for f in csr bell; do
      compile_sub "$f-split.$d" "$m" --format "$f" --strategy lpt --dtype "$d" --long-rows split
    done
  done
  compile_sub bell-tile.bf16 "$STAGE/sub-blocks.mtx" "${tile[@]}" --dtype bf16
  compile_sub bell-tc.bf16 "$STAGE/sub-blocks.mtx" "${tile[@]}" --dtype bf16 --precision f16
  compile_sub bell-tile.f16 "$STAGE/sub-f16.mtx" "${tile[@]}" --dtype f16
  compile_sub bell-tc.f16 "$STAGE/sub-f16.mtx" "${tile[@]}" --dtype f16 --precision f16
  rm -f "$STAGE/sub.mtx" "$STAGE/sub-blocks.mtx" "$STAGE/sub-f16.mtx"
fi
# The AOT example's package (examples/aot: a DLMC Transformer block, every
# layer selected), which gpu_suite.sh runs through the example application
# built against the installed runtime.
if [[ " $PARTS " == *" aot "* ]]; then
  mkdir -p "$STAGE/suite/aot"
  (cd "$ROOT/examples/aot" && "$BIN/spperm-compile" transformer_block.mlir \
    -o "$STAGE/suite/aot/block.spp" --strategy auto --format auto)
fi
if [[ "${DEPENDENT_ONLY:-0}" == 1 ]]; then
  python3 - "$STAGE/suite" <<'PY'
import glob, json, os, shutil, sys
kept = dropped = 0
for pkg in sorted(glob.glob(sys.argv[1] + "/*.spp") + glob.glob(sys.argv[1] + "/gen/*.spp")):
    m = json.load(open(pkg + "/manifest.json"))
    if any(k.get("dependent_launch") for l in m["layers"] for k in l["kernels"]):
        kept += 1
    else:
        shutil.rmtree(pkg)
        dropped += 1
print(f"DEPENDENT_ONLY: kept {kept} packages, dropped {dropped}")
PY
fi
rm -f "$STAGE/suite/big/"*.mtx "$STAGE/suite/gen/"*.mtx "$STAGE/skewed.mtx"
tar -C "$STAGE" -cf - suite | xz -T0 -6 >"$ARCHIVE"
rm -rf "$STAGE"
ls -la "$ARCHIVE"
du -sh "$ROOT/.gpu" | sed 's/^/carried: /'
