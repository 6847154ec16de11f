// RUN: spperm-opt %s -split-input-file -spperm-tensor-core-alternatives | FileCheck %s
// RUN: spperm-opt %s -split-input-file -spperm-tensor-core-alternatives -spperm-tensor-core-alternatives | FileCheck %s

// A selected layer with 16 x 16 dense blocks gets a 3xTF32 copy after it,
// an alternative of the layer (running the pass twice adds nothing more:
// the copy names its precision).
// CHECK-LABEL: func.func @blocks(
// CHECK:         spperm.convert
// CHECK-LABEL: func.func @blocks__x3(
// CHECK-SAME:    attributes {spperm.alternative_of = @blocks, spperm.precision = "3xtf32"}
// CHECK:         spperm.load "../Inputs/blocks64.mtx" {choice = #spperm.choice<strategy = "identity", format = "bell", source = "shipped model sm_90">}
// CHECK:         spperm.spmm
// CHECK-NOT:     func.func @blocks__x3__x3
func.func @blocks(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../Inputs/blocks64.mtx" {choice = #spperm.choice<strategy = "identity", format = "bell", source = "shipped model sm_90">} : !spperm.matrix<64x64xf32, #spperm.csr>
  %m = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>
  %c = spperm.spmm %m, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// An alternative's copy is an alternative of the same layer; a layer gets
// one copy, of its first variant with such blocks.
// CHECK-LABEL: func.func @layer__alt1(
// CHECK-LABEL: func.func @layer__alt1__x3(
// CHECK-SAME:    attributes {spperm.alternative_of = @layer, spperm.precision = "3xtf32"}
// CHECK-LABEL: func.func @layer__alt2(
// CHECK-NOT:     func.func @layer__alt2__x3
func.func @layer(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../Inputs/blocks64.mtx" {choice = #spperm.choice<strategy = "identity", format = "csr", source = "shipped model sm_90">} : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
func.func @layer__alt1(%b: tensor<64x32xf32>) -> tensor<64x32xf32> attributes {spperm.alternative_of = @layer} {
  %a = spperm.load "../Inputs/blocks64.mtx" {choice = #spperm.choice<strategy = "identity", format = "bell", source = "shortlist">} : !spperm.matrix<64x64xf32, #spperm.csr>
  %m = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 32, width = 1, residual = csr>>
  %c = spperm.spmm %m, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 32, width = 1, residual = csr>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
func.func @layer__alt2(%b: tensor<64x32xf32>) -> tensor<64x32xf32> attributes {spperm.alternative_of = @layer} {
  %a = spperm.load "../Inputs/blocks64.mtx" {choice = #spperm.choice<strategy = "bsa", format = "bell", source = "shortlist">} : !spperm.matrix<64x64xf32, #spperm.csr>
  %m = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>
  %c = spperm.spmm %m, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// No copy: a forced choice (taken as it is, not timed), blocks the
// tensor-core kernel does not take (8 x 8), no dense block (width 0), csr,
// and a function without a choice.
// CHECK-LABEL: func.func @forced(
// CHECK-LABEL: func.func @small_blocks(
// CHECK-LABEL: func.func @no_blocks(
// CHECK-LABEL: func.func @unselected(
// CHECK-NOT:     __x3
func.func @forced(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../Inputs/blocks64.mtx" {choice = #spperm.choice<strategy = "identity", format = "bell", source = "forced">} : !spperm.matrix<64x64xf32, #spperm.csr>
  %m = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>
  %c = spperm.spmm %m, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
func.func @small_blocks(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../Inputs/blocks64.mtx" {choice = #spperm.choice<strategy = "identity", format = "bell", source = "shipped model sm_90">} : !spperm.matrix<64x64xf32, #spperm.csr>
  %m = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 8, width = 3, residual = csr>>
  %c = spperm.spmm %m, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 8, width = 3, residual = csr>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
func.func @no_blocks(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../Inputs/blocks64.mtx" {choice = #spperm.choice<strategy = "identity", format = "bell", source = "shipped model sm_90">} : !spperm.matrix<64x64xf32, #spperm.csr>
  %m = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 0, residual = csr>>
  %c = spperm.spmm %m, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 0, residual = csr>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
func.func @unselected(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %m = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>
  %c = spperm.spmm %m, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// A layer of bf16 operands gets its copy too: spperm-lower-to-gpu multiplies
// its blocks in bf16 on the tensor cores (exact products, fp32 sums).
// CHECK-LABEL: func.func @half(
// CHECK-LABEL: func.func @half__x3(
// CHECK-SAME:    attributes {spperm.alternative_of = @half, spperm.precision = "3xtf32"}
// CHECK:         spperm.spmm %{{.*}} : !spperm.matrix<64x64xbf16, #spperm.bell<block = 16, width = 3, residual = csr>>, tensor<64x32xbf16> -> tensor<64x32xbf16>
func.func @half(%b: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  %a = spperm.load "../Inputs/blocks64.mtx" {choice = #spperm.choice<strategy = "identity", format = "bell", source = "shipped model sm_90">} : !spperm.matrix<64x64xbf16, #spperm.csr>
  %m = spperm.convert %a : !spperm.matrix<64x64xbf16, #spperm.csr> -> !spperm.matrix<64x64xbf16, #spperm.bell<block = 16, width = 3, residual = csr>>
  %c = spperm.spmm %m, %b : !spperm.matrix<64x64xbf16, #spperm.bell<block = 16, width = 3, residual = csr>>, tensor<64x32xbf16> -> tensor<64x32xbf16>
  return %c : tensor<64x32xbf16>
}

// -----

// bf16 operands with fp32 values get no copy: the tensor cores would round
// the values.
// CHECK-LABEL: func.func @half_fp32_values(
// CHECK-NOT:     func.func @half_fp32_values__x3
func.func @half_fp32_values(%b: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  %a = spperm.load "../Inputs/blocks64.mtx" {choice = #spperm.choice<strategy = "identity", format = "bell", source = "shipped model sm_90">} : !spperm.matrix<64x64xf32, #spperm.csr>
  %m = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>
  %c = spperm.spmm %m, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>, tensor<64x32xbf16> -> tensor<64x32xbf16>
  return %c : tensor<64x32xbf16>
}
