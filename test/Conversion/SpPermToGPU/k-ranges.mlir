// RUN: rm -rf %t && mkdir -p %t
// RUN: spperm-gen banded --rows 65536 --half-width 4 -o %t/banded.mtx
// RUN: cp %S/../../Inputs/blocks64.mtx %S/../../Inputs/longrow.mtx %t/
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu=base-dir=%t | FileCheck %s
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="base-dir=%t k-buckets=48,96" | FileCheck %s --check-prefix=LIST
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="base-dir=%t long-rows=cta" | FileCheck %s --check-prefix=LONG

// Range variants (docs/Kernels.md, "Range variants"): a layer compiled for
// any K gets, after its buckets, a variant `r<B>` for each bucket B >= 64,
// for the K between the bucket below it (or B / 2) and B, the largest
// bucket's with no top: the bucket's lanes and vector width, K read at run
// time, and the launch shaped as the bucket's (its K slices, so the same
// grid at the bucket's K). Its grid grows with K (grid_k: the runtime
// launches a slice of CTAs per tile of K), and each slice takes its one
// tile; the variant's k_max keeps that grid below 2^31 CTAs and, for fp32,
// B's row stride in bytes below 2^32 (K < 2^30). A class whose
// launch would not be cut into K slices is left out: the variants for
// every K already run its K that way.

// A few rows: every range class is sliced like its bucket.
// CHECK-LABEL: func.func @few_rows
// CHECK:         variant = "k256", k_min = 256, k_max = 256, k_align = 1, {{[^>]*}} grid = [[[G256:[0-9]+]], 1, 1], block = [256, 1, 1], shared_bytes = 0>
// CHECK-SAME:    variant = "k512", k_min = 512, k_max = 512, k_align = 1, {{[^>]*}} grid = [[[G512:[0-9]+]], 1, 1], block = [256, 1, 1], shared_bytes = 0>
// CHECK-SAME:    variant = "r64", k_min = 36, k_max = 64, k_align = 4,
// CHECK-SAME:    variant = "r128", k_min = 68, k_max = 128, k_align = 4,
// CHECK-SAME:    variant = "r256", k_min = 132, k_max = 256, k_align = 4, {{[^>]*}} args = [{{[^]]*}}, "K"], grid = [[[G256]], 1, 1], block = [256, 1, 1], shared_bytes = 0, grid_k = [0, 8, 32]>
// CHECK-SAME:    variant = "r512", k_min = 260, k_max = 1073741823, k_align = 4, {{[^>]*}} grid = [[[G512]], 1, 1], block = [256, 1, 1], shared_bytes = 0, grid_k = [0, 8, 32]>
// CHECK-SAME:    variant = "spmv"
// CHECK-SAME:    variant = "vec4.g32", k_min = 68, k_max = 1073741823, {{[^>]*}} shared_bytes = 0>
// K is the kernel's last parameter; slice s = blockIdx / 8 (32 columns)
// takes columns 32 s .. 32 s + 31, none when they start past K. The grid
// is not read.
// CHECK:         gpu.func @l0_csr_r256_{{[0-9]+}}({{.*}}, %[[K:.*]]: index)
// CHECK-NOT:       gpu.grid_dim
// CHECK:           %[[BID:.*]] = gpu.block_id  x
// CHECK:           %[[SLICE:.*]] = arith.shrui %[[BID]], %{{.*}} : index
// CHECK-NOT:     gpu.func
// CHECK:           %[[FIRST:.*]] = arith.muli %[[SLICE]], %c32 : index
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi slt, %[[FIRST]], %[[K]] : index
// CHECK-NEXT:      scf.if %[[IN]] {
// A B row's address is the column's plus one 32 x 32 -> 64-bit product of
// the row and K's bytes (K * 4), in this kernel's walk.
// CHECK-NOT:     gpu.func
// CHECK:             %[[K32:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT:        %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:        %[[STRIDE:.*]] = arith.muli %[[K32]], %[[C4]] : i32
// CHECK-NEXT:        %[[ROW:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT:        %[[OFF:.*]] = llvm.inline_asm asm_dialect = att "mul.wide.u32 $0, $1, $2;", "=l,r,r" %[[ROW]], %[[STRIDE]] : (i32, i32) -> i64
// CHECK-NEXT:        %[[AT:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK-NEXT:        llvm.load %[[AT]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:     gpu.func
// CHECK-NOT:         scf.for %{{.*}} = %{{.*}} to %[[K]]
// CHECK:           gpu.return

// LIST-LABEL: func.func @few_rows
// LIST:         variant = "k48", k_min = 48, k_max = 48
// LIST-SAME:    variant = "k96", k_min = 96, k_max = 96
// LIST-SAME:    variant = "r96", k_min = 52, k_max = 1073741823, k_align = 4
// LIST-NOT:     variant = "r48"
// LIST-SAME:    variant = "spmv"
func.func @few_rows(%b: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %a = spperm.load "blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x?xf32> -> tensor<64x?xf32>
  return %c : tensor<64x?xf32>
}

// -----

// Many rows: K of 64 to 128 is not sliced (kSlicing), so r64 and r128 are
// left out; K > 128 always is. r512's grid reaches 2^31 - 1 CTAs at
// 262,143 slices of 8,192 CTAs, so its k_max is 262,143 * 128.
// CHECK-LABEL: func.func @many_rows
// CHECK:         variant = "k512"
// CHECK-NOT:     variant = "r64"
// CHECK-NOT:     variant = "r128"
// CHECK-SAME:    variant = "r256", k_min = 132, k_max = 256, {{[^>]*}} grid = [16384, 1, 1], block = [256, 1, 1], shared_bytes = 0, grid_k = [0, 8192, 128]>
// CHECK-SAME:    variant = "r512", k_min = 260, k_max = 33554304, {{[^>]*}} grid = [32768, 1, 1], block = [256, 1, 1], shared_bytes = 0, grid_k = [0, 8192, 128]>
// CHECK-SAME:    variant = "spmv"
func.func @many_rows(%b: tensor<65536x?xf32>) -> tensor<65536x?xf32> {
  %a = spperm.load "banded.mtx" : !spperm.matrix<65536x65536xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<65536x65536xf32, #spperm.csr>, tensor<65536x?xf32> -> tensor<65536x?xf32>
  return %c : tensor<65536x?xf32>
}

// -----

// 16-bit B and C: 8 columns a lane, so the range classes take multiples of
// 8 (K % 8 == 4 runs the vec4 classes); r512's slices are 4 lanes of 8.
// B's row stride in bytes fits in 32 bits for every K: r512 has no top.
// CHECK-LABEL: func.func @bf16
// CHECK:         variant = "r64", k_min = 40, k_max = 64, k_align = 8,
// CHECK-SAME:    variant = "r128", k_min = 72, k_max = 128, k_align = 8,
// CHECK-SAME:    variant = "r256", k_min = 136, k_max = 256, k_align = 8,
// CHECK-SAME:    variant = "r512", k_min = 264, k_max = 0, k_align = 8, {{[^>]*}} grid_k = [0, 8, 32]>
// CHECK-SAME:    variant = "vec8.g1"
func.func @bf16(%b: tensor<64x?xbf16>) -> tensor<64x?xbf16> {
  %a = spperm.load "blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x?xbf16> -> tensor<64x?xbf16>
  return %c : tensor<64x?xbf16>
}

// -----

// A layer compiled for one K has no range classes.
// CHECK-LABEL: func.func @static_k
// CHECK:         variant = "k200", k_min = 200, k_max = 200
// CHECK-NOT:     variant = "r
// CHECK-NOT:     grid_k
// CHECK:         return
// K baked in: the backend's multiply by a constant, no inline one.
// CHECK:         gpu.func @l0_csr_k200_0
// CHECK-NOT:       mul.wide
// CHECK:           gpu.return
func.func @static_k(%b: tensor<64x200xf32>) -> tensor<64x200xf32> {
  %a = spperm.load "blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x200xf32> -> tensor<64x200xf32>
  return %c : tensor<64x200xf32>
}

// -----

// Long rows in the row kernel's first CTAs (longrow.mtx: row 5 has 1,000
// entries): the grid that grows with K starts after them (base 1), and the
// kernel counts its slices in the CTAs past them.
// LONG-LABEL: func.func @long_rows
// LONG:         family = "csr+long", variant = "r512", k_min = 260, k_max = 1073741823, {{[^>]*}} grid = [33, 1, 1], block = [256, 1, 1], shared_bytes = 0, grid_k = [1, 8, 128]>
// LONG:         gpu.func @l0_csr_r512_{{[0-9]+}}({{.*}}, %[[K:.*]]: index)
// LONG:           %[[BID:.*]] = gpu.block_id  x
// LONG:           %[[ONE:.*]] = arith.constant 1 : index
// LONG:           scf.if
// LONG:           %[[ROWS:.*]] = arith.subi %[[BID]], %[[ONE]]{{.*}} : index
// LONG-NOT:     gpu.func
// LONG:           %[[SLICE:.*]] = arith.shrui %[[ROWS]], %{{.*}} : index
// LONG-NOT:     gpu.func
// LONG:           %[[FIRST:.*]] = arith.muli %[[SLICE]], %c128 : index
// LONG-NEXT:      arith.cmpi slt, %[[FIRST]], %[[K]] : index
func.func @long_rows(%b: tensor<1024x?xf32>) -> tensor<64x?xf32> {
  %a = spperm.load "longrow.mtx" : !spperm.matrix<64x1024xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x1024xf32, #spperm.csr>, tensor<1024x?xf32> -> tensor<64x?xf32>
  return %c : tensor<64x?xf32>
}
