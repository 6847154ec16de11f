// RUN: spperm-opt %s -spperm-convert-format="format=bell block=16 delta=0.5" -spperm-lower-to-gpu="precision=3xtf32" | FileCheck %s

// A bell layer with 16-bit operands: its dense blocks in the row kernel
// (no bell-tile kernel, and no tensor-core one even when the precision
// asks for it), B read as bf16 there too.

// CHECK-LABEL: func.func @bell
// CHECK:         spperm.kernels = [#spperm.launch<{{.*}}family = "bell", variant = "k32"
// CHECK-NOT:     bell-tile
// CHECK-NOT:     bell-mma
// CHECK:       gpu.func @l0_bell_k32_0
// CHECK-NOT:   gpu.func @l0_bell_tile
// CHECK:           memref<?xbf16>, vector<8xbf16>
func.func @bell(%b: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xbf16> -> tensor<64x32xbf16>
  return %c : tensor<64x32xbf16>
}
