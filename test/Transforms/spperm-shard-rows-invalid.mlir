// RUN: spperm-opt %s -split-input-file -spperm-shard-rows=shards=5 -verify-diagnostics

// More shards than rows.
func.func @tiny(%b: tensor<5x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{cannot be cut into shards: shards must be an integer in [1, 4] (at least one row per shard; the matrix has 4 rows), got 5}}
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x8xf32> -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// Two multiplications: not a layer.
// expected-error@+1 {{'func.func' op cannot be cut into shards: it holds 2 spperm.spmm ops; a layer is one multiplication}}
func.func @two(%b: tensor<5x8xf32>) -> tensor<4x8xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x8xf32> -> tensor<4x8xf32>
  %d = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x8xf32> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// The matrix is permuted before the multiplication.
// expected-error@+1 {{cannot be cut into shards: its matrix does not come straight from spperm.load (shard before spperm-permute-rows and spperm-convert-format)}}
func.func @permuted(%b: tensor<5x8xf32>) -> tensor<4x8xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %p = spperm.permute %a : !spperm.matrix<4x5xf32, #spperm.csr> -> !spperm.matrix<4x5xf32, #spperm.csr<perm = #spperm.perm<lpt>>>
  %c = spperm.spmm %p, %b : !spperm.matrix<4x5xf32, #spperm.csr<perm = #spperm.perm<lpt>>>, tensor<5x8xf32> -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// The product feeds another op.
// expected-error@+1 {{cannot be cut into shards: the product is used by 'tensor.cast'; a sharded layer returns it}}
func.func @used(%b: tensor<5x8xf32>) -> tensor<?x8xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x8xf32> -> tensor<4x8xf32>
  %d = tensor.cast %c : tensor<4x8xf32> to tensor<?x8xf32>
  return %d : tensor<?x8xf32>
}

// -----

// The name of a shard is taken.
// expected-error@+1 {{'func.func' op cannot take its shard 0: the name @fc__shard0 is taken}}
func.func @fc(%b: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %a = spperm.load "../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x8xf32> -> tensor<64x8xf32>
  return %c : tensor<64x8xf32>
}
func.func private @fc__shard0()

// -----

// The selector's choice (or the features) describe the whole matrix: a
// shard's load kept them and failed the verifier.
func.func @chosen(%b: tensor<64x8xf32>) -> tensor<64x8xf32> {
  // expected-error@+1 {{'spperm.load' op already has the whole matrix's features or choice; shard before spperm-extract-features and spperm-select}}
  %a = spperm.load "../Inputs/blocks64.mtx" {choice = #spperm.choice<strategy = "lpt", format = "csr", source = "s">} : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x8xf32> -> tensor<64x8xf32>
  return %c : tensor<64x8xf32>
}


// -----

// The multiplication in a branch: not a layer, never left whole silently.
// expected-error@+1 {{'func.func' op cannot be cut into shards: its spperm.spmm is inside 'scf.if': a layer is a function whose body multiplies once, not inside a loop or a branch}}
func.func @branch(%p: i1, %b: tensor<5x8xf32>) -> tensor<4x8xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %r = scf.if %p -> tensor<4x8xf32> {
    %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x8xf32> -> tensor<4x8xf32>
    scf.yield %c : tensor<4x8xf32>
  } else {
    %e = tensor.empty() : tensor<4x8xf32>
    scf.yield %e : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// A layer of a nested module (the file's module holds @inner).
module {
  module @inner {
    // expected-error@+1 {{'func.func' op cannot be cut into shards: its spperm.spmm is in a function of a nested module: layers are the top-level module's functions}}
    func.func @g(%b: tensor<5x8xf32>) -> tensor<4x8xf32> {
      %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
      %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x8xf32> -> tensor<4x8xf32>
      return %c : tensor<4x8xf32>
    }
  }
}

// -----

// A layer the module calls: its shards would leave the call dangling.
// expected-error@+1 {{'func.func' op cannot be cut into shards: 'func.call' uses it, and its shards replace it (a layer is run by the runtime, not called in the module)}}
func.func @called(%b: tensor<5x8xf32>) -> tensor<4x8xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x8xf32> -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
func.func @caller(%b: tensor<5x8xf32>) -> tensor<4x8xf32> {
  %c = func.call @called(%b) : (tensor<5x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
