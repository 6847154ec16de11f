// RUN: spperm-opt %s -spperm-convert-format="format=bell block=16 delta=0.5" -spperm-lower-to-gpu | FileCheck %s

// Blocked-ELL + CSR residual: the row kernel first adds the row's dense
// 16 x 16 blocks (3 per block row: the ELL width, skipping padding -1
// and clipping the last block column at N), then walks the residual, and
// stores C once.

// CHECK-LABEL: func.func @layer
// CHECK:         spperm.kernels = [#spperm.launch<{{.*}}family = "bell", variant = "k8", {{.*}}args = ["order", "bell.residual.row_ptr", "bell.residual.col_idx.u16", "bell.residual.values", "bell.block_col", "bell.block_values", "B", "C", "K"]
// CHECK:       gpu.func @l0_bell_k8_0
// CHECK:         %[[W:.*]] = arith.constant 3 : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[W]] step
// CHECK:           %[[BC:.*]] = arith.index_cast
// CHECK:           arith.cmpi sge, %[[BC]]
// CHECK:           scf.if
// CHECK:             arith.minsi
// CHECK:             scf.for
// CHECK:               memref.load %{{.*}} : memref<?xf32>
// CHECK:               vector.load
// CHECK:               vector.fma
// CHECK:         nvvm.shfl.sync idx
// CHECK:         vector.store
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         gpu.return
func.func @layer(%b: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x8xf32> -> tensor<64x8xf32>
  return %c : tensor<64x8xf32>
}
