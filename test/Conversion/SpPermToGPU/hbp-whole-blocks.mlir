// RUN: spperm-opt %s -spperm-convert-format="format=hbp row-block=32 col-block=8" -spperm-lower-to-gpu | FileCheck %s

// bcsstk13 in 32 x 8 blocks has enough blocks to fill the GPU: a warp runs
// whole blocks (the seed's warp per block), 1024 format warps in CTAs of 8,
// and a lane takes two vectors, so K = 8 is one slice. Each warp first
// copies its block's B tile (8 columns x 8 of K) into shared memory, and
// each warp has a window of 4 rounds of add_sign (4 x 32 entries; 4, not
// 8, when a lane takes two vectors) beside it; the chains read B from the
// tile.

// CHECK-LABEL: func.func @whole
// CHECK:         #spperm.launch<name = "l0_hbp_k8_0", {{.*}}grid = [128, 1, 1], block = [256, 1, 1], shared_bytes = 0>
// CHECK:         gpu.func @l0_hbp_k8_0({{.*}}) workgroup(%[[TILE:[^ ]*]] : memref<512xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[WINDOW:[^ ]*]] : memref<1024xi32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// CHECK:           nvvm.bar.warp.sync
// CHECK:           memref.store %{{.*}}, %[[TILE]]
// CHECK:           nvvm.bar.warp.sync
// CHECK:           scf.while
// CHECK:             scf.condition
// CHECK-COUNT-4:     memref.store %{{.*}}, %[[WINDOW]]
// CHECK-COUNT-4:     memref.load %[[WINDOW]]
// CHECK:             memref.load %[[TILE]]
// CHECK:             vector.from_elements
// CHECK:             vector.fma
// CHECK:             vector.fma
// CHECK:             scf.yield
func.func @whole(%b: tensor<2003x8xf32>) -> tensor<2003x8xf32> {
  %a = spperm.load "../../../examples/bcsstk13.mtx.gz" : !spperm.matrix<2003x2003xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<2003x2003xf32, #spperm.csr>, tensor<2003x8xf32> -> tensor<2003x8xf32>
  return %c : tensor<2003x8xf32>
}
