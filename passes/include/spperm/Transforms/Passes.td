//===- Passes.td - spperm transformation passes ------------*- tablegen -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Passes over spperm IR (keep alphabetical). Flags carry the `spperm-`
// prefix; test-only passes would go under `spperm-test-*`.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TRANSFORMS_PASSES_TD
#define SPPERM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SpPermConvertFormat : Pass<"spperm-convert-format", "::mlir::ModuleOp"> {
  let summary = "Store each multiplied matrix in the chosen format";
  let description = [{
    Makes every `spperm.spmm` use its matrix in `format`, inserting a
    `spperm.convert` (the row permutation, if any, is kept):

    ```
    spmm(A : #csr<perm = P>) => spmm(convert(A) : #bell<..., perm = P>)
    ```

    Parameters that depend on the data are computed from it: for `bell`,
    the matrix is read, permuted and tiled, and the type records the ELL
    width (block columns per block row) and the density threshold δ (given,
    or searched by the cost model of docs/Formats.md). A width of 0 means no
    tile reached δ: every entry is in the CSR residual. It runs before
    `spperm-lower-to-gpu`: a multiplication already lowered is refused with
    an error (its kernels are made for the storage its matrix has).

    Before:
    ```mlir
    %C = spperm.spmm %P, %B : !spperm.matrix<64x64xf32,
        #spperm.csr<perm = #spperm.perm<bsa>>>, tensor<64x8xf32> -> ...
    ```
    After (`format=bell block=16`):
    ```mlir
    %F = spperm.convert %P : !spperm.matrix<64x64xf32,
        #spperm.csr<perm = #spperm.perm<bsa>>> -> !spperm.matrix<64x64xf32,
        #spperm.bell<block = 16, width = 2, residual = csr,
                     delta = 5.000000e-01 : f64, perm = #spperm.perm<bsa>>>
    %C = spperm.spmm %F, %B : ...
    ```
  }];
  let dependentDialects = ["::mlir::spperm::SpPermDialect"];
  let options = [
    Option<"format", "format", "::mlir::spperm::FormatOption",
           /*default=*/"::mlir::spperm::FormatOption::Csr",
           "Target format: csr, bell, hbp, cusparse (stored as csr, which "
           "the library runs on), auto (each load's spperm-select choice, "
           "cusparse kept in csr) or keep (no change)",
           "::mlir::spperm::FormatOptionValues()">,
    Option<"block", "block", "int64_t", /*default=*/"16",
           "bell: tile size tau (1, 2, 4, 8, 16 or 32)">,
    Option<"delta", "delta", "double", /*default=*/"0.0",
           "bell: density threshold in (0, 1]; 0 searches with the cost model">,
    Option<"columns", "columns", "::mlir::spperm::BellColumnsOption",
           /*default=*/"::mlir::spperm::BellColumnsOption::Blocks",
           "bell: tile columns: blocks (consecutive; default), condensed "
           "(any of the block row's dense columns) or auto (the cheaper by "
           "the cost model)",
           "::mlir::spperm::BellColumnsOptionValues()">,
    Option<"rowBlock", "row-block", "int64_t", /*default=*/"512",
           "hbp: rows per row block (a positive multiple of 32)">,
    Option<"colBlock", "col-block", "int64_t", /*default=*/"4096",
           "hbp: columns per column block">,
    Option<"baseDir", "base-dir", "std::string", /*default=*/"\"\"",
           "Directory that relative matrix paths are resolved against">,
  ];
}

def SpPermExpandAlternatives
    : Pass<"spperm-expand-alternatives", "::mlir::ModuleOp"> {
  let summary = "Make the selector's shortlist into alternative layers";
  let description = [{
    For every function (layer) whose `spperm.load` carries a
    `#spperm.choice` with `alternatives` (what `spperm-select{library-check}`
    records with a model that has a shortlist), inserts one copy of the
    function per alternative after it, named `NAME__altN` (N = 1, 2, ...),
    with that alternative as the copy's choice and the attribute
    `spperm.alternative_of = @NAME`; the original keeps its own choice
    without the list. `spperm-permute-rows{strategy=auto}` and
    `spperm-convert-format{format=auto}` then materialize every copy like
    any layer, and `spperm-compile` packages the copies as the layer's
    alternatives: the runtime times them beside the choice at the first
    call per K and runs the fastest (docs/Selector.md, "The shortlist").
    The pass is idempotent: it leaves no list behind.

    A function that holds the list but is not a layer (one `spperm.spmm`,
    in the body of a function of the top-level module, not inside a loop,
    a branch or a nested module: docs/Pipeline.md, "Layers"), or whose
    copy's name is taken, is an error.

    Before:
    ```mlir
    func.func @fc(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
      %A = spperm.load "a.mtx" {choice = #spperm.choice<strategy = "lpt",
          format = "csr", source = "shipped model sm_90",
          alternatives = [#spperm.choice<strategy = "bsa", format = "bell",
                                         source = "shortlist">]>}
          : !spperm.matrix<64x64xf32, #spperm.csr>
      ...
    }
    ```
    After:
    ```mlir
    func.func @fc(...) {
      %A = spperm.load "a.mtx" {choice = #spperm.choice<strategy = "lpt",
          format = "csr", source = "shipped model sm_90">} ...
    }
    func.func @fc__alt1(...) attributes {spperm.alternative_of = @fc} {
      %A = spperm.load "a.mtx" {choice = #spperm.choice<strategy = "bsa",
          format = "bell", source = "shortlist">} ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::spperm::SpPermDialect",
                           "::mlir::func::FuncDialect"];
}

def SpPermTensorCoreAlternatives
    : Pass<"spperm-tensor-core-alternatives", "::mlir::ModuleOp"> {
  let summary = "Add an fp32-accurate tensor-core alternative to every layer with dense blocks";
  let description = [{
    For the first function of each layer, in module order (the layer, then
    its alternatives), that holds one `spperm.spmm` of a `#spperm.bell`
    matrix with 16 × 16 or 32 × 32 dense blocks (`width` > 0) whose
    `#spperm.choice` the runtime checks (any source but `forced`; not the
    library), inserts a copy after it named
    `NAME__x3`, with `spperm.alternative_of` naming the layer (the
    function's own `spperm.alternative_of` when it is an alternative) and
    `spperm.precision = "3xtf32"`: `spperm-lower-to-gpu` then multiplies the
    copy's dense blocks on the tensor cores at fp32 accuracy (3xTF32,
    docs/Kernels.md `bell-3xtf32`; a layer of f16 or bf16 operands has them
    multiplied in their own type, m16n8k16, which is exact, "Half
    precision"), and `spperm-compile` packages it as one
    more alternative of the layer, which the runtime times beside the others
    at the first call per K and keeps where it is the fastest. Runs after
    `spperm-convert-format` (it reads the block shape from the matrix type).
    A function that already carries `spperm.precision`, or whose copy
    exists (the pass is idempotent), gets no copy; a copy's name that
    another function has taken is an error.

    After, for a layer @fc whose choice made bell with 16 × 16 blocks:
    ```mlir
    func.func @fc(...) { ... !spperm.matrix<..., #spperm.bell<block = 16, width = 3, ...>> ... }
    func.func @fc__x3(...) attributes {spperm.alternative_of = @fc,
                                       spperm.precision = "3xtf32"} { ... }
    ```
  }];
  let dependentDialects = ["::mlir::spperm::SpPermDialect",
                           "::mlir::func::FuncDialect"];
}

def SpPermExtractFeatures : Pass<"spperm-extract-features", "::mlir::ModuleOp"> {
  let summary = "Attach the static features of each loaded matrix";
  let description = [{
    Reads the file of every `spperm.load` (once per file and `values`), checks
    that its shape matches the result type, computes the matrix's static
    features (row-length and warp-load statistics, CTA imbalance, cache-line
    bitmask density, Hamming distances between neighbouring rows, block
    densities, ...; see docs/Features.md) and attaches them as the op's
    `features` attribute. A relative path is resolved against `base-dir` if
    given, else against the directory of the IR file the op came from, else
    the working directory.

    Before:
    ```mlir
    %A = spperm.load "a.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
    ```
    After:
    ```mlir
    %A = spperm.load "a.mtx" {features = #spperm.features<{rows = 4 : i64,
        cols = 5 : i64, nnz = 5 : i64, density = 2.500000e-01 : f64, ...}>}
        : !spperm.matrix<4x5xf32, #spperm.csr>
    ```
  }];
  let dependentDialects = ["::mlir::spperm::SpPermDialect"];
  let options = [
    Option<"baseDir", "base-dir", "std::string", /*default=*/"\"\"",
           "Directory that relative matrix paths are resolved against">,
    Option<"warps", "warps", "int64_t", /*default=*/"32",
           "Warps per CTA (N_w) of the kernel model">,
    Option<"lineWidth", "line", "int64_t", /*default=*/"32",
           "Columns per cache line of B">,
    Option<"rowsPerWarp", "rows-per-warp", "int64_t", /*default=*/"4",
           "Rows each warp processes in one CTA window">,
  ];
}

def SpPermPermuteRows : Pass<"spperm-permute-rows", "::mlir::ModuleOp"> {
  let summary = "Record a row permutation in the type of each matrix";
  let description = [{
    For every `spperm.load` whose matrix feeds `spperm.spmm`, inserts a
    `spperm.permute` to the same format carrying
    `#spperm.perm<strategy, ...>` and makes the multiplications use it:

    ```
    spmm(load(f)) => spmm(permute(load(f)))    // same result, original row order
    spmm(convert(load(f))) => spmm(convert(permute(load(f))))
    ```

    The permutation itself is not materialized in the IR: it is a
    deterministic function of the matrix and the attribute, recomputed when
    the package is written. Matrices that are already permuted are left
    alone. A `spperm.convert` straight from the load that feeds only
    multiplications takes the permutation (its result type records it; a
    convert keeps the row order). It runs before `spperm-lower-to-gpu`: an
    unpermuted matrix converted in any other way before a multiplication
    uses it (from another convert, or for other users too), or a
    multiplication already lowered, is refused with an error.

    Before:
    ```mlir
    %A = spperm.load "a.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
    %C = spperm.spmm %A, %B : !spperm.matrix<64x64xf32, #spperm.csr>, ...
    ```
    After (`strategy=lpt`):
    ```mlir
    %A = spperm.load "a.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
    %P = spperm.permute %A : !spperm.matrix<64x64xf32, #spperm.csr>
        -> !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<lpt>>>
    %C = spperm.spmm %P, %B : !spperm.matrix<64x64xf32,
        #spperm.csr<perm = #spperm.perm<lpt>>>, ...
    ```
  }];
  let dependentDialects = ["::mlir::spperm::SpPermDialect"];
  let options = [
    Option<"strategy", "strategy", "::mlir::spperm::StrategyOption",
           /*default=*/
           "::mlir::spperm::toStrategyOption(::spperm::Strategy::Identity)",
           "Strategy (docs/Permutations.md), auto (each load's spperm-select "
           "choice) or keep (no change)",
           "::mlir::spperm::StrategyOptionValues()">,
    Option<"warps", "warps", "int64_t", /*default=*/"32",
           "Warps per CTA (N_w)">,
    Option<"lineWidth", "line", "int64_t", /*default=*/"32",
           "Columns per cache line of B">,
    Option<"tau", "tau", "int64_t", /*default=*/"0",
           "BSA column-block width (bsa only; 0 = the default, 32)">,
    Option<"alpha", "alpha", "double", /*default=*/"0.0",
           "BSA similarity threshold (bsa only; 0 = the default, 0.3)">,
  ];
}

def SpPermRaiseLinalg : Pass<"spperm-raise-linalg", "::mlir::ModuleOp"> {
  let summary = "Raise sparse linalg matrix multiplications to spperm.spmm";
  let description = [{
    Lets code from MLIR's sparsifier world use spperm: a `linalg.matmul`,
    or a `linalg.generic` that is the same row-major contraction
    (`(m, k), (k, n) -> (m, n)`, a multiply-add body), whose left operand
    is an f32 CSR `#sparse_tensor.encoding` (dense rows, ordered unique
    compressed columns, identity map), whose right operand is a dense f32
    tensor and whose init is zero-filled (`linalg.fill` of 0.0) becomes a
    `spperm.spmm` of a `spperm.load` — when the sparse operand is an
    argument of the enclosing function that says where its fixed matrix
    lives: `spperm.source = "FILE"` (and optionally `spperm.values =
    "ones" | "file" | "random:SEED"`) as an argument attribute (the dialect
    checks both where they are written: docs/Dialects/SpPerm.md). Anything
    else is left as it is; the sparse argument stays (unused).

    Before:
    ```mlir
    #CSR = #sparse_tensor.encoding<{map = (i, j) -> (i : dense, j : compressed)}>
    func.func @fc(%w: tensor<64x64xf32, #CSR> {spperm.source = "w.mtx"},
                  %x: tensor<64x?xf32>, %init: tensor<64x?xf32>) -> tensor<64x?xf32> {
      %zero = arith.constant 0.0 : f32
      %c = linalg.fill ins(%zero : f32) outs(%init : tensor<64x?xf32>) -> tensor<64x?xf32>
      %y = linalg.matmul ins(%w, %x : tensor<64x64xf32, #CSR>, tensor<64x?xf32>)
                         outs(%c : tensor<64x?xf32>) -> tensor<64x?xf32>
      return %y : tensor<64x?xf32>
    }
    ```
    After:
    ```mlir
    %0 = spperm.load "w.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
    %y = spperm.spmm %0, %x : !spperm.matrix<64x64xf32, #spperm.csr>,
        tensor<64x?xf32> -> tensor<64x?xf32>
    ```
  }];
  let dependentDialects = ["::mlir::spperm::SpPermDialect"];
}

def SpPermSelect : Pass<"spperm-select", "::mlir::ModuleOp"> {
  let summary = "Choose each matrix's permutation strategy and format";
  let description = [{
    For every `spperm.load` whose matrix feeds `spperm.spmm`, ranks the
    candidate variants (a strategy × a format, and `cusparse`, the library)
    and records the first as the op's `choice` attribute, which
    `spperm-permute-rows{strategy=auto}` and
    `spperm-convert-format{format=auto}` then materialize.

    The ranking comes from the learned selector (docs/Selector.md):
    gradient-boosted trees over the matrix's static features (the `features`
    attribute of `spperm-extract-features`, which must have run) and K
    predict each candidate's time relative to the fastest; a candidate other
    than cuSPARSE wins only when predicted faster than it by the model's
    margin (or `margin`; with `library-check`, the model's checked margin,
    meant for choices the runtime checks against cuSPARSE), a format the model
    penalizes (bell) must be predicted ahead by its penalty, and a matrix
    outside the model's training domain gets cuSPARSE unless `library-check`
    is set (then the runtime's check decides). With `library-check`, a
    model that has a shortlist also records the runner-ups the runtime is
    to time beside the choice (the best-ranked csr and bell candidates, up
    to the model's count per format and `max-variants` in all) as the
    choice's `alternatives`; `spperm-expand-alternatives` makes them into
    layers. `model=FILE` reads a model; without it the model shipped for
    `target` is used (sm_90), and the analytic cost model for a target
    without one (or with `cost-model`). `strategy=`/`format=` force a
    choice (with only one forced, the best candidate that has it wins); a
    matrix the module already permutes (or converts) has its strategy (or
    format) forced the same way, so that the choice records what the layer
    runs. K is the multiplication's static K, else the `k` option.

    Before:
    ```mlir
    %A = spperm.load "a.mtx" {features = #spperm.features<{...}>}
        : !spperm.matrix<64x64xf32, #spperm.csr>
    ```
    After:
    ```mlir
    %A = spperm.load "a.mtx" {choice = #spperm.choice<strategy = "lpt",
        format = "csr", source = "shipped model sm_90">,
        features = #spperm.features<{...}>}
        : !spperm.matrix<64x64xf32, #spperm.csr>
    ```
  }];
  let dependentDialects = ["::mlir::spperm::SpPermDialect"];
  let options = [
    Option<"model", "model", "std::string", /*default=*/"\"\"",
           "Selector model file (JSON, docs/Selector.md); empty: the model "
           "shipped for target">,
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "GPU architecture whose shipped model is used">,
    Option<"costModel", "cost-model", "bool", /*default=*/"false",
           "Rank with the analytic cost model instead of a learned model">,
    Option<"strategy", "strategy", "::mlir::spperm::StrategyOption",
           /*default=*/"::mlir::spperm::StrategyOption::Auto",
           "Force this strategy (auto or keep: choose)",
           "::mlir::spperm::StrategyOptionValues()">,
    Option<"format", "format", "::mlir::spperm::FormatOption",
           /*default=*/"::mlir::spperm::FormatOption::Auto",
           "Force this format: csr, bell, hbp, cusparse (auto or keep: "
           "choose)",
           "::mlir::spperm::FormatOptionValues()">,
    // The default is spperm::kAnyKSelectionK (Selector.h), as
    // spperm-compile ranks a package for any K.
    Option<"k", "k", "int64_t", /*default=*/"32",
           "K to choose for when the multiplication's K is dynamic (at "
           "least 1; spperm-pipeline's k=0, any K, chooses for 32)">,
    Option<"margin", "margin", "double", /*default=*/"-1.0",
           "How much faster (log2) a generated variant must be predicted "
           "than cuSPARSE to be chosen; negative: the model's own">,
    Option<"libraryCheck", "library-check", "bool", /*default=*/"false",
           "The runtime will check the choice against cuSPARSE at its first "
           "call (spperm-compile's default): use the model's checked margin">,
    Option<"maxVariants", "max-variants", "int64_t", /*default=*/"0",
           "With library-check, the most variants (the choice included) "
           "from the model's shortlist a layer carries for the runtime to "
           "time: 0 the model's shortlist, 1 the choice alone, at most "
           "64">,
  ];
}

def SpPermShardRows : Pass<"spperm-shard-rows", "::mlir::ModuleOp"> {
  let summary = "Cut each layer's matrix into row shards, one per rank";
  let description = [{
    For `shards` > 1, replaces every layer (a function with one
    `spperm.spmm` of a matrix its `spperm.load` reads whole) by `shards`
    copies, `@NAME__shardI`, each loading rows `[begin, end)` of the matrix
    (the load's `rows`) and returning those rows of C, so that every pass
    after it (features, selection, permutation, format, kernels) treats each
    shard as a layer of its own. The cut balances the shards' predicted time
    (`cut=balanced`: a row weighs its entries + 1, one B row per entry and
    its C row) or their rows (`cut=equal-rows`); every shard has at least
    one row (docs/Distributed.md). Each copy records
    `spperm.shard = array<i64: index, count, begin, end, rows>` and
    `spperm.shard_of = "NAME"`, from which spperm-compile packages the
    shards as one sharded layer. A function with a multiplication that is
    not a layer's (two of them, one inside a loop, a branch or a nested
    module: docs/Pipeline.md, "Layers"), or one that the module calls
    (the shards replace it), is an error.

    Before (`shards=2`):
    ```mlir
    func.func @g(%b: tensor<6x?xf32>) -> tensor<4x?xf32> {
      %a = spperm.load "g.mtx" : !spperm.matrix<4x6xf32, #spperm.csr>
      %c = spperm.spmm %a, %b : ... -> tensor<4x?xf32>
      return %c : tensor<4x?xf32>
    }
    ```
    After:
    ```mlir
    func.func @g__shard0(%b: tensor<6x?xf32>) -> tensor<1x?xf32>
        attributes {spperm.shard = array<i64: 0, 2, 0, 1, 4>,
                    spperm.shard_of = "g"} {
      %a = spperm.load "g.mtx" {rows = array<i64: 0, 1>}
          : !spperm.matrix<1x6xf32, #spperm.csr>
      ...
    }
    func.func @g__shard1(...) -> tensor<3x?xf32> attributes {...}
    ```
  }];
  let dependentDialects = ["::mlir::spperm::SpPermDialect",
                           "::mlir::func::FuncDialect"];
  let options = [
    Option<"shards", "shards", "int64_t", /*default=*/"1",
           "Shards per layer (1: none), at most the matrix's rows">,
    Option<"cut", "cut", "::mlir::spperm::ShardCutOption",
           /*default=*/"::mlir::spperm::ShardCutOption::Balanced",
           "How the rows are cut: balanced (equal predicted time) or "
           "equal-rows",
           "::mlir::spperm::ShardCutOptionValues()">,
    Option<"baseDir", "base-dir", "std::string", /*default=*/"\"\"",
           "Directory that relative matrix paths are resolved against">,
  ];
}

#endif // SPPERM_TRANSFORMS_PASSES_TD
