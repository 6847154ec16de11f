// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu=k-buckets=0 | FileCheck %s

// Every layer gets a transposing kernel (docs/Kernels.md, "Column-major
// B"): B_col (the caller's column-major B, element (i, j) at i + j * 64) to
// the row-major B, 32 x 32 tiles through a padded shared tile (32 x 33),
// a grid-stride loop over the tiles. Any K: K is the kernel's parameter,
// the grid 32 CTAs per multiprocessor (the runtime launches no more than
// there are tiles). On sm_90 (the default target) it lets its dependents
// launch at its start and is marked dependent_launch: every variant's
// first kernel waits at its start, so the runtime may launch it as this
// kernel's programmatic dependent.

// CHECK-LABEL: func.func @any
// CHECK:         spperm.transpose_b = #spperm.launch<name = "l0_transpose_b", family = "transpose", variant = "transpose", k_min = 1, k_max = 0, k_align = 1, zero_output = false, dependent_launch = true, args = ["B_col", "B", "K"], grid = [4224, 1, 1], block = [256, 1, 1], shared_bytes = 0>
// CHECK:       gpu.func @l0_csr_spmv_spmv_0
// CHECK-NEXT:    nvvm.griddepcontrol wait
// CHECK:       gpu.func @l0_transpose_b(%[[COL:.*]]: memref<?xf32>, %[[ROW:.*]]: memref<?xf32>, %[[K:.*]]: index) workgroup(%[[TILE:.*]] : memref<1056xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK-NEXT:    nvvm.griddepcontrol launch_dependents
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-COUNT-4:   memref.load %[[COL]][%{{.*}}] : memref<?xf32>
// CHECK-COUNT-4:   memref.store %{{.*}}, %[[TILE]][%{{.*}}] : memref<1056xf32, #gpu.address_space<workgroup>>
// CHECK:           gpu.barrier
// CHECK:           arith.cmpi slt, %{{.*}}, %[[K]] : index
// CHECK:           memref.load %[[TILE]]
// CHECK:           scf.if
// CHECK-NEXT:        arith.muli %{{.*}}, %[[K]] : index
// CHECK:             memref.store %{{.*}}, %[[ROW]][%{{.*}}] : memref<?xf32>
// CHECK:           gpu.barrier
// CHECK:         gpu.return
func.func @any(%b: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x?xf32> -> tensor<64x?xf32>
  return %c : tensor<64x?xf32>
}

// -----

// A K of the layer's: baked in (k_min = k_max = 96), one CTA per tile
// (2 x 3), and the elements are the layer's type, copied as they are.

// CHECK-LABEL: func.func @bf16
// CHECK:         spperm.transpose_b = #spperm.launch<name = "l0_transpose_b", family = "transpose", variant = "transpose", k_min = 96, k_max = 96, {{.*}}grid = [6, 1, 1], block = [256, 1, 1]
// CHECK:       gpu.func @l0_transpose_b(%{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xbf16>, %{{.*}}: index) workgroup(%{{.*}} : memref<1056xbf16, #gpu.address_space<workgroup>>
// CHECK-NOT:     arith.extf
// CHECK-NOT:     arith.truncf
// CHECK:         arith.constant 96 : index
// CHECK:         gpu.return
func.func @bf16(%b: tensor<64x96xbf16>) -> tensor<64x96xbf16> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x96xbf16> -> tensor<64x96xbf16>
  return %c : tensor<64x96xbf16>
}

// -----

// A layer cuSPARSE runs has one too, and a non-square matrix's is sized by
// its columns (the rows of B): 5 columns, one tile row.

// CHECK-LABEL: func.func @library
// CHECK:         spperm.kernels = [#spperm.launch<name = "cusparse"
// CHECK-SAME:    spperm.transpose_b = #spperm.launch<name = "l0_transpose_b"
// CHECK:       gpu.func @l0_transpose_b
// CHECK:         arith.constant 4 : index
func.func @library(%b: tensor<5x8xf32>) -> tensor<4x8xf32> {
  %a = spperm.load "../../Inputs/small.mtx" {choice = #spperm.choice<strategy = "identity", format = "cusparse", source = "forced">} : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x8xf32> -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
