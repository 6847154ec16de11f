//===- BsaScaleTest.cpp - BSA row clustering at scale -----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// BsaScale.* run only with SPPERM_SCALE_TESTS=1: timings on 1 M-row
// matrices (at most 10 s each in optimized builds), and the pruned-vs-exact
// comparison tables (SPPERM_DLMC_DIR, default
// /work/shared/data/matrices/dlmc, adds every DLMC matrix found there).
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Permutation.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <numeric>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::detail;

namespace {

//===----------------------------------------------------------------------===//
// Scale (SPPERM_SCALE_TESTS=1).
//===----------------------------------------------------------------------===//

bool scaleTestsEnabled() {
  const char *v = std::getenv("SPPERM_SCALE_TESTS");
  return v && std::string(v) == "1";
}

/// Wall and CPU seconds of one bsaOrder run.
struct Timing {
  double wall = 0.0;
  double cpu = 0.0;
};

/// Runs bsaOrder with the given limit (default tau and alpha) into `p`.
Timing timeBsa(const CsrMatrix &m, int32_t limit, Permutation &p) {
  PermutationOptions o;
  o.strategy = Strategy::Bsa;
  o.candidateLimit = limit;
  std::clock_t cpuStart = std::clock();
  auto start = std::chrono::steady_clock::now();
  p = bsaOrder(m, o);
  auto stop = std::chrono::steady_clock::now();
  Timing t;
  t.wall = std::chrono::duration<double>(stop - start).count();
  t.cpu = static_cast<double>(std::clock() - cpuStart) / CLOCKS_PER_SEC;
  return t;
}

/// Fraction of the nnz that lies in tau x tau tiles (row tiles aligned at
/// position 0 of the reordered matrix) holding at least density * tau^2
/// entries.
double denseTileFraction(const CsrMatrix &m, const std::vector<int32_t> &order,
                         int32_t tau, double density) {
  if (m.nnz() == 0)
    return 0.0;
  const int64_t numBlocks = (static_cast<int64_t>(m.cols) + tau - 1) / tau;
  std::vector<int64_t> count(static_cast<size_t>(numBlocks), 0);
  std::vector<int64_t> touched;
  const double threshold = density * tau * tau;
  int64_t inDense = 0;
  for (size_t start = 0; start < order.size(); start += tau) {
    size_t end = std::min(order.size(), start + static_cast<size_t>(tau));
    for (size_t pos = start; pos < end; ++pos) {
      int32_t r = order[pos];
      for (int32_t k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k) {
        int64_t b = m.colIdx[k] / tau;
        if (count[b]++ == 0)
          touched.push_back(b);
      }
    }
    for (int64_t b : touched) {
      if (static_cast<double>(count[b]) >= threshold)
        inDense += count[b];
      count[b] = 0;
    }
    touched.clear();
  }
  return static_cast<double>(inDense) / static_cast<double>(m.nnz());
}

TEST(BsaScale, Rmat20) {
  if (!scaleTestsEnabled())
    GTEST_SKIP() << "set SPPERM_SCALE_TESTS=1";
  CsrMatrix m = generateRmat(20, 10, 1);
  Permutation p;
  Timing t = timeBsa(m, 64, p);
  ASSERT_TRUE(isPermutation(p.order, m.rows));
  std::printf("[ bsa scale ] rmat(20,10,1): %d rows, %lld nnz, limit 64: "
              "%.3f s (cpu %.3f s), %zu clusters\n",
              m.rows, static_cast<long long>(m.nnz()), t.wall, t.cpu,
              p.clusterSizes.size());
  // One core's time: CPU time, which other jobs on the machine inflate less
  // than wall time.
#ifdef NDEBUG
  EXPECT_LE(t.cpu, 10.0);
#endif
}

TEST(BsaScale, Banded) {
  if (!scaleTestsEnabled())
    GTEST_SKIP() << "set SPPERM_SCALE_TESTS=1";
  CsrMatrix m = generateBanded(1 << 20, 4, 1);
  for (int32_t limit : {64, 0}) {
    Permutation p;
    Timing t = timeBsa(m, limit, p);
    ASSERT_TRUE(isPermutation(p.order, m.rows));
    std::printf("[ bsa scale ] banded(2^20,4): %lld nnz, limit %d: %.3f s "
                "(cpu %.3f s), %zu clusters\n",
                static_cast<long long>(m.nnz()), limit, t.wall, t.cpu,
                p.clusterSizes.size());
#ifdef NDEBUG
    EXPECT_LE(t.cpu, 10.0);
#endif
  }
}

/// The limits the comparison runs: exact, the default, a small one.
constexpr int32_t kCompareLimits[] = {0, 64, 8};

std::string limitName(int32_t limit) {
  return limit == 0 ? "exact" : "L=" + std::to_string(limit);
}

TEST(BsaScale, PrunedVersusExact) {
  if (!scaleTestsEnabled())
    GTEST_SKIP() << "set SPPERM_SCALE_TESTS=1";
  std::vector<std::pair<std::string, CsrMatrix>> ms;
  ms.push_back({"uniform 4096^2 d=0.01", generateUniform(4096, 4096, 0.01, 1)});
  ms.push_back(
      {"uniform 2048x1024 d=0.3", generateUniform(2048, 1024, 0.3, 2)});
  for (int scale : {12, 13, 14})
    ms.push_back(
        {"rmat(" + std::to_string(scale) + ",10)", generateRmat(scale, 10, 1)});
  ms.push_back({"shuffled blocksparse 4096^2 b32 p=0.05",
                shuffleRows(generateBlockSparse(4096, 4096, 32, 0.05, 3), 4)});
  ms.push_back({"shuffled blocksparse 8192x2048 b16 p=0.2",
                shuffleRows(generateBlockSparse(8192, 2048, 16, 0.2, 5), 6)});

  std::printf("| matrix | rows | nnz | run | clusters | mean size | "
              "dense nnz (d>=0.5) | dense nnz (d>=1/8) | same order as exact "
              "| time (s) |\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto &[name, m] : ms) {
    std::vector<int32_t> identity(m.rows);
    std::iota(identity.begin(), identity.end(), 0);
    std::printf("| %s | %d | %lld | original | | | %.4f | %.4f | | |\n",
                name.c_str(), m.rows, static_cast<long long>(m.nnz()),
                denseTileFraction(m, identity, 32, 0.5),
                denseTileFraction(m, identity, 32, 0.125));
    std::vector<int32_t> exactOrder;
    for (int32_t limit : kCompareLimits) {
      Permutation p;
      Timing t = timeBsa(m, limit, p);
      ASSERT_TRUE(isPermutation(p.order, m.rows));
      if (limit == 0)
        exactOrder = p.order;
      int64_t clustered = 0;
      for (int32_t s : p.clusterSizes)
        clustered += s;
      std::printf(
          "| %s | %d | %lld | %s | %zu | %.2f | %.4f | %.4f | %s | %.4f |\n",
          name.c_str(), m.rows, static_cast<long long>(m.nnz()),
          limitName(limit).c_str(), p.clusterSizes.size(),
          p.clusterSizes.empty()
              ? 0.0
              : static_cast<double>(clustered) /
                    static_cast<double>(p.clusterSizes.size()),
          denseTileFraction(m, p.order, 32, 0.5),
          denseTileFraction(m, p.order, 32, 0.125),
          p.order == exactOrder ? "yes" : "no", t.cpu);
    }
  }

  // Every DLMC matrix found, summed per run.
  const char *dir = std::getenv("SPPERM_DLMC_DIR");
  std::string dlmc = dir ? dir : "/work/shared/data/matrices/dlmc";
  std::error_code ec;
  if (!std::filesystem::is_directory(dlmc, ec))
    return;
  std::vector<std::string> files;
  for (auto it = std::filesystem::recursive_directory_iterator(dlmc, ec);
       !ec && it != std::filesystem::recursive_directory_iterator();
       it.increment(ec)) {
    std::string path = it->path().string();
    if (path.find(".smtx") != std::string::npos)
      files.push_back(path);
  }
  std::sort(files.begin(), files.end());
  struct Sum {
    int64_t clusters = 0, sameAsExact = 0;
    double dense = 0, dense8 = 0, cpu = 0, cpuMax = 0;
  };
  Sum original, runs[3];
  int64_t count = 0, rows = 0;
  for (const std::string &path : files) {
    StatusOr<CsrMatrix> m = readMatrixFile(path);
    if (!m.isOk())
      continue;
    ++count;
    rows += m->rows;
    std::vector<int32_t> identity(m->rows);
    std::iota(identity.begin(), identity.end(), 0);
    original.dense += denseTileFraction(*m, identity, 32, 0.5);
    original.dense8 += denseTileFraction(*m, identity, 32, 0.125);
    std::vector<int32_t> exactOrder;
    for (int k = 0; k < 3; ++k) {
      Permutation p;
      Timing t = timeBsa(*m, kCompareLimits[k], p);
      ASSERT_TRUE(isPermutation(p.order, m->rows)) << path;
      if (k == 0)
        exactOrder = p.order;
      runs[k].clusters += static_cast<int64_t>(p.clusterSizes.size());
      runs[k].sameAsExact += p.order == exactOrder;
      runs[k].dense += denseTileFraction(*m, p.order, 32, 0.5);
      runs[k].dense8 += denseTileFraction(*m, p.order, 32, 0.125);
      runs[k].cpu += t.cpu;
      runs[k].cpuMax = std::max(runs[k].cpuMax, t.cpu);
    }
  }
  if (count == 0)
    return;
  std::printf("\nDLMC: %lld matrices, %lld rows in all (dense-tile columns "
              "are means over the matrices)\n\n| run | clusters (sum) | "
              "same order as exact | dense nnz (d>=0.5) | dense nnz (d>=1/8) "
              "| time sum (s) | time max (ms) |\n|---|---|---|---|---|---|---|"
              "\n| original | | | %.4f | %.4f | | |\n",
              static_cast<long long>(count), static_cast<long long>(rows),
              original.dense / count, original.dense8 / count);
  for (int k = 0; k < 3; ++k)
    std::printf("| %s | %lld | %lld/%lld | %.4f | %.4f | %.3f | %.2f |\n",
                limitName(kCompareLimits[k]).c_str(),
                static_cast<long long>(runs[k].clusters),
                static_cast<long long>(runs[k].sameAsExact),
                static_cast<long long>(count), runs[k].dense / count,
                runs[k].dense8 / count, runs[k].cpu, runs[k].cpuMax * 1e3);
}

} // namespace
