// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=hbp row-block=64 col-block=32" -spperm-lower-to-gpu | FileCheck %s

// HBP: work items of stored blocks' warp groups in K slices; fixed blocks
// first, then competitive items by an atomic ticket (the counter pair
// "tickets", a parameter the runtime provides per stream, which the last
// warp resets; no module-level state), the lanes walking their rows (a
// batch of rounds at a time, below); partial rows are combined into C atomically, so C is cleared
// first (zero_output). blocks64 has 2 stored blocks of 2 warp groups,
// fewer than the format's 1024 warps, so none is fixed: 2 warps that take
// tickets suffice. Too few to fill the GPU, so a warp runs one group of a
// block (2 warps a format warp), without a B tile (hbp-whole-blocks.mlir
// has the seed's warp per block and the tile). K = 8 is 2 slices of 4
// columns, a 4-warp CTA each.

// CHECK-LABEL: func.func @layer
// CHECK:         spperm.kernels = [#spperm.launch<{{.*}}family = "hbp", variant = "k8", {{.*}}zero_output = true, dependent_launch = false, args = ["order", "hbp.blocks", "hbp.col", "hbp.data", "hbp.add_sign", "hbp.zero_row", "hbp.begin_nnz", "hbp.output_hash", "hbp.fixed_blocks", "hbp.fixed_block_ptr", "hbp.competitive_blocks", "B", "C", "tickets", "K"], grid = [2, 1, 1], block = [128, 1, 1], shared_bytes = 0>]
// CHECK:       gpu.module @spperm_kernels
// CHECK-NOT:     memref.global
// CHECK:         gpu.func @l0_hbp_k8_0({{.*}}memref<?xi64>{{.*}}, %[[TICKETS:.*]]: memref<?xi32>, %{{.*}}: index) workgroup(%[[WINDOW:[^ ]*]] : memref<1024xi32, #gpu.address_space<workgroup>>
// Fixed blocks (none here), one group each.
// CHECK:           scf.for
// CHECK:             scf.for
// blocks64 has a group of 16 or more rounds, so the warps walk their
// groups' rounds in batches of 8 (the 90th percentile of the groups'
// rounds, rounded up to a power of two, at most 8): the live lanes counted
// by a ballot and the first window of add_sign loaded (8 x 32 entries,
// only those the rounds can hold); then each batch stores its window into
// the warp's 256 entries of shared memory (4 warps: 1024) between warp
// barriers, follows the lanes' chains through it, counting each round,
// loads the next window, the batch's col and data, the last batch's B
// (software-pipelined: the col loads carried from the iteration before)
// and multiplies the batch before that. The lanes that have rows add their
// sums into C.
// CHECK:               nvvm.vote.sync ballot
// CHECK-COUNT-8:       scf.if %{{.*}} -> (i32)
// CHECK:               scf.while
// CHECK:                 scf.condition
// CHECK:                 nvvm.bar.warp.sync
// CHECK-COUNT-8:         memref.store %{{.*}}, %[[WINDOW]]
// CHECK:                 nvvm.bar.warp.sync
// CHECK:                 memref.load %[[WINDOW]]
// CHECK:                 nvvm.vote.sync ballot
// CHECK:                 memref.load %[[WINDOW]]
// CHECK:                 nvvm.vote.sync ballot
// CHECK:                 memref.load %[[WINDOW]]
// CHECK:                 nvvm.vote.sync ballot
// CHECK:                 memref.load %[[WINDOW]]
// CHECK:                 nvvm.vote.sync ballot
// CHECK:                 memref.load %[[WINDOW]]
// CHECK:                 nvvm.vote.sync ballot
// CHECK:                 memref.load %[[WINDOW]]
// CHECK:                 nvvm.vote.sync ballot
// CHECK:                 memref.load %[[WINDOW]]
// CHECK:                 nvvm.vote.sync ballot
// CHECK:                 memref.load %[[WINDOW]]
// CHECK:                 nvvm.vote.sync ballot
// CHECK:                 nvvm.vote.sync ballot
// CHECK-NOT:             memref.load %[[WINDOW]]
// CHECK-COUNT-8:         scf.if %{{.*}} -> (i32)
// CHECK-COUNT-16:        memref.load %{{.*}} : memref<?x{{i32|f32}}>
// CHECK-COUNT-8:         vector.load
// CHECK-NOT:             memref.load
// CHECK-COUNT-8:         vector.fma %{{.*}}, %arg{{[0-9]+}}, %{{.*}} : vector<4xf32>
// CHECK:                 scf.yield
// The drain: the products of the batch before the last, the last batch's
// B, its products; then the lanes that have rows add their sums into C.
// CHECK-COUNT-8:       vector.fma %{{.*}}, %{{[0-9]+}}#{{[0-9]+}}, %{{.*}} : vector<4xf32>
// CHECK-COUNT-8:       vector.load
// CHECK-COUNT-8:       vector.fma
// CHECK:               scf.if
// CHECK:               memref.atomic_rmw addf
// Competitive items by ticket, broadcast from lane 0: block t / (groups x
// slices), then the slice and the group.
// CHECK:           scf.while
// CHECK:             memref.atomic_rmw addi %{{.*}}, %[[TICKETS]][%{{.*}}]
// CHECK:             nvvm.shfl.sync idx
// CHECK:             arith.divui
// CHECK:             arith.remui
// CHECK:             arith.remui
// CHECK:             arith.divui
// CHECK:           memref.atomic_rmw addi %{{.*}}, %[[TICKETS]][%{{.*}}]
// CHECK:           memref.store %{{.*}}, %[[TICKETS]]
// CHECK:           memref.store %{{.*}}, %[[TICKETS]]
// CHECK:           gpu.return
func.func @layer(%b: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x8xf32> -> tensor<64x8xf32>
  return %c : tensor<64x8xf32>
}

// -----

// K read at run time: the vec4 and scalar variants' grids grow with K, one
// 4-warp CTA a slice of 4 (vec4) or 1 (scalar) columns (grid_k = [base,
// CTAs a slice, columns a slice]); these few blocks take one vector a lane.
// blocks64 has a group of 16 or more rounds in 32-column blocks, so the
// variants walk rounds in batches up to K = 128 and follow each lane's
// add_sign chain above it (vec4.wide, scalar.wide: no window).

// CHECK-LABEL: func.func @dynamic
// CHECK:         #spperm.launch<name = "l0_hbp_spmv_0", {{[^>]*}}k_min = 1, k_max = 1, {{[^>]*}}grid = [1, 1, 1], block = [128, 1, 1], shared_bytes = 0>
// CHECK-SAME:    #spperm.launch<name = "l0_hbp_vec4_1", {{[^>]*}}k_min = 4, k_max = 128, k_align = 4, {{[^>]*}}grid = [1, 1, 1], block = [128, 1, 1], shared_bytes = 0, grid_k = [0, 1, 4]>
// CHECK-SAME:    #spperm.launch<name = "l0_hbp_vec4_wide_2", {{[^>]*}}k_min = 132, k_max = 1073741823, k_align = 4, {{[^>]*}}grid = [1, 1, 1], block = [128, 1, 1], shared_bytes = 0, grid_k = [0, 1, 4]>
// CHECK-SAME:    #spperm.launch<name = "l0_hbp_scalar_3", {{[^>]*}}k_min = 2, k_max = 128, k_align = 1, {{[^>]*}}grid = [1, 1, 1], block = [128, 1, 1], shared_bytes = 0, grid_k = [0, 1, 1]>
// CHECK-SAME:    #spperm.launch<name = "l0_hbp_scalar_wide_4", {{[^>]*}}k_min = 129, k_max = 1073741823, k_align = 1, {{[^>]*}}grid = [1, 1, 1], block = [128, 1, 1], shared_bytes = 0, grid_k = [0, 1, 1]>
// CHECK:         gpu.func @l0_hbp_spmv_0({{.*}}) workgroup(
// CHECK:         gpu.func @l0_hbp_vec4_1({{.*}}) workgroup(
// CHECK:         gpu.func @l0_hbp_vec4_wide_2({{.*}}: index) kernel
// CHECK-NOT:       nvvm.vote.sync
// CHECK:         gpu.func @l0_hbp_scalar_3({{.*}}) workgroup(
// CHECK:         gpu.func @l0_hbp_scalar_wide_4({{.*}}: index) kernel
// CHECK-NOT:       nvvm.vote.sync
// CHECK:         gpu.func @l0_transpose_b
func.func @dynamic(%b: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x?xf32> -> tensor<64x?xf32>
  return %c : tensor<64x?xf32>
}
