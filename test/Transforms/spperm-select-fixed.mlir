// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="model=%S/../Inputs/selector-tiny.json" | FileCheck %s

// What the module already fixes is forced in the choice, so that the choice
// records what the layer runs: at K = 512 the tiny model (cuSPARSE 0.45
// against lpt's 1) would take cuSPARSE in file order, but a matrix the
// module permutes with lpt keeps lpt.

// CHECK-LABEL: func.func @permuted
// CHECK:         spperm.load {{.*}}choice = #spperm.choice<strategy = "lpt", format = "csr", source = "model {{.*}}selector-tiny.json">
func.func @permuted(%b: tensor<5x512xf32>) -> tensor<4x512xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %p = spperm.permute %a : !spperm.matrix<4x5xf32, #spperm.csr> -> !spperm.matrix<4x5xf32, #spperm.csr<perm = #spperm.perm<lpt>>>
  %c = spperm.spmm %p, %b : !spperm.matrix<4x5xf32, #spperm.csr<perm = #spperm.perm<lpt>>>, tensor<5x512xf32> -> tensor<4x512xf32>
  return %c : tensor<4x512xf32>
}

// -----

// A matrix permuted and converted fixes both: the choice is forced.

// CHECK-LABEL: func.func @converted
// CHECK:         spperm.load {{.*}}choice = #spperm.choice<strategy = "lpt", format = "hbp", source = "forced">
func.func @converted(%b: tensor<5x512xf32>) -> tensor<4x512xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %p = spperm.permute %a : !spperm.matrix<4x5xf32, #spperm.csr> -> !spperm.matrix<4x5xf32, #spperm.csr<perm = #spperm.perm<lpt>>>
  %h = spperm.convert %p : !spperm.matrix<4x5xf32, #spperm.csr<perm = #spperm.perm<lpt>>> -> !spperm.matrix<4x5xf32, #spperm.hbp<rows = 32, cols = 4, perm = #spperm.perm<lpt>>>
  %c = spperm.spmm %h, %b : !spperm.matrix<4x5xf32, #spperm.hbp<rows = 32, cols = 4, perm = #spperm.perm<lpt>>>, tensor<5x512xf32> -> tensor<4x512xf32>
  return %c : tensor<4x512xf32>
}

// -----

// Converted first and permuted after: the same.

// CHECK-LABEL: func.func @converted_then_permuted
// CHECK:         spperm.load {{.*}}choice = #spperm.choice<strategy = "lpt", format = "hbp", source = "forced">
func.func @converted_then_permuted(%b: tensor<5x512xf32>) -> tensor<4x512xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %h = spperm.convert %a : !spperm.matrix<4x5xf32, #spperm.csr> -> !spperm.matrix<4x5xf32, #spperm.hbp<rows = 32, cols = 4>>
  %p = spperm.permute %h : !spperm.matrix<4x5xf32, #spperm.hbp<rows = 32, cols = 4>> -> !spperm.matrix<4x5xf32, #spperm.hbp<rows = 32, cols = 4, perm = #spperm.perm<lpt>>>
  %c = spperm.spmm %p, %b : !spperm.matrix<4x5xf32, #spperm.hbp<rows = 32, cols = 4, perm = #spperm.perm<lpt>>>, tensor<5x512xf32> -> tensor<4x512xf32>
  return %c : tensor<4x512xf32>
}

// -----

// Converted and not permuted: the format is forced, the strategy the
// model's.

// CHECK-LABEL: func.func @converted_only
// CHECK:         spperm.load {{.*}}choice = #spperm.choice<strategy = "identity", format = "hbp", source = "model
func.func @converted_only(%b: tensor<5x512xf32>) -> tensor<4x512xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %h = spperm.convert %a : !spperm.matrix<4x5xf32, #spperm.csr> -> !spperm.matrix<4x5xf32, #spperm.hbp<rows = 32, cols = 4>>
  %c = spperm.spmm %h, %b : !spperm.matrix<4x5xf32, #spperm.hbp<rows = 32, cols = 4>>, tensor<5x512xf32> -> tensor<4x512xf32>
  return %c : tensor<4x512xf32>
}

// -----

// Unpermuted, the same layer gets the model's pick.

// CHECK-LABEL: func.func @free
// CHECK:         spperm.load {{.*}}choice = #spperm.choice<strategy = "identity", format = "cusparse"
func.func @free(%b: tensor<5x512xf32>) -> tensor<4x512xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x512xf32> -> tensor<4x512xf32>
  return %c : tensor<4x512xf32>
}
