// RUN: rm -rf %t && mkdir -p %t
// RUN: spperm-gen uniform --rows 16 --cols 65536 --density 0.001 --seed 1 -o %t/fit.mtx
// RUN: spperm-gen uniform --rows 16 --cols 65537 --density 0.001 --seed 1 -o %t/wide.mtx
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="base-dir=%t k-buckets=0" | FileCheck %s
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="base-dir=%t k-buckets=0 narrow-indices=never" | FileCheck %s --check-prefix=NEVER
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="base-dir=%t k-buckets=0 row-windows=always" | FileCheck %s --check-prefix=WINDOW
// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=bell block=16 delta=0.5 base-dir=%t" -spperm-lower-to-gpu="base-dir=%t k-buckets=0" | FileCheck %s --check-prefix=BELL
// RUN: not spperm-opt %s -spperm-lower-to-gpu=narrow-indices=bogus 2>&1 | FileCheck %s --check-prefix=BAD

// Row and csr-window kernels read 16-bit column indices on layers of at
// most 65,536 columns (every index fits): the parameter names the
// narrowed buffer, its memref is i16, and each load is zero-extended.

// BAD: for the --narrow-indices option: unknown value 'bogus' (one of: {{.*}})

// CHECK-LABEL: func.func @fits
// BELL-LABEL:   func.func @fits
// BELL:           args = ["order", "bell.residual.row_ptr", "bell.residual.col_idx.u16", "bell.residual.values",
// BELL:         gpu.func @l0_bell_k32_0(%{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %[[RES:.*]]: memref<?xi16>,
// BELL:           %[[C:.*]] = memref.load %[[RES]][%{{.*}}] : memref<?xi16>
// BELL-NEXT:      arith.extui %[[C]] : i16 to i32
// CHECK:         args = ["order", "csr.row_ptr", "csr.col_idx.u16", "csr.values", "B", "C", "K"]
// CHECK:       gpu.func @l0_csr_k32_0(%{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %[[COL:.*]]: memref<?xi16>,
// CHECK:         %[[C:.*]] = memref.load %[[COL]][%{{.*}}] : memref<?xi16>
// CHECK-NEXT:    arith.extui %[[C]] : i16 to i32
// NEVER-LABEL: func.func @fits
// NEVER:         args = ["order", "csr.row_ptr", "csr.col_idx", "csr.values", "B", "C", "K"]
// NEVER-NOT:     i16
// NEVER:       gpu.func @l0_csr_k32_0(%{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>,
// NEVER-NOT:     i16
func.func @fits(%b: tensor<65536x32xf32>) -> tensor<16x32xf32> {
  %a = spperm.load "fit.mtx" : !spperm.matrix<16x65536xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<16x65536xf32, #spperm.csr>, tensor<65536x32xf32> -> tensor<16x32xf32>
  return %c : tensor<16x32xf32>
}

// -----

// One column more and an index may not fit: 32 bits.
// CHECK-LABEL: func.func @too_wide
// BELL-LABEL:   func.func @too_wide
// BELL:           args = ["order", "bell.residual.row_ptr", "bell.residual.col_idx", "bell.residual.values",
// BELL-NOT:       i16
// BELL:         gpu.func @l0_bell_k32_0(%{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>,
// CHECK:         args = ["order", "csr.row_ptr", "csr.col_idx", "csr.values", "B", "C", "K"]
// CHECK-NOT:     i16
// CHECK:       gpu.func @l0_csr_k32_0(%{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>,
// CHECK-NOT:     i16
func.func @too_wide(%b: tensor<65537x32xf32>) -> tensor<16x32xf32> {
  %a = spperm.load "wide.mtx" : !spperm.matrix<16x65537xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<16x65537xf32, #spperm.csr>, tensor<65537x32xf32> -> tensor<16x32xf32>
  return %c : tensor<16x32xf32>
}

// -----

// SpMV and bf16 operands narrow alike; the bell residual's indices too.
// CHECK-LABEL: func.func @spmv_bf16
// CHECK:         family = "csr-spmv"{{.*}}args = ["order", "csr.row_ptr", "csr.col_idx.u16", "csr.values", "B", "C", "K"]
// CHECK:       gpu.func @l0_csr_spmv_k1_0(%{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi16>, %{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xbf16>,
// CHECK:         memref.load %{{.*}} : memref<?xi16>
// CHECK-NEXT:    arith.extui %{{.*}} : i16 to i32
// NEVER-LABEL: func.func @spmv_bf16
// NEVER:         family = "csr-spmv"{{.*}}args = ["order", "csr.row_ptr", "csr.col_idx", "csr.values", "B", "C", "K"]
func.func @spmv_bf16(%b: tensor<65536x1xbf16>) -> tensor<16x1xbf16> {
  %a = spperm.load "fit.mtx" : !spperm.matrix<16x65536xbf16, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<16x65536xbf16, #spperm.csr>, tensor<65536x1xbf16> -> tensor<16x1xbf16>
  return %c : tensor<16x1xbf16>
}

// -----

// The csr-window kernel's batch loads narrow too (65,536 columns run as
// column ranges, bounded by a constant table instead of the row pointers),
// and a bell layer's residual.
// WINDOW-LABEL: func.func @window
// WINDOW:         family = "csr-window"{{.*}}args = ["order", "csr.col_idx.u16", "csr.values", "B", "C", "K"]
// WINDOW:       gpu.func @l0_csr_window_k256_1(%{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi16>,
// WINDOW:         memref.load %{{.*}} : memref<?xi16>
// WINDOW-NEXT:    arith.extui %{{.*}} : i16 to i32
// BELL-LABEL:   func.func @window
// BELL:           args = ["order", "bell.residual.row_ptr", "bell.residual.col_idx.u16", "bell.residual.values",
func.func @window(%b: tensor<65536x256xf32>) -> tensor<16x256xf32> {
  %a = spperm.load "fit.mtx" : !spperm.matrix<16x65536xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<16x65536xf32, #spperm.csr>, tensor<65536x256xf32> -> tensor<16x256xf32>
  return %c : tensor<16x256xf32>
}
