// RUN: spperm-opt %s -spperm-lower-to-gpu="split-rows=512" | FileCheck %s
// RUN: spperm-opt %s -spperm-lower-to-gpu | FileCheck %s --check-prefix=AUTO
// RUN: spperm-opt %s -spperm-lower-to-gpu="split-rows=2000" | FileCheck %s --check-prefix=NONE
// RUN: not spperm-opt %s -spperm-lower-to-gpu="split-rows=-1" 2>&1 | FileCheck %s --check-prefix=BAD

// test/Inputs/longrow.mtx: row 5 has 1000 entries, the others at most 3.
// With split-rows=512 the row is longer than the threshold, so the row
// kernel skips it (writing only zero) and a split kernel adds its chunks of
// 256 entries (half the threshold) atomically. The chunks are a constant
// table baked into the module: (row 5, begin, end) x 4.

// CHECK-LABEL: func.func @long
// CHECK:         spperm.kernels = [{args = ["order", "csr.row_ptr", "csr.col_idx", "csr.values", "B", "C", "K"], {{.*}}family = "csr", {{.*}}name = "long_0_csr_k32_1", variant = "k32", zero_output = false}, {args = ["order", "csr.col_idx", "csr.values", "B", "C", "K"], block = array<i64: 256, 1, 1>, family = "csr-split", grid = array<i64: 4, 1, 1>, {{.*}}name = "long_0_csr_split_k32_2", variant = "k32", zero_output = false}]
// CHECK:       gpu.module @spperm_kernels
// CHECK:         memref.global "private" constant @long_0_chunks_0 : memref<12xi32> = dense<[5, [[B:[0-9]+]], [[E1:[0-9]+]], 5, [[E1]], [[E2:[0-9]+]], 5, [[E2]], [[E3:[0-9]+]], 5, [[E3]], {{[0-9]+}}]> {alignment = 16 : i64}
// The row kernel: rows longer than 512 entries get an empty range.
// CHECK:         gpu.func @long_0_csr_k32_1
// CHECK:           %[[LONG:.*]] = arith.cmpi sgt, %{{.*}}, %c512
// CHECK:           arith.select %[[LONG]]
// CHECK:           vector.store
// The split kernel: 32 groups of 8 lanes per chunk (a chunk is 256 entries,
// one step of 8 per group; a chunk per CTA), their partial sums added by
// butterfly shuffles inside each warp (offsets 8, 16: four groups), then
// through shared memory (one slot of 8 x 4 floats per warp) by the chunk's
// first group, which adds atomically into C.
// CHECK:         gpu.func @long_0_csr_split_k32_2({{.*}}) workgroup(%[[PARTIALS:.*]] : memref<256xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK:           memref.get_global @long_0_chunks_0 : memref<12xi32>
// CHECK:           nvvm.shfl.sync idx
// CHECK:           nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c8_i32
// CHECK:           nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c16_i32
// CHECK:           vector.store %{{.*}}, %[[PARTIALS]]
// CHECK:           gpu.barrier
// CHECK:           vector.load %[[PARTIALS]]
// CHECK:           gpu.barrier
// CHECK:           llvm.inline_asm has_side_effects {{.*}}"red.global.add.v4.f32 [$0], {$1, $2, $3, $4};"
// CHECK-NOT:       vector.store
// CHECK:           gpu.return
func.func @long(%b: tensor<1024x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/longrow.mtx" : !spperm.matrix<64x1024xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x1024xf32, #spperm.csr>, tensor<1024x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// Chosen (split-rows=0): the layer's 64 rows x 4 groups of 8 lanes run at
// once and its longest row is at least 24 batches of 8 per group, so the
// threshold is max(4 batches of 8 x 4 groups, 4 x mean) = 128
// entries, and the row becomes 16 chunks of 64 (8 groups each, 4 chunks
// per CTA).
// AUTO-LABEL: func.func @long
// AUTO:         family = "csr-split", grid = array<i64: 4, 1, 1>
// AUTO:         memref.global "private" constant @long_0_chunks_0 : memref<48xi32> = dense<[5, 6, 70, 5, 70, 134,
// AUTO:         gpu.func @long_0_csr_k32_1
// AUTO:           arith.cmpi sgt, %{{.*}}, %c128

// A threshold above the longest row: no split kernel, no table.
// NONE-LABEL: func.func @long
// NONE-NOT:     csr-split
// NONE-NOT:     chunks
// NONE:         gpu.func @long_0_csr_k32_0
// NONE-NOT:     gpu.func

// BAD: spperm-lower-to-gpu: split-rows must be in [0, 2147483647], got -1
