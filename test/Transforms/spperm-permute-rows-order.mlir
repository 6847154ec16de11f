// RUN: spperm-opt %s -split-input-file -verify-diagnostics -spperm-permute-rows=strategy=lpt

// The permutation goes on the loaded matrix: a matrix converted before it is
// permuted is refused rather than left in its order without a word.

func.func @converted(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "a.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  // expected-error @below {{'spperm.convert' op converts an unpermuted matrix that a multiplication uses: spperm-permute-rows permutes a loaded matrix, so it runs before spperm-convert-format (as spperm-pipeline runs them)}}
  %h = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>
  %c = spperm.spmm %h, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>, tensor<64x32xf32> -> tensor<64x32xf32>
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
