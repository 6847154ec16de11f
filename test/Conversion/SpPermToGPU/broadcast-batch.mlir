// RUN: rm -rf %t && mkdir -p %t
// RUN: spperm-gen rmat --scale 16 --edge-factor 4 --seed 1 -o %t/rmat.mtx
// RUN: spperm-gen banded --rows 65536 --half-width 4 -o %t/banded.mtx
// RUN: spperm-gen rmat --scale 18 --edge-factor 2 --seed 1 -o %t/rmat18.mtx
// RUN: spperm-gen rmat --scale 17 --edge-factor 4 --seed 1 -o %t/rmat17.mtx
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu=base-dir=%t | FileCheck %s
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="base-dir=%t batch=2" | FileCheck %s --check-prefix=FORCED

// The broadcast batch of a row kernel over many rows (docs/Kernels.md,
// "Broadcast batches"): a loop over the group's entries in batches of 2,
// or of 4 in SpMM where the longest rows are at least 4 times the mean,
// groups have 4 to 16 lanes and the rows are at most 1,024 per
// multiprocessor (135,168 on the default 132).
// 65,536 rows at K = 32 (8-lane groups) fill the GPU, so the layers loop.

// R-MAT, 3.9 entries a row on average and rows of up to the long-row
// threshold (128) in the row kernel: batches of 4, an i32 counter.
// CHECK-LABEL: func.func @uneven
// CHECK:       gpu.func @l0_csr_k32_0
// CHECK:           scf.for %{{.*}} = %c0_i32{{.*}} to %{{.*}} step %c4_i32 iter_args(%{{.*}}) -> (vector<4xf32>)  : i32
// FORCED-LABEL: func.func @uneven
// FORCED:       gpu.func @l0_csr_k32_0
// FORCED-NOT:       step %c4_i32
// FORCED:           scf.for %{{.*}} = %c0_i32{{.*}} to %{{.*}} step %c2_i32 iter_args(%{{.*}}) -> (vector<4xf32>)  : i32
func.func @uneven(%b: tensor<65536x32xf32>) -> tensor<65536x32xf32> {
  %a = spperm.load "rmat.mtx" : !spperm.matrix<65536x65536xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<65536x65536xf32, #spperm.csr>, tensor<65536x32xf32> -> tensor<65536x32xf32>
  return %c : tensor<65536x32xf32>
}

// -----

// A banded matrix, 9 entries in every row: batches of 2. The batch's
// shuffles come before its B loads, and both loads before the first
// multiply-add: ptxas then issues the loads back to back.
// CHECK-LABEL: func.func @even
// CHECK:       gpu.func @l0_csr_k32_0
// CHECK-NOT:       step %c4_i32
// CHECK:           scf.for %{{.*}} = %c0_i32{{.*}} to %{{.*}} step %c2_i32 iter_args(%{{.*}}) -> (vector<4xf32>)  : i32
// CHECK-NOT:         vector.load
// CHECK:             nvvm.shfl.sync  idx
// CHECK-NOT:         vector.load
// CHECK:             nvvm.shfl.sync  idx
// CHECK-NOT:         vector.load
// CHECK:             nvvm.shfl.sync  idx
// CHECK-NOT:         vector.load
// CHECK:             nvvm.shfl.sync  idx
// CHECK-NOT:         {{vector.fma|nvvm.shfl.sync}}
// CHECK:             vector.load %{{.*}} : memref<?xf32>, vector<4xf32>
// CHECK-NOT:         {{vector.fma|nvvm.shfl.sync}}
// CHECK:             vector.load %{{.*}} : memref<?xf32>, vector<4xf32>
// CHECK-NOT:         {{vector.load|nvvm.shfl.sync}}
// CHECK:             vector.fma
// CHECK-NOT:         {{vector.load|nvvm.shfl.sync}}
// CHECK:             vector.fma
// CHECK-NOT:         {{vector.load|nvvm.shfl.sync}}
// CHECK:             scf.yield
// CHECK-NOT:       step %c4_i32
// CHECK:       gpu.return
func.func @even(%b: tensor<65536x32xf32>) -> tensor<65536x32xf32> {
  %a = spperm.load "banded.mtx" : !spperm.matrix<65536x65536xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<65536x65536xf32, #spperm.csr>, tensor<65536x32xf32> -> tensor<65536x32xf32>
  return %c : tensor<65536x32xf32>
}

// -----

// R-MAT with 262,144 rows: uneven, but too many rows for batches of 4.
// CHECK-LABEL: func.func @many
// CHECK:       gpu.func @l0_csr_k32_0
// CHECK-NOT:       step %c4_i32
// CHECK:           scf.for %{{.*}} = %c0_i32{{.*}} to %{{.*}} step %c2_i32 iter_args(%{{.*}}) -> (vector<4xf32>)  : i32
// CHECK-NOT:       step %c4_i32
// CHECK:       gpu.return
func.func @many(%b: tensor<262144x32xf32>) -> tensor<262144x32xf32> {
  %a = spperm.load "rmat18.mtx" : !spperm.matrix<262144x262144xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<262144x262144xf32, #spperm.csr>, tensor<262144x32xf32> -> tensor<262144x32xf32>
  return %c : tensor<262144x32xf32>
}

// -----

// The same R-MAT at K = 128: 32-lane groups, batches of 2.
// CHECK-LABEL: func.func @wide
// CHECK:       gpu.func @l0_csr_k128_{{[0-9]+}}
// CHECK-NOT:       step %c4_i32
// CHECK:           scf.for %{{.*}} = %c0_i32{{.*}} to %{{.*}} step %c2_i32 iter_args(%{{.*}}) -> (vector<4xf32>)  : i32
// CHECK-NOT:       step %c4_i32
// CHECK:       gpu.return
func.func @wide(%b: tensor<65536x128xf32>) -> tensor<65536x128xf32> {
  %a = spperm.load "rmat.mtx" : !spperm.matrix<65536x65536xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<65536x65536xf32, #spperm.csr>, tensor<65536x128xf32> -> tensor<65536x128xf32>
  return %c : tensor<65536x128xf32>
}

// -----

// R-MAT with 131,072 rows at K = 8: 2-lane groups, which can't fill a
// batch of 4: batches of 2.
// CHECK-LABEL: func.func @narrow
// CHECK:       gpu.func @l0_csr_k8_{{[0-9]+}}
// CHECK-NOT:       step %c4_i32
// CHECK:           scf.for %{{.*}} = %c0_i32{{.*}} to %{{.*}} step %c2_i32 iter_args(%{{.*}}) -> (vector<4xf32>)  : i32
// CHECK-NOT:       step %c4_i32
// CHECK:       gpu.return
func.func @narrow(%b: tensor<131072x8xf32>) -> tensor<131072x8xf32> {
  %a = spperm.load "rmat17.mtx" : !spperm.matrix<131072x131072xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<131072x131072xf32, #spperm.csr>, tensor<131072x8xf32> -> tensor<131072x8xf32>
  return %c : tensor<131072x8xf32>
}
