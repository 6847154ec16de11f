// RUN: spperm-opt %s -spperm-convert-format="format=bell block=4 delta=0.5" -spperm-lower-to-gpu | FileCheck %s

// 4 x 4 blocks at K = 128: a unit of 32 lanes stages a slice of 4 x 4 = 16
// values, fewer than its lanes. Lanes 0-15 copy one value each and the
// others none (a guarded load and store); before, no lane copied any (16 / 32
// rounded down to 0) and the tile was read uninitialized.

// CHECK-LABEL: gpu.func @l0_bell_tile_k128_1
// CHECK-SAME:    workgroup(%[[TILE:.*]] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK:         nvvm.bar.warp.sync
// CHECK:         %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %c16{{.*}} : index
// CHECK:         scf.if %[[IN]] -> (f32) {
// CHECK:           memref.load %arg2
// CHECK:         scf.if %[[IN]] {
// CHECK:           memref.store %{{.*}}, %[[TILE]]
// CHECK:         nvvm.bar.warp.sync
// CHECK:         gpu.return
func.func @tau4(%b: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x128xf32> -> tensor<64x128xf32>
  return %c : tensor<64x128xf32>
}
