// One encoder block of the DLMC Transformer (magnitude pruning, 90 %
// sparse; Gale et al., SC 2020): the attention projections q, k, v and out
// (512 x 512) and the feed-forward pair ffn1 (2048 x 512) and ffn2
// (512 x 2048). Activations are d_model x tokens, K = tokens is chosen at
// run time. The weights' values are random (the DLMC files hold patterns).
//
//   spperm-compile transformer_block.mlir -o block.spp
//
// compiles every layer: features, the selector's strategy and format for
// each, the generated kernels, one package.

func.func @q(%x: tensor<512x?xf32>) -> tensor<512x?xf32> {
  %w = spperm.load "dlmc/q.smtx.gz" {values = "random:1"} : !spperm.matrix<512x512xf32, #spperm.csr>
  %y = spperm.spmm %w, %x : !spperm.matrix<512x512xf32, #spperm.csr>, tensor<512x?xf32> -> tensor<512x?xf32>
  return %y : tensor<512x?xf32>
}

func.func @k(%x: tensor<512x?xf32>) -> tensor<512x?xf32> {
  %w = spperm.load "dlmc/k.smtx.gz" {values = "random:2"} : !spperm.matrix<512x512xf32, #spperm.csr>
  %y = spperm.spmm %w, %x : !spperm.matrix<512x512xf32, #spperm.csr>, tensor<512x?xf32> -> tensor<512x?xf32>
  return %y : tensor<512x?xf32>
}

func.func @v(%x: tensor<512x?xf32>) -> tensor<512x?xf32> {
  %w = spperm.load "dlmc/v.smtx.gz" {values = "random:3"} : !spperm.matrix<512x512xf32, #spperm.csr>
  %y = spperm.spmm %w, %x : !spperm.matrix<512x512xf32, #spperm.csr>, tensor<512x?xf32> -> tensor<512x?xf32>
  return %y : tensor<512x?xf32>
}

func.func @out(%x: tensor<512x?xf32>) -> tensor<512x?xf32> {
  %w = spperm.load "dlmc/out.smtx.gz" {values = "random:4"} : !spperm.matrix<512x512xf32, #spperm.csr>
  %y = spperm.spmm %w, %x : !spperm.matrix<512x512xf32, #spperm.csr>, tensor<512x?xf32> -> tensor<512x?xf32>
  return %y : tensor<512x?xf32>
}

func.func @ffn1(%x: tensor<512x?xf32>) -> tensor<2048x?xf32> {
  %w = spperm.load "dlmc/ffn1.smtx.gz" {values = "random:5"} : !spperm.matrix<2048x512xf32, #spperm.csr>
  %y = spperm.spmm %w, %x : !spperm.matrix<2048x512xf32, #spperm.csr>, tensor<512x?xf32> -> tensor<2048x?xf32>
  return %y : tensor<2048x?xf32>
}

func.func @ffn2(%x: tensor<2048x?xf32>) -> tensor<512x?xf32> {
  %w = spperm.load "dlmc/ffn2.smtx.gz" {values = "random:6"} : !spperm.matrix<512x2048xf32, #spperm.csr>
  %y = spperm.spmm %w, %x : !spperm.matrix<512x2048xf32, #spperm.csr>, tensor<2048x?xf32> -> tensor<512x?xf32>
  return %y : tensor<512x?xf32>
}
