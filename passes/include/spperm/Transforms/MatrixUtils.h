//===- MatrixUtils.h - From spperm IR to sparse-core objects ----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The bridge between the IR, which names matrices and their storage, and the
// sparse core, which holds the data: find the spperm.load a matrix value
// comes from, read its file, and turn #spperm.perm / format attributes into
// the core's options.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TRANSFORMS_MATRIXUTILS_H
#define SPPERM_TRANSFORMS_MATRIXUTILS_H

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"
#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Formats.h"
#include "spperm/Sparse/Formats.h"
#include "spperm/Sparse/Permutation.h"

#include "llvm/ADT/StringMap.h"

#include <memory>

namespace mlir {
namespace spperm {

/// The spperm.load a matrix value is computed from (through spperm.permute
/// and spperm.convert), or null when it is a block argument or comes from
/// another op.
LoadOp getSourceLoad(Value matrix);

/// The core's permutation options for `perm` (null: identity).
::spperm::PermutationOptions getPermutationOptions(PermAttr perm);

/// The core's format options for a format attribute.
::spperm::FormatOptions getFormatOptions(FormatAttrInterface format);

/// Reads the matrices of spperm.load ops, once per (file, values).
class MatrixCache {
public:
  explicit MatrixCache(std::string baseDir) : baseDir(std::move(baseDir)) {}

  /// The matrix of `op`, or null after emitting an error on `op` (unreadable
  /// file, or a shape different from the result type).
  const ::spperm::CsrMatrix *get(LoadOp op);

  /// Adds a matrix the caller has already read from `path` (as a LoadOp
  /// resolves it) with `values`, so that get() does not read it again.
  void insert(const std::string &path, llvm::StringRef values,
              ::spperm::CsrMatrix matrix);

private:
  std::string baseDir;
  llvm::StringMap<std::unique_ptr<::spperm::CsrMatrix>> matrices;
};

/// Wall time spent by buildFormattedMatrix, per stage.
struct FormatTimes {
  double permutation = 0.0;
  double format = 0.0;
};

/// The matrix that `spmm` multiplies, read through `cache`, permuted and
/// stored exactly as its type says; failure after emitting an error on the
/// op (unreadable matrix, invalid parameters, a Blocked-ELL width larger
/// than the type records).
FailureOr<::spperm::FormattedMatrix>
buildFormattedMatrix(SpMMOp spmm, MatrixCache &cache,
                     FormatTimes *times = nullptr);

} // namespace spperm
} // namespace mlir

#endif // SPPERM_TRANSFORMS_MATRIXUTILS_H
