// One layer of rows [1, 3) of a 4 x 5 matrix file beside it (a.mtx), for
// tools/spperm-verify/verify.test.
func.func @fc(%b: tensor<5x?xf32>) -> tensor<2x?xf32> {
  %A = spperm.load "a.mtx" {rows = array<i64: 1, 3>} : !spperm.matrix<2x5xf32, #spperm.csr>
  %C = spperm.spmm %A, %b : !spperm.matrix<2x5xf32, #spperm.csr>, tensor<5x?xf32> -> tensor<2x?xf32>
  return %C : tensor<2x?xf32>
}
