//===- Generators.h - Synthetic sparse matrices -----------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Deterministic generators for the matrix shapes the benchmark protocol asks
// for where the real set has none (R-MAT/Kronecker graphs, banded operators,
// uniform random, block-sparse) and for property tests. The same seed gives
// the same matrix on every machine (std::mt19937_64 and integer arithmetic
// only; values from randomValue()).
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_GENERATORS_H
#define SPPERM_SPARSE_GENERATORS_H

#include "spperm/Sparse/CsrMatrix.h"

#include <cstdint>
#include <vector>

namespace spperm {

/// Uniform random: every entry present independently with `density`
/// (drawn per row as a binomial count, columns sampled without repetition).
CsrMatrix generateUniform(int32_t rows, int32_t cols, double density,
                          uint64_t seed);

/// R-MAT (recursive matrix) with the Graph500 parameters a = 0.57,
/// b = c = 0.19, d = 0.05: 2^scale rows and columns, `edgeFactor` * 2^scale
/// edges before duplicates merge; power-law row lengths.
CsrMatrix generateRmat(int scale, int edgeFactor, uint64_t seed);

/// Banded: entry (i, j) for |i - j| <= halfWidth (a 1-D stencil operator).
CsrMatrix generateBanded(int32_t n, int32_t halfWidth, uint64_t seed);

/// Block-sparse: `block` x `block` tiles, each dense tile present with
/// probability `blockDensity`.
CsrMatrix generateBlockSparse(int32_t rows, int32_t cols, int32_t block,
                              double blockDensity, uint64_t seed);

/// Row lengths drawn from a wide distribution (mostly short rows, a few very
/// long ones, some empty): the adversarial shape for load balancing.
CsrMatrix generateSkewed(int32_t rows, int32_t cols, uint64_t seed);

/// Returns `m` with its rows shuffled by a seeded random permutation.
CsrMatrix shuffleRows(const CsrMatrix &m, uint64_t seed);

/// Returns the rows of `m` in the order `order` (position -> original row).
CsrMatrix permuteRows(const CsrMatrix &m, const std::vector<int32_t> &order);

} // namespace spperm

#endif // SPPERM_SPARSE_GENERATORS_H
