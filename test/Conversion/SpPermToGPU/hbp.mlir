// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=hbp row-block=64 col-block=32" -spperm-lower-to-gpu | FileCheck %s

// HBP: work items taken by an atomic ticket (the counter pair "tickets", a
// parameter the runtime provides per stream, which the last warp resets;
// no module-level state), the lanes walking their rows (a batch of rounds
// at a time, below); partial rows are combined into C atomically, so C is
// cleared first (zero_output). blocks64 has 2 stored blocks of 2 warp
// groups, fewer than the format's 1024 warps, so none is fixed. Too few to
// fill the GPU, so a warp runs one group of a block, without a B tile
// (hbp-whole-blocks.mlir has the seed's warp per block and the tile), and
// since the format walks rounds, a part of the group: the work items are
// the parts of a constant table {group, first entry, live lanes (a mask),
// the entry after the part}, longest first (all of 8 rounds here), in
// each K slice. Here a part is one batch of 8 rounds (the groups' 64
// rounds in 2 slices are far fewer than the planner's 1024 items): group 1
// has 4 parts, the last two of its upper 16 lanes only (mask 0xffff0000),
// groups 2 and 3 two each, group 0 has no entries. K = 8 is 2 slices of 4
// columns, 8 parts each: a 2-warp CTA per 2 parts.

// CHECK-LABEL: func.func @layer
// CHECK:         spperm.kernels = [#spperm.launch<{{.*}}family = "hbp", variant = "k8", {{.*}}zero_output = true, dependent_launch = false, args = ["order", "hbp.blocks", "hbp.col", "hbp.data", "hbp.add_sign", "hbp.zero_row", "hbp.begin_nnz", "hbp.output_hash", "hbp.fixed_blocks", "hbp.fixed_block_ptr", "hbp.competitive_blocks", "B", "C", "tickets", "K"], grid = [8, 1, 1], block = [64, 1, 1], shared_bytes = 0>]
// CHECK:       gpu.module @spperm_kernels
// CHECK:         memref.global "private" constant @[[PARTS:l0_hbp_parts_[0-9]+]] : memref<32xi32> = dense<[1, 0, -1, 256, 1, 256, -1, 512, 1, 512, -65536, 640, 1, 640, -65536, 768, 2, 768, -1, 1024, 2, 1024, -1, 1280, 3, 1280, -1, 1536, 3, 1536, -1, 1792]>
// CHECK-NOT:     memref.global
// CHECK:         gpu.func @l0_hbp_k8_0({{.*}}memref<?xi64>{{.*}}, %[[TICKETS:.*]]: memref<?xi32>, %{{.*}}: index) workgroup(%[[WINDOW:[^ ]*]] : memref<512xi32, #gpu.address_space<workgroup>>
// No fixed blocks: straight to the tickets, broadcast from lane 0; ticket
// t is part t / slices in slice t % slices.
// CHECK-NOT:       scf.for
// CHECK:           scf.while
// CHECK:             memref.atomic_rmw addi %{{.*}}, %[[TICKETS]][%{{.*}}]
// CHECK:             nvvm.shfl.sync idx
// CHECK:           } do {
// CHECK:             arith.divui
// CHECK:             arith.remui
// CHECK:             arith.remui
// CHECK:             %[[TABLE:.*]] = memref.get_global @[[PARTS]] : memref<32xi32>
// CHECK:             memref.load %[[TABLE]]
// CHECK:             %[[BEGIN32:.*]] = memref.load %[[TABLE]]
// CHECK:             %[[BEGIN:.*]] = arith.index_cast %[[BEGIN32]] : i32 to index
// CHECK:             %[[LIVE:.*]] = memref.load %[[TABLE]]
// CHECK:             %[[END:.*]] = memref.load %[[TABLE]]
// CHECK:             %[[ENDI:.*]] = arith.index_cast %[[END]] : i32 to index
// The lane has a row if its bit of the mask is set; its first entry is
// the part's first plus its rank among the live lanes.
// CHECK:             %[[BIT:.*]] = arith.shli %{{.*}}, %{{.*}} : i32
// CHECK:             %[[MINE:.*]] = arith.andi %[[LIVE]], %[[BIT]] : i32
// CHECK:             %[[HAS:.*]] = arith.cmpi ne, %[[MINE]], %{{.*}} : i32
// CHECK:             %[[BELOW:.*]] = arith.subi %[[BIT]], %{{.*}} : i32
// CHECK:             %[[BEFORE:.*]] = arith.andi %[[LIVE]], %[[BELOW]] : i32
// CHECK:             %[[COUNT:.*]] = llvm.intr.ctpop(%[[BEFORE]])
// CHECK:             %[[RANK:.*]] = arith.index_cast %[[COUNT]] : i32 to index
// CHECK:             %[[FIRST:.*]] = arith.addi %[[BEGIN]], %[[RANK]] : index
// CHECK:             arith.select %[[HAS]], %[[FIRST]], %[[BEGIN]] : index
// blocks64 has a group of 16 or more rounds, so the warps walk their
// groups' rounds in batches of 8 (the 90th percentile of the groups'
// rounds, rounded up to a power of two, at most 8): the live lanes counted
// by a ballot and the first window of add_sign loaded (8 x 32 entries,
// only those the rounds can hold); then each batch stores its window into
// the warp's 256 entries of shared memory (2 warps: 512) between warp
// barriers, follows the lanes' chains through it, counting each round,
// loads the next window, the batch's col and data, the last batch's B
// (software-pipelined: the col loads carried from the iteration before)
// and multiplies the batch before that. The lanes that have rows add their
// sums into C.
// CHECK:               nvvm.vote.sync ballot
// CHECK-COUNT-8:       scf.if %{{.*}} -> (i32)
// CHECK:               scf.while
// CHECK:                 arith.cmpi slt, %{{.*}}, %[[ENDI]] : index
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
// The lane's four sums go through the hardware's atomic add when all are
// at least 2^-102 in magnitude (or NaN or infinite); else each sum below it (where
// the add's flush of a subnormal could matter) goes through a
// compare-and-swap loop of a plain add, a zero adds nothing, the rest
// through the hardware's add.
// CHECK:               scf.if
// CHECK:               arith.cmpf uge, %{{.*}} : vector<4xf32>
// CHECK:               arith.cmpf ule, %{{.*}} : vector<4xf32>
// CHECK:               scf.if
// CHECK-COUNT-4:         memref.atomic_rmw addf
// CHECK:               } else {
// CHECK:               %[[TINY:.*]] = arith.constant 1.97215226E-31 : f32
// CHECK:               %[[ABOVE:.*]] = arith.cmpf uge, %[[SUM:.*]], %[[TINY]] : f32
// CHECK:               %[[NTINY:.*]] = arith.constant -1.97215226E-31 : f32
// CHECK:               %[[BELOW:.*]] = arith.cmpf ule, %[[SUM]], %[[NTINY]] : f32
// CHECK:               %[[LARGE:.*]] = arith.ori %[[ABOVE]], %[[BELOW]] : i1
// CHECK:               scf.if %[[LARGE]] {
// CHECK:                 memref.atomic_rmw addf %[[SUM]]
// CHECK:               } else {
// CHECK:                 %[[NONZERO:.*]] = arith.cmpf one, %[[SUM]], %{{.*}} : f32
// CHECK:                 scf.if %[[NONZERO]] {
// CHECK:                   llvm.inline_asm has_side_effects asm_dialect = att "{{.*}}add.rn.f32 %spperm_sum, %spperm_seen, $1;\0Aatom.relaxed.gpu.global.cas.b32{{.*}}", "l,f,~{memory}" %{{.*}}, %[[SUM]]
// The warp counts itself finished; the last one resets the counters.
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
// CTA of 2 warps a slice of 4 (vec4) or 1 (scalar) columns per 2 parts
// (grid_k = [base, CTAs a slice, columns a slice]). blocks64 has a group
// of 16 or more rounds in 32-column blocks, so the variants walk parts of
// rounds up to K = 128, with parts sized for K <= 32 (vec4, scalar) and
// for K <= 128 (vec4.mid, scalar.mid), and follow each lane's add_sign
// chain above it, a warp per group (vec4.wide, scalar.wide: no window, no
// table). Its parts are far below their cap, so vec4.mid takes two vectors
// a lane (8 columns a slice, batches of 4 rounds: parts of 4 rounds, a
// table of its own); the others share one.

// CHECK-LABEL: func.func @dynamic
// CHECK:         #spperm.launch<name = "l0_hbp_spmv_0", {{[^>]*}}k_min = 1, k_max = 1, {{[^>]*}}grid = [4, 1, 1], block = [64, 1, 1], shared_bytes = 0>
// CHECK-SAME:    #spperm.launch<name = "l0_hbp_vec4_2", {{[^>]*}}k_min = 4, k_max = 32, k_align = 4, {{[^>]*}}grid = [4, 1, 1], block = [64, 1, 1], shared_bytes = 0, grid_k = [0, 4, 4]>
// CHECK-SAME:    #spperm.launch<name = "l0_hbp_vec4_mid_3", {{[^>]*}}k_min = 36, k_max = 128, k_align = 4, {{[^>]*}}grid = [8, 1, 1], block = [64, 1, 1], shared_bytes = 0, grid_k = [0, 8, 8]>
// CHECK-SAME:    #spperm.launch<name = "l0_hbp_vec4_wide_5", {{[^>]*}}k_min = 132, k_max = 1073741823, k_align = 4, {{[^>]*}}grid = [1, 1, 1], block = [128, 1, 1], shared_bytes = 0, grid_k = [0, 1, 4]>
// CHECK-SAME:    #spperm.launch<name = "l0_hbp_scalar_6", {{[^>]*}}k_min = 2, k_max = 32, k_align = 1, {{[^>]*}}grid = [4, 1, 1], block = [64, 1, 1], shared_bytes = 0, grid_k = [0, 4, 1]>
// CHECK-SAME:    #spperm.launch<name = "l0_hbp_scalar_mid_7", {{[^>]*}}k_min = 33, k_max = 128, k_align = 1, {{[^>]*}}grid = [4, 1, 1], block = [64, 1, 1], shared_bytes = 0, grid_k = [0, 4, 1]>
// CHECK-SAME:    #spperm.launch<name = "l0_hbp_scalar_wide_8", {{[^>]*}}k_min = 129, k_max = 1073741823, k_align = 1, {{[^>]*}}grid = [1, 1, 1], block = [128, 1, 1], shared_bytes = 0, grid_k = [0, 1, 1]>
// CHECK-DAG:     memref.global "private" constant @[[MIDPARTS:l0_hbp_parts_[0-9]+]] : memref<64xi32>
// CHECK-DAG:     memref.global "private" constant @[[PARTS:l0_hbp_parts_[0-9]+]] : memref<32xi32>
// CHECK-NOT:     memref.global
// CHECK:         gpu.func @l0_hbp_spmv_0({{.*}}) workgroup(
// CHECK:           memref.get_global @[[PARTS]]
// CHECK:         gpu.func @l0_hbp_vec4_2({{.*}}) workgroup(
// CHECK:           memref.get_global @[[PARTS]]
// CHECK:         gpu.func @l0_hbp_vec4_mid_3({{.*}}) workgroup(%{{[^ ]*}} : memref<256xi32,
// CHECK:           memref.get_global @[[MIDPARTS]]
// CHECK:           scf.while
// CHECK-COUNT-8:     vector.load
// CHECK-NOT:         vector.load
// CHECK:             scf.yield
// CHECK:         gpu.func @l0_hbp_vec4_wide_5({{.*}}: index) kernel
// CHECK-NOT:       nvvm.vote.sync
// CHECK-NOT:       memref.get_global
// CHECK:         gpu.func @l0_hbp_scalar_6({{.*}}) workgroup(
// CHECK:           memref.get_global @[[PARTS]]
// CHECK:         gpu.func @l0_hbp_scalar_mid_7({{.*}}) workgroup(
// CHECK:           memref.get_global @[[PARTS]]
// CHECK:         gpu.func @l0_hbp_scalar_wide_8({{.*}}: index) kernel
// CHECK-NOT:       nvvm.vote.sync
// CHECK-NOT:       memref.get_global
// CHECK:         gpu.func @l0_transpose_b
func.func @dynamic(%b: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x?xf32> -> tensor<64x?xf32>
  return %c : tensor<64x?xf32>
}
