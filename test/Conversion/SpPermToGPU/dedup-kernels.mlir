// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu=k-buckets=0 -spperm-dedup-kernels | FileCheck %s
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu=k-buckets=0 | FileCheck %s --check-prefix=APART

// Two layers of one matrix and K: the second's kernels are the first's,
// kept once and launched by both (its transposing kernel too).

// CHECK-LABEL: func.func @first
// CHECK:         spperm.spmm {{.*}}name = "l0_csr_k32_0"
// CHECK-SAME:      spperm.transpose_b = #spperm.launch<name = "l0_transpose_b"
// CHECK-LABEL: func.func @second
// CHECK:         spperm.spmm {{.*}}name = "l0_csr_k32_0"
// CHECK-SAME:      spperm.transpose_b = #spperm.launch<name = "l0_transpose_b"
// CHECK:       gpu.module @spperm_kernels
// CHECK:         gpu.func @l0_csr_k32_0
// CHECK-NOT:     gpu.func @l1_
// CHECK:         gpu.func @l0_transpose_b
// CHECK-NOT:     gpu.func @l1_

// APART:         gpu.func @l0_csr_k32_0
// APART:         gpu.func @l1_csr_k32_0
func.func @first(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
func.func @second(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// Kernels that differ stay apart: another K, another matrix.

// CHECK-LABEL: func.func @k32
// CHECK:         name = "l0_csr_k32_0"
// CHECK-LABEL: func.func @k64
// CHECK:         name = "l1_csr_k64_0"
// CHECK-LABEL: func.func @other
// CHECK:         name = "l2_csr_k32_0"
// CHECK:       gpu.func @l0_csr_k32_0
// CHECK:       gpu.func @l1_csr_k64_0
// CHECK:       gpu.func @l2_csr_k32_0
func.func @k32(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
func.func @k64(%b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x64xf32> -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}
func.func @other(%b: tensor<1024x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/longrow.mtx" : !spperm.matrix<64x1024xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x1024xf32, #spperm.csr>, tensor<1024x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// A module without kernels is left as it is.

// CHECK-LABEL: func.func @nothing
func.func @nothing() {
  return
}

