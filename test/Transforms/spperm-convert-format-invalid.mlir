// RUN: not spperm-opt %s -spperm-convert-format="format=ell" 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: for the --format option: unknown value 'ell' (one of: keep, auto, csr, bell, hbp, cusparse)
// RUN: not spperm-opt %s -spperm-convert-format="format=bell block=3" 2>&1 | FileCheck %s --check-prefix=BLOCK
// BLOCK: error: spperm-convert-format: block must be one of 1, 2, 4, 8, 16, 32, got 3
// RUN: not spperm-opt %s -spperm-convert-format="format=bell delta=1.5" 2>&1 | FileCheck %s --check-prefix=DELTA
// DELTA: error: spperm-convert-format: delta must be in (0, 1] (or 0 to search), got 1.5
// RUN: not spperm-opt %s -spperm-convert-format="format=bell delta=1.0000001" 2>&1 | FileCheck %s --check-prefix=DELTA-NEAR
// DELTA-NEAR: error: spperm-convert-format: delta must be in (0, 1] (or 0 to search), got 1.0000001
// RUN: not spperm-opt %s -spperm-convert-format="format=hbp row-block=100" 2>&1 | FileCheck %s --check-prefix=HBP
// HBP: error: spperm-convert-format: row-block must be a positive multiple of 32 and col-block positive, both below 2^31, got 100 and 4096
// RUN: not spperm-opt %s -spperm-convert-format="format=hbp col-block=4294967297" 2>&1 | FileCheck %s --check-prefix=HBP-LARGE
// HBP-LARGE: error: spperm-convert-format: row-block must be a positive multiple of 32 and col-block positive, both below 2^31, got 512 and 4294967297
// RUN: not spperm-opt %s -spperm-convert-format="format=bell" 2>&1 | FileCheck %s --check-prefix=ARG
// ARG: error: 'spperm.spmm' op needs the matrix's spperm.load to compute its Blocked-ELL width
// RUN: not spperm-opt %s -spperm-convert-format="format=auto" 2>&1 | FileCheck %s --check-prefix=ARG-AUTO
// ARG-AUTO: error: 'spperm.spmm' op multiplies a matrix that does not come from spperm.load: format=auto has no data to choose a format for

// A matrix passed in as an argument has no file to study.
func.func @argument(%a: !spperm.matrix<64x64xf32, #spperm.csr>, %b: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x8xf32> -> tensor<64x8xf32>
  return %c : tensor<64x8xf32>
}
