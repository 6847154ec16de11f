// RUN: spperm-opt %s -split-input-file -spperm-raise-linalg | FileCheck %s

// A sparse-dense linalg.matmul whose CSR operand names its fixed matrix
// becomes spperm.load + spperm.spmm; the zero fill goes with it.

#CSR = #sparse_tensor.encoding<{map = (i, j) -> (i : dense, j : compressed)}>

// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%{{.*}}: tensor<64x32xf32, #sparse{{[0-9]*}}> {spperm.source = "w.mtx"}, %[[X:.*]]: tensor<32x?xf32>, %{{.*}}: tensor<64x?xf32>)
// CHECK:         %[[W:.*]] = spperm.load "w.mtx" : !spperm.matrix<64x32xf32, #spperm.csr>
// CHECK:         %[[Y:.*]] = spperm.spmm %[[W]], %[[X]] : !spperm.matrix<64x32xf32, #spperm.csr>, tensor<32x?xf32> -> tensor<64x?xf32>
// CHECK-NOT:     linalg.
// CHECK:         return %[[Y]]
func.func @matmul(%w: tensor<64x32xf32, #CSR> {spperm.source = "w.mtx"},
                  %x: tensor<32x?xf32>, %init: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %zero = arith.constant 0.0 : f32
  %c = linalg.fill ins(%zero : f32) outs(%init : tensor<64x?xf32>) -> tensor<64x?xf32>
  %y = linalg.matmul ins(%w, %x : tensor<64x32xf32, #CSR>, tensor<32x?xf32>)
                     outs(%c : tensor<64x?xf32>) -> tensor<64x?xf32>
  return %y : tensor<64x?xf32>
}

// -----

// The same product as a linalg.generic, with the values spec carried over.

#CSR = #sparse_tensor.encoding<{map = (i, j) -> (i : dense, j : compressed), posWidth = 32, crdWidth = 32}>
#A = affine_map<(m, n, k) -> (m, k)>
#B = affine_map<(m, n, k) -> (k, n)>
#C = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @generic
// CHECK:         spperm.load "dlmc/q.smtx.gz" {values = "random:3"} : !spperm.matrix<512x512xf32, #spperm.csr>
// CHECK:         spperm.spmm {{.*}} -> tensor<512x16xf32>
// CHECK-NOT:     linalg.generic
func.func @generic(%w: tensor<512x512xf32, #CSR> {spperm.source = "dlmc/q.smtx.gz", spperm.values = "random:3"},
                   %x: tensor<512x16xf32>) -> tensor<512x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<512x16xf32>) -> tensor<512x16xf32>
  %y = linalg.generic {indexing_maps = [#A, #B, #C],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%w, %x : tensor<512x512xf32, #CSR>, tensor<512x16xf32>)
      outs(%c : tensor<512x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<512x16xf32>
  return %y : tensor<512x16xf32>
}

// -----

// Left alone: no spperm.source, a CSC operand (columns first), an init that
// is not zero, a dense left operand, and a transposed product.

#CSR = #sparse_tensor.encoding<{map = (i, j) -> (i : dense, j : compressed)}>
#CSC = #sparse_tensor.encoding<{map = (i, j) -> (j : dense, i : compressed)}>

// CHECK-LABEL: func.func @no_source
// CHECK:         linalg.matmul
// CHECK-NOT:     spperm.
func.func @no_source(%w: tensor<8x8xf32, #CSR>, %x: tensor<8x4xf32>, %init: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %c = linalg.fill ins(%zero : f32) outs(%init : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul ins(%w, %x : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @csc
// CHECK:         linalg.matmul
// CHECK-NOT:     spperm.
func.func @csc(%w: tensor<8x8xf32, #CSC> {spperm.source = "w.mtx"}, %x: tensor<8x4xf32>, %init: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %c = linalg.fill ins(%zero : f32) outs(%init : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul ins(%w, %x : tensor<8x8xf32, #CSC>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @accumulates
// CHECK:         linalg.matmul
// CHECK-NOT:     spperm.
func.func @accumulates(%w: tensor<8x8xf32, #CSR> {spperm.source = "w.mtx"}, %x: tensor<8x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %y = linalg.matmul ins(%w, %x : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @dense
// CHECK:         linalg.matmul
// CHECK-NOT:     spperm.
func.func @dense(%w: tensor<8x8xf32> {spperm.source = "w.mtx"}, %x: tensor<8x4xf32>, %init: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %c = linalg.fill ins(%zero : f32) outs(%init : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul ins(%w, %x : tensor<8x8xf32>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @transposed
// CHECK:         linalg.generic
// CHECK-NOT:     spperm.
#T = affine_map<(m, n, k) -> (k, m)>
#B = affine_map<(m, n, k) -> (k, n)>
#C = affine_map<(m, n, k) -> (m, n)>
func.func @transposed(%w: tensor<8x8xf32, #CSR> {spperm.source = "w.mtx"}, %x: tensor<8x4xf32>, %init: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %c = linalg.fill ins(%zero : f32) outs(%init : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.generic {indexing_maps = [#T, #B, #C], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%w, %x : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// Left alone too: an empty product (K = 0), which spperm.spmm does not
// take.

#CSR = #sparse_tensor.encoding<{map = (i, j) -> (i : dense, j : compressed)}>

// CHECK-LABEL: func.func @no_columns
// CHECK:         linalg.matmul
// CHECK-NOT:     spperm.
func.func @no_columns(%w: tensor<64x64xf32, #CSR> {spperm.source = "w.mtx"}, %x: tensor<64x0xf32>, %init: tensor<64x0xf32>) -> tensor<64x0xf32> {
  %zero = arith.constant 0.0 : f32
  %c = linalg.fill ins(%zero : f32) outs(%init : tensor<64x0xf32>) -> tensor<64x0xf32>
  %y = linalg.matmul ins(%w, %x : tensor<64x64xf32, #CSR>, tensor<64x0xf32>) outs(%c : tensor<64x0xf32>) -> tensor<64x0xf32>
  return %y : tensor<64x0xf32>
}
