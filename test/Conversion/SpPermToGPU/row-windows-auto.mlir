// RUN: rm -rf %t && mkdir -p %t
// RUN: spperm-gen uniform --rows 64 --cols 2048 --density 0.3 --seed 1 -o %t/wide.mtx
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="base-dir=%t k-buckets=0" | FileCheck %s

// Mode auto runs the csr-window kernel where it was measured to beat the
// row kernels: K >= 512 on a layer of >= 2,048 columns and density >= 0.25.
// Two windows x two K tiles of 256 columns fill too little of the GPU: 32
// column ranges of 4 chunks of 16 columns, added into C (cleared first).
// CHECK-LABEL: func.func @wide
// CHECK:         name = "l0_csr_window_k512_{{[0-9]+}}", family = "csr-window", {{.*}}zero_output = true, {{.*}}grid = [128, 1, 1]
func.func @wide(%b: tensor<2048x512xf32>) -> tensor<64x512xf32> {
  %a = spperm.load "wide.mtx" : !spperm.matrix<64x2048xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x2048xf32, #spperm.csr>, tensor<2048x512xf32> -> tensor<64x512xf32>
  return %c : tensor<64x512xf32>
}

// -----

// K = 256 on the same layer: the row kernels.
// CHECK-LABEL: func.func @wide256
// CHECK-NOT:     csr-window
// CHECK:         family = "csr",
func.func @wide256(%b: tensor<2048x256xf32>) -> tensor<64x256xf32> {
  %a = spperm.load "wide.mtx" : !spperm.matrix<64x2048xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x2048xf32, #spperm.csr>, tensor<2048x256xf32> -> tensor<64x256xf32>
  return %c : tensor<64x256xf32>
}

// -----

// 16-bit operands on the same layer: the row kernels (half the B bytes
// leave the windows less to save; they were measured slower there).
// CHECK-LABEL: func.func @wide_bf16
// CHECK-NOT:     csr-window
// CHECK:         family = "csr",
func.func @wide_bf16(%b: tensor<2048x512xbf16>) -> tensor<64x512xbf16> {
  %a = spperm.load "wide.mtx" : !spperm.matrix<64x2048xbf16, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x2048xbf16, #spperm.csr>, tensor<2048x512xbf16> -> tensor<64x512xbf16>
  return %c : tensor<64x512xbf16>
}
