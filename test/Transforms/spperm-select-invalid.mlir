// RUN: spperm-opt %s -split-input-file -spperm-select -verify-diagnostics

// Without features there is nothing to choose from.
func.func @no_features(%b: tensor<5x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'spperm.load' op has no features to choose its variant from (run spperm-extract-features first)}}
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x8xf32> -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// Bad options and models are reported once, in one line.

// RUN: not spperm-opt %s -spperm-select="format=coo" 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: for the --format option: unknown value 'coo' (one of: keep, auto, csr, bell, hbp, cusparse)

// RUN: not spperm-opt %s -spperm-select="strategy=random" 2>&1 | FileCheck %s --check-prefix=STRATEGY
// STRATEGY: for the --strategy option: unknown value 'random' (one of: keep, auto, identity, plain, flipped, lpt, warp-aware, cta-aware, hybrid-1, hybrid-2.1, hybrid-2.2, hybrid-2.3, bsa)

// RUN: not spperm-opt %s -spperm-select="k=0" 2>&1 | FileCheck %s --check-prefix=K
// K: error: spperm-select: k must be an integer in [1, 2147483647], got 0
// RUN: not spperm-opt %s -spperm-select="k=2147483648" 2>&1 | FileCheck %s --check-prefix=KBIG
// KBIG: error: spperm-select: k must be an integer in [1, 2147483647], got 2147483648

// RUN: not spperm-opt %s -spperm-select="max-variants=65" 2>&1 | FileCheck %s --check-prefix=VARIANTS
// VARIANTS: error: spperm-select: max-variants must be an integer in [0, 64], got 65
// RUN: not spperm-opt %s -spperm-select="max-variants=-1" 2>&1 | FileCheck %s --check-prefix=VARIANTS-NEG
// VARIANTS-NEG: error: spperm-select: max-variants must be an integer in [0, 64], got -1

// RUN: not spperm-opt %s -spperm-select="target=banana" 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: spperm-select: target must be a GPU architecture such as sm_90, got 'banana'
// RUN: not spperm-opt %s -spperm-select="target=sm_" 2>&1 | FileCheck %s --check-prefix=TARGET2
// TARGET2: error: spperm-select: target must be a GPU architecture such as sm_90, got 'sm_'

// RUN: not spperm-opt %s -spperm-select="margin=nan" 2>&1 | FileCheck %s --check-prefix=MARGIN
// MARGIN: error: spperm-select: margin must be a number at most 64 (or negative: the model's own), got nan

// RUN: not spperm-opt %s -spperm-extract-features -spperm-select="model=%S/missing.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: 'spperm.load' op {{.*}}missing.json: cannot open the selector model

// RUN: not spperm-opt %s -spperm-extract-features -spperm-select="model=%s" 2>&1 | FileCheck %s --check-prefix=NOTJSON
// NOTJSON: error: 'spperm.load' op {{.*}}spperm-select-invalid.mlir: {{.*}}

// The materializing passes need the choice.

// RUN: not spperm-opt %s -spperm-permute-rows="strategy=auto" 2>&1 | FileCheck %s --check-prefix=PERMUTE
// PERMUTE: error: 'spperm.load' op has no choice for strategy=auto (run spperm-select first)

// RUN: not spperm-opt %s -spperm-convert-format="format=auto" 2>&1 | FileCheck %s --check-prefix=CONVERT
// CONVERT: error: 'spperm.spmm' op has no spperm-select choice for its matrix (format=auto needs spperm-select first)
