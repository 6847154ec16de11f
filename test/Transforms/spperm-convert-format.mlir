// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=bell block=16 delta=0.5" | FileCheck %s --check-prefix=BELL
// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=hbp row-block=64 col-block=32" | FileCheck %s --check-prefix=HBP
// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=csr" | FileCheck %s --check-prefix=CSR
// RUN: spperm-opt %s -split-input-file -spperm-permute-rows="strategy=bsa" -spperm-convert-format="format=bell block=16" | FileCheck %s --check-prefix=SEARCH
// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=bell block=16 delta=0.5 columns=condensed" | FileCheck %s --check-prefix=CONDENSED
// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=bell block=16 delta=0.5 columns=blocks" | FileCheck %s --check-prefix=BELL
// RUN: not spperm-opt %s -split-input-file -spperm-convert-format="format=bell columns=diagonal" 2>&1 | FileCheck %s --check-prefix=BADCOLUMNS

// test/Inputs/blocks64.mtx: 64 x 64 with 7 dense 16 x 16 tiles (spperm-gen
// block --rows 64 --cols 64 --block 16 --block-density 0.3); at most 3 in a
// block row, so the Blocked-ELL width is 3. The permutation is kept.

// BELL-LABEL: func.func @layer
// BELL:         %[[A:.*]] = spperm.load
// BELL-NEXT:    %[[F:.*]] = spperm.convert %[[A]] : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr, delta = 5.000000e-01 : f64>>
// BELL-NEXT:    spperm.spmm %[[F]], %{{.*}} : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr, delta = 5.000000e-01 : f64>>
// Condensed tiles: each 16-row block row's columns of density >= 0.5, 16
// to a tile (the blocks' aligned columns here, so as many tiles); the type
// records the choice.
// CONDENSED-LABEL: func.func @layer
// CONDENSED:         spperm.convert {{.*}} -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr, delta = 5.000000e-01 : f64, condensed = true>>
// BADCOLUMNS: for the --columns option: unknown value 'diagonal' (one of: {{.*}})
// HBP-LABEL: func.func @layer
// HBP:          spperm.convert {{.*}} -> !spperm.matrix<64x64xf32, #spperm.hbp<rows = 64, cols = 32>>
// CSR-LABEL: func.func @layer
// CSR-NOT:      spperm.convert
// SEARCH-LABEL: func.func @layer
// SEARCH:       spperm.permute
// SEARCH:       spperm.convert {{.*}} -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = {{[0-9]+}}, residual = csr, delta = {{.*}}, perm = #spperm.perm<bsa>>>
func.func @layer(%b: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %a = spperm.load "../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x8xf32> -> tensor<64x8xf32>
  return %c : tensor<64x8xf32>
}

// -----

// A permuted matrix keeps its permutation through the conversion.

// HBP-LABEL: func.func @permuted
// HBP:          spperm.convert {{.*}} -> !spperm.matrix<64x64xf32, #spperm.hbp<rows = 64, cols = 32, perm = #spperm.perm<lpt>>>
func.func @permuted(%b: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %a = spperm.load "../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %p = spperm.permute %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<lpt>>>
  %c = spperm.spmm %p, %b : !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<lpt>>>, tensor<64x8xf32> -> tensor<64x8xf32>
  return %c : tensor<64x8xf32>
}
