// RUN: spperm-opt %s -spperm-extract-features="base-dir=%S/../Inputs warps=4 rows-per-warp=2" | FileCheck %s
// RUN: not spperm-opt %s -spperm-extract-features 2>&1 | FileCheck %s --check-prefix=NOBASE
// RUN: not spperm-opt %s -spperm-extract-features="warps=0" 2>&1 | FileCheck %s --check-prefix=OPTIONS
// RUN: not spperm-opt %s -spperm-extract-features="line=3" 2>&1 | FileCheck %s --check-prefix=LINE
// RUN: not spperm-opt %s -spperm-extract-features="rows-per-warp=0" 2>&1 | FileCheck %s --check-prefix=RPW

// `base-dir` decides where relative paths point; the model options reach
// the features.

// CHECK-LABEL: func.func @base_dir
// CHECK: spperm.load "small.mtx" {features = #spperm.features<{{.*}}model = {line_width = 32 : i64, rows_per_warp = 2 : i64, warps = 4 : i64}
// NOBASE: error: 'spperm.load' op {{.*}}Transforms/small.mtx: cannot open: No such file or directory
// OPTIONS: error: spperm-extract-features: warps must be in [1, 1024], got 0
// LINE: error: spperm-extract-features: line must be a power of two in [1, 1024], got 3
// RPW: error: spperm-extract-features: rows-per-warp must be in [1, 1024], got 0
func.func @base_dir() {
  %a = spperm.load "small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  return
}
