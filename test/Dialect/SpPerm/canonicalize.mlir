// RUN: spperm-opt %s -split-input-file -canonicalize | FileCheck %s

// A conversion to the type the matrix already has folds away.

// CHECK-LABEL: func.func @convert_same_type
// CHECK-SAME: (%[[A:.*]]: !spperm.matrix
// CHECK-NOT: spperm.convert
// CHECK: return %[[A]]
func.func @convert_same_type(%a: !spperm.matrix<64x64xf32, #spperm.csr>) -> !spperm.matrix<64x64xf32, #spperm.csr> {
  %b = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.csr>
  return %b : !spperm.matrix<64x64xf32, #spperm.csr>
}

// -----

// Case: a real conversion stays.

// CHECK-LABEL: func.func @convert_other_format
// CHECK: spperm.convert
func.func @convert_other_format(%a: !spperm.matrix<64x64xf32, #spperm.csr>) -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 1, residual = csr>> {
  %b = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 1, residual = csr>>
  return %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 1, residual = csr>>
}

// -----

// Case: a matrix nobody uses is dead (the ops are pure).

// CHECK-LABEL: func.func @dead_load
// CHECK-NOT: spperm.load
func.func @dead_load() {
  %0 = spperm.load "a.mtx" : !spperm.matrix<4x4xf32, #spperm.csr>
  return
}
