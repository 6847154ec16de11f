// RUN: spperm-opt %s -split-input-file -spperm-extract-features -verify-diagnostics

// Files that cannot be read, or that do not match the type, are errors on
// the op that names them.

func.func @missing_file() {
  // expected-error-re@+1 {{'spperm.load' op {{.*}}nope.mtx: cannot open: No such file or directory}}
  %a = spperm.load "nope.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  return
}

// -----

func.func @wrong_shape() {
  // expected-error-re@+1 {{'spperm.load' op file {{.*}}small.mtx holds a 4x5 matrix, but the result type is 5x4}}
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<5x4xf32, #spperm.csr>
  return
}

// -----

func.func @malformed_file() {
  // expected-error-re@+1 {{'spperm.load' op {{.*}}spperm-extract-features-invalid.mlir: not a matrix file spperm recognizes (spperm reads Matrix Market (.mtx), DLMC (.smtx){{.*}}}}
  %a = spperm.load "spperm-extract-features-invalid.mlir" : !spperm.matrix<4x5xf32, #spperm.csr>
  return
}
