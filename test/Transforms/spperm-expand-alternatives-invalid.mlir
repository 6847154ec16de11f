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

// -----

// One multiplication, but in a branch: not a layer.
func.func @branch(%p: i1, %b: tensor<5x32xf32>) -> tensor<4x32xf32> {
  // expected-note@+1 {{its matrix has alternatives, which only a layer takes}}
  %a = spperm.load "a.mtx" {choice = #spperm.choice<strategy = "lpt", format = "csr", source = "s", alternatives = [#spperm.choice<strategy = "bsa", format = "bell", source = "shortlist">]>} : !spperm.matrix<4x5xf32, #spperm.csr>
  %r = scf.if %p -> tensor<4x32xf32> {
    // expected-error@+1 {{'spperm.spmm' op is inside 'scf.if': a layer is a function whose body multiplies once, not inside a loop or a branch}}
    %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x32xf32> -> tensor<4x32xf32>
    scf.yield %c : tensor<4x32xf32>
  } else {
    %e = tensor.empty() : tensor<4x32xf32>
    scf.yield %e : tensor<4x32xf32>
  }
  return %r : tensor<4x32xf32>
}

// -----

// A list in a nested module is an error, never left behind (the
// file's module holds @inner).
module {
  module @inner {
    func.func @fc(%b: tensor<5x32xf32>) -> tensor<4x32xf32> {
      // expected-note@+1 {{its matrix has alternatives, which only a layer takes}}
      %a = spperm.load "a.mtx" {choice = #spperm.choice<strategy = "lpt", format = "csr", source = "s", alternatives = [#spperm.choice<strategy = "bsa", format = "bell", source = "shortlist">]>} : !spperm.matrix<4x5xf32, #spperm.csr>
      // expected-error@+1 {{'spperm.spmm' op is in a function of a nested module: layers are the top-level module's functions}}
      %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x32xf32> -> tensor<4x32xf32>
      return %c : tensor<4x32xf32>
    }
  }
}
