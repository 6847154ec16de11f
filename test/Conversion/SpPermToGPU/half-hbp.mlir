// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu=k-buckets=0 | FileCheck %s

// An hbp layer with 16-bit operands: the hbp kernel adds its partial rows
// into the fp32 accumulator ("acc", cleared first: zero_output on a kernel
// that takes it) with B and the values read as f16 and widened; the round
// kernel after it, a dependent launch, rounds the accumulator into C once,
// 4 elements a thread for the K % 4 == 0 variant. blocks64 has long enough
// groups for the rounds walk in parts (hbp.mlir) up to K = 128, in 16 bits
// too.

// CHECK-LABEL: func.func @hbp
// CHECK:         spperm.kernels = [
// CHECK-SAME:      #spperm.launch<name = "[[HBP:l0_hbp_vec4_[0-9]+]]", family = "hbp", variant = "vec4"
// CHECK-SAME:        zero_output = true, dependent_launch = false, args = ["order", "hbp.blocks", "hbp.col", "hbp.data", "hbp.add_sign", "hbp.zero_row", "hbp.begin_nnz", "hbp.output_hash", "hbp.fixed_blocks", "hbp.fixed_block_ptr", "hbp.competitive_blocks", "B", "acc"
// CHECK-SAME:      #spperm.launch<name = "[[ROUND:l0_round_vec4_[0-9]+]]", family = "round", variant = "vec4", k_min = 4, k_max = 32, k_align = 4
// CHECK-SAME:        zero_output = false, dependent_launch = true, args = ["acc", "C", "K"]
// CHECK:       gpu.func @[[HBP]](
// CHECK-SAME:      %[[DATA:[^:]*]]: memref<?xf16>, %{{[^:]*}}: memref<?xi32>,
// CHECK-SAME:      workgroup(%[[WINDOW:[^ ]*]] : memref<{{[0-9]+}}xi32
// CHECK:           memref.get_global @{{l0_hbp_parts_[0-9]+}}
// CHECK:           scf.while
// CHECK:             memref.load %[[WINDOW]]
// CHECK:             nvvm.vote.sync ballot
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:           memref.atomic_rmw addf %{{.*}} : (f32, memref<?xf32>) -> f32
// CHECK:       gpu.func @[[ROUND]](%[[ACC:.*]]: memref<?xf32>, %[[C:.*]]: memref<?xf16>, %{{.*}}: index)
// CHECK:           nvvm.griddepcontrol wait
// CHECK:           scf.for
// CHECK:             %[[SUM:.*]] = vector.load %[[ACC]][%{{.*}}] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK:             %[[ROUNDED:.*]] = arith.truncf %[[SUM]] : vector<4xf32> to vector<4xf16>
// CHECK:             vector.store %[[ROUNDED]], %[[C]][%{{.*}}] {alignment = 8 : i64} : memref<?xf16>, vector<4xf16>
func.func @hbp(%b: tensor<64x?xf16>) -> tensor<64x?xf16> {
  %l = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf16, #spperm.csr>
  %a = spperm.convert %l : !spperm.matrix<64x64xf16, #spperm.csr> -> !spperm.matrix<64x64xf16, #spperm.hbp<rows = 64, cols = 32>>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf16, #spperm.hbp<rows = 64, cols = 32>>, tensor<64x?xf16> -> tensor<64x?xf16>
  return %c : tensor<64x?xf16>
}

// -----

// A baked-in K of 64 in bf16: the round kernel takes 8 elements a thread
// (two 16-byte loads of the accumulator, one 16-byte store of C) over a
// grid that covers rows x K once.

// CHECK-LABEL: func.func @hbp_k64
// CHECK:         family = "hbp", variant = "k64"
// CHECK-SAME:      family = "round", variant = "k64", k_min = 64, k_max = 64
// CHECK-SAME:        args = ["acc", "C", "K"], grid = [2, 1, 1], block = [256, 1, 1]
// CHECK:       gpu.func @l0_round_k64
// CHECK:           vector.load %{{.*}} {alignment = 32 : i64} : memref<?xf32>, vector<8xf32>
// CHECK:           arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK:           vector.store %{{.*}} {alignment = 16 : i64} : memref<?xbf16>, vector<8xbf16>
func.func @hbp_k64(%b: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  %l = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %a = spperm.convert %l : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.hbp<rows = 64, cols = 32>>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.hbp<rows = 64, cols = 32>>, tensor<64x64xbf16> -> tensor<64x64xbf16>
  return %c : tensor<64x64xbf16>
}
