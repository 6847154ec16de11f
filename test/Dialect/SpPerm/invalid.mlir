// RUN: spperm-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the spperm types, attributes and ops.

//===----------------------------------------------------------------------===//
// !spperm.matrix
//===----------------------------------------------------------------------===//

// Indices are 32 bits wide, so dimensions stop at 2^31 - 1.
// expected-error@+1 {{row count 2147483648 is outside [0, 2^31 - 1]}}
func.func private @rows_too_large(!spperm.matrix<2147483648x4xf32, #spperm.csr>)

// -----

// expected-error@+1 {{column count 2147483648 is outside [0, 2^31 - 1]}}
func.func private @cols_too_large(!spperm.matrix<4x2147483648xf32, #spperm.csr>)

// -----

// expected-error@+1 {{element type must be f32, f16 or bf16, got 'f64'}}
func.func private @f64_values(!spperm.matrix<4x4xf64, #spperm.csr>)

// -----

// expected-error@+1 {{element type must be f32, f16 or bf16, got 'i32'}}
func.func private @integer_values(!spperm.matrix<4x4xi32, #spperm.csr>)

// -----

// expected-error@+1 {{expected a 2-D shape, got 3 dimension(s)}}
func.func private @three_dims(!spperm.matrix<4x4x4xf32, #spperm.csr>)

// -----

// expected-error@+1 {{expected a storage format attribute (#spperm.csr, #spperm.bell or #spperm.hbp), got #spperm.perm<lpt>}}
func.func private @not_a_format(!spperm.matrix<4x4xf32, #spperm.perm<lpt>>)

// -----

// The storage format is part of the type.
// expected-error@+1 {{expected ',' and the storage format after the element type (#spperm.csr, #spperm.bell<...> or #spperm.hbp<...>)}}
func.func private @no_format(!spperm.matrix<4x4xf32>)

// -----

// A dimension of the matrix type may not be dynamic: the matrix is fixed.
// expected-error@+1 {{expected static shape}}
func.func private @dynamic_dim(!spperm.matrix<?x4xf32, #spperm.csr>)

// -----

// 9 columns in blocks of 4 make 3 block columns.
// expected-error@+1 {{ELL width 4 exceeds the 3 block columns of a 9-column matrix with block 4}}
func.func private @bell_too_wide(!spperm.matrix<8x9xf32, #spperm.bell<block = 4, width = 4, residual = csr>>)

// -----

//===----------------------------------------------------------------------===//
// #spperm.perm
//===----------------------------------------------------------------------===//

// expected-error@+1 {{unknown row-permutation strategy 'random'}}
func.func private @unknown_strategy(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<random>>>)

// -----

// A command-line name unquoted: its '-' ends the keyword.
// expected-error@+1 {{unknown row-permutation strategy 'warp' (expected one of identity, }}
func.func private @cli_name(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<warp-aware>>>)

// -----

// expected-error@+1 {{warps must be in [1, 1024], got 0}}
func.func private @zero_warps(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<lpt, warps = 0>>>)

// -----

// expected-error@+1 {{warps must be in [1, 1024], got 2048}}
func.func private @many_warps(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<lpt, warps = 2048>>>)

// -----

// expected-error@+1 {{line must be a power of two in [1, 1024], got 48}}
func.func private @line_not_pow2(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<warp_aware, line = 48>>>)

// -----

// tau and alpha are BSA's parameters; on another strategy they would be
// silently meaningless.
// expected-error@+1 {{'tau' only applies to the bsa strategy}}
func.func private @tau_not_bsa(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<lpt, tau = 16>>>)

// -----

// expected-error@+1 {{tau must be in [1, 1024], got 0}}
func.func private @tau_zero(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<bsa, tau = 0>>>)

// -----

// expected-error@+1 {{'alpha' only applies to the bsa strategy}}
func.func private @alpha_not_bsa(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<plain, alpha = 0.5>>>)

// -----

// expected-error@+1 {{alpha must be in (0, 1], got 1.5}}
func.func private @alpha_too_big(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<bsa, alpha = 1.5>>>)

// -----

// A value just outside the range is shown as written, not rounded into it.
// expected-error@+1 {{alpha must be in (0, 1], got 1.0000001}}
func.func private @alpha_just_above(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<bsa, alpha = 1.0000001>>>)

// -----

// expected-error@+1 {{alpha must be in (0, 1], got 0}}
func.func private @alpha_zero(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<bsa, alpha = 0.0>>>)

// -----

// expected-error@+1 {{duplicate parameter 'warps'}}
func.func private @duplicate_param(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<lpt, warps = 8, warps = 16>>>)

// -----

// expected-error@+1 {{unknown parameter 'delta' (expected warps, line, tau or alpha)}}
func.func private @unknown_param(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<bsa, delta = 0.5>>>)

// -----

// A strategy that differs only in case, or that a name begins, is named
// (the rule of every "unknown name" error: spperm/Sparse/Spelling.h).
// expected-error@+1 {{unknown row-permutation strategy 'LPT' (expected one of identity, plain, flipped, lpt, warp_aware, cta_aware, hybrid_1, hybrid_2_1, hybrid_2_2, hybrid_2_3, bsa; a command-line name is written in quotes, e.g. "warp-aware"); did you mean 'lpt'?}}
func.func private @strategy_case(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<LPT>>>)

// -----

// expected-error@+1 {{did you mean one of 'hybrid_2_1', 'hybrid_2_2', 'hybrid_2_3'?}}
func.func private @strategy_prefix(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<hybrid_2>>>)

// -----

// expected-error@+1 {{unknown parameter 'warpz' (expected warps, line, tau or alpha); did you mean 'warps'?}}
func.func private @param_slip(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<lpt, warpz = 8>>>)

// -----

//===----------------------------------------------------------------------===//
// Format parameters: each error once, where it is
//===----------------------------------------------------------------------===//

// An error inside `perm` is the only one (no "failed to parse ... 'perm'").
// expected-error@+1 {{perm must be a #spperm.perm<...>, got #spperm.csr}}
func.func private @perm_kind(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.csr>>)

// -----

// expected-error@+1 {{expected a parameter of #spperm.csr (perm)}}
func.func private @csr_trailing_comma(!spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<lpt>,>>)

// -----

// expected-error@+1 {{unknown parameter 'prem' of #spperm.csr (expected perm)}}
func.func private @csr_unknown(!spperm.matrix<4x4xf32, #spperm.csr<prem = #spperm.perm<lpt>>>)

// -----

// expected-error@+1 {{unknown parameter 'condenced' of #spperm.bell (expected block, width, residual, delta, condensed, perm); did you mean 'condensed'?}}
func.func private @bell_unknown(!spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 1, residual = csr, condenced = true>>)

// -----

// expected-error@+1 {{duplicate parameter 'block'}}
func.func private @bell_duplicate(!spperm.matrix<64x64xf32, #spperm.bell<block = 16, block = 8, width = 1, residual = csr>>)

// -----

// expected-error@+1 {{#spperm.bell needs 'residual' (its required parameters: block, width, residual)}}
func.func private @bell_missing(!spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 1>>)

// -----

// A missing comma: the '>' expected, not a missing parameter.
// expected-error@+1 {{expected '>'}}
func.func private @bell_comma(!spperm.matrix<64x64xf32, #spperm.bell<block = 16 width = 1, residual = csr>>)

// -----

// expected-error@+1 {{expected integer value}}
func.func private @bell_block_kind(!spperm.matrix<64x64xf32, #spperm.bell<block = x, width = 1, residual = csr>>)

// -----

// expected-error@+1 {{delta must be a float in (0, 1], got "half"}}
func.func private @bell_delta_kind(!spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 1, residual = csr, delta = "half">>)

// -----

// expected-error@+1 {{#spperm.hbp needs 'cols' (its required parameters: rows, cols)}}
func.func private @hbp_missing(!spperm.matrix<1024x1024xf32, #spperm.hbp<rows = 512>>)

// -----

// expected-error@+1 {{integer value too large}}
func.func private @hbp_overflow(!spperm.matrix<1024x1024xf32, #spperm.hbp<rows = 512, cols = 99999999999999999999>>)

// -----

//===----------------------------------------------------------------------===//
// #spperm.bell and #spperm.hbp
//===----------------------------------------------------------------------===//

// expected-error@+1 {{block must be one of 1, 2, 4, 8, 16, 32, got 3}}
func.func private @bell_block_3(!spperm.matrix<64x64xf32, #spperm.bell<block = 3, width = 1, residual = csr>>)

// -----

// expected-error@+1 {{block must be one of 1, 2, 4, 8, 16, 32, got 64}}
func.func private @bell_block_64(!spperm.matrix<64x64xf32, #spperm.bell<block = 64, width = 1, residual = csr>>)

// -----

// expected-error@+1 {{width must be non-negative, got -1}}
func.func private @bell_width_negative(!spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = -1, residual = csr>>)

// -----

// expected-error@+1 {{delta must be in (0, 1], got 1.5}}
func.func private @bell_delta(!spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 1, residual = csr, delta = 1.5>>)

// -----

// expected-error@+1 {{unknown residual format 'coo' (expected csr)}}
func.func private @bell_residual(!spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 1, residual = coo>>)

// -----

// HBP hashes rows within a block onto warps, so blocks come in whole warps.
// expected-error@+1 {{rows must be a positive multiple of 32 below 2^31, got 100}}
func.func private @hbp_rows(!spperm.matrix<1024x1024xf32, #spperm.hbp<rows = 100, cols = 512>>)

// -----

// Block sizes are 32-bit counts: a larger one is refused, not truncated.
// expected-error@+1 {{rows must be a positive multiple of 32 below 2^31, got 4294967328}}
func.func private @hbp_rows_too_large(!spperm.matrix<64x64xf32, #spperm.hbp<rows = 4294967328, cols = 512>>)

// -----

// expected-error@+1 {{cols must be in [1, 2^31 - 1], got 0}}
func.func private @hbp_cols(!spperm.matrix<1024x1024xf32, #spperm.hbp<rows = 512, cols = 0>>)

// -----

// expected-error@+1 {{cols must be in [1, 2^31 - 1], got 4294967297}}
func.func private @hbp_cols_too_large(!spperm.matrix<64x64xf32, #spperm.hbp<rows = 512, cols = 4294967297>>)

// -----

//===----------------------------------------------------------------------===//
// #spperm.choice
//===----------------------------------------------------------------------===//

// expected-error@+1 {{unknown strategy 'random' (expected a --strategy name: identity, plain, flipped, lpt, warp-aware, cta-aware, hybrid-1, hybrid-2.1, hybrid-2.2, hybrid-2.3 or bsa; or its IR keyword, such as warp_aware)}}
func.func private @choice_strategy() attributes {c = #spperm.choice<strategy = "random", format = "csr", source = "forced">}

// -----

// expected-error@+1 {{unknown format 'coo' (expected csr, bell, hbp or cusparse)}}
func.func private @choice_format() attributes {c = #spperm.choice<strategy = "lpt", format = "coo", source = "forced">}

// -----

// expected-error@+1 {{source must not be empty}}
func.func private @choice_source() attributes {c = #spperm.choice<strategy = "lpt", format = "csr", source = "">}

// -----

// expected-error@+1 {{struct is missing required parameter: source}}
func.func private @choice_missing() attributes {c = #spperm.choice<strategy = "lpt", format = "csr">}

// -----

// expected-error@+1 {{a cusparse choice has no alternatives}}
func.func private @choice_cusparse_alternatives() attributes {c = #spperm.choice<strategy = "identity", format = "cusparse", source = "forced", alternatives = [#spperm.choice<strategy = "lpt", format = "csr", source = "shortlist">]>}

// -----

// expected-error@+1 {{alternatives[0] must be a #spperm.choice}}
func.func private @choice_alternative_string() attributes {c = #spperm.choice<strategy = "lpt", format = "csr", source = "s", alternatives = ["bsa"]>}

// -----

// expected-error@+1 {{alternatives[0] has format 'hbp' (expected csr or bell)}}
func.func private @choice_alternative_hbp() attributes {c = #spperm.choice<strategy = "lpt", format = "csr", source = "s", alternatives = [#spperm.choice<strategy = "identity", format = "hbp", source = "shortlist">]>}

// -----

// expected-error@+1 {{alternatives[0] repeats the choice}}
func.func private @choice_alternative_same() attributes {c = #spperm.choice<strategy = "lpt", format = "csr", source = "s", alternatives = [#spperm.choice<strategy = "lpt", format = "csr", source = "shortlist">]>}

// -----

// The same strategy in its two spellings is the same choice.
// expected-error@+1 {{alternatives[0] repeats the choice}}
func.func private @choice_alternative_spelled() attributes {c = #spperm.choice<strategy = "warp-aware", format = "csr", source = "s", alternatives = [#spperm.choice<strategy = "warp_aware", format = "csr", source = "shortlist">]>}

// -----

// expected-error@+1 {{alternatives[1] repeats an earlier alternative}}
func.func private @choice_alternative_twice() attributes {c = #spperm.choice<strategy = "lpt", format = "csr", source = "s", alternatives = [#spperm.choice<strategy = "bsa", format = "bell", source = "shortlist">, #spperm.choice<strategy = "bsa", format = "bell", source = "shortlist">]>}

// -----

// expected-error@+1 {{alternatives[0] must not have alternatives of its own}}
func.func private @choice_alternative_nested() attributes {c = #spperm.choice<strategy = "lpt", format = "csr", source = "s", alternatives = [#spperm.choice<strategy = "bsa", format = "bell", source = "shortlist", alternatives = [#spperm.choice<strategy = "identity", format = "csr", source = "shortlist">]>]>}

// -----

//===----------------------------------------------------------------------===//
// #spperm.features
//===----------------------------------------------------------------------===//

// expected-error@+1 {{feature 'name' must be a number (an integer in [-2^63, 2^63), or a finite float) or a dictionary of numbers}}
func.func private @feature_string() attributes {f = #spperm.features<{name = "x"}>}

// -----

// expected-error@+1 {{feature 'row_nnz.mean' must be a number}}
func.func private @feature_nested_string() attributes {f = #spperm.features<{row_nnz = {mean = "x"}}>}

// -----

// expected-error@+1 {{feature 'nnz' must be non-negative, got -3}}
func.func private @feature_negative() attributes {f = #spperm.features<{nnz = -3 : i64}>}

// -----

// expected-error@+1 {{feature 'rows' must be an integer}}
func.func private @feature_float_count() attributes {f = #spperm.features<{rows = 4.0 : f64}>}

// -----

// expected-error@+1 {{feature 'nnz' (17) exceeds rows * cols (16)}}
func.func private @feature_nnz() attributes {f = #spperm.features<{rows = 4 : i64, cols = 4 : i64, nnz = 17 : i64}>}

// -----

// Found by spperm-fuzz-mlir: an integer wider than 64 bits (the verifier
// asserted reading it).
// expected-error@+1 {{feature 'rows' must be a number (an integer in [-2^63, 2^63), or a finite float)}}
func.func private @feature_wide_int() attributes {f = #spperm.features<{rows = 99999999999999999999999 : i128}>}

// -----

// Found by spperm-fuzz-mlir (session 13): an i0 holds no value (the verifier
// asserted asking for its sign bits).
// expected-error@+1 {{feature 'empty_rows' must be a number (an integer in [-2^63, 2^63), or a finite float)}}
func.func private @feature_i0() attributes {f = #spperm.features<{rows = 4 : i64, empty_rows = 0 : i0}>}

// -----

// expected-error@+1 {{feature 'row_nnz.mean' must be a number (an integer in [-2^63, 2^63), or a finite float)}}
func.func private @feature_nested_i0() attributes {f = #spperm.features<{row_nnz = {mean = 0 : i0}}>}

// -----

// An unsigned 64-bit value above 2^63 - 1 is read back as int64_t too: out
// of range, whatever its type's width.
// expected-error@+1 {{feature 'nnz' must be a number (an integer in [-2^63, 2^63), or a finite float)}}
func.func private @feature_u64_high() attributes {f = #spperm.features<{nnz = 9223372036854775808 : ui64}>}

// -----

// expected-error@+1 {{feature 'row_nnz.max' must be a number (an integer in [-2^63, 2^63), or a finite float)}}
func.func private @feature_nested_wide_int() attributes {f = #spperm.features<{row_nnz = {max = 99999999999999999999999 : i128}}>}

// -----

// NaN and infinities measure nothing (the selector's trees would take an
// arbitrary branch on them).
// expected-error@+1 {{feature 'density' must be a number (an integer in [-2^63, 2^63), or a finite float) or a dictionary of numbers}}
func.func private @feature_nan() attributes {f = #spperm.features<{density = 0x7FC00000 : f32}>}

// -----

// expected-error@+1 {{feature 'row_nnz.mean' must be a number (an integer in [-2^63, 2^63), or a finite float)}}
func.func private @feature_inf() attributes {f = #spperm.features<{row_nnz = {mean = 0x7FF0000000000000 : f64}}>}

// -----

// rows * cols overflows 64 bits: no nnz can exceed it (no error).
func.func private @feature_huge_shape() attributes {f = #spperm.features<{rows = 9223372036854775807 : i64, cols = 9223372036854775807 : i64, nnz = 5 : i64}>}

// -----

// expected-error@+1 {{feature 'empty_rows' (5) exceeds rows (4)}}
func.func private @feature_empty_rows() attributes {f = #spperm.features<{rows = 4 : i64, empty_rows = 5 : i64}>}

// -----

// expected-error@+1 {{feature 'density' must be a float}}
func.func private @feature_density_int() attributes {f = #spperm.features<{density = 1 : i64}>}

// -----

// expected-error@+1 {{feature 'density' must be in [0, 1], got 2}}
func.func private @feature_density_range() attributes {f = #spperm.features<{density = 2.0 : f64}>}

// -----

// expected-error@+1 {{feature 'density' (0.5) disagrees with nnz / (rows * cols) = 0.4375}}
func.func private @feature_density_disagrees() attributes {f = #spperm.features<{rows = 4 : i64, cols = 4 : i64, nnz = 7 : i64, density = 0.5 : f64}>}

// -----

// A hand-written density needs six significant digits (within 1e-5,
// relative; see roundtrip.mlir): 0.3333 is not enough for 1/3.
// expected-error@+1 {{feature 'density' (0.3333) disagrees with nnz / (rows * cols) = 0.3333333333333333}}
func.func private @feature_density_digits() attributes {f = #spperm.features<{rows = 3 : i64, cols = 1 : i64, nnz = 1 : i64, density = 0.3333 : f64}>}

// -----

// An empty shape has density 0.
// expected-error@+1 {{feature 'density' (0.1) disagrees with nnz / (rows * cols) = 0}}
func.func private @feature_density_empty() attributes {f = #spperm.features<{rows = 0 : i64, cols = 4 : i64, nnz = 0 : i64, density = 0.1 : f64}>}

// -----

//===----------------------------------------------------------------------===//
// spperm.load
//===----------------------------------------------------------------------===//

func.func @load_empty_path() {
  // expected-error@+1 {{'spperm.load' op requires a non-empty file path}}
  %0 = spperm.load "" : !spperm.matrix<4x4xf32, #spperm.csr>
  return
}

// -----

func.func @load_path_with_nul() {
  // expected-error@+1 {{'spperm.load' op file path contains a NUL character}}
  %0 = spperm.load "a.mtx\00x" : !spperm.matrix<4x4xf32, #spperm.csr>
  return
}

// -----

func.func @load_bad_values() {
  // expected-error@+1 {{'spperm.load' op invalid --values 'random:x'}}
  %0 = spperm.load "a.mtx" {values = "random:x"} : !spperm.matrix<4x4xf32, #spperm.csr>
  return
}

// -----

func.func @load_not_csr() {
  // expected-error@+1 {{'spperm.load' op loads a matrix in #spperm.csr format, not #spperm.hbp<rows = 512, cols = 4>; use spperm.convert to change formats}}
  %0 = spperm.load "a.mtx" : !spperm.matrix<4x4xf32, #spperm.hbp<rows = 512, cols = 4>>
  return
}

// -----

func.func @load_permuted() {
  // expected-error@+1 {{'spperm.load' op loads a matrix in file order; use spperm.permute to reorder its rows}}
  %0 = spperm.load "a.mtx" : !spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<lpt>>>
  return
}

// -----

func.func @load_features_rows() {
  // expected-error@+1 {{'spperm.load' op features say 5 rows but the result type has 4}}
  %0 = spperm.load "a.mtx" {features = #spperm.features<{rows = 5 : i64}>} : !spperm.matrix<4x4xf32, #spperm.csr>
  return
}

// -----

func.func @load_features_cols() {
  // expected-error@+1 {{'spperm.load' op features say 3 columns but the result type has 4}}
  %0 = spperm.load "a.mtx" {features = #spperm.features<{cols = 3 : i64}>} : !spperm.matrix<4x4xf32, #spperm.csr>
  return
}

// -----

func.func @load_features_not_features() {
  // expected-error@+1 {{'spperm.load' op attribute 'features' failed to satisfy constraint}}
  %0 = spperm.load "a.mtx" {features = {rows = 4 : i64}} : !spperm.matrix<4x4xf32, #spperm.csr>
  return
}

// -----

//===----------------------------------------------------------------------===//
// spperm.spmm
//===----------------------------------------------------------------------===//

#CSR = #sparse_tensor.encoding<{map = (i, j) -> (i : dense, j : compressed)}>
func.func @spmm_b_encoded(%a: !spperm.matrix<4x6xf32, #spperm.csr>, %b: tensor<6x8xf32, #CSR>) {
  // expected-error@+1 {{'spperm.spmm' op dense operand and result must be tensors without an encoding, got 'tensor<6x8xf32, #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>>' and 'tensor<4x8xf32>'}}
  %c = spperm.spmm %a, %b : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<6x8xf32, #CSR> -> tensor<4x8xf32>
  return
}

// -----

func.func @spmm_b_rows(%a: !spperm.matrix<4x6xf32, #spperm.csr>, %b: tensor<5x8xf32>) {
  // expected-error@+1 {{'spperm.spmm' op dense operand has 5 rows but the matrix has 6 columns}}
  %c = spperm.spmm %a, %b : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<5x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @spmm_c_rows(%a: !spperm.matrix<4x6xf32, #spperm.csr>, %b: tensor<6x8xf32>) {
  // expected-error@+1 {{'spperm.spmm' op result has 3 rows but the matrix has 4}}
  %c = spperm.spmm %a, %b : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<6x8xf32> -> tensor<3x8xf32>
  return
}

// -----

func.func @spmm_k(%a: !spperm.matrix<4x6xf32, #spperm.csr>, %b: tensor<6x8xf32>) {
  // expected-error@+1 {{'spperm.spmm' op result has 9 columns but the dense operand has 8}}
  %c = spperm.spmm %a, %b : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<6x8xf32> -> tensor<4x9xf32>
  return
}

// -----

func.func @spmm_k_zero(%a: !spperm.matrix<4x6xf32, #spperm.csr>, %b: tensor<6x0xf32>) {
  // expected-error@+1 {{'spperm.spmm' op dense operand has 0 columns; K must be in [1, 2^31 - 1], or ? for any K}}
  %c = spperm.spmm %a, %b : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<6x0xf32> -> tensor<4x0xf32>
  return
}

// -----

func.func @spmm_k_too_large(%a: !spperm.matrix<4x6xf32, #spperm.csr>, %b: tensor<6x2147483648xf32>) {
  // expected-error@+1 {{'spperm.spmm' op dense operand has 2147483648 columns; K must be in [1, 2^31 - 1], or ? for any K}}
  %c = spperm.spmm %a, %b : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<6x2147483648xf32> -> tensor<4x2147483648xf32>
  return
}

// -----

// A static K in the result needs a static K in the operand (use tensor.cast).
func.func @spmm_k_dynamic(%a: !spperm.matrix<4x6xf32, #spperm.csr>, %b: tensor<6x?xf32>) {
  // expected-error@+1 {{'spperm.spmm' op result has 8 columns but the dense operand has ?}}
  %c = spperm.spmm %a, %b : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<6x?xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @spmm_b_c_types(%a: !spperm.matrix<4x6xf32, #spperm.csr>, %b: tensor<6x8xf16>) {
  // expected-error@+1 {{'spperm.spmm' op dense operand and result must have one element type, got 'f16' and 'f32'}}
  %c = spperm.spmm %a, %b : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<6x8xf16> -> tensor<4x8xf32>
  return
}

// -----

func.func @spmm_half_values_f32_operand(%a: !spperm.matrix<4x6xf16, #spperm.csr>, %b: tensor<6x8xf32>) {
  // expected-error@+1 {{'spperm.spmm' op with 'f16' matrix values the dense operand and result must be 'f16' (only f32 values mix with other operand types), got 'f32'}}
  %c = spperm.spmm %a, %b : !spperm.matrix<4x6xf16, #spperm.csr>, tensor<6x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @spmm_f16_values_bf16_operand(%a: !spperm.matrix<4x6xf16, #spperm.csr>, %b: tensor<6x8xbf16>) {
  // expected-error@+1 {{'spperm.spmm' op with 'f16' matrix values the dense operand and result must be 'f16' (only f32 values mix with other operand types), got 'bf16'}}
  %c = spperm.spmm %a, %b : !spperm.matrix<4x6xf16, #spperm.csr>, tensor<6x8xbf16> -> tensor<4x8xbf16>
  return
}

// -----

func.func @spmm_f64(%a: !spperm.matrix<4x6xf32, #spperm.csr>, %b: tensor<6x8xf64>) {
  // expected-error@+1 {{'spperm.spmm' op operand #1 must be 2D tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %c = spperm.spmm %a, %b : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<6x8xf64> -> tensor<4x8xf64>
  return
}

// -----

func.func @spmm_rank3(%a: !spperm.matrix<4x6xf32, #spperm.csr>, %b: tensor<6x8x2xf32>) {
  // expected-error@+1 {{'spperm.spmm' op operand #1 must be 2D tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %c = spperm.spmm %a, %b : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<6x8x2xf32> -> tensor<4x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// spperm.permute
//===----------------------------------------------------------------------===//

func.func @permute_shape(%a: !spperm.matrix<4x6xf32, #spperm.csr>) {
  // expected-error@+1 {{'spperm.permute' op changes the shape from 4x6 to 6x4}}
  %p = spperm.permute %a : !spperm.matrix<4x6xf32, #spperm.csr> -> !spperm.matrix<6x4xf32, #spperm.csr<perm = #spperm.perm<lpt>>>
  return
}

// -----

func.func @permute_element_type(%a: !spperm.matrix<4x6xf32, #spperm.csr>) {
  // expected-error@+1 {{'spperm.permute' op changes the element type from 'f32' to 'bf16'}}
  %p = spperm.permute %a : !spperm.matrix<4x6xf32, #spperm.csr> -> !spperm.matrix<4x6xbf16, #spperm.csr<perm = #spperm.perm<lpt>>>
  return
}

// -----

func.func @permute_twice(%a: !spperm.matrix<4x6xf32, #spperm.csr<perm = #spperm.perm<lpt>>>) {
  // expected-error@+1 {{'spperm.permute' op source is already permuted by #spperm.perm<lpt>}}
  %p = spperm.permute %a : !spperm.matrix<4x6xf32, #spperm.csr<perm = #spperm.perm<lpt>>> -> !spperm.matrix<4x6xf32, #spperm.csr<perm = #spperm.perm<bsa>>>
  return
}

// -----

func.func @permute_no_perm(%a: !spperm.matrix<4x6xf32, #spperm.csr>) {
  // expected-error@+1 {{'spperm.permute' op result type has no row permutation}}
  %p = spperm.permute %a : !spperm.matrix<4x6xf32, #spperm.csr> -> !spperm.matrix<4x6xf32, #spperm.csr>
  return
}

// -----

func.func @permute_and_convert(%a: !spperm.matrix<64x64xf32, #spperm.csr>) {
  // expected-error@+1 {{'spperm.permute' op may only add a row permutation; the formats #spperm.csr and #spperm.bell<block = 16, width = 1, residual = csr, perm = #spperm.perm<bsa>> differ otherwise (use spperm.convert)}}
  %p = spperm.permute %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 1, residual = csr, perm = #spperm.perm<bsa>>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// spperm.convert
//===----------------------------------------------------------------------===//

func.func @convert_shape(%a: !spperm.matrix<64x64xf32, #spperm.csr>) {
  // expected-error@+1 {{'spperm.convert' op changes the shape from 64x64 to 64x32}}
  %b = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x32xf32, #spperm.bell<block = 16, width = 1, residual = csr>>
  return
}

// -----

func.func @convert_element_type(%a: !spperm.matrix<64x64xf16, #spperm.csr>) {
  // expected-error@+1 {{'spperm.convert' op changes the element type from 'f16' to 'f32'}}
  %b = spperm.convert %a : !spperm.matrix<64x64xf16, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 1, residual = csr>>
  return
}

// -----

func.func @convert_adds_perm(%a: !spperm.matrix<64x64xf32, #spperm.csr>) {
  // expected-error@+1 {{'spperm.convert' op keeps the row order, but the permutation changes from none to #spperm.perm<bsa> (use spperm.permute)}}
  %b = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 1, residual = csr, perm = #spperm.perm<bsa>>>
  return
}

// -----

func.func @convert_changes_perm(%a: !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<lpt>>>) {
  // expected-error@+1 {{'spperm.convert' op keeps the row order, but the permutation changes from #spperm.perm<lpt> to #spperm.perm<bsa> (use spperm.permute)}}
  %b = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<lpt>>> -> !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<bsa>>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// #spperm.launch
//===----------------------------------------------------------------------===//

// expected-error@+1 {{name, family and variant must not be empty}}
func.func private @launch_name() attributes {k = #spperm.launch<name = "", family = "csr", variant = "k32", k_min = 32, k_max = 32, k_align = 1, zero_output = false, dependent_launch = false, args = [], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 0>}

// -----

// expected-error@+1 {{the K condition needs k_min >= 1, k_align >= 1 and k_max 0 or >= k_min, got 32, 1 and 16}}
func.func private @launch_k() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "k32", k_min = 32, k_max = 16, k_align = 1, zero_output = false, dependent_launch = false, args = [], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 0>}

// -----

// expected-error@+1 {{args must be strings}}
func.func private @launch_args() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "k32", k_min = 32, k_max = 32, k_align = 1, zero_output = false, dependent_launch = false, args = [1], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 0>}

// -----

// expected-error@+1 {{args: 'csr.colidx' is not a buffer (docs/Package.md, "Buffers"), a column-index buffer narrowed to 16 bits (csr.col_idx.u16, bell.residual.col_idx.u16), or B, C, K, tickets, acc or B_col}}
func.func private @launch_arg_name() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "k32", k_min = 32, k_max = 32, k_align = 1, zero_output = false, dependent_launch = false, args = ["B", "C", "csr.colidx"], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 0>}

// -----

// expected-error@+1 {{args: 'order.u16' is not a buffer}}
func.func private @launch_arg_narrowed() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "k32", k_min = 32, k_max = 32, k_align = 1, zero_output = false, dependent_launch = false, args = ["order.u16"], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 0>}

// -----

// expected-error@+1 {{grid must be three positive sizes}}
func.func private @launch_grid() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "k32", k_min = 32, k_max = 32, k_align = 1, zero_output = false, dependent_launch = false, args = [], grid = [0, 1, 1], block = [32, 1, 1], shared_bytes = 0>}

// -----

// expected-error@+1 {{block must be three positive sizes}}
func.func private @launch_block() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "k32", k_min = 32, k_max = 32, k_align = 1, zero_output = false, dependent_launch = false, args = [], grid = [1, 1, 1], block = [32, 1], shared_bytes = 0>}

// -----

// expected-error@+1 {{block must have at most 1024 threads in all and 64 in z, got 2048 x 1 x 1}}
func.func private @launch_block_size() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "k32", k_min = 32, k_max = 32, k_align = 1, zero_output = false, dependent_launch = false, args = [], grid = [1, 1, 1], block = [2048, 1, 1], shared_bytes = 0>}

// -----

// expected-error@+1 {{block must have at most 1024 threads in all and 64 in z, got 64 x 32 x 1}}
func.func private @launch_block_product() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "k32", k_min = 32, k_max = 32, k_align = 1, zero_output = false, dependent_launch = false, args = [], grid = [1, 1, 1], block = [64, 32, 1], shared_bytes = 0>}

// -----

// expected-error@+1 {{block must have at most 1024 threads in all and 64 in z, got 1 x 1 x 128}}
func.func private @launch_block_z() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "k32", k_min = 32, k_max = 32, k_align = 1, zero_output = false, dependent_launch = false, args = [], grid = [1, 1, 1], block = [1, 1, 128], shared_bytes = 0>}

// -----

// expected-error@+1 {{grid_k must be base >= 0, ctas >= 1 and columns >= 1}}
func.func private @launch_grid_k_values() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "r512", k_min = 260, k_max = 0, k_align = 4, zero_output = false, dependent_launch = false, args = ["K"], grid = [8, 1, 1], block = [32, 1, 1], shared_bytes = 0, grid_k = [0, 0, 128]>}

// -----

// expected-error@+1 {{grid_k needs a grid of base + a multiple of ctas in x and 1 in y and z, got [10, 1, 1] for base 0 and ctas 4}}
func.func private @launch_grid_k_grid() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "r512", k_min = 260, k_max = 0, k_align = 4, zero_output = false, dependent_launch = false, args = ["K"], grid = [10, 1, 1], block = [32, 1, 1], shared_bytes = 0, grid_k = [0, 4, 128]>}

// -----

// expected-error@+1 {{grid_k needs the kernel to take K}}
func.func private @launch_grid_k_no_k() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "r512", k_min = 260, k_max = 0, k_align = 4, zero_output = false, dependent_launch = false, args = ["B", "C"], grid = [8, 1, 1], block = [32, 1, 1], shared_bytes = 0, grid_k = [0, 4, 128]>}

// -----

// expected-error@+1 {{grid_k must be base >= 0, ctas >= 1 and columns >= 1}}
func.func private @launch_grid_k_size() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "r512", k_min = 260, k_max = 0, k_align = 4, zero_output = false, dependent_launch = false, args = ["K"], grid = [8, 1, 1], block = [32, 1, 1], shared_bytes = 0, grid_k = [0, 4]>}

// -----

// expected-error@+1 {{grid_k needs a grid of base + a multiple of ctas in x and 1 in y and z, got [8, 2, 1] for base 0 and ctas 4}}
func.func private @launch_grid_k_y() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "r512", k_min = 260, k_max = 0, k_align = 4, zero_output = false, dependent_launch = false, args = ["K"], grid = [8, 2, 1], block = [32, 1, 1], shared_bytes = 0, grid_k = [0, 4, 128]>}

// -----

// expected-error@+1 {{grid_k must be base >= 0, ctas >= 1 and columns >= 1, base + ctas below 2^31}}
func.func private @launch_grid_k_base() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "r512", k_min = 260, k_max = 0, k_align = 4, zero_output = false, dependent_launch = false, args = ["K"], grid = [8, 1, 1], block = [32, 1, 1], shared_bytes = 0, grid_k = [-1, 4, 128]>}

// -----

// expected-error@+1 {{grid_k must be base >= 0, ctas >= 1 and columns >= 1, base + ctas below 2^31}}
func.func private @launch_grid_k_big() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "r512", k_min = 260, k_max = 0, k_align = 4, zero_output = false, dependent_launch = false, args = ["K"], grid = [2147483650, 1, 1], block = [32, 1, 1], shared_bytes = 0, grid_k = [2147483646, 4, 128]>}

// -----

// expected-error@+1 {{shared_bytes must be in [0, 2^31 - 1], got -4}}
func.func private @launch_shared() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "k32", k_min = 32, k_max = 32, k_align = 1, zero_output = false, dependent_launch = false, args = [], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = -4>}

// -----

func.func @load_rows_empty() {
  // expected-error@+1 {{rows must be [begin, end) with 0 <= begin < end}}
  %a = spperm.load "a.mtx" {rows = array<i64: 3, 3>} : !spperm.matrix<4x9xf32, #spperm.csr>
  return
}

// -----

func.func @load_rows_three() {
  // expected-error@+1 {{rows must be [begin, end) with 0 <= begin < end}}
  %a = spperm.load "a.mtx" {rows = array<i64: 0, 2, 4>} : !spperm.matrix<4x9xf32, #spperm.csr>
  return
}

// -----

func.func @load_rows_mismatch() {
  // expected-error@+1 {{rows [0, 3) are 3 rows but the result type has 4}}
  %a = spperm.load "a.mtx" {rows = array<i64: 0, 3>} : !spperm.matrix<4x9xf32, #spperm.csr>
  return
}

// -----

// Rows past a matrix's 2^31 - 1 are refused, not wrapped.
func.func @load_rows_past_limit() {
  // expected-error@+1 {{rows must be [begin, end) with 0 <= begin < end <= 2^31 - 1}}
  %a = spperm.load "a.mtx" {rows = array<i64: 2147483647, 2147483649>} : !spperm.matrix<2x5xf32, #spperm.csr>
  return
}

// -----

// expected-error@+1 {{shared_bytes must be in [0, 2^31 - 1], got 99999999999}}
func.func private @launch_shared_big() attributes {k = #spperm.launch<name = "k", family = "csr", variant = "k32", k_min = 32, k_max = 32, k_align = 1, zero_output = false, dependent_launch = false, args = [], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 99999999999>}
