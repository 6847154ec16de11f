// Invalid pass options are reported once, with the rule that failed.

// RUN: not spperm-opt %s -spperm-permute-rows="strategy=random" 2>&1 | FileCheck %s --check-prefix=STRATEGY
// STRATEGY: for the --strategy option: unknown value 'random' (one of: keep, auto, identity, plain, flipped, lpt, warp-aware, cta-aware, hybrid-1, hybrid-2.1, hybrid-2.2, hybrid-2.3, bsa)
// STRATEGY-NOT: did you mean

// The IR's spelling of a strategy (#spperm.perm<warp_aware>) is not the
// option's: the nearest value is named.
// RUN: not spperm-opt %s -spperm-permute-rows="strategy=warp_aware" 2>&1 | FileCheck %s --check-prefix=NEAR
// NEAR: for the --strategy option: unknown value 'warp_aware' (one of: {{.*}}); did you mean 'warp-aware'?
// RUN: not spperm-opt %s -spperm-pipeline="strategy=hybrid1" 2>&1 | FileCheck %s --check-prefix=NEAR-PIPELINE
// NEAR-PIPELINE: for the --strategy option: unknown value 'hybrid1' (one of: {{.*}}); did you mean 'hybrid-1'?
// A value that differs only in case, and one that begins several values.
// RUN: not spperm-opt %s -spperm-permute-rows="strategy=LPT" 2>&1 | FileCheck %s --check-prefix=CASE
// CASE: for the --strategy option: unknown value 'LPT' (one of: {{.*}}); did you mean 'lpt'?
// RUN: not spperm-opt %s -spperm-pipeline="strategy=hybrid-2" 2>&1 | FileCheck %s --check-prefix=PREFIX
// PREFIX: for the --strategy option: unknown value 'hybrid-2' (one of: {{.*}}); did you mean one of 'hybrid-2.1', 'hybrid-2.2', 'hybrid-2.3'?

// RUN: not spperm-opt %s -spperm-permute-rows="strategy=lpt warps=0" 2>&1 | FileCheck %s --check-prefix=WARPS
// WARPS: error: spperm-permute-rows: warps must be in [1, 1024], got 0

// RUN: not spperm-opt %s -spperm-permute-rows="strategy=lpt line=48" 2>&1 | FileCheck %s --check-prefix=LINE
// LINE: error: spperm-permute-rows: line must be a power of two in [1, 1024], got 48

// RUN: not spperm-opt %s -spperm-permute-rows="strategy=lpt alpha=0.5" 2>&1 | FileCheck %s --check-prefix=ALPHA
// ALPHA: error: spperm-permute-rows: 'alpha' only applies to the bsa strategy

// RUN: not spperm-opt %s -spperm-permute-rows="strategy=bsa alpha=2.0" 2>&1 | FileCheck %s --check-prefix=ALPHARANGE
// ALPHARANGE: error: spperm-permute-rows: alpha must be in (0, 1], got 2

// RUN: not spperm-opt %s -spperm-permute-rows="strategy=bsa tau=-1" 2>&1 | FileCheck %s --check-prefix=TAU
// TAU: error: spperm-permute-rows: tau must be in [1, 1024], got -1

// RUN: not spperm-opt %s -spperm-permute-rows="strategy=lpt warps=many" 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: for the --warps option: 'many' value invalid for long argument!

func.func @f(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "a.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
