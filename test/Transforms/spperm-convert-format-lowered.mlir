// RUN: spperm-opt %s -split-input-file -verify-diagnostics -spperm-convert-format=format=bell

// Kernels are made for the storage a matrix has: once they are, it keeps it.

func.func @lowered(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "a.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  // expected-error @below {{'spperm.spmm' op is already lowered (it has spperm.kernels): spperm-convert-format must run before spperm-lower-to-gpu, whose kernels are made for the storage the matrix has}}
  %c = spperm.spmm %a, %b {spperm.kernels = []} : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
