// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="split-rows=512 long-rows=split" | FileCheck %s

// test/Inputs/longrow.mtx: row 5 has 1000 entries, the others at most 3.
// fp32 C takes the long row's chunks atomically (split.mlir); 16-bit C is
// rounded once per element, so the chunks go to the fp32 accumulator
// instead. SpMM: the row kernel stores the long row's part (zero here) to
// the accumulator and every other row to C, the split kernel adds the
// chunks atomically (two 4-wide reductions per 8 sums), and a round kernel
// over the long rows (the row table, through the row order) stores their C
// rows. SpMV: the row kernel stores every row's sum to the accumulator and
// the round kernel rounds it all into C.

// CHECK-LABEL: func.func @bf16
// CHECK:         spperm.kernels = [#spperm.launch<name = "[[ROW:l0_csr_k32_[0-9]+]]", family = "csr", variant = "k32"
// CHECK-SAME:      zero_output = false, dependent_launch = false, args = ["order", "csr.row_ptr", "csr.col_idx.u16", "csr.values", "B", "C", "acc", "K"]
// CHECK-SAME:      #spperm.launch<name = "[[SPLIT:l0_csr_split_k32_[0-9]+]]", family = "csr-split", variant = "k32"
// CHECK-SAME:      zero_output = false, dependent_launch = true, args = ["order", "csr.col_idx.u16", "csr.values", "B", "acc", "K"]
// CHECK-SAME:      #spperm.launch<name = "[[ROUND:l0_round_k32_[0-9]+]]", family = "round", variant = "k32"
// CHECK-SAME:      zero_output = false, dependent_launch = true, args = ["order", "acc", "C", "K"], grid = [1, 1, 1]
// CHECK:       gpu.module @spperm_kernels
// CHECK-DAG:     memref.global "private" constant @[[LONG:l0_long_rows_[0-9]+]] : memref<1xi32> = dense<5>
// CHECK-DAG:     memref.global "private" constant @l0_chunks_{{[0-9]+}} : memref<12xi32>
// CHECK:         gpu.func @[[ROW]]({{.*}}%[[C:[^:]*]]: memref<?xbf16>, %[[ACC:[^:]*]]: memref<?xf32>, %{{[^:]*}}: index)
// CHECK:           %[[LONGROW:.*]] = arith.cmpi sgt
// CHECK:           scf.if %[[LONGROW]] {
// CHECK-NEXT:        vector.store %{{.*}}, %[[ACC]][%{{.*}}] {{.*}} : memref<?xf32>, vector<8xf32>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK-NEXT:        vector.store %{{.*}}, %[[C]]
// CHECK:         gpu.func @[[SPLIT]]
// CHECK-NOT:       arith.truncf
// CHECK-COUNT-2:   red.global.add.v4.f32
// CHECK-NOT:       arith.truncf
// CHECK:         gpu.return
// The round kernel: element i of the listed rows is column i % K of the C
// row order[table[i / K]], read from and stored to that same place.
// CHECK:         gpu.func @[[ROUND]](%[[ORDER:[^:]*]]: memref<?xi32>, %[[RACC:[^:]*]]: memref<?xf32>, %[[RC:[^:]*]]: memref<?xbf16>
// CHECK:           %[[TABLE:.*]] = memref.get_global @[[LONG]]
// CHECK:           %[[POS:.*]] = memref.load %[[TABLE]]
// CHECK:           %[[ROWPOS:.*]] = arith.index_cast %[[POS]]
// CHECK:           %[[OUT:.*]] = memref.load %[[ORDER]][%[[ROWPOS]]] : memref<?xi32>
// CHECK:           %[[OUTI:.*]] = arith.index_cast %[[OUT]]
// CHECK:           %[[BASE:.*]] = arith.muli %[[OUTI]]
// CHECK:           %[[AT:.*]] = arith.addi %[[BASE]]
// CHECK:           vector.load %[[RACC]][%[[AT]]] {{.*}} : memref<?xf32>, vector<8xf32>
// CHECK-NEXT:      arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK-NEXT:      vector.store %{{.*}}, %[[RC]][%[[AT]]]
func.func @bf16(%b: tensor<1024x32xbf16>) -> tensor<64x32xbf16> {
  %a = spperm.load "../../Inputs/longrow.mtx" : !spperm.matrix<64x1024xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x1024xf32, #spperm.csr>, tensor<1024x32xbf16> -> tensor<64x32xbf16>
  return %c : tensor<64x32xbf16>
}

// -----

// CHECK-LABEL: func.func @f16_spmv
// CHECK:         spperm.kernels = [#spperm.launch<name = "[[ROW:l0_csr_spmv_k1_[0-9]+]]", family = "csr-spmv", variant = "k1"
// CHECK-SAME:      zero_output = false, dependent_launch = false, args = ["order", "csr.row_ptr", "csr.col_idx.u16", "csr.values", "B", "acc", "K"]
// CHECK-SAME:      #spperm.launch<name = "[[SPLIT:l0_csr_spmv_split_k1_[0-9]+]]", family = "csr-spmv-split", variant = "k1"
// CHECK-SAME:      args = ["order", "csr.col_idx.u16", "csr.values", "B", "acc", "K"]
// CHECK-SAME:      #spperm.launch<name = "[[ROUND:l0_round_k1_[0-9]+]]", family = "round", variant = "k1"
// CHECK-SAME:      dependent_launch = true, args = ["acc", "C", "K"]
// CHECK:         gpu.func @[[ROW]]({{.*}}%{{[^:]*}}: memref<?xf16>, %[[ACC:[^:]*]]: memref<?xf32>, %{{[^:]*}}: index)
// CHECK-NOT:       arith.truncf
// CHECK:           memref.store %{{.*}}, %[[ACC]][%{{.*}}] : memref<?xf32>
// CHECK:         gpu.func @[[SPLIT]]({{.*}}%[[ACC2:[^:]*]]: memref<?xf32>, %{{[^:]*}}: index)
// CHECK:           memref.atomic_rmw addf %{{.*}}, %[[ACC2]]
// CHECK:         gpu.func @[[ROUND]]
// CHECK:           arith.truncf %{{.*}} : f32 to f16
func.func @f16_spmv(%b: tensor<1024x1xf16>) -> tensor<64x1xf16> {
  %a = spperm.load "../../Inputs/longrow.mtx" : !spperm.matrix<64x1024xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x1024xf32, #spperm.csr>, tensor<1024x1xf16> -> tensor<64x1xf16>
  return %c : tensor<64x1xf16>
}
