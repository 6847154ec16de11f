// RUN: spperm-opt %s -spperm-convert-format="format=hbp row-block=64 col-block=32" -spperm-lower-to-gpu | FileCheck %s

// HBP: one warp per stored 2-D block; fixed blocks first, then competitive
// blocks by an atomic ticket (the counter pair "tickets", a parameter the
// runtime provides per stream, which the last warp resets; no module-level
// state), each lane walking its add_sign chain with B read from the
// column block's tile in shared memory; partial rows are combined into C
// atomically, so C is cleared first (zero_output).

// CHECK-LABEL: func.func @layer
// CHECK:         spperm.kernels = [#spperm.launch<{{.*}}family = "hbp", variant = "k8", {{.*}}zero_output = true, dependent_launch = false, args = ["order", "hbp.blocks", "hbp.col", "hbp.data", "hbp.add_sign", "hbp.zero_row", "hbp.begin_nnz", "hbp.output_hash", "hbp.fixed_blocks", "hbp.fixed_block_ptr", "hbp.competitive_blocks", "B", "C", "tickets", "K"], grid = [128, 1, 1], block = [256, 1, 1], shared_bytes = 0>]
// CHECK:       gpu.module @spperm_kernels
// CHECK-NOT:     memref.global
// The column block's B tile: 32 columns x 4 (K = 8 in two steps of 4) per
// warp, 8 warps.
// CHECK:         gpu.func @l0_hbp_k8_0({{.*}}memref<?xi64>{{.*}}, %[[TICKETS:.*]]: memref<?xi32>, %{{.*}}: index) workgroup(%[[TILE:.*]] : memref<1024xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// Fixed blocks.
// CHECK:           scf.for
// The tile, copied between two warp barriers.
// CHECK:             nvvm.bar.warp.sync
// CHECK:             memref.store %{{.*}}, %[[TILE]]
// CHECK:             nvvm.bar.warp.sync
// The add_sign chain, a do-while reading B from the tile.
// CHECK:             scf.while
// CHECK:               scf.condition
// CHECK:               memref.load %[[TILE]]
// CHECK:               vector.from_elements
// CHECK:               vector.fma
// CHECK:             memref.atomic_rmw addf
// Competitive blocks by ticket, broadcast from lane 0.
// CHECK:           scf.while
// CHECK:             memref.atomic_rmw addi %{{.*}}, %[[TICKETS]][%{{.*}}]
// CHECK:             nvvm.shfl.sync idx
// CHECK:           memref.atomic_rmw addi %{{.*}}, %[[TICKETS]][%{{.*}}]
// CHECK:           memref.store %{{.*}}, %[[TICKETS]]
// CHECK:           memref.store %{{.*}}, %[[TICKETS]]
// CHECK:           gpu.return
func.func @layer(%b: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x8xf32> -> tensor<64x8xf32>
  return %c : tensor<64x8xf32>
}
