// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu=k-buckets=0 | FileCheck %s

// f16 operands (B and C), f32 values: the row kernels read 8 bytes of B a
// lane (four f16, widened exactly), accumulate in f32 and round C once on
// store; SpMV reads and writes one element.

// CHECK-LABEL: func.func @f16
// CHECK:         spperm.kernels = [
// CHECK-SAME:      args = ["order", "csr.row_ptr", "csr.col_idx", "csr.values", "B", "C", "K"]
// CHECK:       gpu.func @l0_csr_spmv_spmv_0(%{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf16>, %{{.*}}: memref<?xf16>, %{{.*}}: index)
// CHECK:           memref.load %{{.*}} : memref<?xf16>
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:           memref.store %{{.*}} : memref<?xf16>
// CHECK:       gpu.func @l0_csr_vec4_g8_2
// CHECK:           vector.load %{{.*}} {alignment = 8 : i64} : memref<?xf16>, vector<4xf16>
// CHECK:           arith.extf %{{.*}} : vector<4xf16> to vector<4xf32>
// CHECK:           vector.fma
// CHECK:           arith.truncf %{{.*}} : vector<4xf32> to vector<4xf16>
// CHECK:           vector.store %{{.*}} {alignment = 8 : i64} : memref<?xf16>, vector<4xf16>
func.func @f16(%b: tensor<64x?xf16>) -> tensor<64x?xf16> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x?xf16> -> tensor<64x?xf16>
  return %c : tensor<64x?xf16>
}

// -----

// bf16 with K fixed: one variant, the same row kernel with bf16 B and C.

// CHECK-LABEL: func.func @bf16
// CHECK:         spperm.kernels = [#spperm.launch<name = "l0_csr_k32_0", family = "csr", variant = "k32"
// CHECK:       gpu.func @l0_csr_k32_0(%{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xbf16>, %{{.*}}: index)
// CHECK:           vector.load %{{.*}} : memref<?xbf16>, vector<4xbf16>
// CHECK:           arith.extf %{{.*}} : vector<4xbf16> to vector<4xf32>
// CHECK:           arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
func.func @bf16(%b: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xbf16> -> tensor<64x32xbf16>
  return %c : tensor<64x32xbf16>
}

