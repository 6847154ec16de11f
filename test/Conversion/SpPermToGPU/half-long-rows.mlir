// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="split-rows=512 long-rows=split" | FileCheck %s
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="split-rows=512 long-rows=split threads=1024" | FileCheck %s --check-prefix=WIDE
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="split-rows=512 long-rows=split threads=192" | FileCheck %s --check-prefix=NARROW

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
// The split kernel's groups (widenSplitGroups): at K = 32 a group of 4
// lanes at 8 columns each, as the row kernel's, whatever the CTA holds.
// WIDE-LABEL: func.func @bf16(
// WIDE:         gpu.func @l0_csr_split_k32
// WIDE:           arith.andi %thread_id_x, %c3 : index
// WIDE-NOT:       vector<4xbf16>
// WIDE:           vector.load %{{.*}} {alignment = 16 : i64} : memref<?xbf16>, vector<8xbf16>
// WIDE-NOT:       vector<4xbf16>
// WIDE:         gpu.return
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

// -----

// At K = 64, with CTAs of 1024 threads (room for twice the lanes of the
// chunk's 32 groups), the split kernel's groups take 16 lanes at 4 columns
// each (8-byte B loads, one 4-wide reduction a lane) where the row kernel
// takes 8 lanes at 8 columns; 4 chunks, 2 a CTA. CTAs of 192 threads
// would not hold whole chunks of the wider groups: 8 lanes stay.
// WIDE-LABEL: func.func @bf16_k64
// WIDE:         #spperm.launch<name = "l0_csr_split_k64_{{[0-9]+}}", family = "csr-split"{{.*}}grid = [2, 1, 1], block = [1024, 1, 1]
// WIDE:         gpu.func @l0_csr_k64
// WIDE:           arith.andi %thread_id_x, %c7 : index
// WIDE:           vector.load %{{.*}} : memref<?xbf16>, vector<8xbf16>
// WIDE:         gpu.func @l0_csr_split_k64
// WIDE:           arith.andi %thread_id_x, %c15 : index
// WIDE-NOT:       vector<8xbf16>
// WIDE:           vector.load %{{.*}} {alignment = 8 : i64} : memref<?xbf16>, vector<4xbf16>
// WIDE-NOT:       vector<8xbf16>
// WIDE:           red.global.add.v4.f32
// WIDE-NOT:       red.global.add
// WIDE:         gpu.return
// NARROW-LABEL: func.func @bf16_k64
// NARROW:         gpu.func @l0_csr_split_k64
// NARROW:           arith.andi %thread_id_x, %c7 : index
// NARROW-NOT:       vector<4xbf16>
// NARROW:           vector.load %{{.*}} {alignment = 16 : i64} : memref<?xbf16>, vector<8xbf16>
// NARROW-NOT:       vector<4xbf16>
// NARROW:         gpu.return
func.func @bf16_k64(%b: tensor<1024x64xbf16>) -> tensor<64x64xbf16> {
  %a = spperm.load "../../Inputs/longrow.mtx" : !spperm.matrix<64x1024xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x1024xf32, #spperm.csr>, tensor<1024x64xbf16> -> tensor<64x64xbf16>
  return %c : tensor<64x64xbf16>
}
