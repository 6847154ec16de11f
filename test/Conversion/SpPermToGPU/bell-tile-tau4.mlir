// RUN: spperm-opt %s -spperm-convert-format="format=bell block=4 delta=0.5" -spperm-lower-to-gpu | FileCheck %s

// 4 x 4 blocks at K = 128: units of 8 lanes (32 columns of C each), 16 per
// CTA, each staging a slice of 4 x 4 = 16 values, two per lane (no lane
// idle, so no guard); the 128 columns are 4 chunk groups of units, which
// the grid counts (16 block rows x 4 groups x parts / 16 units per CTA).

// CHECK-LABEL: spperm.spmm
// CHECK-SAME:    name = "l0_bell_tile_k128_1", family = "bell-tile"
// CHECK-SAME:    grid = [64, 1, 1], block = [128, 1, 1]
// CHECK-LABEL: gpu.func @l0_bell_tile_k128_1
// CHECK-SAME:    workgroup(%[[TILE:.*]] : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK:         nvvm.bar.warp.sync
// CHECK:         scf.if
// CHECK:         memref.load %arg2
// CHECK-NOT:     scf.if
// CHECK:         memref.load %arg2
// CHECK-NOT:     scf.if
// CHECK:         memref.store %{{.*}}, %[[TILE]]
// CHECK-NOT:     scf.if
// CHECK:         memref.store %{{.*}}, %[[TILE]]
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.bar.warp.sync
// CHECK:         gpu.return
func.func @tau4(%b: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x128xf32> -> tensor<64x128xf32>
  return %c : tensor<64x128xf32>
}
