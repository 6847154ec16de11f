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
  }];

  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes (SpPermAttrs.cpp) and types (SpPermTypes.cpp),
    /// each in the file that holds their storage classes.
    void registerAttributes();
    void registerTypes();
  }];
}

#endif // SPPERM_DIALECT_SPPERM_IR_SPPERMBASE_TD
