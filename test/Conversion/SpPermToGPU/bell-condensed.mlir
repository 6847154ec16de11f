// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=bell block=16 delta=0.5 columns=condensed" -spperm-lower-to-gpu | FileCheck %s
// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=bell block=16 delta=0.5 columns=condensed" -spperm-lower-to-gpu="precision=tf32" | FileCheck %s --check-prefix=TF32

// Condensed tiles: the kernels that read the dense tiles take the tile
// columns (bell.tile_col) and read each B row by its listed column, a
// column of -1 (the tail of a block row's last tile) reading nothing.

// CHECK-LABEL: func.func @k128
// CHECK:         name = "l0_bell_tile_k128_1", family = "bell-tile"
// CHECK-SAME:    args = ["order", "bell.block_col", "bell.block_values", "bell.tile_col", "B", "C", "K"]
// CHECK-LABEL: gpu.func @l0_bell_tile_k128_1
// CHECK-SAME:    (%arg0: memref<?xi32>, %arg1: memref<?xi32>, %arg2: memref<?xf32>, %arg3: memref<?xi32>, %arg4: memref<?xf32>,
// CHECK:         %[[COL:.*]] = memref.load %arg3
// CHECK-NEXT:    %[[ROW:.*]] = arith.index_cast %[[COL]]
// CHECK:         %[[LISTED:.*]] = arith.cmpi sge, %[[ROW]]
// CHECK-NEXT:    %[[OK:.*]] = arith.andi %{{.*}}, %[[LISTED]]
// CHECK:         arith.maxsi %[[ROW]]
// CHECK:         %[[V:.*]] = vector.load %arg4
// CHECK:         arith.select %[[OK]], %[[V]]
func.func @k128(%b: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x128xf32> -> tensor<64x128xf32>
  return %c : tensor<64x128xf32>
}

// -----

// SpMV keeps the dense tiles in the row kernel's prologue, which reads the
// listed column and skips a -1.
// CHECK-LABEL: func.func @spmv
// CHECK:         name = "l0_bell_spmv_k1_0", family = "bell-spmv"
// CHECK-SAME:    args = ["order", "bell.residual.row_ptr", "bell.residual.col_idx.u16", "bell.residual.values", "bell.block_col", "bell.block_values", "bell.tile_col", "B", "C", "K"]
// CHECK-LABEL: gpu.func @l0_bell_spmv_k1_0
// CHECK-SAME:    %arg6: memref<?xi32>
// CHECK:         memref.load %arg6
// CHECK:         arith.cmpi sge
// CHECK:         scf.if
func.func @spmv(%b: tensor<64x1xf32>) -> tensor<64x1xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x1xf32> -> tensor<64x1xf32>
  return %c : tensor<64x1xf32>
}

// -----

// The tensor-core kernel gathers its B fragments by the listed columns.
// TF32-LABEL: func.func @tf32
// TF32:         family = "bell-tf32"
// TF32-SAME:    args = ["order", "bell.block_col", "bell.block_values", "bell.tile_col", "B", "C", "K"]
// TF32-LABEL: gpu.func @l0_bell_mma_k64_tf32
// TF32-SAME:    %arg3: memref<?xi32>
// TF32:         memref.load %arg3
// TF32:         arith.cmpi sge
// TF32:         nvgpu.mma.sync
func.func @tf32(%b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x64xf32> -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}
