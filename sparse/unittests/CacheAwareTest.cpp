//===- CacheAwareTest.cpp - Tests of the cache-aware row orders -*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Warp-aware, CTA-aware and hybrid-2.1/2.2/2.3: hand-checked tiny cases, the
// exact mode (candidateLimit = 0) against a brute-force O(M^2)
// implementation of the definitions in WarpAware.cpp and CtaAware.cpp,
// properties on random and adversarial matrices, and locality on shuffled
// structured matrices.
// CacheAwareScale.* time the strategies on 1M-row matrices and compare the
// pruned mode with the exact one; they run with SPPERM_SCALE_TESTS=1.
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/Permutation.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace spperm;

namespace {

constexpr Strategy kCacheAware[] = {Strategy::WarpAware, Strategy::Hybrid23,
                                    Strategy::CtaAware, Strategy::Hybrid21,
                                    Strategy::Hybrid22};

bool isWarpFamily(Strategy s) {
  return s == Strategy::WarpAware || s == Strategy::Hybrid23;
}

/// A matrix from explicit column lists (sorted and deduplicated here).
CsrMatrix fromRows(int32_t cols, std::vector<std::vector<int32_t>> rows) {
  CsrMatrix m;
  m.rows = static_cast<int32_t>(rows.size());
  m.cols = cols;
  for (auto &r : rows) {
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    for (int32_t c : r) {
      m.colIdx.push_back(c);
      m.values.push_back(1.0f);
    }
    m.rowPtr.push_back(static_cast<int32_t>(m.colIdx.size()));
  }
  return m;
}

/// Columns [lo, hi).
std::vector<int32_t> span(int32_t lo, int32_t hi) {
  std::vector<int32_t> out(hi - lo);
  std::iota(out.begin(), out.end(), lo);
  return out;
}

std::vector<int32_t> concat(std::vector<int32_t> a,
                            const std::vector<int32_t> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

PermutationOptions optionsFor(Strategy s, int32_t warps, int32_t lineWidth,
                              int32_t limit) {
  PermutationOptions o;
  o.strategy = s;
  o.warps = warps;
  o.lineWidth = lineWidth;
  o.candidateLimit = limit;
  return o;
}

std::vector<int32_t> orderOf(const CsrMatrix &m, const PermutationOptions &o) {
  StatusOr<Permutation> p = computePermutation(m, o);
  EXPECT_TRUE(p.isOk()) << p.message();
  return p.isOk() ? p->order : std::vector<int32_t>();
}

//===----------------------------------------------------------------------===//
// Brute force: the definitions, scoring every unused row.
//===----------------------------------------------------------------------===//

struct Lines {
  std::vector<std::vector<int32_t>> of;
  std::vector<int32_t> load;
  int32_t numLines = 0;

  Lines(const CsrMatrix &m, int32_t lineWidth) {
    numLines =
        static_cast<int32_t>((int64_t(m.cols) + lineWidth - 1) / lineWidth);
    for (int32_t r = 0; r < m.rows; ++r) {
      std::vector<int32_t> l;
      for (int32_t k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k)
        l.push_back(m.colIdx[k] / lineWidth);
      l.erase(std::unique(l.begin(), l.end()), l.end());
      of.push_back(l);
      load.push_back((m.rowLength(r) + 31) / 32);
    }
  }

  int64_t shared(int32_t a, int32_t b) const {
    std::vector<int32_t> both;
    std::set_intersection(of[a].begin(), of[a].end(), of[b].begin(),
                          of[b].end(), std::back_inserter(both));
    return static_cast<int64_t>(both.size());
  }
  int64_t hamming(int32_t a, int32_t b) const {
    return int64_t(of[a].size()) + int64_t(of[b].size()) - 2 * shared(a, b);
  }
};

using BruteKey = std::tuple<int64_t, int64_t, int64_t, int32_t>;

std::vector<int32_t> bruteWarpAware(const CsrMatrix &m,
                                    const PermutationOptions &o) {
  Lines ls(m, o.lineWidth);
  const int32_t rows = m.rows, w = o.warps;
  const bool byLoad = o.strategy == Strategy::Hybrid23;
  std::vector<int32_t> order;
  std::vector<bool> used(rows, false);
  if (rows == 0)
    return order;
  int32_t first = 0;
  for (int32_t r = 1; r < rows; ++r)
    if (ls.load[r] < ls.load[first])
      first = r;
  order.push_back(first);
  used[first] = true;
  for (int32_t p = 1; p < rows; ++p) {
    int32_t ref = order[p >= w ? p - w : 0];
    int64_t target = byLoad && p % w != 0 ? ls.load[order[p - p % w]] : -1;
    BruteKey best{INT64_MAX, 0, 0, -1};
    for (int32_t r = 0; r < rows; ++r) {
      if (used[r])
        continue;
      int64_t tb = target < 0 ? 0 : std::abs(ls.load[r] - target);
      best = std::min(best, BruteKey{ls.hamming(ref, r), tb, 0, r});
    }
    order.push_back(std::get<3>(best));
    used[std::get<3>(best)] = true;
  }
  return order;
}

std::vector<int32_t> bruteCtaAware(const CsrMatrix &m,
                                   const PermutationOptions &o) {
  Lines ls(m, o.lineWidth);
  const int32_t rows = m.rows, w = o.warps;
  std::vector<int32_t> order;
  std::vector<bool> used(rows, false);
  while (static_cast<int32_t>(order.size()) < rows) {
    int32_t seed = 0;
    while (used[seed])
      ++seed;
    order.push_back(seed);
    used[seed] = true;
    std::vector<bool> inU(ls.numLines, false);
    int64_t unionSize = 0;
    auto grow = [&](int32_t r) {
      for (int32_t l : ls.of[r])
        if (!inU[l]) {
          inU[l] = true;
          ++unionSize;
        }
    };
    grow(seed);
    for (int32_t k = 1; k < w && static_cast<int32_t>(order.size()) < rows;
         ++k) {
      int32_t p = static_cast<int32_t>(order.size());
      int32_t q =
          o.strategy == Strategy::Hybrid22 && p >= w ? order[p - w] : -1;
      BruteKey best{INT64_MAX, 0, 0, -1};
      for (int32_t r = 0; r < rows; ++r) {
        if (used[r])
          continue;
        int64_t shared = 0;
        for (int32_t l : ls.of[r])
          shared += inU[l];
        int64_t fresh = int64_t(ls.of[r].size()) - shared;
        int64_t h = fresh + unionSize - shared;
        int64_t tb = 0;
        if (o.strategy == Strategy::Hybrid21)
          tb = std::abs(ls.load[r] - ls.load[seed]);
        else if (q >= 0)
          tb = ls.hamming(r, q);
        best = std::min(best, BruteKey{fresh, h, tb, r});
      }
      order.push_back(std::get<3>(best));
      used[std::get<3>(best)] = true;
      grow(std::get<3>(best));
    }
  }
  return order;
}

std::vector<int32_t> bruteForce(const CsrMatrix &m,
                                const PermutationOptions &o) {
  return isWarpFamily(o.strategy) ? bruteWarpAware(m, o) : bruteCtaAware(m, o);
}

/// Rows copied from `m` in the given order (repeats make identical rows).
CsrMatrix pickRows(const CsrMatrix &m, const std::vector<int32_t> &rows) {
  std::vector<std::vector<int32_t>> out;
  for (int32_t r : rows)
    out.emplace_back(m.colIdx.begin() + m.rowPtr[r],
                     m.colIdx.begin() + m.rowPtr[r + 1]);
  return fromRows(m.cols, out);
}

/// Small matrices of many shapes for the brute-force comparison.
std::vector<std::pair<std::string, CsrMatrix>> smallMatrices() {
  std::vector<std::pair<std::string, CsrMatrix>> ms;
  for (uint64_t s = 1; s <= 3; ++s) {
    ms.emplace_back("uniform",
                    generateUniform(90 + 17 * int32_t(s), 300, 0.02 * s, s));
    ms.emplace_back("rmat", generateRmat(7, 4 + int(s), s));
    ms.emplace_back("banded", shuffleRows(generateBanded(120, 3, s), s));
    ms.emplace_back("block",
                    shuffleRows(generateBlockSparse(96, 200, 8, 0.15, s), s));
    ms.emplace_back("skewed", generateSkewed(100, 400, s));
    // Identical and empty rows mixed in.
    std::mt19937_64 rng(s);
    CsrMatrix base = generateUniform(40, 160, 0.05, s + 10);
    std::vector<int32_t> rows;
    for (int i = 0; i < 110; ++i)
      rows.push_back(static_cast<int32_t>(rng() % 12));
    ms.emplace_back("repeats", pickRows(base, rows));
    // Rows of 0-119 entries within one 128-column band: few lines, warp
    // loads 0-4, so warp-load tie-breaks matter among equal line counts.
    std::vector<std::vector<int32_t>> fat(100);
    for (auto &row : fat) {
      int32_t band = static_cast<int32_t>(rng() % 4) * 128;
      int32_t n = static_cast<int32_t>(rng() % 120);
      for (int32_t i = 0; i < n; ++i)
        row.push_back(band + static_cast<int32_t>(rng() % 128));
    }
    ms.emplace_back("fat", fromRows(512, fat));
  }
  return ms;
}

//===----------------------------------------------------------------------===//
// Hand-checked tiny cases
//===----------------------------------------------------------------------===//

/// Line width 32, four lines; warp loads 0, 1 or 2 (rows of 64 columns).
CsrMatrix warpTiny() {
  return fromRows(128, {
                           {0},                               // r0: {0}, wl 1
                           {},                                // r1: {}, wl 0
                           span(0, 64),                       // r2: {0,1}, wl 2
                           {0, 32},                           // r3: {0,1}, wl 1
                           span(64, 128),                     // r4: {2,3}, wl 2
                           {64, 96},                          // r5: {2,3}, wl 1
                           concat(span(0, 32), span(64, 96)), // r6: {0,2}, wl 2
                       });
}

TEST(CacheAwareTiny, WarpAware) {
  // p0: r1 (least warp load). p1, p2: reference r1 (empty), so the fewest
  // lines: r0, then r2 (count 2, smallest index). p3: reference r0 = {0},
  // r3 and r6 at distance 1, r3 by index. p4: reference r2 = {0,1}: r6 (2).
  // p5: reference r3: r4, r5 tie at 4, r4. p6: r5.
  std::vector<int32_t> want = {1, 0, 2, 3, 6, 4, 5};
  for (int32_t limit : {0, 64})
    EXPECT_EQ(
        orderOf(warpTiny(), optionsFor(Strategy::WarpAware, 2, 32, limit)),
        want);
}

TEST(CacheAwareTiny, Hybrid23) {
  // Groups of 2 positions. p3: r3 and r6 tie at distance 1 from r0; the
  // group's first row is r2 (wl 2), so r6 (wl 2) wins. p4 (first of its
  // group, no tie-break): reference r2 = {0,1}, r3 at distance 0. p5:
  // reference r6 = {0,2}, r4 and r5 tie at 2; the group's first row r3 has
  // wl 1, so r5. p6: r4.
  std::vector<int32_t> want = {1, 0, 2, 6, 3, 5, 4};
  for (int32_t limit : {0, 64})
    EXPECT_EQ(orderOf(warpTiny(), optionsFor(Strategy::Hybrid23, 2, 32, limit)),
              want);
}

TEST(CacheAwareTiny, CtaAware) {
  // Line width 1 (lines = columns), clusters of 3.
  CsrMatrix m =
      fromRows(8, {{0, 1}, {4, 5}, {0}, {1, 2}, {4}, {0, 1, 2}, {5, 6, 7}});
  // Cluster 1, seed r0, U = {0,1}: r2 adds no line; then r3 and r5 add one
  // line each, r5 is closer to U (distance 1 against 2). Cluster 2, seed r1,
  // U = {4,5}: r4 adds none; then r3 and r6 add 2 lines, r6 is closer (3
  // against 4). Cluster 3: r3.
  std::vector<int32_t> want = {0, 2, 5, 1, 4, 6, 3};
  for (int32_t limit : {0, 64})
    EXPECT_EQ(orderOf(m, optionsFor(Strategy::CtaAware, 3, 1, limit)), want);
}

TEST(CacheAwareTiny, Hybrid21) {
  // Line width 32, clusters of 2. Seed r0 = {0,1} (wl 2); r1 = {0,2} (wl 1)
  // and r2 = {0,2} (wl 2) both add one line at distance 2: cta-aware takes
  // r1 by index, hybrid-2.1 takes r2, the seed's warp load.
  CsrMatrix m = fromRows(
      128, {span(0, 64), {0, 64}, concat(span(0, 32), span(64, 96)), {96}});
  for (int32_t limit : {0, 64}) {
    EXPECT_EQ(orderOf(m, optionsFor(Strategy::CtaAware, 2, 32, limit)),
              (std::vector<int32_t>{0, 1, 2, 3}));
    EXPECT_EQ(orderOf(m, optionsFor(Strategy::Hybrid21, 2, 32, limit)),
              (std::vector<int32_t>{0, 2, 1, 3}));
  }
}

TEST(CacheAwareTiny, Hybrid22) {
  // Line width 1, clusters of 2. Cluster 1: r0, r1 (identical). Cluster 2,
  // seed r2 = {5}: r3 = {5,7} and r4 = {0,5} both add one line at distance
  // 1 (r5 = {9} is at 2). cta-aware takes r3 by index; hybrid-2.2 takes r4,
  // closer to r1 = {0}, the same warp's row in cluster 1 (1 against 3).
  CsrMatrix m = fromRows(10, {{0}, {0}, {5}, {5, 7}, {0, 5}, {9}});
  for (int32_t limit : {0, 64}) {
    EXPECT_EQ(orderOf(m, optionsFor(Strategy::CtaAware, 2, 1, limit)),
              (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(orderOf(m, optionsFor(Strategy::Hybrid22, 2, 1, limit)),
              (std::vector<int32_t>{0, 1, 2, 4, 3, 5}));
  }
}

//===----------------------------------------------------------------------===//
// Exact mode against the brute force
//===----------------------------------------------------------------------===//

TEST(CacheAwareExact, MatchesBruteForce) {
  int checked = 0;
  for (const auto &[name, m] : smallMatrices()) {
    for (int32_t warps : {1, 2, 3, 8, 32}) {
      for (int32_t lineWidth : {1, 4, 32, 128}) {
        for (Strategy s : kCacheAware) {
          PermutationOptions o = optionsFor(s, warps, lineWidth, 0);
          std::vector<int32_t> want = bruteForce(m, o);
          EXPECT_EQ(orderOf(m, o), want)
              << name << " " << strategyCliName(s) << " warps " << warps
              << " line width " << lineWidth;
          // A limit no scan reaches gives the exact order too, through the
          // similarity-ordered index.
          o.candidateLimit = 1 << 30;
          EXPECT_EQ(orderOf(m, o), want)
              << name << " " << strategyCliName(s) << " warps " << warps
              << " line width " << lineWidth << " (unreached limit)";
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

//===----------------------------------------------------------------------===//
// Properties
//===----------------------------------------------------------------------===//

std::vector<std::pair<std::string, CsrMatrix>> adversarialMatrices() {
  std::vector<std::pair<std::string, CsrMatrix>> ms;
  ms.emplace_back("0x0", CsrMatrix());
  CsrMatrix noRows;
  noRows.cols = 50;
  ms.emplace_back("0 rows", noRows);
  ms.emplace_back("no columns", fromRows(0, {{}, {}, {}}));
  ms.emplace_back("one row", fromRows(10, {{3}}));
  ms.emplace_back("M < 32", generateUniform(7, 100, 0.1, 1));
  ms.emplace_back("M = 45", generateUniform(45, 500, 0.03, 2));
  ms.emplace_back("M = 100", generateRmat(6, 3, 3));
  ms.emplace_back("all empty",
                  fromRows(64, std::vector<std::vector<int32_t>>(70)));
  std::vector<std::vector<int32_t>> dense(50);
  dense[17] = span(0, 3000);
  ms.emplace_back("one dense row", fromRows(3000, dense));
  ms.emplace_back("identical rows",
                  fromRows(200, std::vector<std::vector<int32_t>>(
                                    90, {1, 40, 41, 150, 199})));
  ms.emplace_back("wide", generateUniform(40, 20000, 0.002, 4));
  ms.emplace_back("tall", generateUniform(3000, 20, 0.2, 5));
  ms.emplace_back("skewed", generateSkewed(500, 3000, 6));
  ms.emplace_back("rmat", generateRmat(10, 8, 7));
  ms.emplace_back("block", generateBlockSparse(600, 600, 12, 0.1, 8));
  return ms;
}

TEST(CacheAwareProperties, ValidAndDeterministic) {
  for (const auto &[name, m] : adversarialMatrices()) {
    ASSERT_TRUE(m.verify().isOk()) << name << ": " << m.verify().message();
    for (Strategy s : kCacheAware) {
      for (int32_t limit : {0, 1, 64}) {
        for (int32_t warps : {1, 4, 32}) {
          PermutationOptions o = optionsFor(s, warps, 32, limit);
          std::vector<int32_t> a = orderOf(m, o);
          EXPECT_TRUE(isPermutation(a, m.rows))
              << name << " " << strategyCliName(s) << " limit " << limit;
          EXPECT_EQ(orderOf(m, o), a)
              << name << " " << strategyCliName(s) << " limit " << limit;
          if (limit == 0 && m.rows <= 1024) {
            EXPECT_EQ(a, bruteForce(m, o))
                << name << " " << strategyCliName(s) << " warps " << warps;
          }
        }
      }
    }
  }
}

TEST(CacheAwareProperties, RandomMatricesGiveValidOrders) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 30; ++trial) {
    int32_t rows = static_cast<int32_t>(rng() % 400);
    int32_t cols = 1 + static_cast<int32_t>(rng() % 2000);
    double density = 0.001 + double(rng() % 100) / 1000.0;
    CsrMatrix m = generateUniform(rows, cols, density, rng());
    for (Strategy s : kCacheAware) {
      PermutationOptions o = optionsFor(
          s, 1 + int32_t(rng() % 40), 1 << (rng() % 7), int32_t(rng() % 3) * 8);
      std::vector<int32_t> a = orderOf(m, o);
      EXPECT_TRUE(isPermutation(a, m.rows)) << "trial " << trial;
      EXPECT_EQ(orderOf(m, o), a) << "trial " << trial;
    }
  }
}

TEST(CacheAwareProperties, IdenticalRowsAreGrouped) {
  // Warp family: 3 interleaved groups of 32 identical rows (2 lines each).
  // Positions 0-31 take group 0; 32-63 follow it at distance 4, in index
  // order; 64-95 repeat the rows 32 earlier. Mean distance at N_w:
  // (32 * 4 + 32 * 0) / 64 = 2 (the identity: 4).
  std::vector<std::vector<int32_t>> rows;
  for (int i = 0; i < 96; ++i)
    rows.push_back({(i % 3) * 100, (i % 3) * 100 + 50});
  CsrMatrix three = fromRows(400, rows);
  // CTA family: 4 interleaved groups; a cluster per group, so with one row
  // per warp a window holds 2 lines (the identity: 8).
  rows.clear();
  for (int i = 0; i < 128; ++i)
    rows.push_back({(i % 4) * 100, (i % 4) * 100 + 50});
  CsrMatrix four = fromRows(400, rows);
  for (Strategy s : kCacheAware) {
    for (int32_t limit : {0, 64}) {
      PermutationOptions o = optionsFor(s, 32, 32, limit);
      o.rowsPerWarp = 1;
      if (isWarpFamily(s)) {
        EXPECT_EQ(
            evaluatePermutation(three, orderOf(three, o), o).hammingWarpMean,
            2.0)
            << strategyCliName(s) << " limit " << limit;
      } else {
        EXPECT_EQ(
            evaluatePermutation(four, orderOf(four, o), o).windowLineFetches, 8)
            << strategyCliName(s) << " limit " << limit;
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Locality on shuffled structured matrices
//===----------------------------------------------------------------------===//

TEST(CacheAwareLocality, LowersHammingObjectivesOnShuffledMatrices) {
  std::vector<std::pair<std::string, CsrMatrix>> ms;
  ms.emplace_back("banded", shuffleRows(generateBanded(4096, 8, 1), 2));
  ms.emplace_back("block",
                  shuffleRows(generateBlockSparse(2048, 2048, 16, 0.05, 3), 4));
  for (const auto &[name, m] : ms) {
    PermutationOptions base;
    std::vector<int32_t> identity(m.rows);
    std::iota(identity.begin(), identity.end(), 0);
    PermutationQuality id = evaluatePermutation(m, identity, base);
    std::printf("%-7s %-11s %5s hamming(i,i+1) %7.3f hamming(i,i+Nw) %7.3f "
                "window lines %7lld\n",
                name.c_str(), "identity", "", id.hammingAdjacentMean,
                id.hammingWarpMean,
                static_cast<long long>(id.windowLineFetches));
    for (Strategy s : kCacheAware) {
      for (int32_t limit : {0, 64}) {
        PermutationOptions o = base;
        o.strategy = s;
        o.candidateLimit = limit;
        PermutationQuality q = evaluatePermutation(m, orderOf(m, o), o);
        std::printf("%-7s %-11s %5s hamming(i,i+1) %7.3f hamming(i,i+Nw) "
                    "%7.3f window lines %7lld\n",
                    name.c_str(), std::string(strategyCliName(s)).c_str(),
                    limit == 0 ? "exact" : "k=64", q.hammingAdjacentMean,
                    q.hammingWarpMean,
                    static_cast<long long>(q.windowLineFetches));
        if (isWarpFamily(s)) {
          EXPECT_LT(q.hammingWarpMean, id.hammingWarpMean)
              << name << " " << strategyCliName(s) << " limit " << limit;
        } else {
          EXPECT_LT(q.hammingAdjacentMean, id.hammingAdjacentMean)
              << name << " " << strategyCliName(s) << " limit " << limit;
          EXPECT_LT(q.windowLineFetches, id.windowLineFetches)
              << name << " " << strategyCliName(s) << " limit " << limit;
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Scale (SPPERM_SCALE_TESTS=1)
//===----------------------------------------------------------------------===//

bool scaleTestsEnabled() {
  const char *v = std::getenv("SPPERM_SCALE_TESTS");
  return v && std::string(v) == "1";
}

struct Timed {
  std::vector<int32_t> order;
  double wall = 0, cpu = 0;
};

Timed timeOrder(const CsrMatrix &m, const PermutationOptions &o) {
  Timed t;
  std::clock_t c0 = std::clock();
  auto w0 = std::chrono::steady_clock::now();
  t.order = orderOf(m, o);
  t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0)
               .count();
  t.cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
  return t;
}

TEST(CacheAwareScale, MillionRows) {
  if (!scaleTestsEnabled())
    GTEST_SKIP() << "set SPPERM_SCALE_TESTS=1";
  std::vector<std::pair<std::string, CsrMatrix>> ms;
  ms.emplace_back("rmat(20,10,1)", generateRmat(20, 10, 1));
  ms.emplace_back("banded(2^20,4,1)", generateBanded(1 << 20, 4, 1));
  ms.emplace_back("uniform 1k x 4k, 100k nnz",
                  generateUniform(1024, 4096, 0.025, 1));
  std::printf("%-26s %8s %9s %-11s %8s %8s %9s %9s\n", "matrix", "rows", "nnz",
              "strategy", "wall s", "cpu s", "H(i,i+Nw)", "win lines");
  for (const auto &[name, m] : ms) {
    for (Strategy s : kCacheAware) {
      PermutationOptions o;
      o.strategy = s;
      Timed t = timeOrder(m, o);
      ASSERT_TRUE(isPermutation(t.order, m.rows));
      PermutationQuality q = evaluatePermutation(m, t.order, o);
      std::printf("%-26s %8d %9lld %-11s %8.3f %8.3f %9.3f %9lld\n",
                  name.c_str(), m.rows, static_cast<long long>(m.nnz()),
                  std::string(strategyCliName(s)).c_str(), t.wall, t.cpu,
                  q.hammingWarpMean,
                  static_cast<long long>(q.windowLineFetches));
      std::fflush(stdout);
      // A generous bound that still catches a quadratic regression.
      EXPECT_LT(t.cpu, 60.0) << name << " " << strategyCliName(s);
    }
  }
}

TEST(CacheAwareScale, PrunedAgainstExact) {
  if (!scaleTestsEnabled())
    GTEST_SKIP() << "set SPPERM_SCALE_TESTS=1";
  std::vector<std::pair<std::string, CsrMatrix>> ms;
  ms.emplace_back("uniform 4k", generateUniform(4096, 4096, 0.005, 1));
  ms.emplace_back("uniform 16k", generateUniform(16384, 16384, 0.001, 2));
  ms.emplace_back("rmat(12)", generateRmat(12, 10, 3));
  ms.emplace_back("rmat(14)", generateRmat(14, 10, 4));
  ms.emplace_back("banded 16k shuffled",
                  shuffleRows(generateBanded(16384, 8, 5), 6));
  ms.emplace_back("block 8k shuffled",
                  shuffleRows(generateBlockSparse(8192, 8192, 16, 0.02, 7), 8));
  std::printf("objective: H(i,i+Nw) for the warp family, window lines for "
              "the CTA family\n");
  std::printf("%-20s %-11s %10s %10s %10s %9s %9s\n", "matrix", "strategy",
              "identity", "k=64", "exact", "k=64 s", "exact s");
  for (const auto &[name, m] : ms) {
    PermutationOptions base;
    std::vector<int32_t> identity(m.rows);
    std::iota(identity.begin(), identity.end(), 0);
    PermutationQuality id = evaluatePermutation(m, identity, base);
    for (Strategy s : kCacheAware) {
      PermutationOptions o = base;
      o.strategy = s;
      Timed pruned = timeOrder(m, o);
      o.candidateLimit = 0;
      Timed exact = timeOrder(m, o);
      auto objective = [&](const PermutationQuality &q) {
        return isWarpFamily(s) ? q.hammingWarpMean
                               : static_cast<double>(q.windowLineFetches);
      };
      std::printf("%-20s %-11s %10.3f %10.3f %10.3f %9.3f %9.3f\n",
                  name.c_str(), std::string(strategyCliName(s)).c_str(),
                  objective(id),
                  objective(evaluatePermutation(m, pruned.order, o)),
                  objective(evaluatePermutation(m, exact.order, o)), pruned.cpu,
                  exact.cpu);
      std::fflush(stdout);
    }
  }
}

} // namespace
