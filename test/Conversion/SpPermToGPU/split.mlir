// RUN: spperm-opt %s -spperm-lower-to-gpu | FileCheck %s

// test/Inputs/longrow.mtx: row 5 has 1000 entries, the others at most 3.
// The matrix has far fewer rows than it takes to fill an H100 (132 SMs x 16
// warps x 4 groups of 8 lanes), so chunks shrink to the minimum, 64
// entries, and rows longer than two chunks are split: the row kernel skips
// row 5 (writing only zero) and a split kernel adds its 16 chunks
// atomically. The chunks are a constant table baked into the module:
// (row 5, begin, end) x 16.

// CHECK-LABEL: func.func @long
// CHECK:         spperm.kernels = [{args = ["order", "csr.row_ptr", "csr.col_idx", "csr.values", "B", "C", "K"], {{.*}}family = "csr", {{.*}}name = "long_0_csr_k32_1", variant = "k32", zero_output = false}, {args = ["order", "csr.col_idx", "csr.values", "B", "C", "K"], block = array<i64: 256, 1, 1>, family = "csr-split", grid = array<i64: 1, 1, 1>, {{.*}}name = "long_0_csr_split_k32_2", variant = "k32", zero_output = false}]
// CHECK:       gpu.module @spperm_kernels
// CHECK:         memref.global "private" constant @long_0_chunks_0 : memref<48xi32> = dense<[5, 6, 70, 5, 70, 134, {{.*}}, 5, 966, 1006]> {alignment = 16 : i64}
// The row kernel: rows longer than 128 entries get an empty range.
// CHECK:         gpu.func @long_0_csr_k32_1
// CHECK:           %[[LONG:.*]] = arith.cmpi sgt, %{{.*}}, %c128
// CHECK:           arith.select %[[LONG]]
// CHECK:           vector.store
// The split kernel: a group per chunk, atomic adds into C.
// CHECK:         gpu.func @long_0_csr_split_k32_2
// CHECK:           memref.get_global @long_0_chunks_0 : memref<48xi32>
// CHECK:           nvvm.shfl.sync idx
// CHECK:           memref.atomic_rmw addf
// CHECK-NOT:       vector.store
// CHECK:           gpu.return
func.func @long(%b: tensor<1024x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/longrow.mtx" : !spperm.matrix<64x1024xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x1024xf32, #spperm.csr>, tensor<1024x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
