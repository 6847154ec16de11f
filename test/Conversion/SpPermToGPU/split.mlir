// RUN: spperm-opt %s -spperm-lower-to-gpu="split-rows=512 long-rows=split" | FileCheck %s
// RUN: spperm-opt %s -spperm-lower-to-gpu | FileCheck %s --check-prefix=AUTO
// RUN: spperm-opt %s -spperm-lower-to-gpu="long-rows=split" | FileCheck %s --check-prefix=SPLIT
// RUN: spperm-opt %s -spperm-lower-to-gpu="split-rows=512" | FileCheck %s --check-prefix=CTA512
// RUN: spperm-opt %s -spperm-lower-to-gpu="split-rows=2000" | FileCheck %s --check-prefix=NONE
// RUN: not spperm-opt %s -spperm-lower-to-gpu="split-rows=-1" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not spperm-opt %s -spperm-lower-to-gpu="long-rows=chunks" 2>&1 | FileCheck %s --check-prefix=BADMODE

// test/Inputs/longrow.mtx: row 5 has 1000 entries, the others at most 3.
// With split-rows=512 long-rows=split the row is longer than the threshold, so the row
// kernel skips it (writing only zero) and a split kernel adds its chunks of
// 256 entries (half the threshold) atomically. The chunks are a constant
// table baked into the module: (row 5, begin, end) x 4.

// CHECK-LABEL: func.func @long
// CHECK:         spperm.kernels = [#spperm.launch<name = "l0_csr_k32_1", family = "csr", variant = "k32", {{.*}}zero_output = false, {{.*}}args = ["order", "csr.row_ptr", "csr.col_idx.u16", "csr.values", "B", "C", "K"], {{.*}}>, #spperm.launch<name = "l0_csr_split_k32_2", family = "csr-split", variant = "k32", {{.*}}zero_output = false, dependent_launch = true, args = ["order", "csr.col_idx.u16", "csr.values", "B", "C", "K"], grid = [4, 1, 1], block = [256, 1, 1], shared_bytes = 0>]
// CHECK:       gpu.module @spperm_kernels
// CHECK:         memref.global "private" constant @l0_chunks_0 : memref<12xi32> = dense<[5, [[B:[0-9]+]], [[E1:[0-9]+]], 5, [[E1]], [[E2:[0-9]+]], 5, [[E2]], [[E3:[0-9]+]], 5, [[E3]], {{[0-9]+}}]> {alignment = 16 : i64}
// The row kernel: rows longer than 512 entries get an empty range.
// CHECK:         gpu.func @l0_csr_k32_1
// CHECK:           %[[LONG:.*]] = arith.cmpi sgt, %{{.*}}, %c512
// CHECK:           arith.select %[[LONG]]
// CHECK:           vector.store
// The split kernel: 32 groups of 8 lanes per chunk (a chunk is 256 entries,
// one step of 8 per group; a chunk per CTA), their partial sums added by
// butterfly shuffles inside each warp (offsets 8, 16: four groups), then
// through shared memory (one slot of 8 x 4 floats per warp) by the chunk's
// first group, which adds atomically into C.
// CHECK:         gpu.func @l0_csr_split_k32_2({{.*}}) workgroup(%[[PARTIALS:.*]] : memref<256xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK:           memref.get_global @l0_chunks_0 : memref<12xi32>
// CHECK:           nvvm.shfl.sync idx
// CHECK:           nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c8_i32
// CHECK:           nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c16_i32
// CHECK:           vector.store %{{.*}}, %[[PARTIALS]]
// CHECK:           gpu.barrier
// CHECK:           vector.load %[[PARTIALS]]
// CHECK:           gpu.barrier
// CHECK:           nvvm.griddepcontrol wait
// CHECK:           llvm.inline_asm has_side_effects {{.*}}"red.global.add.v4.f32 [$0], {$1, $2, $3, $4};"
// CHECK-NOT:       vector.store
// CHECK:           gpu.return
func.func @long(%b: tensor<1024x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/longrow.mtx" : !spperm.matrix<64x1024xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x1024xf32, #spperm.csr>, tensor<1024x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// Chosen (split-rows=0): the layer's 64 rows x 4 groups of 8 lanes run at
// once, so the threshold is max(4 batches of 8 x 4 groups, 4 x mean) = 128
// entries. One CTA of 32 groups walks the 1000-entry row in 4 steps of 8
// entries per group (within 12 batches), where its own 4 groups would take
// 32: the row gets the kernel's first CTA (the table of long rows is just
// row 5), all its groups share it and reduce through shared memory (two
// barriers) before one plain store; the other rows' CTAs come after it and
// skip the row (cmpi sgt 128, then xori: not valid). One launch.
// AUTO-LABEL: func.func @long
// AUTO:         spperm.kernels = [#spperm.launch<name = "l0_csr_k32_0", family = "csr+long", {{.*}}args = ["order", "csr.row_ptr", "csr.col_idx.u16", "csr.values", "B", "C", "K"], grid = [3, 1, 1]
// AUTO-NOT:     csr-split
// AUTO:         memref.global "private" constant @l0_long_rows_1 : memref<1xi32> = dense<5>
// AUTO:         gpu.func @l0_csr_k32_0({{.*}}) workgroup(%[[PARTIALS:.*]] : memref<256xf32, #gpu.address_space<workgroup>>
// AUTO:           %[[CTA:.*]] = gpu.block_id x
// AUTO:           %[[FIRST:.*]] = arith.cmpi slt, %[[CTA]], %c1 : index
// AUTO:           scf.if %[[FIRST]] {
// AUTO:             memref.get_global @l0_long_rows_1 : memref<1xi32>
// AUTO:             nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c8_i32
// AUTO:             nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c16_i32
// AUTO:             vector.store %{{.*}}, %[[PARTIALS]]
// AUTO:             gpu.barrier
// AUTO:             gpu.barrier
// AUTO-NOT:         red.global
// AUTO:             vector.store %{{.*}}, %arg5
// AUTO:           } else {
// AUTO:             arith.subi %[[CTA]], %c1
// AUTO:             %[[LONG:.*]] = arith.cmpi sgt, %{{.*}}, %c128 : index
// AUTO:             arith.xori %[[LONG]], %true
// AUTO-NOT:         red.global
// AUTO:             vector.store %{{.*}}, %arg5
// AUTO-NOT:     gpu.func @l0_csr
// AUTO:         gpu.func @l0_transpose_b
// AUTO-NOT:     gpu.func

// long-rows=split: the same threshold, the row in 16 chunks of 64 of a
// split kernel (8 groups each, 4 chunks per CTA): the launch it costs pays
// here (the row is 32 batches per group, 24 or more).
// SPLIT-LABEL: func.func @long
// SPLIT:         family = "csr-split", {{.*}}grid = [4, 1, 1]
// SPLIT:         memref.global "private" constant @l0_chunks_0 : memref<48xi32> = dense<[5, 6, 70, 5, 70, 134,
// SPLIT:         gpu.func @l0_csr_k32_1
// SPLIT:           arith.cmpi sgt, %{{.*}}, %c128

// split-rows=512 alone: rows longer than 512 entries are long, and the
// 1000-entry row still gets a CTA of the row kernel.
// CTA512-LABEL: func.func @long
// CTA512:         family = "csr+long", {{.*}}grid = [3, 1, 1]
// CTA512:           arith.cmpi sgt, %{{.*}}, %c512

// A threshold above the longest row: no split kernel, no table.
// NONE-LABEL: func.func @long
// NONE-NOT:     csr-split
// NONE-NOT:     chunks
// NONE:         gpu.func @l0_csr_k32_0
// NONE-NOT:     gpu.func @l0_csr
// NONE:         gpu.func @l0_transpose_b
// NONE-NOT:     gpu.func

// BAD: spperm-lower-to-gpu: split-rows must be an integer in [0, 2147483647], got -1
// BADMODE: for the --long-rows option: unknown value 'chunks' (one of: auto, cta, split)
