//===- Bsa.h - BSA reordering helpers (internal) ----------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The pieces of BSA's block-sparsity-aware row clustering (Bsa.cpp) that the
// unit tests check on their own: the column-block encodings of the rows,
// their dispersions and the normalized weighted Jaccard similarity. The
// clustering itself is detail::bsaOrder() in Strategies.h.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_LIB_SPARSE_BSA_H
#define SPPERM_LIB_SPARSE_BSA_H

#include "spperm/Sparse/CsrMatrix.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace spperm {
namespace detail {

/// One entry of a sparse encoding.
struct BlockCount {
  int32_t block;
  int32_t count;
};

/// The BSA encoding E_r of every row, stored sparsely in CSR form: for each
/// column block of width tau that holds entries of row r, the block index
/// (increasing) and the number of r's entries in it.
struct BlockEncodings {
  int32_t rows = 0;
  int32_t tau = 1;
  /// Number of column blocks: ceil(cols / tau).
  int32_t numBlocks = 0;
  std::vector<int64_t> ptr{0};
  std::vector<BlockCount> entries;

  /// nnzb: the number of nonzero blocks of `row`.
  int32_t nnzb(int32_t row) const {
    return static_cast<int32_t>(ptr[row + 1] - ptr[row]);
  }
};

/// Builds the encodings in one pass over the matrix (column indices are
/// sorted within a row, so the blocks come out sorted).
BlockEncodings buildBlockEncodings(const CsrMatrix &m, int32_t tau);

/// BSA's dispersion tau * nnzb + zf with the zero fill zf = tau * nnzb - nnz:
/// 0 exactly for an empty row, at least tau otherwise.
inline int64_t bsaDispersion(int32_t tau, int64_t nnzb, int64_t nnz) {
  return 2 * static_cast<int64_t>(tau) * nnzb - nnz;
}

/// A dense unnormalized encoding (the cluster representative) with the
/// sums J needs: nnzb = its nonzero entries, l1 = sum, sumSq = squared L2.
/// `blocks`, when set, lists the nnzb nonzero blocks (in any fixed order).
struct DenseEncodingView {
  const int64_t *counts = nullptr;
  const int32_t *blocks = nullptr;
  int64_t nnzb = 0;
  int64_t l1 = 0;
  int64_t sumSq = 0;
};

/// A sparse unnormalized encoding (a candidate row): `size` entries with
/// blocks increasing, and its sums.
struct SparseEncodingView {
  const BlockCount *entries = nullptr;
  int64_t size = 0;
  int64_t l1 = 0;
  int64_t sumSq = 0;
};

/// The normalized weighted Jaccard similarity
///   J = sum_i min(Ê_rep_i, Ê_cmp_i) / sum_i max(Ê_rep_i, Ê_cmp_i),
/// Ê = E / ||E||_2, computed in double as
///   S / (||E_rep||_1 / ||E_rep||_2 + ||E_cmp||_1 / ||E_cmp||_2 - S),
/// S = the sum of the minima over the shared blocks (min is 0 elsewhere).
/// S is summed over cmp's blocks in increasing order, or, when rep lists
/// its blocks and has far fewer than cmp, over rep's blocks in rep's order
/// (each looked up in cmp by binary search): O(min(|rep|, |cmp|) log).
/// Proportional encodings are recognized exactly in integer arithmetic and
/// get J = 1.0; every other pair gets J < 1.0, so alpha = 1 means
/// "proportional". Both encodings must be nonzero.
double weightedJaccard(const DenseEncodingView &rep,
                       const SparseEncodingView &cmp);

/// ||E||_1 / ||E||_2 of a nonzero encoding (between 1 and sqrt(nnzb)).
inline double bsaShape(int64_t l1, int64_t sumSq) {
  return static_cast<double>(l1) / std::sqrt(static_cast<double>(sumSq));
}

/// An O(1) upper bound of J from the shapes a = bsaShape(rep) and
/// b = bsaShape(cmp): S <= min(a, b) and the denominator is a + b - S >=
/// max(a, b), so J <= min(a, b) / max(a, b).
inline double bsaJaccardUpperBound(double a, double b) {
  return a < b ? a / b : b / a;
}

/// The same J for two dense nonnegative encodings of equal length (a
/// convenience for tests and tools); 0 when either is all zeros.
double weightedJaccard(const std::vector<int64_t> &rep,
                       const std::vector<int64_t> &cmp);

/// Rounding slack of the threshold test: J values within this of alpha
/// count as equal to it.
constexpr double kBsaJaccardSlack = 1e-12;

/// Whether similarity `j` passes threshold `alpha`: J >= alpha, where a J
/// within kBsaJaccardSlack below alpha passes too (a J equal to alpha in
/// exact arithmetic, e.g. 0.1 for 0/1 encodings, must not depend on how its
/// sums round). J = 1 is exact, so alpha = 1 needs no slack and accepts
/// exactly the proportional encodings.
inline bool bsaAccepts(double j, double alpha) {
  return alpha >= 1.0 ? j >= 1.0 : j >= alpha - kBsaJaccardSlack;
}

/// bsaAccepts(weightedJaccard(rep, cmp), alpha), but reading cmp only
/// until the entries left cannot lift J to alpha any more.
bool bsaSimilar(const DenseEncodingView &rep, const SparseEncodingView &cmp,
                double alpha);

/// Whether a pair whose J is at most `bound` (bsaJaccardUpperBound) may
/// pass `alpha`. False only when bsaAccepts would reject the computed J
/// whatever its rounding (1e-9 of margin), so filtering with it never
/// changes a decision.
inline bool bsaMayAccept(double bound, double alpha) {
  double least = alpha >= 1.0 ? 1.0 : alpha - kBsaJaccardSlack;
  return bound >= least - 1e-9;
}

} // namespace detail
} // namespace spperm

#endif // SPPERM_LIB_SPARSE_BSA_H
