//===- SpPermBase.td - spperm dialect definition -----------*- tablegen -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_DIALECT_SPPERM_IR_SPPERMBASE_TD
#define SPPERM_DIALECT_SPPERM_IR_SPPERMBASE_TD

include "mlir/IR/OpBase.td"

def SpPerm_Dialect : Dialect {
  let name = "spperm";
  let cppNamespace = "::mlir::spperm";
  let summary = "Sparse-times-dense multiplication with a fixed sparse matrix";
  let description = [{
    The `spperm` dialect describes `C = A · B` where `A` is a sparse matrix
    known at compile time (pruned model weights, a graph adjacency, a
    scientific operator) and `B` is a dense row-major matrix that changes at
    run time. Because `A` is fixed, the compiler can study it once — static
    features such as row-length statistics, cache-line bitmask density and
    the Hamming distance between neighbouring rows — and pick a row
    permutation and a storage format for it, then generate kernels
    specialized for exactly that matrix.

    Design points:

    * **The matrix is a value of type `!spperm.matrix`.** Its shape, element
      type and *storage* are part of the type:
      `!spperm.matrix<2003x2003xf32, #spperm.csr>`. A storage is a format
      attribute (`#spperm.csr`, `#spperm.bell<...>`, `#spperm.hbp<...>`).
    * **A row permutation belongs to the format**, the way
      `#sparse_tensor.encoding`'s `dimToLvl` map belongs to a sparse tensor
      type: `#spperm.csr<perm = #spperm.perm<lpt, warps = 32>>` is a CSR whose
      rows are stored in the order the `lpt` strategy chose. A permuted or
      converted matrix therefore has a different type, and every op that
      changes the storage (`spperm.permute`, `spperm.convert`) says so in its
      result type. The permutation attribute names the strategy and its
      parameters; the permutation itself is recomputed deterministically from
      the matrix, so no per-row data ever appears in IR text.
    * **Large constants stay out of the IR.** `spperm.load` refers to a matrix
      file; the compiler reads it when a pass needs the data, and the package
      that `spperm-compile` writes carries the arrays in `data.bin`.
    * **Results are in the original row order.** `spperm.spmm` computes
      `A · B` for the matrix as loaded; undoing a permutation is the
      lowering's job, not the user's.
    * **What names a matrix is checked.** A function argument that
      `spperm-raise-linalg` raises names its matrix file with
      `spperm.source` (a string) and, optionally, its values with
      `spperm.values` (`"file"`, `"ones"` or `"random:SEED"`, beside a
      `spperm.source`); no other `spperm.*` argument or result attribute
      exists.
    * **What the passes record is checked.** They leave their results as
      discardable attributes: on a layer's function `spperm.alternative_of`
      (`@layer`), `spperm.precision` (`"fp32"`, `"tf32"`, `"f16"` or
      `"3xtf32"`), `spperm.shard` (`array<i64: index, count, begin, end,
      rows>`, count at least 2) with `spperm.shard_of` (the layer's name);
      on a lowered
      `spperm.spmm` `spperm.kernels` and `spperm.in_place_b` (arrays of
      `#spperm.launch`) and `spperm.transpose_b` (one `#spperm.launch`). The
      dialect verifies each where it appears and refuses any other
      `spperm.*` attribute, so a misspelt or hand-edited one fails at parse
      time rather than in a later pass.
  }];

  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  // The discardable `spperm.*` attributes the passes put on functions and
  // multiplications (SpPerm.h) are checked wherever they appear.
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes (SpPermAttrs.cpp) and types (SpPermTypes.cpp),
    /// each in the file that holds their storage classes.
    void registerAttributes();
    void registerTypes();
  }];
}

#endif // SPPERM_DIALECT_SPPERM_IR_SPPERMBASE_TD
