// RUN: spperm-opt %s -split-input-file -verify-diagnostics -spperm-lower-to-gpu
// RUN: not spperm-opt %s -spperm-lower-to-gpu="threads=48" 2>&1 | FileCheck %s --check-prefix=THREADS

// THREADS: error: spperm-lower-to-gpu: threads must be a multiple of 32 in [32, 1024], got 48

func.func @missing(%b: tensor<64x8xf32>) -> tensor<64x8xf32> {
  // expected-error @below {{cannot open}}
  %a = spperm.load "does-not-exist.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x8xf32> -> tensor<64x8xf32>
  return %c : tensor<64x8xf32>
}

// -----

func.func @not_loaded(%a: !spperm.matrix<64x64xf32, #spperm.csr>, %b: tensor<64x8xf32>) -> tensor<64x8xf32> {
  // expected-error @below {{multiplies a matrix that does not come from spperm.load}}
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x8xf32> -> tensor<64x8xf32>
  return %c : tensor<64x8xf32>
}

// -----

// Lowering twice would make every kernel again under its name.
func.func @lowered(%b: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %a = spperm.load "a.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  // expected-error @below {{'spperm.spmm' op is already lowered (it has spperm.kernels): spperm-lower-to-gpu runs once}}
  %c = spperm.spmm %a, %b {spperm.kernels = []} : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x8xf32> -> tensor<64x8xf32>
  return %c : tensor<64x8xf32>
}

// -----

// The kernels' gpu.module is @spperm_kernels: a function of that name made
// the module's symbol table fail ("redefinition of symbol") at no location.

// expected-error @below {{'func.func' op is named @spperm_kernels, the name spperm-lower-to-gpu gives the generated kernels' gpu.module; rename it}}
func.func private @spperm_kernels()

func.func @layer(%b: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x8xf32> -> tensor<64x8xf32>
  return %c : tensor<64x8xf32>
}
