//===- Generators.cpp - Synthetic sparse matrices ---------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/MatrixIO.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>
#include <unordered_set>

using namespace spperm;

namespace {
/// Uniform integer in [0, n) from a 64-bit engine, without std's
/// implementation-defined distributions (same stream on every libstdc++).
uint64_t below(std::mt19937_64 &rng, uint64_t n) {
  assert(n > 0 && "empty range");
  // Lemire's multiply-shift; the tiny bias is irrelevant for test matrices.
  return static_cast<uint64_t>(
      (static_cast<unsigned __int128>(rng()) * n) >> 64);
}

/// Uniform double in [0, 1) from the top 53 bits.
double unit(std::mt19937_64 &rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

/// Builds a CSR from triplets with values from randomValue(seed, e).
CsrMatrix fromTriplets(CooTriplets &coo, uint64_t seed) {
  coo.value.resize(coo.row.size());
  for (size_t e = 0; e < coo.row.size(); ++e)
    coo.value[e] = randomValue(seed, e);
  return buildCsr(coo);
}
} // namespace

CsrMatrix spperm::generateUniform(int32_t rows, int32_t cols, double density,
                                  uint64_t seed) {
  std::mt19937_64 rng(seed);
  CooTriplets coo;
  coo.rows = rows;
  coo.cols = cols;
  if (cols > 0) {
    for (int32_t r = 0; r < rows; ++r) {
      // Binomial(cols, density) by summing Bernoulli trials is too slow for
      // wide rows; a normal approximation rounded and clamped is enough.
      double mean = density * cols;
      double sd = std::sqrt(std::max(mean * (1.0 - density), 0.0));
      double u1 = std::max(unit(rng), 1e-300), u2 = unit(rng);
      double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
      int64_t count = std::llround(mean + sd * z);
      count = std::clamp<int64_t>(count, 0, cols);
      // Distinct columns: Floyd's sampling.
      std::vector<int32_t> picked;
      picked.reserve(count);
      for (int64_t j = cols - count; j < cols; ++j) {
        int32_t t = static_cast<int32_t>(below(rng, j + 1));
        if (std::find(picked.begin(), picked.end(), t) != picked.end())
          t = static_cast<int32_t>(j);
        picked.push_back(t);
      }
      for (int32_t c : picked) {
        coo.row.push_back(r);
        coo.col.push_back(c);
      }
    }
  }
  return fromTriplets(coo, seed);
}

CsrMatrix spperm::generateRmat(int scale, int edgeFactor, uint64_t seed) {
  assert(scale >= 0 && scale < 31 && "R-MAT scale out of range");
  std::mt19937_64 rng(seed);
  int64_t n = int64_t(1) << scale;
  int64_t edges = n * edgeFactor;
  CooTriplets coo;
  coo.rows = n;
  coo.cols = n;
  coo.row.reserve(edges);
  coo.col.reserve(edges);
  // Graph500 parameters; thresholds in units of 2^-53.
  const double a = 0.57, b = 0.19, c = 0.19;
  for (int64_t e = 0; e < edges; ++e) {
    int64_t i = 0, j = 0;
    for (int bit = scale - 1; bit >= 0; --bit) {
      double u = unit(rng);
      if (u < a) {
      } else if (u < a + b) {
        j |= int64_t(1) << bit;
      } else if (u < a + b + c) {
        i |= int64_t(1) << bit;
      } else {
        i |= int64_t(1) << bit;
        j |= int64_t(1) << bit;
      }
    }
    coo.row.push_back(static_cast<int32_t>(i));
    coo.col.push_back(static_cast<int32_t>(j));
  }
  return fromTriplets(coo, seed);
}

CsrMatrix spperm::generateBanded(int32_t n, int32_t halfWidth, uint64_t seed) {
  CooTriplets coo;
  coo.rows = n;
  coo.cols = n;
  for (int32_t i = 0; i < n; ++i) {
    int32_t lo = std::max(0, i - halfWidth);
    int32_t hi = std::min(n - 1, i + halfWidth);
    for (int32_t j = lo; j <= hi; ++j) {
      coo.row.push_back(i);
      coo.col.push_back(j);
    }
  }
  return fromTriplets(coo, seed);
}

CsrMatrix spperm::generateBlockSparse(int32_t rows, int32_t cols, int32_t block,
                                      double blockDensity, uint64_t seed) {
  assert(block > 0 && "block size must be positive");
  std::mt19937_64 rng(seed);
  CooTriplets coo;
  coo.rows = rows;
  coo.cols = cols;
  int32_t blockRows = (rows + block - 1) / block;
  int32_t blockCols = (cols + block - 1) / block;
  for (int32_t bi = 0; bi < blockRows; ++bi) {
    for (int32_t bj = 0; bj < blockCols; ++bj) {
      if (unit(rng) >= blockDensity)
        continue;
      for (int32_t i = bi * block; i < std::min(rows, (bi + 1) * block); ++i)
        for (int32_t j = bj * block; j < std::min(cols, (bj + 1) * block); ++j) {
          coo.row.push_back(i);
          coo.col.push_back(j);
        }
    }
  }
  return fromTriplets(coo, seed);
}

CsrMatrix spperm::generateSkewed(int32_t rows, int32_t cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  CooTriplets coo;
  coo.rows = rows;
  coo.cols = cols;
  if (cols > 0) {
    for (int32_t r = 0; r < rows; ++r) {
      double u = unit(rng);
      int64_t len;
      if (u < 0.1)
        len = 0; // empty rows
      else if (u < 0.97)
        len = static_cast<int64_t>(below(rng, 8)) + 1; // short rows
      else
        len = static_cast<int64_t>(below(rng, std::max<uint64_t>(cols, 1))) +
              1; // a few rows as long as the matrix is wide
      len = std::min<int64_t>(len, cols);
      for (int64_t k = 0; k < len; ++k) {
        coo.row.push_back(r);
        coo.col.push_back(static_cast<int32_t>(below(rng, cols)));
      }
    }
  }
  return fromTriplets(coo, seed);
}

CsrMatrix spperm::generateStencil(int32_t side, int dims, int points,
                                  uint64_t seed) {
  assert((dims == 2 && (points == 5 || points == 9)) ||
         (dims == 3 && (points == 7 || points == 27)) && "unknown stencil");
  const int64_t n = dims == 2 ? int64_t(side) * side
                              : int64_t(side) * side * side;
  assert(n <= INT32_MAX && "stencil grid too large");
  // The neighbour offsets (dz, dy, dx) in lexicographic order, so that the
  // columns of a row come out sorted.
  std::vector<std::array<int, 3>> offsets;
  const int zr = dims == 3 ? 1 : 0;
  for (int dz = -zr; dz <= zr; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int manhattan = std::abs(dz) + std::abs(dy) + std::abs(dx);
        const bool full = points == 9 || points == 27;
        if (full || manhattan <= 1)
          offsets.push_back({dz, dy, dx});
      }
  CooTriplets coo;
  coo.rows = static_cast<int32_t>(n);
  coo.cols = static_cast<int32_t>(n);
  coo.row.reserve(static_cast<size_t>(n) * offsets.size());
  coo.col.reserve(static_cast<size_t>(n) * offsets.size());
  const int32_t zs = dims == 3 ? side : 1;
  for (int32_t z = 0; z < zs; ++z)
    for (int32_t y = 0; y < side; ++y)
      for (int32_t x = 0; x < side; ++x) {
        const int64_t i = (int64_t(z) * side + y) * side + x;
        for (const auto &[dz, dy, dx] : offsets) {
          const int64_t nz = z + dz, ny = y + dy, nx = x + dx;
          if (nz < 0 || nz >= zs || ny < 0 || ny >= side || nx < 0 ||
              nx >= side)
            continue;
          coo.row.push_back(static_cast<int32_t>(i));
          coo.col.push_back(static_cast<int32_t>((nz * side + ny) * side + nx));
        }
      }
  return fromTriplets(coo, seed);
}

CsrMatrix spperm::generateCommunities(int32_t rows, int32_t cols,
                                      int32_t communities, double inDegree,
                                      double outDegree, uint64_t seed) {
  assert(communities > 0 && "at least one community");
  std::mt19937_64 rng(seed);
  CooTriplets coo;
  coo.rows = rows;
  coo.cols = cols;
  if (cols == 0)
    return fromTriplets(coo, seed);
  // A count with mean `mean`: its integer part plus one with the fraction's
  // probability, then +-1 with probability 1/4 each (spread without a tail).
  auto count = [&](double mean) -> int64_t {
    if (mean <= 0.0)
      return 0;
    int64_t c = static_cast<int64_t>(mean);
    if (unit(rng) < mean - static_cast<double>(c))
      ++c;
    const double u = unit(rng);
    if (u < 0.25 && c > 0)
      --c;
    else if (u >= 0.75)
      ++c;
    return c;
  };
  // The row's columns in the order drawn, and the same as a set.
  std::vector<int32_t> picked;
  std::unordered_set<int32_t> seen;
  for (int32_t r = 0; r < rows; ++r) {
    const int64_t g = int64_t(r) * communities / std::max(rows, 1);
    const int64_t lo = g * cols / communities;
    const int64_t hi = (g + 1) * cols / communities;
    picked.clear();
    seen.clear();
    // `want` distinct columns of [begin, begin + width), drawing at most
    // 8 * want + 64 times (a draw may repeat a column).
    auto pick = [&](int64_t begin, int64_t width, int64_t want) {
      want = std::min(want, width);
      const int64_t draws = 8 * want + 64;
      for (int64_t d = 0; want > 0 && d < draws; ++d) {
        const auto c = static_cast<int32_t>(
            begin + static_cast<int64_t>(below(rng, width)));
        if (!seen.insert(c).second)
          continue;
        picked.push_back(c);
        --want;
      }
    };
    if (hi > lo)
      pick(lo, hi - lo, count(inDegree));
    pick(0, cols, count(outDegree));
    for (int32_t c : picked) {
      coo.row.push_back(r);
      coo.col.push_back(c);
    }
  }
  return fromTriplets(coo, seed);
}

CsrMatrix spperm::shuffleRows(const CsrMatrix &m, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int32_t> order(m.rows);
  std::iota(order.begin(), order.end(), 0);
  for (int32_t i = m.rows - 1; i > 0; --i)
    std::swap(order[i], order[below(rng, i + 1)]);
  return permuteRows(m, order);
}
