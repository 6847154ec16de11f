// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=bell block=16 delta=0.5" -spperm-lower-to-gpu="precision=tf32" | FileCheck %s
// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=bell block=32 delta=0.5" -spperm-lower-to-gpu="precision=tf32" | FileCheck %s --check-prefix=TAU32

// A bf16 bell layer with 16 x 16 blocks and a tensor-core precision: the
// tensor-core variant multiplies the operands as they are (bell-bf16,
// whatever the precision names). Its kernel runs first and writes the fp32
// accumulator (cleared: its parts add into it). Nothing is widened: each
// warp's stored blocks are pipelined, the next block's B rows copied into
// one of two shared-memory buffers by cp.async and its A fragments loaded
// (pairs of values, 4 bytes; none for padding slots, which are trailing)
// while this block's B fragments are read by
// ldmatrix (transposed), packed in pairs into 32-bit registers for
// nvvm.mma.sync m16n8k16 bf16 (nvgpu.mma.sync has no bf16); the row kernel
// after it adds the accumulator and rounds C once.

// CHECK-LABEL: func.func @bf16
// CHECK:         spperm.kernels = [#spperm.launch<name = "[[MMA:l0_bell_mma_k32_bf16_[0-9]+]]", family = "bell-bf16", variant = "k32.bf16", k_min = 32, k_max = 32, k_align = 8
// CHECK-SAME:      zero_output = true, dependent_launch = false, args = ["order", "bell.block_col", "bell.block_values", "B", "acc", "K"]
// CHECK-SAME:      #spperm.launch<name = "[[ROW:l0_bell_k32_bf16_[0-9]+]]", family = "bell", variant = "k32.bf16"
// CHECK-SAME:      dependent_launch = true, args = ["order", "bell.residual.row_ptr", "bell.residual.col_idx.u16", "bell.residual.values", "B", "C", "acc", "K"]
// CHECK:       gpu.func @[[ROW]](
// CHECK:           vector.load %{{.*}} : memref<?xf32>, vector<8xf32>
// CHECK:           arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK:       gpu.func @[[MMA]](%{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xf32>, %{{.*}}: index) workgroup(%[[SMEM:.*]] : memref<5120xbf16, #gpu.address_space<workgroup>>
// CHECK-NOT:       arith.truncf
// CHECK:           nvgpu.device_async_copy %{{.*}}, %[[SMEM]][%{{.*}}], 8, %{{.*}} : memref<?xbf16> to memref<5120xbf16, #gpu.address_space<workgroup>>
// CHECK:           nvgpu.device_async_create_group
// CHECK:           vector.load %{{.*}} {alignment = 4 : i64} : memref<?xbf16>, vector<2xbf16>
// CHECK:           scf.for {{.*}} iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2xbf16>, vector<2xbf16>, vector<2xbf16>, vector<2xbf16>, index, index)
// CHECK:             scf.if
// CHECK:             nvgpu.device_async_copy
// CHECK:             scf.if
// CHECK:             vector.load %{{.*}} {alignment = 4 : i64} : memref<?xbf16>, vector<2xbf16>
// CHECK:             nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK:             nvvm.bar.warp.sync
// CHECK:             nvgpu.ldmatrix %[[SMEM]][%{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<5120xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK:             vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK:           nvvm.mma.sync A[{{.*}}]  B[{{.*}}]  C[{{.*}}]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK:           red.global.add.v2.f32
// CHECK-NOT:   nvgpu.mma.sync
// With 32 x 32 blocks: two k-slices a block, so eight A pairs carried
// and four ldmatrix.x4.trans (two per slice), and twice the staged rows.
// TAU32-LABEL: func.func @bf16
// TAU32:       gpu.func @l0_bell_mma_k32_bf16_{{[0-9]+}}({{.*}}) workgroup(%[[SMEM:.*]] : memref<10240xbf16, #gpu.address_space<workgroup>>
// TAU32:         scf.for {{.*}} iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2xbf16>, vector<2xbf16>, vector<2xbf16>, vector<2xbf16>, vector<2xbf16>, vector<2xbf16>, vector<2xbf16>, vector<2xbf16>, index, index)
// TAU32-COUNT-4: nvgpu.ldmatrix %[[SMEM]]
// TAU32:         gpu.return
func.func @bf16(%b: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xbf16, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xbf16, #spperm.csr>, tensor<64x32xbf16> -> tensor<64x32xbf16>
  return %c : tensor<64x32xbf16>
}

// -----

// f16 operands: nvgpu.mma.sync m16n8k16 on f16 fragments (bell-f16); one
// stored block per block row, so one part: the accumulator is stored, not
// cleared. Each block's products are summed from zero and added to the
// running sums in fp32.

// CHECK-LABEL: func.func @f16
// CHECK:         spperm.kernels = [#spperm.launch<name = "[[MMA:l0_bell_mma_k32_f16_[0-9]+]]", family = "bell-f16", variant = "k32.f16"
// CHECK-SAME:      zero_output = false, dependent_launch = false, args = ["order", "bell.block_col", "bell.block_values", "B", "acc", "K"]
// CHECK:       gpu.func @[[MMA]](
// CHECK:           nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true} : memref<5120xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK:           nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK:           arith.addf %{{.*}} : vector<2x2xf32>
// CHECK-NOT:       red.global
// CHECK:           vector.store %{{.*}} {alignment = 8 : i64} : memref<?xf32>, vector<2xf32>
// CHECK-NOT:       red.global
// CHECK:           gpu.return
func.func @f16(%b: tensor<64x32xf16>) -> tensor<64x32xf16> {
  %a = spperm.load "../../Inputs/blockdiag64.mtx" : !spperm.matrix<64x64xf16, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf16, #spperm.csr>, tensor<64x32xf16> -> tensor<64x32xf16>
  return %c : tensor<64x32xf16>
}

// -----

// bf16 operands with fp32 values (--values-dtype f32): the tensor cores
// would round the values, so no tensor-core variant.

// CHECK-LABEL: func.func @fp32_values
// CHECK:         spperm.kernels = [#spperm.launch<name = "l0_bell_k32_0", family = "bell", variant = "k32"
// CHECK-NOT:     bell-bf16
// CHECK-NOT:     nvvm.mma.sync
func.func @fp32_values(%b: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xbf16> -> tensor<64x32xbf16>
  return %c : tensor<64x32xbf16>
}
