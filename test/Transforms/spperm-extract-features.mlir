// RUN: spperm-opt %s -split-input-file -spperm-extract-features | FileCheck %s

// A relative path is resolved against the directory of this file. The
// features (test/Inputs/small.mtx: 4 x 5, 5 stored entries, row lengths
// 2 0 2 1) are exact.

// CHECK-LABEL: func.func @features
// CHECK:       spperm.load "../Inputs/small.mtx" {features = #spperm.features<{
// CHECK-SAME:    cols = 5 : i64
// CHECK-SAME:    density = 2.500000e-01 : f64, empty_rows = 1 : i64
// CHECK-SAME:    hamming = {adjacent_mean = {{.*}}, warp_mean = 0.000000e+00 : f64
// CHECK-SAME:    model = {line_width = 32 : i64, rows_per_warp = 4 : i64, warps = 32 : i64}
// CHECK-SAME:    nnz = 5 : i64, row_nnz = {max = 2 : i64, mean = 1.250000e+00 : f64, min = 0 : i64, std = 0.82915619758884995 : f64}
// CHECK-SAME:    rows = 4 : i64
// CHECK-SAME:    warp_load = {max = 1 : i64, mean = 7.500000e-01 : f64, std = 0.4330127018922193 : f64}
// CHECK-SAME:  }>} : !spperm.matrix<4x5xf32, #spperm.csr>
func.func @features(%b: tensor<5x8xf32>) -> tensor<4x8xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x8xf32> -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// The same file twice, once as .smtx: identical features; `values` does not
// change the structure.

// CHECK-LABEL: func.func @two_loads
// CHECK:       spperm.load "../Inputs/small.mtx" {features = #spperm.features<[[F:.*]]>, values = "random:3"}
// CHECK:       spperm.load "../Inputs/small.smtx" {features = #spperm.features<[[F]]>}
func.func @two_loads() {
  %a = spperm.load "../Inputs/small.mtx" {values = "random:3"} : !spperm.matrix<4x5xf32, #spperm.csr>
  %b = spperm.load "../Inputs/small.smtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  return
}
