//===- SpPermAttrs.td - spperm attributes ------------------*- tablegen -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_DIALECT_SPPERM_IR_SPPERMATTRS_TD
#define SPPERM_DIALECT_SPPERM_IR_SPPERMATTRS_TD

include "spperm/Dialect/SpPerm/IR/SpPermBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def SpPerm_ResidualFormat : I32EnumAttr<"ResidualFormat",
    "storage of the entries that fall outside dense blocks", [
      I32EnumAttrCase<"csr", 0>,
    ]> {
  let cppNamespace = "::mlir::spperm";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Interfaces
//===----------------------------------------------------------------------===//

def SpPerm_FormatAttrInterface : AttrInterface<"FormatAttrInterface"> {
  let cppNamespace = "::mlir::spperm";
  let description = [{
    A storage format of a `!spperm.matrix`. Every format may carry a row
    permutation (`perm`); two matrices whose formats differ only in the
    permutation hold the same entries in a different row order.
  }];
  // The permutation travels as a plain Attribute through the interface's
  // methods (PermAttr is not yet a complete type where the interface's models
  // are defined); the typed accessors below wrap them.
  let methods = [
    InterfaceMethod<
      "The row permutation (a PermAttr), or null when rows are in file order.",
      "::mlir::Attribute", "getPermAttr">,
    InterfaceMethod<
      "This format with `perm` (a PermAttr) as its row permutation; null "
      "removes it.",
      "::mlir::Attribute", "withPermAttr", (ins "::mlir::Attribute":$perm)>,
    InterfaceMethod<
      "The format's short name: `csr`, `bell` or `hbp`.",
      "::llvm::StringRef", "getFormatName">,
    InterfaceMethod<
      "Checks the format's parameters against a rows x cols matrix.",
      "::llvm::LogicalResult", "verifyShape",
      (ins "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError,
           "int64_t":$rows, "int64_t":$cols)>,
  ];
  let extraClassDeclaration = [{
    /// The row permutation, or null when rows are in file order.
    PermAttr getPerm() const;
    /// This format with `perm` as its row permutation (null removes it).
    FormatAttrInterface withPerm(PermAttr perm) const;
  }];
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

// A format's optional row permutation, printed in full (`perm =
// #spperm.perm<lpt>`) rather than stripped to `<lpt>`.
def SpPerm_PermParameter : OptionalParameter<"::mlir::spperm::PermAttr"> {
  let printer = "$_printer.printAttribute($_self)";
}

class SpPerm_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<SpPerm_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def SpPerm_PermAttr : SpPerm_Attr<"Perm", "perm"> {
  let summary = "A row-permutation strategy and its parameters";
  let description = [{
    Names the strategy that orders the rows of a matrix, with its parameters.
    The permutation is a deterministic function of the matrix and this
    attribute, so it is recomputed rather than spelled out in the IR.

    Strategies (IR keyword — command-line name): `identity`, `plain`,
    `flipped`, `lpt`, `warp_aware` — `warp-aware`, `cta_aware` — `cta-aware`,
    `hybrid_1` — `hybrid-1`, `hybrid_2_1` — `hybrid-2.1`, `hybrid_2_2` —
    `hybrid-2.2`, `hybrid_2_3` — `hybrid-2.3`, `bsa`. MLIR keywords cannot
    contain `-`, hence the two spellings.

    Parameters, each optional (defaults from the seeds are elided, when
    parsed and when printed, so that `#spperm.perm<bsa, tau = 32,
    alpha = 0.3>` is `#spperm.perm<bsa>`):
    * `warps` — N_w, the warps of a CTA the load-balancing sorts spread rows
      over (1 to 1024, default 32);
    * `line` — columns per cache line of B in the bitmask model (a power of
      two from 1 to 1024, default 32);
    * `tau` — BSA's column-block width τ (1 to 1024, default 32; `bsa`
      only);
    * `alpha` — BSA's similarity threshold α in (0, 1] (default 0.3; `bsa`
      only).

    Example:

    ```mlir
    #spperm.perm<lpt>
    #spperm.perm<warp_aware, warps = 16>
    #spperm.perm<bsa, tau = 16, alpha = 0.5>
    ```
  }];
  let parameters = (ins
    "::spperm::Strategy":$strategy,
    "int64_t":$warps,
    "int64_t":$line,
    "std::optional<int64_t>":$tau,
    "::mlir::FloatAttr":$alpha
  );
  let builders = [
    AttrBuilder<(ins "::spperm::Strategy":$strategy), [{
      return $_get($_ctxt, strategy, kDefaultWarps, kDefaultLine,
                   std::nullopt, ::mlir::FloatAttr());
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static constexpr int64_t kDefaultWarps = 32;
    static constexpr int64_t kDefaultLine = 32;

    /// Drops `bsa`'s `tau` and `alpha` where they equal the sparse core's
    /// defaults, so that one permutation has one spelling (and one type).
    /// Other strategies' parameters are left for the verifier.
    static void elideDefaults(::spperm::Strategy strategy,
                              std::optional<int64_t> &tau,
                              ::mlir::FloatAttr &alpha);
  }];
}

def SpPerm_ChoiceAttr : SpPerm_Attr<"Choice", "choice"> {
  let summary = "The variant the selector chose for a matrix";
  let description = [{
    What `spperm-select` decided for a loaded matrix: a permutation
    `strategy` and a storage `format` by their command-line names
    (`--strategy`, `--format`; format `cusparse` is the library path, run
    on the CSR), and `source`, how the choice was made: free text for
    people, which only `forced` gives a meaning. The selector writes
    `shipped model sm_90`, `model FILE` or `cost model`, followed by
    `, outside its domain (FEATURE = VALUE)` where the matrix lies
    outside the model's training range (docs/Selector.md; then
    `: checked against cuSPARSE at run time` for a checked choice) and
    by `, restricted to generated kernels for 16-bit operands` where a
    16-bit layer's choice skipped the library; its `alternatives` have
    source `shortlist`; and `forced`
    where both the strategy and the format were fixed (by the pass's
    options, or by the layer's own `spperm.permute` and `spperm.convert`).
    `spperm-permute-rows{strategy=auto}` and
    `spperm-convert-format{format=auto}` materialize it.

    The pipeline takes a module's choice when the selector runs
    (`strategy=auto` or `format=auto`; the first choice of a matrix
    stands); a choice of format `cusparse` always (the layer runs on the
    library). Its source then decides what a package does with it:
    generated kernels of any source but `forced` are timed against the
    library (cuSPARSE, and dense GEMM for 16-bit layers) at the first call
    per K, the runtime's library check (docs/Rationale.md), unless the
    pipeline runs with `no-library-check`; a choice written by hand, or
    left from an earlier `spperm-select`, counts as the selector's, and
    `source = "forced"` runs as it is. Under the default `keep`/`keep` the
    layer runs its types as written: spperm-compile says so of a choice
    they do not follow (docs/Compile.md).

    `alternatives`, when present, is the selector's shortlist of
    runner-ups for a choice the runtime checks (docs/Selector.md, "The
    shortlist"): generated variants (`#spperm.choice` attributes of their
    own, format `csr` or `bell`, source `shortlist`, without alternatives)
    that
    `spperm-expand-alternatives` turns into alternative layers; the
    runtime times them all at the first call per K and runs the fastest.

    ```mlir
    #spperm.choice<strategy = "lpt", format = "csr",
                   source = "shipped model sm_90">
    #spperm.choice<strategy = "lpt", format = "csr",
                   source = "shipped model sm_90",
                   alternatives = [#spperm.choice<strategy = "bsa",
                       format = "bell", source = "shortlist">]>
    ```
  }];
  let parameters = (ins StringRefParameter<"strategy">:$strategy,
                        StringRefParameter<"format">:$format,
                        StringRefParameter<"how it was chosen">:$source,
                        OptionalParameter<"::mlir::ArrayAttr",
                            "the shortlist's runner-ups">:$alternatives);
  let builders = [
    AttrBuilder<(ins "::llvm::StringRef":$strategy,
                     "::llvm::StringRef":$format,
                     "::llvm::StringRef":$source), [{
      return $_get($_ctxt, strategy, format, source, ::mlir::ArrayAttr());
    }]>
  ];
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def SpPerm_LaunchAttr : SpPerm_Attr<"Launch", "launch"> {
  let summary = "One kernel launch of a lowered multiplication";
  let description = [{
    How the runtime launches one generated kernel (or calls the library):
    what `spperm-lower-to-gpu` records, in order, in the `spperm.kernels`
    array of each `spperm.spmm`, and what the package manifest's `kernels`
    say (docs/Package.md): the `gpu.func` symbol (`cusparse` for the
    library path), its family and variant, the K condition (`k_min <= K <=
    k_max`, `k_max` 0 = no bound, `K % k_align == 0`), whether C is cleared
    before it, whether it may launch while the kernels before it in its
    variant still run, its parameters in order, grid and block sizes
    (positive; a block of
    at most 1024 threads, 64 in z, as CUDA launches) and dynamic shared
    memory. An optional `grid_k = [base, ctas, columns]` says that the
    grid's x grows with K: at a call with K the runtime launches `base +
    ctas * ceil(K / columns)` CTAs, one slice of `ctas` CTAs per `columns`
    columns of K after `base` CTAs (the row kernel of a range variant cut
    into K slices, which derives its slice count from its grid; `grid` is
    then the grid of the K the launch was shaped for).

    A parameter is a buffer name (docs/Package.md, "Buffers"), a
    column-index buffer narrowed to 16 bits (`csr.col_idx.u16`,
    `bell.residual.col_idx.u16`), or one the call binds: `B`, `C`, `K`,
    `tickets`, `acc`, and `B_col` (the caller's column-major B). Where the
    launch sits on a `spperm.spmm`, its buffers must be the layer's: of its
    format, or the csr arrays any layer may carry; narrowed indices need at
    most 65,536 columns. A kernel in `spperm.kernels` does not take
    `B_col`; the transposing kernel (`spperm.transpose_b`) takes `B_col`,
    `B` and optionally `K`; an in-place kernel (`spperm.in_place_b`) takes
    `B_col` and `C` once each, `K` at most once, and none of `B`,
    `tickets` or `acc`.

    ```mlir
    #spperm.launch<name = "l0_csr_k16_0", family = "csr", variant = "k16",
        k_min = 16, k_max = 16, k_align = 1, zero_output = false,
        dependent_launch = false, args = ["order", "csr.row_ptr",
        "csr.col_idx", "csr.values", "B", "C"], grid = [4, 1, 1],
        block = [256, 1, 1], shared_bytes = 0>
    ```
  }];
  let parameters = (ins StringRefParameter<"kernel symbol">:$name,
                        StringRefParameter<"kernel family">:$family,
                        StringRefParameter<"variant">:$variant,
                        AttrParameter<"int64_t", "smallest K">:$k_min,
                        AttrParameter<"int64_t",
                                      "largest K (0: no bound)">:$k_max,
                        AttrParameter<"int64_t", "K is a multiple of it">:$k_align,
                        AttrParameter<"bool", "C is cleared first">:$zero_output,
                        AttrParameter<"bool", "may start while the kernels "
                                      "before it run">:$dependent_launch,
                        AttrParameter<"::mlir::ArrayAttr",
                                      "parameter names">:$args,
                        AttrParameter<"::mlir::DenseI64ArrayAttr",
                                      "grid size (x, y, z)">:$grid,
                        AttrParameter<"::mlir::DenseI64ArrayAttr",
                                      "block size (x, y, z)">:$block,
                        AttrParameter<"int64_t", "dynamic shared memory "
                                      "bytes">:$shared_bytes,
                        OptionalParameter<"::mlir::DenseI64ArrayAttr",
                                          "grid x from K: base, CTAs a "
                                          "slice, columns a slice">:$grid_k);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def SpPerm_FeaturesAttr : SpPerm_Attr<"Features", "features"> {
  let summary = "Static features of a matrix";
  let description = [{
    The statistics `spperm-extract-features` computed for a matrix, as a
    dictionary of numbers (integers or floats) or of dictionaries of numbers,
    for example `row_nnz = {mean = 21.4 : f64, max = 83 : i64}`. The count
    keys `rows`, `cols`, `nnz` and `empty_rows` must be non-negative
    integers, `density` a float in [0, 1], and they must agree with each
    other (`nnz ≤ rows · cols`, `empty_rows ≤ rows`, and `density` within
    1e-5, relative, of `nnz / (rows · cols)`: six significant digits, or 0
    for an empty shape).

    ```mlir
    #spperm.features<{rows = 4 : i64, cols = 4 : i64, nnz = 7 : i64,
                      density = 0.4375 : f64}>
    ```
  }];
  let parameters = (ins "::mlir::DictionaryAttr":$entries);
  let assemblyFormat = "`<` $entries `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The integer at `key`, if present and an integer.
    std::optional<int64_t> getInt(::llvm::StringRef key) const;
    /// The number at `key` as a double, if present and a number.
    std::optional<double> getNumber(::llvm::StringRef key) const;
  }];
}

def SpPerm_CsrAttr : SpPerm_Attr<"Csr", "csr", [
    DeclareAttrInterfaceMethods<SpPerm_FormatAttrInterface,
                                ["getPermAttr", "withPermAttr", "getFormatName", "verifyShape"]>]> {
  let summary = "Compressed sparse row storage";
  let description = [{
    Row pointers, column indices and values, with 32-bit indices. With a
    `perm`, the rows are stored in the permuted order.

    ```mlir
    #spperm.csr
    #spperm.csr<perm = #spperm.perm<lpt>>
    ```
  }];
  let parameters = (ins SpPerm_PermParameter:$perm);
  // Hand-written, as the other formats': an error inside a parameter is
  // reported once, where it is (SpPermAttrs.cpp, "Format parameters").
  let hasCustomAssemblyFormat = 1;
}

def SpPerm_BellAttr : SpPerm_Attr<"Bell", "bell", [
    DeclareAttrInterfaceMethods<SpPerm_FormatAttrInterface,
                                ["getPermAttr", "withPermAttr", "getFormatName", "verifyShape"]>]> {
  let summary = "Blocked-ELL dense blocks plus a residual (BSA)";
  let description = [{
    The (permuted) matrix tiled into `block` × `block` tiles; dense enough
    tiles are stored as Blocked-ELL — per block row, `width` block columns
    (padded) with their dense values — and every other entry goes to the
    `residual` format. `block = 1` gives plain ELL/HYB. The parameters are
    written `key = value`, in any order; `block`, `width` and `residual` are
    required:

    * `block` — τ, one of 1, 2, 4, 8, 16, 32;
    * `width` — the ELL width in blocks, at most the number of block columns
      of the matrix; 0 when no tile is dense (every entry is in the
      residual);
    * `residual` — `csr`;
    * `delta` (optional) — the density threshold δ in (0, 1] a tile needs to
      be stored dense; absent means "searched by the cost model" (the
      search's result is recorded by `spperm-convert-format`);
    * `condensed` (default `false`) — each tile holds any `block` columns of
      its block row (those of density ≥ δ, listed per tile) instead of
      `block` consecutive ones, so rows that share scattered columns share
      one B row per column (docs/Formats.md, "Condensed columns").

    ```mlir
    #spperm.bell<block = 32, width = 4, residual = csr>
    #spperm.bell<block = 16, width = 2, residual = csr, delta = 5.000000e-01 : f64,
                 perm = #spperm.perm<bsa>>
    #spperm.bell<block = 16, width = 31, residual = csr, condensed = true>
    ```
  }];
  let parameters = (ins
    "int64_t":$block,
    "int64_t":$width,
    EnumParameter<SpPerm_ResidualFormat>:$residual,
    OptionalParameter<"::mlir::FloatAttr">:$delta,
    DefaultValuedParameter<"bool", "false">:$condensed,
    SpPerm_PermParameter:$perm
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def SpPerm_HbpAttr : SpPerm_Attr<"Hbp", "hbp", [
    DeclareAttrInterfaceMethods<SpPerm_FormatAttrInterface,
                                ["getPermAttr", "withPermAttr", "getFormatName", "verifyShape"]>]> {
  let summary = "Hash-based 2-D partition (HBP)";
  let description = [{
    The matrix cut into `rows` × `cols` blocks; inside each block the rows
    are reordered by a nonlinear hash so that warps get balanced work. For
    SpMM the B tile of a column block must fit in shared memory, so `cols`
    is a parameter.

    Parameters (`key = value`, in any order; `perm` optional, as in every
    format):
    * `rows` — row-block height, a positive multiple of 32 (default in the
      paper: 512);
    * `cols` — column-block width, positive.

    ```mlir
    #spperm.hbp<rows = 512, cols = 4096>
    ```
  }];
  let parameters = (ins
    "int64_t":$rows,
    "int64_t":$cols,
    SpPerm_PermParameter:$perm
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // SPPERM_DIALECT_SPPERM_IR_SPPERMATTRS_TD
