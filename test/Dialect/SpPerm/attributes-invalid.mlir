// RUN: spperm-opt %s -split-input-file -verify-diagnostics

// One case per rule of the dialect's check of the discardable spperm.*
// attributes (attributes.mlir has them where they belong).

// expected-error@+1 {{unknown spperm attribute 'spperm.kernel'}}
func.func private @misspelled() attributes {spperm.kernel = []}

// -----

// expected-error@+1 {{'spperm.alternative_of' must name a layer's function (@name)}}
func.func private @alternative_string() attributes {spperm.alternative_of = "layer"}

// -----

// expected-error@+1 {{'spperm.alternative_of' names the function itself}}
func.func private @alternative_self() attributes {spperm.alternative_of = @alternative_self}

// -----

// expected-error@+1 {{'spperm.alternative_of' names @gone, which is no symbol of the module}}
func.func private @alternative_dangling() attributes {spperm.alternative_of = @gone}

// -----

// expected-error@+1 {{'spperm.precision' must be one of "fp32", "tf32", "f16" or "3xtf32", got "fp64"}}
func.func private @precision_unknown() attributes {spperm.precision = "fp64"}

// -----

// expected-error@+1 {{'spperm.precision' belongs on a layer's function, not on 'builtin.module'}}
module attributes {spperm.precision = "tf32"} {
}

// -----

// expected-error@+1 {{'spperm.shard' must be array<i64: index, count, begin, end, rows>}}
func.func private @shard_short() attributes {spperm.shard = array<i64: 0, 2, 0, 32>, spperm.shard_of = "layer"}

// -----

// expected-error@+1 {{'spperm.shard' must have 0 <= index < count, 2 <= count and 0 <= begin < end <= rows <= 2^31 - 1, got array<i64: 2, 2, 0, 32, 64>}}
func.func private @shard_index() attributes {spperm.shard = array<i64: 2, 2, 0, 32, 64>, spperm.shard_of = "layer"}

// -----

// expected-error@+1 {{'spperm.shard' must have 0 <= index < count, 2 <= count and 0 <= begin < end <= rows <= 2^31 - 1, got array<i64: 0, 2, 40, 32, 64>}}
func.func private @shard_range() attributes {spperm.shard = array<i64: 0, 2, 40, 32, 64>, spperm.shard_of = "layer"}

// -----

// expected-error@+1 {{'spperm.shard' must have 0 <= index < count, 2 <= count and 0 <= begin < end <= rows <= 2^31 - 1, got array<i64: 0, 2, 0, 32, 4294967296>}}
func.func private @shard_rows() attributes {spperm.shard = array<i64: 0, 2, 0, 32, 4294967296>, spperm.shard_of = "layer"}

// -----

// An empty shard: every shard has a row at least.
// expected-error@+1 {{'spperm.shard' must have 0 <= index < count, 2 <= count and 0 <= begin < end <= rows <= 2^31 - 1, got array<i64: 1, 2, 32, 32, 64>}}
func.func private @shard_empty() attributes {spperm.shard = array<i64: 1, 2, 32, 32, 64>, spperm.shard_of = "layer"}

// -----

// The shard's load reads its rows.
func.func @shard_load(%b: tensor<5x8xf32>) -> tensor<2x8xf32> attributes {spperm.shard = array<i64: 0, 2, 0, 2, 4>, spperm.shard_of = "layer"} {
  // expected-error@+1 {{'spperm.load' op reads rows [1, 3), not its function's 'spperm.shard' [0, 2)}}
  %a = spperm.load "a.mtx" {rows = array<i64: 1, 3>} : !spperm.matrix<2x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<2x5xf32, #spperm.csr>, tensor<5x8xf32> -> tensor<2x8xf32>
  return %c : tensor<2x8xf32>
}

// -----

// A load without `rows` reads the whole matrix: not a shard's rows.
func.func @shard_load_whole(%b: tensor<5x8xf32>) -> tensor<4x8xf32> attributes {spperm.shard = array<i64: 0, 2, 0, 2, 4>, spperm.shard_of = "layer"} {
  // expected-error@+1 {{'spperm.load' op reads rows [0, 4), not its function's 'spperm.shard' [0, 2)}}
  %a = spperm.load "a.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x8xf32> -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// expected-error@+1 {{'spperm.shard' has a count of 1: a layer of one shard is the whole layer (leave the shard attributes out)}}
func.func private @shard_one() attributes {spperm.shard = array<i64: 0, 1, 0, 4, 4>, spperm.shard_of = "layer"}

// -----

// expected-error@+1 {{'spperm.shard' needs 'spperm.shard_of' beside it}}
func.func private @shard_alone() attributes {spperm.shard = array<i64: 0, 2, 0, 32, 64>}

// -----

// expected-error@+1 {{'spperm.shard_of' needs 'spperm.shard' beside it}}
func.func private @shard_of_alone() attributes {spperm.shard_of = "layer"}

// -----

// expected-error@+1 {{'spperm.shard_of' must be the name of the sharded layer}}
func.func private @shard_of_empty() attributes {spperm.shard = array<i64: 0, 2, 0, 32, 64>, spperm.shard_of = ""}

// -----

// expected-error@+1 {{'spperm.kernels' belongs on a lowered spperm.spmm, not on 'func.func'}}
func.func private @kernels_on_function() attributes {spperm.kernels = []}

// -----

func.func @kernels_not_launches(%a: !spperm.matrix<64x64xf32, #spperm.csr>, %b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error@+1 {{'spperm.kernels' must be an array of #spperm.launch}}
  %c = spperm.spmm %a, %b {spperm.kernels = ["l0_csr_k32_0"]} : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

func.func @in_place_not_array(%a: !spperm.matrix<64x64xf32, #spperm.csr>, %b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error@+1 {{'spperm.in_place_b' must be an array of #spperm.launch}}
  %c = spperm.spmm %a, %b {spperm.in_place_b = 1 : i64} : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

func.func @transpose_not_launch(%a: !spperm.matrix<64x64xf32, #spperm.csr>, %b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error@+1 {{'spperm.transpose_b' must be a #spperm.launch}}
  %c = spperm.spmm %a, %b {spperm.transpose_b = []} : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// expected-error@+1 {{'func.func' op argument 0: unknown spperm attribute 'spperm.sources' (arguments take spperm.source and spperm.values)}}
func.func private @argument_misspelled(tensor<8x8xf32> {spperm.sources = "w.mtx"})

// -----

// expected-error@+1 {{'func.func' op argument 0: spperm.source must be a non-empty string (the matrix file)}}
func.func private @source_empty(tensor<8x8xf32> {spperm.source = ""})

// -----

// expected-error@+1 {{'func.func' op result 0: unknown spperm attribute 'spperm.source' (results take none)}}
func.func private @result_attribute() -> (tensor<8x8xf32> {spperm.source = "w.mtx"})

// -----

func.func @kernel_other_format(%a: !spperm.matrix<64x64xf32, #spperm.csr>, %b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error@+1 {{'spperm.kernels': kernel 'k0' takes 'hbp.col', which is an array of the hbp format, but the layer is csr}}
  %c = spperm.spmm %a, %b {spperm.kernels = [#spperm.launch<name = "k0", family = "csr", variant = "v", k_min = 1, k_max = 0, k_align = 1, zero_output = false, dependent_launch = false, args = ["B", "C", "hbp.col"], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 0>]} : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

func.func @kernel_narrow_wide(%a: !spperm.matrix<64x70000xf32, #spperm.csr>, %b: tensor<70000x32xf32>) -> tensor<64x32xf32> {
  // expected-error@+1 {{'spperm.kernels': kernel 'k0' takes 'csr.col_idx.u16', which narrows column indices to 16 bits, but the layer has 70000 columns (at most 65536)}}
  %c = spperm.spmm %a, %b {spperm.kernels = [#spperm.launch<name = "k0", family = "csr", variant = "v", k_min = 1, k_max = 0, k_align = 1, zero_output = false, dependent_launch = false, args = ["B", "C", "csr.row_ptr", "csr.col_idx.u16"], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 0>]} : !spperm.matrix<64x70000xf32, #spperm.csr>, tensor<70000x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// A static K: every launch takes it.
func.func @kernel_k_range(%a: !spperm.matrix<64x64xf32, #spperm.csr>, %b: tensor<64x16xf32>) -> tensor<64x16xf32> {
  // expected-error@+1 {{'spperm.kernels': kernel 'k0' runs K in [64, 128] (multiples of 1), not the multiplication's K = 16}}
  %c = spperm.spmm %a, %b {spperm.kernels = [#spperm.launch<name = "k0", family = "csr", variant = "v", k_min = 64, k_max = 128, k_align = 1, zero_output = false, dependent_launch = false, args = ["B", "C", "csr.row_ptr"], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 0>]} : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x16xf32> -> tensor<64x16xf32>
  return %c : tensor<64x16xf32>
}

// -----

func.func @kernel_k_align(%a: !spperm.matrix<64x64xf32, #spperm.csr>, %b: tensor<64x18xf32>) -> tensor<64x18xf32> {
  // expected-error@+1 {{'spperm.kernels': kernel 'k0' runs K in [8, any] (multiples of 4), not the multiplication's K = 18}}
  %c = spperm.spmm %a, %b {spperm.kernels = [#spperm.launch<name = "k0", family = "csr", variant = "v", k_min = 8, k_max = 0, k_align = 4, zero_output = false, dependent_launch = false, args = ["B", "C", "csr.row_ptr"], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 0>]} : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x18xf32> -> tensor<64x18xf32>
  return %c : tensor<64x18xf32>
}

// -----

func.func @kernel_b_col(%a: !spperm.matrix<64x64xf32, #spperm.csr>, %b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error@+1 {{'spperm.kernels': kernel 'k0' takes B_col, which only a transposing or in-place kernel reads}}
  %c = spperm.spmm %a, %b {spperm.kernels = [#spperm.launch<name = "k0", family = "csr", variant = "v", k_min = 1, k_max = 0, k_align = 1, zero_output = false, dependent_launch = false, args = ["B_col", "C", "csr.row_ptr"], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 0>]} : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

func.func @transpose_args(%a: !spperm.matrix<64x64xf32, #spperm.csr>, %b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error@+1 {{'spperm.transpose_b': kernel 't' must take B_col and B once each, K at most once, and nothing else}}
  %c = spperm.spmm %a, %b {spperm.transpose_b = #spperm.launch<name = "t", family = "transpose", variant = "v", k_min = 1, k_max = 0, k_align = 1, zero_output = false, dependent_launch = false, args = ["B_col", "C"], grid = [1, 1, 1], block = [256, 1, 1], shared_bytes = 0>} : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

func.func @in_place_args(%a: !spperm.matrix<64x64xf32, #spperm.csr>, %b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error@+1 {{'spperm.in_place_b': kernel 'ip' must take B_col and C once each, K at most once, and none of B, tickets or acc}}
  %c = spperm.spmm %a, %b {spperm.in_place_b = [#spperm.launch<name = "ip", family = "csr", variant = "v", k_min = 1, k_max = 0, k_align = 1, zero_output = false, dependent_launch = false, args = ["B", "C", "csr.row_ptr"], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 0>]} : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
