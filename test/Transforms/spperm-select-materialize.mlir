// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="model=%S/../Inputs/selector-tiny.json" -spperm-permute-rows="strategy=auto" -spperm-convert-format="format=auto" | FileCheck %s

// The choice is materialized by the permute and convert passes: lpt in csr
// at K = 32; cuSPARSE (identity order, csr storage) at K = 512.

// CHECK-LABEL: func.func @k32
// CHECK:         spperm.permute {{.*}} -> !spperm.matrix<4x5xf32, #spperm.csr<perm = #spperm.perm<lpt>>>
// CHECK-NOT:     spperm.convert
// CHECK:         spperm.spmm
func.func @k32(%b: tensor<5x32xf32>) -> tensor<4x32xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x32xf32> -> tensor<4x32xf32>
  return %c : tensor<4x32xf32>
}

// -----

// CHECK-LABEL: func.func @k512
// CHECK:         spperm.permute {{.*}} -> !spperm.matrix<4x5xf32, #spperm.csr<perm = #spperm.perm<identity>>>
// CHECK-NOT:     spperm.convert
func.func @k512(%b: tensor<5x512xf32>) -> tensor<4x512xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x512xf32> -> tensor<4x512xf32>
  return %c : tensor<4x512xf32>
}
