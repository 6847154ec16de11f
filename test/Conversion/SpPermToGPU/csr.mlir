// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu=k-buckets=0 | FileCheck %s

// A K-agnostic CSR layer: one variant per class of K (SpMV, 16-byte vector
// groups of 2, 8, 16 and 32 lanes, a scalar fallback), all in one gpu.module.
// Those that read K at run time take K up to 2^30 - 1 (fp32: B's row
// stride in bytes fits in 32 bits).

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:       func.func @layer
// CHECK:         spperm.spmm {{.*}} {spperm.kernels = [
// CHECK-SAME:      #spperm.launch<name = "l0_csr_spmv_spmv_0", family = "csr-spmv", variant = "spmv", k_min = 1, k_max = 1, k_align = 1, zero_output = false, dependent_launch = false, args = ["order", "csr.row_ptr", "csr.col_idx.u16", "csr.values", "B", "C", "K"], grid = [{{[0-9]+}}, 1, 1], block = [256, 1, 1], shared_bytes = 0>
// CHECK-SAME:      name = "l0_csr_vec4_g2_1", family = "csr", variant = "vec4.g2", k_min = 4, k_max = 8, k_align = 4
// CHECK-SAME:      name = "l0_csr_vec4_g8_2", family = "csr", variant = "vec4.g8", k_min = 12, k_max = 32, k_align = 4
// CHECK-SAME:      name = "l0_csr_vec4_g16_3", family = "csr", variant = "vec4.g16", k_min = 36, k_max = 64, k_align = 4
// CHECK-SAME:      name = "l0_csr_vec4_g32_4", family = "csr", variant = "vec4.g32", k_min = 68, k_max = 1073741823, k_align = 4
// CHECK-SAME:      name = "l0_csr_scalar_g32_5", family = "csr", variant = "scalar.g32", k_min = 2, k_max = 1073741823, k_align = 1
// CHECK:       gpu.module @spperm_kernels
// SpMV: lanes stride over the row, then a butterfly reduction; lane 0
// stores C[order[row]].
// CHECK:         gpu.func @l0_csr_spmv_spmv_0(%{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi16>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: index) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK:           scf.for
// CHECK:             arith.mulf {{.*}} fastmath<contract>
// CHECK:           nvvm.shfl.sync bfly
// CHECK:           memref.store
// SpMM: a group caches `lanes` entries and broadcasts them by shuffle; each
// lane loads and stores 16 bytes of B and C.
// CHECK:         gpu.func @l0_csr_vec4_g8_2
// CHECK:           scf.for %[[KB:.*]] = %{{.*}} to %{{.*}} step %c32
// CHECK:             scf.for
// CHECK:               memref.load %{{.*}} : memref<?xi32>
// CHECK:               scf.for
// CHECK:                 nvvm.shfl.sync idx
// CHECK:                 nvvm.shfl.sync idx
// CHECK:                 llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:                 vector.fma
// CHECK:             vector.store %{{.*}} {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK:         gpu.func @l0_csr_scalar_g32_5
// CHECK-NOT:       vector<4xf32>
// CHECK:           llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT:       vector<4xf32>
// CHECK:           gpu.return
func.func @layer(%b: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x?xf32> -> tensor<64x?xf32>
  return %c : tensor<64x?xf32>
}

// -----

// K fixed by the type: exactly one variant, with K baked in (the K
// parameter stays in the signature for a uniform ABI but is not read).

// CHECK-LABEL: func.func @fixed
// CHECK:         spperm.kernels = [#spperm.launch<name = "l0_csr_k32_0", family = "csr", variant = "k32", k_min = 32, k_max = 32, k_align = 1, zero_output = false, {{.*}}>]
// CHECK:       gpu.func @l0_csr_k32_0
// One K tile: 8 lanes x 4 columns = K.
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c32
func.func @fixed(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %l = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %a = spperm.permute %l : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<lpt>>>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<lpt>>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// SpMV of a fixed K = 1.

// CHECK-LABEL: func.func @spmv
// CHECK:         variant = "k1"
// CHECK:       gpu.func @l0_csr_spmv_k1_0
// CHECK:         nvvm.shfl.sync bfly
func.func @spmv(%b: tensor<64x1xf32>) -> tensor<64x1xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x1xf32> -> tensor<64x1xf32>
  return %c : tensor<64x1xf32>
}

// -----

// K = 4: one lane per row covers K (4 columns), so parts are single lanes:
// 32 lanes of a warp share a row of 28 entries, lane p taking entries p,
// p + 32, ..., then a butterfly reduction over the warp.

// CHECK-LABEL: func.func @lanes1
// CHECK:       gpu.func @l0_csr_k4_0
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32
// CHECK:           vector.fma
// CHECK:         nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c1_i32
// CHECK:         nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c16_i32
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.return
func.func @lanes1(%b: tensor<64x4xf32>) -> tensor<64x4xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x4xf32> -> tensor<64x4xf32>
  return %c : tensor<64x4xf32>
}
