// RUN: spperm-opt %s -spperm-convert-format="format=hbp row-block=32 col-block=8" -spperm-lower-to-gpu | FileCheck %s
// RUN: spperm-opt %s -spperm-convert-format="format=hbp row-block=32 col-block=64" -spperm-lower-to-gpu | FileCheck %s --check-prefix=ROUNDS
// RUN: spperm-opt %s -spperm-convert-format="format=hbp row-block=32 col-block=128" -spperm-lower-to-gpu | FileCheck %s --check-prefix=SPARSE

// bcsstk13 in 32 x 8 blocks has enough blocks to fill the GPU: a warp runs
// whole blocks (the seed's warp per block), 1024 format warps in CTAs of 8,
// and a lane takes two vectors, so K = 8 is one slice. Its blocks have
// entries enough (at least twice their columns on average), so each warp
// first copies its block's B tile (8 columns x 8 of K) into shared memory.

// CHECK-LABEL: func.func @whole
// CHECK:         #spperm.launch<name = "l0_hbp_k8_0", {{.*}}grid = [128, 1, 1], block = [256, 1, 1], shared_bytes = 0>
// CHECK:         gpu.func @l0_hbp_k8_0({{.*}}) workgroup(%[[TILE:.*]] : memref<512xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// CHECK:           nvvm.bar.warp.sync
// CHECK:           memref.store %{{.*}}, %[[TILE]]
// CHECK:           nvvm.bar.warp.sync
// CHECK:           scf.while
// CHECK:             memref.load %[[TILE]]
// CHECK:             vector.from_elements
// CHECK:             vector.fma
// CHECK:             vector.fma
// CHECK:             scf.condition
// In 64-column blocks some rows have 16 or more entries in a block, so the
// warps walk their groups' rounds in batches (8 rounds: a window of 8 x 32
// add_sign values per warp beside the B tile), reading B from the tile.

// ROUNDS-LABEL: func.func @whole
// ROUNDS:         gpu.func @l0_hbp_k8_0({{.*}}) workgroup(%[[TILE:[^ ]*]] : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[WINDOW:[^ ]*]] : memref<2048xi32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// ROUNDS:           memref.store %{{.*}}, %[[TILE]]
// ROUNDS:           nvvm.bar.warp.sync
// ROUNDS:           scf.while
// ROUNDS:             scf.condition
// ROUNDS:             nvvm.bar.warp.sync
// ROUNDS-COUNT-8:     memref.store %{{.*}}, %[[WINDOW]]
// ROUNDS:             nvvm.bar.warp.sync
// ROUNDS-COUNT-8:     memref.load %[[WINDOW]]
// ROUNDS:             memref.load %[[TILE]]
// ROUNDS:             vector.fma
// ROUNDS:             scf.yield
// In 128-column blocks the warps still run whole blocks, but a block has
// fewer than 2 x 128 entries on average: a B tile would be copied whole for
// a few entries of each block, so there is none, and the walk reads B from
// global memory (shared memory holds only the add_sign windows).

// SPARSE-LABEL: func.func @whole
// SPARSE:         gpu.func @l0_hbp_k8_0({{.*}}, %[[B:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xi32>, %{{[^:]*}}: index) workgroup(%[[WINDOW:[^ ]*]] : memref<2048xi32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// SPARSE-NOT:       xf32, #gpu.address_space<workgroup>>
// SPARSE:           scf.while
// SPARSE:             memref.load %[[WINDOW]]
// SPARSE:             vector.load %[[B]][%{{.*}}] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// SPARSE:             vector.fma
// SPARSE:             scf.yield
func.func @whole(%b: tensor<2003x8xf32>) -> tensor<2003x8xf32> {
  %a = spperm.load "../../../examples/bcsstk13.mtx.gz" : !spperm.matrix<2003x2003xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<2003x2003xf32, #spperm.csr>, tensor<2003x8xf32> -> tensor<2003x8xf32>
  return %c : tensor<2003x8xf32>
}
