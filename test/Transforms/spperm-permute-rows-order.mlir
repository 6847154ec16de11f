// RUN: spperm-opt %s -split-input-file -verify-diagnostics -spperm-permute-rows=strategy=lpt

// The permutation goes on the loaded matrix: one that a convert takes from
// somewhere else than the load (here another convert) is refused rather
// than left in its order without a word. (A convert straight from the load
// takes the permutation: spperm-permute-rows.mlir, @converted.)

func.func @converted_twice(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "a.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %h = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.hbp<rows = 64, cols = 64>>
  // expected-error @below {{'spperm.convert' op converts an unpermuted matrix that a multiplication uses, but spperm-permute-rows permutes a loaded matrix and takes the permutation through a convert only from the load to multiplications: permute before converting (as spperm-pipeline runs them)}}
  %e = spperm.convert %h : !spperm.matrix<64x64xf32, #spperm.hbp<rows = 64, cols = 64>> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>
  %c = spperm.spmm %e, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// Kernels are made for the storage a matrix has: once they are, its rows
// stay where they are.

func.func @lowered(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "a.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  // expected-error @below {{'spperm.spmm' op is already lowered (it has spperm.kernels): spperm-permute-rows must run before spperm-lower-to-gpu, whose kernels are made for the storage the matrix has}}
  %c = spperm.spmm %a, %b {spperm.kernels = []} : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
