// RUN: spperm-opt %s -split-input-file -spperm-expand-alternatives -verify-diagnostics

// The copy's name is taken.
// expected-error@+1 {{'func.func' op cannot take its alternative 1: the name @fc__alt1 is taken}}
func.func @fc(%b: tensor<5x32xf32>) -> tensor<4x32xf32> {
  %a = spperm.load "a.mtx" {choice = #spperm.choice<strategy = "lpt", format = "csr", source = "s", alternatives = [#spperm.choice<strategy = "bsa", format = "bell", source = "shortlist">]>} : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x32xf32> -> tensor<4x32xf32>
  return %c : tensor<4x32xf32>
}
func.func private @fc__alt1()

// -----

// Not a layer: two multiplications.
func.func @two(%b: tensor<5x32xf32>) -> tensor<4x32xf32> {
  // expected-error@+1 {{has alternatives, but function @two is not a layer (one spperm.spmm of this matrix)}}
  %a = spperm.load "a.mtx" {choice = #spperm.choice<strategy = "lpt", format = "csr", source = "s", alternatives = [#spperm.choice<strategy = "bsa", format = "bell", source = "shortlist">]>} : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x32xf32> -> tensor<4x32xf32>
  %d = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x32xf32> -> tensor<4x32xf32>
  return %d : tensor<4x32xf32>
}

// -----

// Two matrices with alternatives in one function.
func.func @pair(%b: tensor<5x32xf32>) -> tensor<4x32xf32> {
  %a = spperm.load "a.mtx" {choice = #spperm.choice<strategy = "lpt", format = "csr", source = "s", alternatives = [#spperm.choice<strategy = "bsa", format = "bell", source = "shortlist">]>} : !spperm.matrix<4x5xf32, #spperm.csr>
  // expected-error@+1 {{is the second matrix with alternatives in function @pair; a layer has one}}
  %x = spperm.load "b.mtx" {choice = #spperm.choice<strategy = "lpt", format = "csr", source = "s", alternatives = [#spperm.choice<strategy = "bsa", format = "bell", source = "shortlist">]>} : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x32xf32> -> tensor<4x32xf32>
  return %c : tensor<4x32xf32>
}
