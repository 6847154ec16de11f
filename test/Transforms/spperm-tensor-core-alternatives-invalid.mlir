// RUN: spperm-opt %s -split-input-file -spperm-tensor-core-alternatives -verify-diagnostics

// expected-error @+1 {{'func.func' op cannot take its tensor-core alternative: the name @taken__x3 is taken}}
func.func @taken(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../Inputs/blocks64.mtx" {choice = #spperm.choice<strategy = "identity", format = "bell", source = "shipped model sm_90">} : !spperm.matrix<64x64xf32, #spperm.csr>
  %m = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>
  %c = spperm.spmm %m, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
func.func @taken__x3() {
  return
}
