// Input of compile.test: a model of two fixed sparse layers.
func.func @fc1(%x: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %w = spperm.load "../../Inputs/blocks64.mtx" {values = "random:5"} : !spperm.matrix<64x64xf32, #spperm.csr>
  %y = spperm.spmm %w, %x : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x?xf32> -> tensor<64x?xf32>
  return %y : tensor<64x?xf32>
}

func.func @fc2(%x: tensor<5x16xf32>) -> tensor<4x16xf32> {
  %w = spperm.load "../../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %p = spperm.permute %w : !spperm.matrix<4x5xf32, #spperm.csr> -> !spperm.matrix<4x5xf32, #spperm.csr<perm = #spperm.perm<lpt, warps = 2>>>
  %y = spperm.spmm %p, %x : !spperm.matrix<4x5xf32, #spperm.csr<perm = #spperm.perm<lpt, warps = 2>>>, tensor<5x16xf32> -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
