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

// -----

// So is a gpu.module of that name written before lowering: its kernels
// would clash with the generated ones after the pass had run.

module attributes {gpu.container_module} {
  // expected-error @below {{'gpu.module' op is named @spperm_kernels, the name spperm-lower-to-gpu gives the generated kernels' gpu.module; rename it}}
  gpu.module @spperm_kernels {
    gpu.func @l0_csr_k16_0() kernel { gpu.return }
  }
  func.func @layer(%b: tensor<64x16xf32>) -> tensor<64x16xf32> {
    %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
    %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x16xf32> -> tensor<64x16xf32>
    return %c : tensor<64x16xf32>
  }
}

// -----

// The type's Blocked-ELL width is the data's (blocks64 at δ = 0.5 needs 3):
// a smaller one cannot hold its tiles, a larger one is not what runs.
func.func @narrow(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %m = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 2, residual = csr, delta = 5.000000e-01 : f64>>
  // expected-error @+1 {{'spperm.spmm' op the data needs Blocked-ELL width 3 but the type says 2 (spperm-convert-format records the data's)}}
  %c = spperm.spmm %m, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 2, residual = csr, delta = 5.000000e-01 : f64>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

func.func @wide(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %m = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 4, residual = csr, delta = 5.000000e-01 : f64>>
  // expected-error @+1 {{'spperm.spmm' op the data has Blocked-ELL width 3 but the type says 4 (spperm-convert-format records the data's)}}
  %c = spperm.spmm %m, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 4, residual = csr, delta = 5.000000e-01 : f64>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
