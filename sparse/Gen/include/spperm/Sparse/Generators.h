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

/// Stencil operator on a `dims`-dimensional grid (2 or 3) of `side` points
/// per dimension, in lexicographic order (side^dims rows and columns):
/// entry (i, j) where j is a stencil neighbour of i — the 2-D 5-point or
/// 9-point stencil, the 3-D 7-point or 27-point one. Several bands far
/// apart (offsets 1, side, side^2): the structure of scientific operators
/// that a single band does not have.
CsrMatrix generateStencil(int32_t side, int dims, int points, uint64_t seed);

/// Stochastic block model: `rows` x `cols` cut into `communities` equal
/// row and column ranges; each row gets about `inDegree` entries uniform in
/// its own community's columns and `outDegree` uniform over all columns
/// (Poisson-like counts, distinct columns). Clustered rows of moderate
/// similarity: what similarity clustering (bsa) recovers once shuffled.
CsrMatrix generateCommunities(int32_t rows, int32_t cols, int32_t communities,
                              double inDegree, double outDegree,
                              uint64_t seed);

/// Returns `m` with its rows shuffled by a seeded random permutation.
CsrMatrix shuffleRows(const CsrMatrix &m, uint64_t seed);

/// (permuteRows, which shuffleRows applies, is in CsrMatrix.h.)

} // namespace spperm

#endif // SPPERM_SPARSE_GENERATORS_H
