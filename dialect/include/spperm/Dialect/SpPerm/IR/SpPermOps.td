//===- SpPermOps.td - spperm operations --------------------*- tablegen -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_DIALECT_SPPERM_IR_SPPERMOPS_TD
#define SPPERM_DIALECT_SPPERM_IR_SPPERMOPS_TD

include "spperm/Dialect/SpPerm/IR/SpPermTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinTypes.td"

def SpPerm_Matrix : Type<CPred<"::llvm::isa<::mlir::spperm::MatrixType>($_self)">,
                         "spperm matrix", "::mlir::spperm::MatrixType">;

// B and C of spperm.spmm: 2-D tensors of fp32 or of a 16-bit float (the
// products always accumulate in fp32).
def SpPerm_DenseMatrix : 2DTensorOf<[F32, F16, BF16]>;

class SpPerm_Op<string mnemonic, list<Trait> traits = []>
    : Op<SpPerm_Dialect, mnemonic, traits>;

def SpPerm_LoadOp : SpPerm_Op<"load", [Pure]> {
  let summary = "The fixed sparse matrix stored in a file";
  let description = [{
    Names the file that holds the matrix (Matrix Market `.mtx`, DLMC
    `.smtx`, optionally gzip-compressed, or a `scipy.sparse.save_npz`
    `.npz`; docs/MatrixFiles.md) and where its values come from:
    `values` is `"file"` (the default: the file's values, 1.0 for pattern
    files), `"ones"` or `"random:SEED"` (see the `--values` contract in
    docs/). The result is the matrix in file order, in CSR; permute and
    convert it with `spperm.permute` and `spperm.convert`. A relative path
    is resolved against the directory of the IR file being compiled.

    `rows`, when present, is `[begin, end)`: the result is those rows of
    the file's matrix, `end - begin` rows of it (written in a module, or a
    shard made by `spperm-shard-rows`). A package records a range written
    in the module with the layer's source (docs/Package.md).

    `features`, when present, holds statistics computed by
    `spperm-extract-features`; they must agree with the result type.
    `choice`, when present, is the variant `spperm-select` chose for the
    matrix.

    ```mlir
    %A = spperm.load "weights/fc1.smtx" {values = "random:7"}
        : !spperm.matrix<512x2048xf32, #spperm.csr>
    %S = spperm.load "graph.mtx" {rows = array<i64: 0, 4096>}
        : !spperm.matrix<4096x16384xf32, #spperm.csr>
    ```
  }];
  let arguments = (ins StrAttr:$path,
                       OptionalAttr<StrAttr>:$values,
                       OptionalAttr<DenseI64ArrayAttr>:$rows,
                       OptionalAttr<SpPerm_FeaturesAttr>:$features,
                       OptionalAttr<SpPerm_ChoiceAttr>:$choice);
  let results = (outs SpPerm_Matrix:$result);
  let assemblyFormat = "$path attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The file to read: `path` itself when absolute; else joined to
    /// `baseDir` when that is non-empty; else to the directory of the file
    /// named by the op's location (when it names an existing directory);
    /// else relative to the working directory.
    std::string resolvePath(::llvm::StringRef baseDir);
  }];
}

def SpPerm_SpMMOp : SpPerm_Op<"spmm", [Pure]> {
  let summary = "Sparse-times-dense matrix multiplication C = A · B";
  let description = [{
    Multiplies the fixed sparse matrix `A` (M × N) by the dense row-major
    tensor `B` (N × K) and returns `C` (M × K) in the *original* row order of
    `A`, whatever permutation its format carries. K may be dynamic (the
    package then serves any K); a static K is in [1, 2^31 - 1]. K = 1 is
    sparse matrix–vector multiplication. `B`'s rows and `C`'s rows may be
    written `?`: they are the matrix's N and M whatever the tensor type
    says, and a static size must equal them.

    `B` and `C` have one element type: `f32`, `f16` or `bf16`. `A`'s
    values are of that type or `f32` (fp32 weights with half activations);
    the products accumulate in fp32 and round once, into `C`.

    ```mlir
    %C = spperm.spmm %A, %B : !spperm.matrix<4x6xf32, #spperm.csr>,
                              tensor<6x?xf32> -> tensor<4x?xf32>
    %H = spperm.spmm %W, %X : !spperm.matrix<4x6xbf16, #spperm.csr>,
                              tensor<6x64xbf16> -> tensor<4x64xbf16>
    ```
  }];
  let arguments = (ins SpPerm_Matrix:$matrix, SpPerm_DenseMatrix:$dense);
  let results = (outs SpPerm_DenseMatrix:$result);
  let assemblyFormat = [{
    $matrix `,` $dense attr-dict `:` qualified(type($matrix)) `,`
    type($dense) `->` type($result)
  }];
  let hasVerifier = 1;
}

def SpPerm_PermuteOp : SpPerm_Op<"permute", [Pure]> {
  let summary = "Reorder the rows of a matrix";
  let description = [{
    Stores the rows of an unpermuted matrix in the order chosen by the
    strategy of the result type's `perm`. Only the permutation may differ
    between the source and result formats.

    ```mlir
    %P = spperm.permute %A : !spperm.matrix<4x4xf32, #spperm.csr>
        -> !spperm.matrix<4x4xf32, #spperm.csr<perm = #spperm.perm<lpt>>>
    ```
  }];
  let arguments = (ins SpPerm_Matrix:$source);
  let results = (outs SpPerm_Matrix:$result);
  let assemblyFormat = [{
    $source attr-dict `:` qualified(type($source)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def SpPerm_ConvertOp : SpPerm_Op<"convert", [Pure]> {
  let summary = "Change the storage format of a matrix";
  let description = [{
    Converts a matrix to another storage format, keeping its row order: the
    source and result formats carry the same permutation (or none). A
    conversion to the same type folds away.

    ```mlir
    %B = spperm.convert %A : !spperm.matrix<64x64xf32, #spperm.csr>
        -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 2, residual = csr>>
    ```
  }];
  let arguments = (ins SpPerm_Matrix:$source);
  let results = (outs SpPerm_Matrix:$result);
  let assemblyFormat = [{
    $source attr-dict `:` qualified(type($source)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // SPPERM_DIALECT_SPPERM_IR_SPPERMOPS_TD
