//===- MatrixUtils.h - From spperm IR to sparse-core objects ----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The bridge between the IR, which names matrices and their storage, and the
// sparse core, which holds the data: find the spperm.load a matrix value
// comes from, turn #spperm.perm / format attributes into the core's options,
// and MatrixCache, the analysis through which every pass of one pipeline run
// reads, permutes and stores the matrices (each once).
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TRANSFORMS_MATRIXUTILS_H
#define SPPERM_TRANSFORMS_MATRIXUTILS_H

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"
#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Formats.h"
#include "spperm/Sparse/Permutation.h"

#include "mlir/Pass/AnalysisManager.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <optional>

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

/// Wall time the cache spent, per stage (spperm-compile's --timing).
struct MatrixCacheTimes {
  double read = 0.0;
  double permutation = 0.0;
  double format = 0.0;
};

/// The matrices of one compilation: each (file, values) read once, each
/// permutation computed once and each matrix in a storage format built once,
/// whichever pass asks first. It is an analysis of the top-level module that
/// is never invalidated (what it holds depends on the files and the
/// attributes, not on the IR around them), so every pass of one pass-manager
/// run shares it: `getAnalysis<MatrixCache>()`.
class MatrixCache {
public:
  explicit MatrixCache(Operation *) {}

  /// The cache stays valid whatever a pass changes.
  bool isInvalidated(const AnalysisManager::PreservedAnalyses &) {
    return false;
  }

  /// The matrix of `op`, its relative path resolved against `baseDir` (see
  /// LoadOp::resolvePath), or null after emitting an error on `op`
  /// (unreadable file, or a shape different from the result type). A load
  /// of f16 or bf16 values gets the file's values rounded to that type (to
  /// nearest even), held as f32.
  const ::spperm::CsrMatrix *get(LoadOp op, StringRef baseDir);

  /// Adds a matrix the caller has already read from `path` (as a LoadOp
  /// resolves it) with `values`, so that get() does not read it again.
  void insert(const std::string &path, StringRef values,
              ::spperm::CsrMatrix matrix);

  /// The row order of `op`'s matrix under `perm` (null: identity), or null
  /// after emitting an error on `op`.
  const ::spperm::Permutation *getPermutation(LoadOp op, PermAttr perm,
                                              StringRef baseDir);

  /// `load`'s matrix permuted by `perm` (null: identity) and stored with
  /// `options`, built now (read and permutation from the cache; its time
  /// counts as the cache's format time); failure after emitting an error on
  /// `op`.
  FailureOr<::spperm::FormattedMatrix>
  buildFormatted(LoadOp load, PermAttr perm,
                 const ::spperm::FormatOptions &options, StringRef baseDir,
                 Operation *op);

  /// The matrix `spmm` multiplies, permuted and stored exactly as its type
  /// says; null after emitting an error on the op (no spperm.load, an
  /// unreadable matrix, invalid parameters, a Blocked-ELL width larger than
  /// the type records).
  const ::spperm::FormattedMatrix *getFormatted(SpMMOp spmm,
                                                StringRef baseDir);

  /// Records `formatted` as `load`'s matrix in `type`: what
  /// spperm-convert-format built to learn a Blocked-ELL width, kept for the
  /// passes after it.
  void insertFormatted(LoadOp load, MatrixType type, StringRef baseDir,
                       ::spperm::FormattedMatrix formatted);

  /// Moves the matrix getFormatted(spmm) built out of the cache (building
  /// it if needed): for the package writer, the last user.
  std::optional<::spperm::FormattedMatrix> takeFormatted(SpMMOp spmm,
                                                         StringRef baseDir);

  /// Where the time went so far.
  const MatrixCacheTimes &getTimes() const { return times; }

private:
  std::string matrixKey(LoadOp op, StringRef baseDir) const;
  std::string formattedKey(LoadOp load, MatrixType type,
                           StringRef baseDir) const;

  llvm::StringMap<std::unique_ptr<::spperm::CsrMatrix>> matrices;
  llvm::StringMap<std::unique_ptr<::spperm::Permutation>> permutations;
  llvm::StringMap<std::unique_ptr<::spperm::FormattedMatrix>> formatted;
  MatrixCacheTimes times;
};

} // namespace spperm
} // namespace mlir

#endif // SPPERM_TRANSFORMS_MATRIXUTILS_H
