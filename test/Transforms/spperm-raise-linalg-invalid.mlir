// RUN: spperm-opt %s -split-input-file -spperm-raise-linalg -verify-diagnostics

// The argument attributes that name a sparse operand's matrix are checked
// where they are written.

#CSR = #sparse_tensor.encoding<{map = (i, j) -> (i : dense, j : compressed)}>
// expected-error@+1 {{'func.func' op argument 0: spperm.values: invalid --values 'bogus': expected file, ones or random:SEED}}
func.func @bad_values(%w: tensor<8x8xf32, #CSR> {spperm.source = "w.mtx", spperm.values = "bogus"}, %x: tensor<8x4xf32>, %init: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %c = linalg.fill ins(%zero : f32) outs(%init : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul ins(%w, %x : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// expected-error@+1 {{'func.func' op argument 0: spperm.source must be a non-empty string (the matrix file)}}
func.func @source_not_string(%w: tensor<8x8xf32> {spperm.source = 3 : i64}) {
  return
}

// -----

// expected-error@+1 {{'func.func' op argument 1 has spperm.values but no spperm.source}}
func.func @values_alone(%x: tensor<8x4xf32>, %w: tensor<8x8xf32> {spperm.values = "ones"}) {
  return
}

// -----

// The matrix type takes its shape from the tensor's: a dynamic dimension
// became -9223372036854775808 rows.
#CSR = #sparse_tensor.encoding<{map = (i, j) -> (i : dense, j : compressed)}>
// expected-error@+1 {{'func.func' op argument 0: spperm.source names a matrix whose tensor type has a dynamic dimension; give its rows and columns (tensor<RxCxf32, ...>)}}
func.func @dynamic_rows(%w: tensor<?x8xf32, #CSR> {spperm.source = "w.mtx"}) {
  return
}

// -----

// A matrix has at most 2^31 - 1 rows and columns: the type spperm.source
// would make is refused where the attribute is written.
#CSR = #sparse_tensor.encoding<{map = (i, j) -> (i : dense, j : compressed)}>
// expected-error@+1 {{'func.func' op argument 0: spperm.source names a matrix of 3000000000 x 64; a matrix has at most 2^31 - 1 rows and columns}}
func.func @too_many_rows(%w: tensor<3000000000x64xf32, #CSR> {spperm.source = "w.mtx"}) {
  return
}

// -----

// Not a matrix at all.
// expected-error@+1 {{'func.func' op argument 0: spperm.source names a matrix, but the argument is a tensor of rank 3}}
func.func private @rank3(%w: tensor<2x3x4294967296xf32> {spperm.source = "w.mtx"})
