// RUN: spperm-opt %s -spperm-extract-features="base-dir=%S/../Inputs warps=4 rows-per-warp=2" | FileCheck %s
// RUN: not spperm-opt %s -spperm-extract-features 2>&1 | FileCheck %s --check-prefix=NOBASE
// RUN: not spperm-opt %s -spperm-extract-features="warps=0" 2>&1 | FileCheck %s --check-prefix=OPTIONS

// `base-dir` decides where relative paths point; the model options reach
// the features.

// CHECK-LABEL: func.func @base_dir
// CHECK: spperm.load "small.mtx" {features = #spperm.features<{{.*}}model = {line_width = 32 : i64, rows_per_warp = 2 : i64, warps = 4 : i64}
// NOBASE: error: 'spperm.load' op {{.*}}Transforms/small.mtx: cannot open: No such file or directory
// OPTIONS: error: spperm-extract-features: invalid options (warps in [1, 1024], line a power of two in [1, 1024], rows-per-warp in [1, 1024])
func.func @base_dir() {
  %a = spperm.load "small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  return
}
