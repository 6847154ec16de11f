// RUN: spperm-opt %s -split-input-file | spperm-opt -split-input-file | FileCheck %s

// The discardable spperm.* attributes the passes set (docs/Passes.md) round
// trip where they belong; attributes-invalid.mlir holds what the dialect
// refuses.

// CHECK-LABEL: func.func @layer
// CHECK-LABEL: func.func @layer__a1
// CHECK-SAME:    spperm.alternative_of = @layer
// CHECK-SAME:    spperm.precision = "3xtf32"
func.func @layer(%b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %b : tensor<4x8xf32>
}
func.func @layer__a1(%b: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {spperm.alternative_of = @layer, spperm.precision = "3xtf32"} {
  return %b : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @layer__shard1
// CHECK-SAME:    spperm.shard = array<i64: 1, 2, 32, 64, 64>
// CHECK-SAME:    spperm.shard_of = "layer"
func.func @layer__shard1(%b: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {spperm.shard = array<i64: 1, 2, 32, 64, 64>, spperm.shard_of = "layer"} {
  return %b : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @lowered
// CHECK:         spperm.spmm
// CHECK-SAME:      spperm.in_place_b = []
// CHECK-SAME:      spperm.kernels = [#spperm.launch<name = "cusparse"
// CHECK-SAME:      spperm.transpose_b = #spperm.launch<name = "l0_transpose_b"
func.func @lowered(%a: !spperm.matrix<64x64xf32, #spperm.csr>, %b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %c = spperm.spmm %a, %b {spperm.in_place_b = [], spperm.kernels = [#spperm.launch<name = "cusparse", family = "cusparse", variant = "cusparse", k_min = 1, k_max = 0, k_align = 1, zero_output = false, dependent_launch = false, args = [], grid = [1, 1, 1], block = [1, 1, 1], shared_bytes = 0>], spperm.transpose_b = #spperm.launch<name = "l0_transpose_b", family = "transpose", variant = "t", k_min = 1, k_max = 0, k_align = 1, zero_output = false, dependent_launch = false, args = ["B", "B_col", "K"], grid = [1, 1, 1], block = [256, 1, 1], shared_bytes = 0>} : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// A bell layer's kernels take its own arrays, the csr arrays any layer may
// carry, column indices narrowed to 16 bits and the call's arguments.
// CHECK-LABEL: func.func @lowered_bell
// CHECK:         spperm.in_place_b = [#spperm.launch<name = "ip"
// CHECK-SAME:      args = ["B_col", "C", "K", "order", "bell.residual.col_idx.u16"]
// CHECK-SAME:    spperm.kernels = [#spperm.launch<name = "k0"
// CHECK-SAME:      args = ["B", "C", "K", "acc", "tickets", "order", "csr.row_ptr", "csr.col_idx.u16", "bell.block_col", "bell.block_values"]
func.func @lowered_bell(%a: !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 1, residual = csr>>, %b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %c = spperm.spmm %a, %b {spperm.in_place_b = [#spperm.launch<name = "ip", family = "bell", variant = "v", k_min = 1, k_max = 0, k_align = 1, zero_output = false, dependent_launch = false, args = ["B_col", "C", "K", "order", "bell.residual.col_idx.u16"], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 0>], spperm.kernels = [#spperm.launch<name = "k0", family = "bell", variant = "v", k_min = 1, k_max = 0, k_align = 1, zero_output = false, dependent_launch = false, args = ["B", "C", "K", "acc", "tickets", "order", "csr.row_ptr", "csr.col_idx.u16", "bell.block_col", "bell.block_values"], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 0>]} : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 1, residual = csr>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// CHECK-LABEL: func.func private @named_matrix
// CHECK-SAME:    spperm.source = "w.mtx", spperm.values = "random:7"
func.func private @named_matrix(tensor<8x8xf32> {spperm.source = "w.mtx", spperm.values = "random:7"})
