// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu=k-buckets=0 -verify-diagnostics | FileCheck %s

// A function's spperm.precision (spperm-tensor-core-alternatives' copies)
// takes the place of the pass's precision option for its layer: 3xTF32
// tensor-core variants ahead of the fp32 ones; the layer without it stays
// fp32.
// CHECK-LABEL: func.func @fp32(
// CHECK-NOT:     bell-3xtf32
// CHECK-LABEL: func.func @fp32__x3(
// CHECK:         family = "bell-3xtf32", variant = "k32.3xtf32"
func.func @fp32(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %m = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr, delta = 5.000000e-01 : f64>>
  %c = spperm.spmm %m, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr, delta = 5.000000e-01 : f64>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
func.func @fp32__x3(%b: tensor<64x32xf32>) -> tensor<64x32xf32> attributes {spperm.alternative_of = @fp32, spperm.precision = "3xtf32"} {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %m = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr, delta = 5.000000e-01 : f64>>
  %c = spperm.spmm %m, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr, delta = 5.000000e-01 : f64>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// The dialect refuses a name that is not a precision where it is written.
// expected-error @+1 {{'spperm.precision' must be one of "fp32", "tf32", "f16" or "3xtf32", got "bf16"}}
func.func @bad(%b: tensor<64x32xf32>) -> tensor<64x32xf32> attributes {spperm.precision = "bf16"} {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
