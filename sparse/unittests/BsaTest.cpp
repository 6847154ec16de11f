//===- BsaTest.cpp - Tests of the BSA row clustering ------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The weighted Jaccard similarity and dispersions against the worked example
// of the BSA notes, the exact (candidateLimit = 0) clustering against a
// brute-force O(M^2) transcription of the sequential definition, and
// properties of computePermutation(bsa) on random and adversarial matrices.
// The timings at scale are BsaScaleTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "Bsa.h"
#include "Strategies.h"

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/Permutation.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::detail;

namespace {

/// A matrix from explicit rows of column indices (values 1).
CsrMatrix fromRows(int32_t cols,
                   const std::vector<std::vector<int32_t>> &rows) {
  CsrMatrix m;
  m.rows = static_cast<int32_t>(rows.size());
  m.cols = cols;
  for (const std::vector<int32_t> &row : rows) {
    std::vector<int32_t> sorted = row;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    for (int32_t c : sorted) {
      m.colIdx.push_back(c);
      m.values.push_back(1.0f);
    }
    m.rowPtr.push_back(static_cast<int32_t>(m.colIdx.size()));
  }
  return m;
}

/// Stacks matrices with equal column counts.
CsrMatrix stack(const std::vector<CsrMatrix> &parts) {
  CsrMatrix m;
  m.cols = parts.front().cols;
  for (const CsrMatrix &p : parts) {
    for (int32_t r = 0; r < p.rows; ++r) {
      for (int32_t k = p.rowPtr[r]; k < p.rowPtr[r + 1]; ++k) {
        m.colIdx.push_back(p.colIdx[k]);
        m.values.push_back(p.values[k]);
      }
      m.rowPtr.push_back(static_cast<int32_t>(m.colIdx.size()));
    }
    m.rows += p.rows;
  }
  return m;
}

/// Dense encoding of row r (counts per block of width tau).
std::vector<int64_t> denseEncoding(const CsrMatrix &m, int32_t r, int32_t tau) {
  std::vector<int64_t> e((static_cast<size_t>(m.cols) + tau - 1) / tau, 0);
  for (int32_t k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k)
    ++e[m.colIdx[k] / tau];
  return e;
}

/// J straight from the notes: normalize both, then sum of minima over sum of
/// maxima.
double directJaccard(const std::vector<int64_t> &a,
                     const std::vector<int64_t> &b) {
  double na = 0, nb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    na += static_cast<double>(a[i]) * static_cast<double>(a[i]);
    nb += static_cast<double>(b[i]) * static_cast<double>(b[i]);
  }
  na = std::sqrt(na);
  nb = std::sqrt(nb);
  double lo = 0, hi = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    double x = static_cast<double>(a[i]) / na;
    double y = static_cast<double>(b[i]) / nb;
    lo += std::min(x, y);
    hi += std::max(x, y);
  }
  return lo / hi;
}

/// The sequential definition transcribed literally: O(M^2) comparisons with
/// dense encodings and J straight from the notes (only the threshold rule,
/// bsaAccepts, is shared with the implementation).
Permutation bruteForceBsa(const CsrMatrix &m, int32_t tau, double alpha) {
  Permutation p;
  std::vector<int32_t> ascending;
  std::vector<int64_t> dispersion(m.rows);
  std::vector<std::vector<int64_t>> enc(m.rows);
  for (int32_t r = 0; r < m.rows; ++r) {
    enc[r] = denseEncoding(m, r, tau);
    int64_t nnzb = 0;
    for (int64_t c : enc[r])
      nnzb += c > 0;
    int64_t zf = tau * nnzb - m.rowLength(r);
    dispersion[r] = tau * nnzb + zf;
    if (dispersion[r] == 0)
      p.order.push_back(r);
    else
      ascending.push_back(r);
  }
  // Ties: the encodings' nonzero (block, count) pairs, lexicographically.
  auto pairs = [&](int32_t r) {
    std::vector<std::pair<int64_t, int64_t>> out;
    for (size_t b = 0; b < enc[r].size(); ++b)
      if (enc[r][b] > 0)
        out.push_back({static_cast<int64_t>(b), enc[r][b]});
    return out;
  };
  std::stable_sort(ascending.begin(), ascending.end(),
                   [&](int32_t a, int32_t b) {
                     if (dispersion[a] != dispersion[b])
                       return dispersion[a] < dispersion[b];
                     return pairs(a) < pairs(b);
                   });
  std::vector<bool> assigned(ascending.size(), false);
  for (size_t i = 0; i < ascending.size(); ++i) {
    if (assigned[i])
      continue;
    assigned[i] = true;
    p.order.push_back(ascending[i]);
    std::vector<int64_t> rep = enc[ascending[i]];
    int32_t size = 1;
    for (size_t j = i + 1; j < ascending.size(); ++j) {
      if (assigned[j])
        continue;
      const std::vector<int64_t> &cmp = enc[ascending[j]];
      if (bsaAccepts(directJaccard(rep, cmp), alpha)) {
        assigned[j] = true;
        p.order.push_back(ascending[j]);
        ++size;
        for (size_t b = 0; b < rep.size(); ++b)
          rep[b] += cmp[b];
      }
    }
    p.clusterSizes.push_back(size);
  }
  return p;
}

Permutation runBsa(const CsrMatrix &m, int32_t tau, double alpha,
                   int32_t candidateLimit) {
  PermutationOptions o;
  o.strategy = Strategy::Bsa;
  o.tau = tau;
  o.alpha = alpha;
  o.candidateLimit = candidateLimit;
  StatusOr<Permutation> p = computePermutation(m, o);
  EXPECT_TRUE(p.isOk()) << p.message();
  return p.isOk() ? *p : Permutation();
}

int32_t countEmptyRows(const CsrMatrix &m) {
  int32_t n = 0;
  for (int32_t r = 0; r < m.rows; ++r)
    n += m.rowLength(r) == 0;
  return n;
}

/// The structural contract of a BSA permutation.
void checkBsaShape(const CsrMatrix &m, const Permutation &p, int32_t tau) {
  ASSERT_TRUE(isPermutation(p.order, m.rows));
  int32_t empty = countEmptyRows(m);
  int64_t sum = 0;
  for (int32_t s : p.clusterSizes) {
    EXPECT_GT(s, 0);
    sum += s;
  }
  EXPECT_EQ(sum + empty, m.rows);
  // Empty rows first, in original order.
  for (int32_t i = 0; i < empty; ++i) {
    EXPECT_EQ(m.rowLength(p.order[i]), 0);
    if (i > 0) {
      EXPECT_LT(p.order[i - 1], p.order[i]);
    }
  }
  // Inside a cluster: ascending dispersion, ties by encoding then row index;
  // every cluster's seed has the smallest key of the rows left.
  BlockEncodings enc = buildBlockEncodings(m, tau);
  using Key = std::tuple<int64_t, std::vector<std::pair<int32_t, int32_t>>,
                         int32_t>;
  auto key = [&](int32_t r) {
    std::vector<std::pair<int32_t, int32_t>> pairs;
    for (int64_t k = enc.ptr[r]; k < enc.ptr[r + 1]; ++k)
      pairs.push_back({enc.entries[k].block, enc.entries[k].count});
    return Key(bsaDispersion(tau, enc.nnzb(r), m.rowLength(r)),
               std::move(pairs), r);
  };
  std::vector<Key> keys;
  for (int32_t r : p.order)
    keys.push_back(key(r));
  // suffixMin[i] = the smallest key at positions >= i.
  std::vector<Key> suffixMin(keys.size() + 1,
                             Key(INT64_MAX, {}, INT32_MAX));
  for (size_t i = keys.size(); i-- > 0;)
    suffixMin[i] = std::min(keys[i], suffixMin[i + 1]);
  size_t pos = static_cast<size_t>(empty);
  for (int32_t s : p.clusterSizes) {
    for (int32_t k = 1; k < s; ++k)
      EXPECT_LT(keys[pos + k - 1], keys[pos + k]);
    EXPECT_LT(keys[pos], suffixMin[pos + s]);
    pos += static_cast<size_t>(s);
  }
}

//===----------------------------------------------------------------------===//
// Similarity and dispersion.
//===----------------------------------------------------------------------===//

TEST(BsaJaccard, WorkedExampleOfTheNotes) {
  std::vector<int64_t> rep{8, 10, 18, 0, 3}, cmp{1, 20, 0, 14, 0};
  double j = weightedJaccard(rep, cmp);
  // The notes round the normalized vectors to two digits and get 0.1821;
  // unrounded it is 0.181807 (the notes also misprint 0.13 as 0.013).
  EXPECT_NEAR(j, 0.1821, 5e-4);
  EXPECT_NEAR(j, 0.18180683926603688, 1e-12);
  EXPECT_NEAR(j, directJaccard(rep, cmp), 1e-12);
  EXPECT_LT(j, 0.3); // not similar at the default alpha
}

TEST(BsaJaccard, MatchesDirectFormulaAndIsSymmetric) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    size_t n = 1 + rng() % 12;
    std::vector<int64_t> a(n), b(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = rng() % 3 == 0 ? 0 : static_cast<int64_t>(rng() % 40);
      b[i] = rng() % 3 == 0 ? 0 : static_cast<int64_t>(rng() % 40);
    }
    a[rng() % n] += 1; // nonzero
    b[rng() % n] += 1;
    double j = weightedJaccard(a, b);
    EXPECT_GE(j, 0.0);
    EXPECT_LE(j, 1.0);
    EXPECT_NEAR(j, directJaccard(a, b), 1e-12);
    EXPECT_NEAR(j, weightedJaccard(b, a), 1e-12);
  }
}

TEST(BsaJaccard, OneExactlyForProportionalEncodings) {
  using E = std::vector<int64_t>;
  EXPECT_EQ(weightedJaccard(E{3, 0, 7, 1}, E{3, 0, 7, 1}), 1.0);
  EXPECT_EQ(weightedJaccard(E{3, 0, 7, 1}, E{9, 0, 21, 3}), 1.0);
  EXPECT_LT(weightedJaccard(E{1000000, 3}, E{1, 0}), 1.0);
  // Not proportional, and only barely: still below 1.
  EXPECT_LT(weightedJaccard(E{1000000, 1000001}, E{1, 1}), 1.0);
  EXPECT_LT(weightedJaccard(E{2, 2, 0}, E{2, 2, 1}), 1.0);
  // Disjoint blocks: 0; an empty encoding: 0.
  EXPECT_EQ(weightedJaccard(E{5, 0}, E{0, 5}), 0.0);
  EXPECT_EQ(weightedJaccard(E{0, 0}, E{0, 5}), 0.0);
}

/// Views of dense encodings for the sparse interface (rep lists its blocks
/// when `listBlocks`).
struct Views {
  std::vector<int32_t> repBlocks;
  std::vector<BlockCount> cmpEntries;
  DenseEncodingView rep;
  SparseEncodingView cmp;
};

Views makeViews(const std::vector<int64_t> &rep,
                const std::vector<int64_t> &cmp, bool listBlocks) {
  Views v;
  for (size_t i = 0; i < rep.size(); ++i) {
    if (rep[i] > 0) {
      v.repBlocks.push_back(static_cast<int32_t>(i));
      v.rep.l1 += rep[i];
      v.rep.sumSq += rep[i] * rep[i];
    }
    if (cmp[i] > 0) {
      v.cmpEntries.push_back(
          {static_cast<int32_t>(i), static_cast<int32_t>(cmp[i])});
      v.cmp.l1 += cmp[i];
      v.cmp.sumSq += cmp[i] * cmp[i];
    }
  }
  v.rep.counts = rep.data();
  v.rep.blocks = listBlocks ? v.repBlocks.data() : nullptr;
  v.rep.nnzb = static_cast<int64_t>(v.repBlocks.size());
  v.cmp.entries = v.cmpEntries.data();
  v.cmp.size = static_cast<int64_t>(v.cmpEntries.size());
  return v;
}

TEST(BsaJaccard, EarlyExitNeverChangesTheDecision) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 3000; ++trial) {
    size_t n = 1 + rng() % 64;
    std::vector<int64_t> a(n), b(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = rng() % 2 ? 0 : static_cast<int64_t>(rng() % 20);
      b[i] = rng() % 2 ? 0 : static_cast<int64_t>(rng() % 20);
    }
    a[rng() % n] += 1;
    b[rng() % n] += 1;
    if (trial % 7 == 0)
      b = a; // proportional pairs too
    for (bool listBlocks : {false, true}) {
      Views v = makeViews(a, b, listBlocks);
      double j = weightedJaccard(v.rep, v.cmp);
      EXPECT_NEAR(j, directJaccard(a, b), 1e-12);
      for (double alpha : {j - 1e-6, j - 1e-13, j, j + 1e-13, j + 1e-6, 0.1,
                           0.3, 0.5, 0.9, 1.0}) {
        if (!(alpha > 0.0 && alpha <= 1.0))
          continue;
        EXPECT_EQ(bsaSimilar(v.rep, v.cmp, alpha), bsaAccepts(j, alpha))
            << "trial " << trial << " alpha " << alpha << " J " << j;
      }
    }
  }
}

TEST(BsaJaccard, ThresholdToleratesRoundingOnly) {
  EXPECT_TRUE(bsaAccepts(0.3, 0.3));
  EXPECT_TRUE(bsaAccepts(0.099999999999999992, 0.1)); // 0.1 rounded down
  EXPECT_FALSE(bsaAccepts(0.0999999, 0.1));
  EXPECT_TRUE(bsaAccepts(1.0, 1.0));
  EXPECT_FALSE(bsaAccepts(std::nextafter(1.0, 0.0), 1.0));
}

TEST(BsaEncoding, BlocksCountsAndDispersion) {
  // tau = 32: row 0 has 3 entries in block 0 and 1 in block 1; row 1 is
  // empty; row 2 fills block 2 completely.
  std::vector<int32_t> full;
  for (int32_t c = 64; c < 96; ++c)
    full.push_back(c);
  CsrMatrix m = fromRows(100, {{0, 1, 2, 40}, {}, full});
  BlockEncodings e = buildBlockEncodings(m, 32);
  EXPECT_EQ(e.numBlocks, 4);
  EXPECT_EQ(e.ptr, (std::vector<int64_t>{0, 2, 2, 3}));
  ASSERT_EQ(e.entries.size(), 3u);
  EXPECT_EQ(e.entries[0].block, 0);
  EXPECT_EQ(e.entries[0].count, 3);
  EXPECT_EQ(e.entries[1].block, 1);
  EXPECT_EQ(e.entries[1].count, 1);
  EXPECT_EQ(e.entries[2].block, 2);
  EXPECT_EQ(e.entries[2].count, 32);
  // Row 0: nnzb = 2, zf = 64 - 4 = 60, dispersion = 64 + 60.
  EXPECT_EQ(bsaDispersion(32, e.nnzb(0), m.rowLength(0)), 124);
  EXPECT_EQ(bsaDispersion(32, e.nnzb(1), m.rowLength(1)), 0);
  // A full block: no zero fill, dispersion = tau.
  EXPECT_EQ(bsaDispersion(32, e.nnzb(2), m.rowLength(2)), 32);
  // The notes' E_rep = [8, 10, 18, 0, 3]: nnzb 4, nnz 39, zf 89.
  EXPECT_EQ(bsaDispersion(32, 4, 39), 128 + 89);
}

//===----------------------------------------------------------------------===//
// Clustering on hand-made matrices.
//===----------------------------------------------------------------------===//

TEST(BsaOrder, EmptyRowsFirstInOriginalOrder) {
  CsrMatrix m = fromRows(64, {{5}, {}, {40, 41}, {}, {}, {5, 6}});
  for (int32_t limit : {0, 64}) {
    Permutation p = runBsa(m, 32, 0.3, limit);
    ASSERT_EQ(p.order.size(), 6u);
    EXPECT_EQ(std::vector<int32_t>(p.order.begin(), p.order.begin() + 3),
              (std::vector<int32_t>{1, 3, 4}));
    checkBsaShape(m, p, 32);
  }
}

TEST(BsaOrder, SmallWorkedClustering) {
  // tau = 4. Dispersions 2 * tau * nnzb - nnz: r0 {0,1,2,3} -> 4;
  // r1 {0,1} -> 6; r2 {8} -> 7; r3 {0,8} -> 14; r4 {4,5,6} -> 5; r5 {} -> 0.
  CsrMatrix m =
      fromRows(12, {{0, 1, 2, 3}, {0, 1}, {8}, {0, 8}, {4, 5, 6}, {}});
  // ascending: r0 (4), r4 (5), r1 (6), r2 (7), r3 (14).
  // Cluster 0 seeded by r0 = [4,0,0]: r4 shares nothing; r1 = [2,0,0] is
  // proportional (J = 1), rep = [6,0,0]; r2 shares nothing; r3 = [1,0,1]:
  // J = 0.7071 / (1 + 1.4142 - 0.7071) = 0.414 >= 0.3, joins.
  // Cluster 1: r4 alone; cluster 2: r2.
  Permutation p = runBsa(m, 4, 0.3, 0);
  EXPECT_EQ(p.order, (std::vector<int32_t>{5, 0, 1, 3, 4, 2}));
  EXPECT_EQ(p.clusterSizes, (std::vector<int32_t>{3, 1, 1}));
  // At alpha = 0.5 cluster 0 rejects r3 (0.414); r4 is alone; r2 = [0,0,1]
  // seeds cluster 2 and rejects r3 (J = 0.414 again), which is left alone.
  Permutation q = runBsa(m, 4, 0.5, 0);
  EXPECT_EQ(q.order, (std::vector<int32_t>{5, 0, 1, 4, 2, 3}));
  EXPECT_EQ(q.clusterSizes, (std::vector<int32_t>{2, 1, 1, 1}));
  // Accepted rows cost a stream nothing: limit 1 finds the same clusters.
  EXPECT_EQ(runBsa(m, 4, 0.3, 1).order, p.order);
  EXPECT_EQ(runBsa(m, 4, 0.5, 1).order, q.order);
}

TEST(BsaOrder, RejectedRowIsNotReconsideredByItsCluster) {
  // tau = 2, two blocks. r0 {0} = [1,0] and r1 {2} = [0,1] have dispersion
  // 3, r2 = r3 = {0,1,2,3} = [2,2] have 4. Cluster 0 = r0 rejects r1
  // (disjoint), accepts r2 (J = 0.414) and r3 (J = 0.82 with rep [3,2]);
  // with rep = [5,4] r1 would now pass (J = 0.35), but the walk has passed
  // it, so r1 seeds cluster 1.
  CsrMatrix m = fromRows(4, {{0}, {2}, {0, 1, 2, 3}, {0, 1, 2, 3}});
  EXPECT_GE(directJaccard({5, 4}, {0, 1}), 0.3);
  for (int32_t limit : {0, 1, 64}) {
    Permutation p = runBsa(m, 2, 0.3, limit);
    EXPECT_EQ(p.order, (std::vector<int32_t>{0, 2, 3, 1}));
    EXPECT_EQ(p.clusterSizes, (std::vector<int32_t>{3, 1}));
  }
}

TEST(BsaOrder, IdenticalRowsEndUpInOneCluster) {
  // Five row patterns on pairwise disjoint column blocks, each repeated,
  // shuffled: every pattern must be exactly one contiguous cluster.
  const int32_t tau = 32;
  std::vector<std::vector<int32_t>> patterns = {
      {0, 1, 2, 3},
      {33, 40, 63, 64, 95},
      {100, 101, 140, 200},
      {300},
      {400, 401, 402, 403, 404, 405, 406, 407, 460}};
  std::vector<std::vector<int32_t>> rows;
  std::vector<int32_t> patternOf;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 200; ++i) {
    int32_t k = static_cast<int32_t>(rng() % patterns.size());
    rows.push_back(patterns[k]);
    patternOf.push_back(k);
  }
  CsrMatrix m = fromRows(480, rows);
  for (int32_t limit : {0, 1, 64}) {
    for (double alpha : {0.3, 1.0}) {
      Permutation p = runBsa(m, tau, alpha, limit);
      checkBsaShape(m, p, tau);
      ASSERT_EQ(p.clusterSizes.size(), patterns.size());
      size_t pos = 0;
      for (int32_t s : p.clusterSizes) {
        for (int32_t k = 0; k < s; ++k)
          EXPECT_EQ(patternOf[p.order[pos + k]], patternOf[p.order[pos]]);
        pos += static_cast<size_t>(s);
      }
    }
  }
}

TEST(BsaOrder, IdenticalRowsShareAClusterOnOverlappingPatterns) {
  // Random rows over overlapping blocks, each copied 2 to 4 times to random
  // places: whatever the clusters are, the copies of a row share one.
  // (Equal rows have equal dispersion and encoding, so they are adjacent in
  // the walk and every representative judges them back to back.)
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::vector<int32_t>> rows;
    std::vector<int32_t> groupOf;
    for (int32_t g = 0; g < 40; ++g) {
      std::vector<int32_t> cols;
      int32_t len = 1 + static_cast<int32_t>(rng() % 12);
      for (int32_t k = 0; k < len; ++k)
        cols.push_back(static_cast<int32_t>(rng() % 256));
      std::sort(cols.begin(), cols.end());
      cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      int32_t copies = 2 + static_cast<int32_t>(rng() % 3);
      for (int32_t c = 0; c < copies; ++c) {
        rows.push_back(cols);
        groupOf.push_back(g);
      }
    }
    // Shuffle rows and their groups together.
    for (size_t i = rows.size(); i-- > 1;) {
      size_t j = rng() % (i + 1);
      std::swap(rows[i], rows[j]);
      std::swap(groupOf[i], groupOf[j]);
    }
    CsrMatrix m = fromRows(256, rows);
    for (int32_t limit : {0, 64}) {
      for (double alpha : {0.1, 0.3, 0.6}) {
        Permutation p = runBsa(m, 32, alpha, limit);
        std::vector<int32_t> clusterOf(m.rows, -1);
        size_t pos = 0;
        int32_t cluster = 0;
        for (int32_t size : p.clusterSizes) {
          for (int32_t k = 0; k < size; ++k)
            clusterOf[p.order[pos + k]] = cluster;
          pos += static_cast<size_t>(size);
          ++cluster;
        }
        std::vector<int32_t> clusterOfGroup(40, -1);
        for (int32_t r = 0; r < m.rows; ++r) {
          int32_t &c = clusterOfGroup[groupOf[r]];
          if (c < 0)
            c = clusterOf[r];
          EXPECT_EQ(c, clusterOf[r])
              << "seed " << seed << " limit " << limit << " alpha " << alpha
              << ": copies of group " << groupOf[r] << " split";
        }
      }
    }
  }
}

TEST(BsaOrder, AlphaOneClustersExactlyTheProportionalEncodings) {
  // Rows drawn from a few block patterns with per-block counts scaled by
  // 1..3, and random rows; tau = 8.
  const int32_t tau = 8;
  std::mt19937_64 rng(11);
  std::vector<std::vector<int32_t>> rows;
  for (int i = 0; i < 300; ++i) {
    std::vector<int32_t> row;
    if (rng() % 2) {
      int32_t scale = 1 + static_cast<int32_t>(rng() % 3);
      int32_t base = static_cast<int32_t>(rng() % 3) * 8;
      // Pattern: blocks base, base+1 with counts scale*1, scale*2.
      for (int32_t c = 0; c < scale; ++c)
        row.push_back(base * tau + c);
      for (int32_t c = 0; c < 2 * scale; ++c)
        row.push_back((base + 1) * tau + c);
    } else {
      int32_t n = static_cast<int32_t>(rng() % 6);
      for (int32_t c = 0; c < n; ++c)
        row.push_back(static_cast<int32_t>(rng() % 200));
    }
    rows.push_back(row);
  }
  CsrMatrix m = fromRows(200, rows);
  auto proportional = [&](int32_t a, int32_t b) {
    return weightedJaccard(denseEncoding(m, a, tau),
                           denseEncoding(m, b, tau)) == 1.0;
  };
  for (int32_t limit : {0, 2, 64}) {
    Permutation p = runBsa(m, tau, 1.0, limit);
    checkBsaShape(m, p, tau);
    std::vector<int32_t> clusterOf(m.rows, -1);
    size_t pos = static_cast<size_t>(countEmptyRows(m));
    for (size_t c = 0; c < p.clusterSizes.size(); ++c)
      for (int32_t k = 0; k < p.clusterSizes[c]; ++k)
        clusterOf[p.order[pos++]] = static_cast<int32_t>(c);
    for (int32_t a = 0; a < m.rows; ++a)
      for (int32_t b = a + 1; b < m.rows; ++b) {
        if (clusterOf[a] < 0 || clusterOf[b] < 0)
          continue;
        if (clusterOf[a] == clusterOf[b]) {
          EXPECT_TRUE(proportional(a, b)) << a << " " << b;
        } else if (limit == 0) {
          EXPECT_FALSE(proportional(a, b)) << a << " " << b;
        }
      }
  }
}

//===----------------------------------------------------------------------===//
// The exact clustering against the brute-force definition.
//===----------------------------------------------------------------------===//

struct RandomCase {
  CsrMatrix m;
  int32_t tau;
  double alpha;
};

std::vector<RandomCase> randomCases() {
  std::vector<RandomCase> cases;
  std::mt19937_64 rng(2024);
  const int32_t taus[] = {1, 4, 8, 32};
  const double alphas[] = {0.1, 0.3, 0.55, 0.8};
  for (int i = 0; i < 120; ++i) {
    int32_t rows = 1 + static_cast<int32_t>(rng() % 150);
    int32_t cols = 1 + static_cast<int32_t>(rng() % 300);
    double density = 0.002 + 0.1 * static_cast<double>(rng() % 100) / 100.0;
    CsrMatrix m;
    switch (i % 4) {
    case 0:
      m = generateUniform(rows, cols, density, rng());
      break;
    case 1:
      m = shuffleRows(generateBlockSparse(rows, cols, 8, 0.2, rng()), rng());
      break;
    case 2:
      m = shuffleRows(generateSkewed(rows, cols, rng()), rng());
      break;
    default:
      m = generateRmat(7, 4, rng());
      break;
    }
    cases.push_back(
        {std::move(m), taus[i % 4 == 3 ? 2 : rng() % 4], alphas[rng() % 4]});
  }
  return cases;
}

TEST(BsaOrder, ExactEqualsBruteForceDefinition) {
  for (const RandomCase &c : randomCases()) {
    Permutation want = bruteForceBsa(c.m, c.tau, c.alpha);
    Permutation got = runBsa(c.m, c.tau, c.alpha, 0);
    EXPECT_EQ(got.order, want.order) << c.m.rows << "x" << c.m.cols << " tau "
                                     << c.tau << " alpha " << c.alpha;
    EXPECT_EQ(got.clusterSizes, want.clusterSizes);
    // A limit no bound can reach is exact too.
    Permutation big = runBsa(c.m, c.tau, c.alpha, 2 * (c.m.rows + 1));
    EXPECT_EQ(big.order, want.order);
    EXPECT_EQ(big.clusterSizes, want.clusterSizes);
  }
}

TEST(BsaOrder, PrunedKeepsTheShape) {
  for (const RandomCase &c : randomCases())
    for (int32_t limit : {1, 2, 5, 64}) {
      Permutation p = runBsa(c.m, c.tau, c.alpha, limit);
      checkBsaShape(c.m, p, c.tau);
    }
}

//===----------------------------------------------------------------------===//
// Properties through computePermutation on adversarial shapes.
//===----------------------------------------------------------------------===//

std::vector<std::pair<std::string, CsrMatrix>> adversarialMatrices() {
  std::vector<std::pair<std::string, CsrMatrix>> ms;
  ms.push_back({"0x0", CsrMatrix()});
  CsrMatrix zeroRows;
  zeroRows.cols = 100;
  ms.push_back({"0x100", zeroRows});
  CsrMatrix zeroCols;
  zeroCols.rows = 5;
  zeroCols.rowPtr.assign(6, 0);
  ms.push_back({"5x0", zeroCols});
  ms.push_back(
      {"empty 40x70", fromRows(70, std::vector<std::vector<int32_t>>(40))});
  ms.push_back({"M < 32", generateUniform(17, 50, 0.2, 1)});
  ms.push_back({"M = 1", fromRows(3, {{0, 2}})});
  ms.push_back({"M not multiple of 32", generateUniform(1000, 77, 0.05, 2)});
  std::vector<int32_t> dense(500);
  std::iota(dense.begin(), dense.end(), 0);
  std::vector<std::vector<int32_t>> oneDense(64);
  oneDense[13] = dense;
  ms.push_back({"one dense row", fromRows(500, oneDense)});
  std::vector<std::vector<int32_t>> oneDenseMore = oneDense;
  for (int32_t r = 0; r < 64; r += 3)
    if (r != 13)
      oneDenseMore[r] = {r * 7 % 500};
  ms.push_back({"dense row + singletons", fromRows(500, oneDenseMore)});
  ms.push_back(
      {"identical rows",
       fromRows(90, std::vector<std::vector<int32_t>>(70, {1, 2, 3, 40, 89}))});
  ms.push_back({"dense 50x64",
                fromRows(64, std::vector<std::vector<int32_t>>(
                                 50, std::vector<int32_t>(
                                         dense.begin(), dense.begin() + 64)))});
  ms.push_back({"wide 20x100000", generateUniform(20, 100000, 0.001, 3)});
  ms.push_back({"tall 5000x3", generateUniform(5000, 3, 0.3, 4)});
  ms.push_back({"banded", generateBanded(999, 3, 5)});
  ms.push_back({"rmat 10", generateRmat(10, 8, 6)});
  ms.push_back({"skewed", generateSkewed(700, 900, 7)});
  ms.push_back(
      {"stacked",
       stack({generateUniform(50, 64, 0.1, 8),
              fromRows(64, std::vector<std::vector<int32_t>>(30, {63})),
              generateBlockSparse(64, 64, 16, 0.5, 9)})});
  return ms;
}

TEST(BsaOrder, PropertiesOnAdversarialMatrices) {
  for (const auto &[name, m] : adversarialMatrices()) {
    ASSERT_TRUE(m.verify().isOk()) << name << ": " << m.verify().message();
    for (int32_t tau : {1, 32, 1024})
      for (double alpha : {0.01, 0.3, 1.0})
        for (int32_t limit : {0, 1, 64}) {
          SCOPED_TRACE(name + " tau " + std::to_string(tau) + " alpha " +
                       std::to_string(alpha) + " limit " +
                       std::to_string(limit));
          Permutation p = runBsa(m, tau, alpha, limit);
          checkBsaShape(m, p, tau);
          Permutation again = runBsa(m, tau, alpha, limit);
          EXPECT_EQ(p.order, again.order);
          EXPECT_EQ(p.clusterSizes, again.clusterSizes);
          // (At alpha = 1 the literal formula may round J of proportional
          // rows below 1.)
          if (m.rows <= 200 && m.cols <= 1000 && limit == 0 && alpha < 1.0) {
            Permutation want = bruteForceBsa(m, tau, alpha);
            EXPECT_EQ(p.order, want.order);
            EXPECT_EQ(p.clusterSizes, want.clusterSizes);
          }
        }
  }
}

TEST(BsaOrder, SpecialShapes) {
  // All rows empty: no cluster, identity order.
  CsrMatrix empty = fromRows(70, std::vector<std::vector<int32_t>>(40));
  Permutation p = runBsa(empty, 32, 0.3, 64);
  EXPECT_TRUE(p.clusterSizes.empty());
  std::vector<int32_t> identity(40);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(p.order, identity);
  // Identical rows: one cluster in row order.
  CsrMatrix same =
      fromRows(90, std::vector<std::vector<int32_t>>(70, {1, 2, 3, 40, 89}));
  p = runBsa(same, 32, 0.3, 64);
  EXPECT_EQ(p.clusterSizes, (std::vector<int32_t>{70}));
  identity.resize(70);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(p.order, identity);
  // One dense row among empty rows: 63 empty rows, then the dense one.
  std::vector<std::vector<int32_t>> rows(64);
  rows[13] = {0, 1, 2, 3, 4, 5, 6, 7};
  p = runBsa(fromRows(8, rows), 32, 0.3, 64);
  EXPECT_EQ(p.order.back(), 13);
  EXPECT_EQ(p.clusterSizes, (std::vector<int32_t>{1}));
}

} // namespace
