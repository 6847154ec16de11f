// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu=k-buckets=0 | FileCheck %s

// f16 operands (B and C), f32 values: K that are multiples of 8 get 8
// columns a lane (one 16-byte load of B, widened exactly; K read at run
// time, the row's address one 32 x 32 -> 64-bit multiply-add), the vec4 classes
// stay for K % 8 == 4 (8-byte loads); accumulation in f32, C rounded once
// on store; SpMV reads and writes one element.

// CHECK-LABEL: func.func @f16
// CHECK:         spperm.kernels = [
// CHECK-SAME:      variant = "spmv", k_min = 1, k_max = 1, k_align = 1
// CHECK-SAME:      args = ["order", "csr.row_ptr", "csr.col_idx.u16", "csr.values", "B", "C", "K"]
// CHECK-SAME:      name = "l0_csr_vec8_g1_1", family = "csr", variant = "vec8.g1", k_min = 8, k_max = 8, k_align = 8
// CHECK-SAME:      name = "l0_csr_vec8_g4_2", family = "csr", variant = "vec8.g4", k_min = 16, k_max = 32, k_align = 8
// CHECK-SAME:      name = "l0_csr_vec8_g8_3", family = "csr", variant = "vec8.g8", k_min = 40, k_max = 64, k_align = 8
// CHECK-SAME:      name = "l0_csr_vec8_g16_4", family = "csr", variant = "vec8.g16", k_min = 72, k_max = 0, k_align = 8
// CHECK-SAME:      name = "l0_csr_vec4_g2_5", family = "csr", variant = "vec4.g2", k_min = 4, k_max = 8, k_align = 4
// CHECK-SAME:      variant = "scalar.g32"
// CHECK:       gpu.func @l0_csr_spmv_spmv_0(%{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi16>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf16>, %{{.*}}: memref<?xf16>, %{{.*}}: index)
// CHECK:           memref.load %{{.*}} : memref<?xf16>
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:           memref.store %{{.*}} : memref<?xf16>
// CHECK:       gpu.func @l0_csr_vec8_g4_2
// CHECK:           llvm.inline_asm asm_dialect = att "mul.wide.u32 $0, $1, $2;"
// CHECK:           llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
// CHECK:           arith.extf %{{.*}} : vector<8xf16> to vector<8xf32>
// CHECK:           vector.fma
// CHECK:           arith.truncf %{{.*}} : vector<8xf32> to vector<8xf16>
// CHECK:           vector.store %{{.*}} {alignment = 16 : i64} : memref<?xf16>, vector<8xf16>
// CHECK:       gpu.func @l0_csr_vec4_g8_6
// CHECK:           llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<4xf16>
// CHECK:           arith.truncf %{{.*}} : vector<4xf32> to vector<4xf16>
// CHECK:           vector.store %{{.*}} {alignment = 8 : i64} : memref<?xf16>, vector<4xf16>
func.func @f16(%b: tensor<64x?xf16>) -> tensor<64x?xf16> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x?xf16> -> tensor<64x?xf16>
  return %c : tensor<64x?xf16>
}

// -----

// bf16 with K fixed: one variant, the same row kernel with bf16 B and C:
// 4 lanes of 8 columns cover K = 32 in one tile.

// CHECK-LABEL: func.func @bf16
// CHECK:         spperm.kernels = [#spperm.launch<name = "l0_csr_k32_0", family = "csr", variant = "k32"
// CHECK:       gpu.func @l0_csr_k32_0(%{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi16>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xbf16>, %{{.*}}: index)
// CHECK:           scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c32
// CHECK:           vector.load %{{.*}} : memref<?xbf16>, vector<8xbf16>
// CHECK:           %[[W8:.*]] = vector.bitcast %{{.*}} : vector<8xbf16> to vector<4xi32>
// CHECK-NEXT:      %[[S16:.*]] = arith.constant dense<16> : vector<4xi32>
// CHECK-NEXT:      %[[LO8:.*]] = arith.shli %[[W8]], %[[S16]] : vector<4xi32>
// CHECK-NEXT:      %[[LOF8:.*]] = arith.bitcast %[[LO8]] : vector<4xi32> to vector<4xf32>
// CHECK-NEXT:      %[[MASK:.*]] = arith.constant dense<-65536> : vector<4xi32>
// CHECK-NEXT:      %[[HI8:.*]] = arith.andi %[[W8]], %[[MASK]] : vector<4xi32>
// CHECK-NEXT:      %[[HIF8:.*]] = arith.bitcast %[[HI8]] : vector<4xi32> to vector<4xf32>
// CHECK:           vector.shuffle %[[LOF8]], %[[HIF8]] [0, 4, 1, 5, 2, 6, 3, 7] : vector<4xf32>, vector<4xf32>
// CHECK:           arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
func.func @bf16(%b: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xbf16> -> tensor<64x32xbf16>
  return %c : tensor<64x32xbf16>
}

// -----

// bf16 values (the file's rounded to bf16 on load) with bf16 operands: the
// values array is bf16 too, each value widened exactly as it is read.

// CHECK-LABEL: func.func @bf16_values
// CHECK:       gpu.func @l0_csr_k16_0(%{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi16>, %{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xbf16>, %{{.*}}: index)
// CHECK:           memref.load %{{.*}} : memref<?xbf16>
// CHECK:           arith.extf %{{.*}} : bf16 to f32
// CHECK:           vector.load %{{.*}} : memref<?xbf16>, vector<8xbf16>
func.func @bf16_values(%b: tensor<64x16xbf16>) -> tensor<64x16xbf16> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xbf16, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xbf16, #spperm.csr>, tensor<64x16xbf16> -> tensor<64x16xbf16>
  return %c : tensor<64x16xbf16>
}
