//===- FormatsHbpTest.cpp - Tests of the hbp format -------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// hbp's layout on a hand-checked block, its fixed and competitive blocks,
// its determinism, and the hash reordering (the per-warp-group standard
// deviation of the seed, printed).
//
//===----------------------------------------------------------------------===//

#include "FormatsTestUtil.h"

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Formats.h"
#include "spperm/Sparse/Generators.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::test;

namespace {

/// The seed's metric for the best possible reordering: every non-empty
/// rowBlock x colBlock block of `m` with its rows sorted by length, mean
/// over the warp groups of the standard deviation of the lengths.
double sortedGroupStd(const CsrMatrix &m, int32_t rowBlock, int32_t colBlock) {
  std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> blocks;
  for (int32_t r = 0; r < m.rows; ++r)
    for (int32_t e = m.rowPtr[r]; e < m.rowPtr[r + 1]; ++e) {
      std::vector<int64_t> &len =
          blocks[{r / rowBlock, m.colIdx[e] / colBlock}];
      len.resize(rowBlock);
      ++len[r % rowBlock];
    }
  double sum = 0;
  int64_t groups = 0;
  for (auto &[id, len] : blocks) {
    std::sort(len.begin(), len.end());
    for (int32_t g = 0; g < rowBlock / 32; ++g, ++groups) {
      double mean = 0, sq = 0;
      for (int32_t t = 0; t < 32; ++t)
        mean += len[g * 32 + t] / 32.0;
      for (int32_t t = 0; t < 32; ++t)
        sq += (len[g * 32 + t] - mean) * (len[g * 32 + t] - mean);
      sum += std::sqrt(sq / 32);
    }
  }
  return groups ? sum / groups : 0.0;
}

} // namespace

TEST(FormatsHbp, LayoutOfASmallBlock) {
  // One 32-row block: row 0 has 3 entries, row 1 none, row 2 one.
  std::vector<std::vector<int32_t>> rows(32);
  rows[0] = {1, 4, 6};
  rows[2] = {5};
  CsrMatrix m = fromRows(8, rows);
  FormatOptions o;
  o.kind = FormatKind::Hbp;
  o.hbpRowBlock = 32;
  o.hbpColBlock = 8;
  o.hbpWarps = 1;
  o.hbpFixedFraction = 1.0;
  FormattedMatrix f = buildOk(m, identityOrder(32), o);
  ASSERT_TRUE(verifyFormat(f, &m).isOk());
  const HbpStorage &h = f.hbp;
  EXPECT_EQ(h.blocks, std::vector<int32_t>{0});
  EXPECT_EQ(h.beginNnz, (std::vector<int64_t>{0, 4}));
  // Slots: empty rows hash to 0; the lanes holding rows 0 and 2 are the only
  // non-empty ones. Find them and check the column-major chain.
  std::vector<int32_t> live;
  for (int32_t t = 0; t < 32; ++t)
    if (h.zeroRow[t] >= 0)
      live.push_back(t);
  ASSERT_EQ(live.size(), 2u);
  // Row 2 (1 entry) hashes before row 0 (3 entries).
  EXPECT_EQ(h.outputHash[live[0]], 2);
  EXPECT_EQ(h.outputHash[live[1]], 0);
  EXPECT_EQ(h.zeroRow[live[0]], live[0]);
  EXPECT_EQ(h.zeroRow[live[1]], live[1] - 1);
  // Round 0: row 2's entry, row 0's first; then row 0's others.
  EXPECT_EQ(h.col, (std::vector<int32_t>{5, 1, 4, 6}));
  EXPECT_EQ(h.addSign, (std::vector<int32_t>{-1, 1, 1, -1}));
  EXPECT_EQ(h.fixedBlocks, std::vector<int32_t>{0});
  EXPECT_EQ(h.fixedBlockPtr, (std::vector<int32_t>{0, 1}));
  EXPECT_TRUE(h.competitiveBlocks.empty());
}

TEST(FormatsHbp, FixedAndCompetitiveSplit) {
  CsrMatrix m = generateSkewed(1000, 1000, 51);
  FormatOptions o;
  o.kind = FormatKind::Hbp;
  o.hbpRowBlock = 64;
  o.hbpColBlock = 128;
  o.hbpWarps = 7;
  o.hbpFixedFraction = 0.6;
  FormattedMatrix f = buildOk(m, identityOrder(m.rows), o);
  ASSERT_TRUE(verifyFormat(f, &m).isOk());
  const HbpStorage &h = f.hbp;
  const int64_t s = static_cast<int64_t>(h.blocks.size());
  ASSERT_GT(s, 50);
  ASSERT_EQ(h.fixedBlockPtr.size(), 8u);
  int64_t perWarp = static_cast<int64_t>(std::floor(s * 0.6)) / 7;
  EXPECT_EQ(h.fixedBlockPtr[1], perWarp);
  EXPECT_EQ(static_cast<int64_t>(h.fixedBlocks.size()), perWarp * 7);
  auto nnzOf = [&](int32_t b) {
    return h.beginNnz[(b + 1) * 2] - h.beginNnz[b * 2];
  };
  // Competitive blocks are the heaviest, heaviest first; fixed ones are
  // grouped by column block.
  int64_t lightestCompetitive = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < h.competitiveBlocks.size(); ++i) {
    lightestCompetitive =
        std::min(lightestCompetitive, nnzOf(h.competitiveBlocks[i]));
    if (i > 0) {
      EXPECT_GE(nnzOf(h.competitiveBlocks[i - 1]),
                nnzOf(h.competitiveBlocks[i]));
    }
  }
  for (int32_t b : h.fixedBlocks)
    EXPECT_LE(nnzOf(b), lightestCompetitive);
  for (size_t i = 1; i < h.fixedBlocks.size(); ++i)
    EXPECT_LE(h.blocks[h.fixedBlocks[i - 1]] % h.blockCols,
              h.blocks[h.fixedBlocks[i]] % h.blockCols);
}

TEST(FormatsHbp, HashReducesGroupDeviation) {
  // The seed's metric on a skewed matrix: mean over warp groups of the
  // standard deviation of the row lengths in the group.
  struct Case {
    const char *name;
    CsrMatrix m;
    int32_t rowBlock, colBlock;
  };
  std::vector<Case> cases = {
      {"skewed 4096 R512 C4096", generateSkewed(4096, 4096, 61), 512, 4096},
      {"skewed 4096 R512 C512", generateSkewed(4096, 4096, 61), 512, 512},
      {"rmat-12 R512 C4096", generateRmat(12, 8, 62), 512, 4096},
      {"skewed 2000 R64 C256", generateSkewed(2000, 2000, 63), 64, 256}};
  for (const Case &c : cases) {
    FormatOptions o;
    o.kind = FormatKind::Hbp;
    o.hbpRowBlock = c.rowBlock;
    o.hbpColBlock = c.colBlock;
    FormattedMatrix f = buildOk(c.m, identityOrder(c.m.rows), o);
    ASSERT_TRUE(verifyFormat(f, &c.m).isOk());
    FormatStats st = computeFormatStats(f, c.m);
    double ideal = sortedGroupStd(c.m, c.rowBlock, c.colBlock);
    std::printf("[ hbp std ] %-24s a=%d b=%d c=%d d=%d: %.3f -> %.3f "
                "(-%.0f%%; sorted rows: %.3f)\n",
                c.name, f.hbp.hashA, f.hbp.hashB, f.hbp.hashC, f.hbp.hashD,
                st.hbpGroupStdBefore, st.hbpGroupStdAfter,
                100.0 * (1.0 - st.hbpGroupStdAfter / st.hbpGroupStdBefore),
                ideal);
    // Rows are ordered by a coarsened length, so the result comes close to
    // sorting them; the 32-row blocks cannot gain much from any order.
    EXPECT_LE(st.hbpGroupStdAfter, 1.05 * ideal + 1e-9) << c.name;
    if (c.rowBlock >= 512) {
      EXPECT_LT(st.hbpGroupStdAfter, 0.5 * st.hbpGroupStdBefore) << c.name;
    }
  }
}

TEST(FormatsHbp, Deterministic) {
  CsrMatrix m = generateRmat(10, 8, 71);
  FormatOptions o;
  o.kind = FormatKind::Hbp;
  o.hbpRowBlock = 64;
  o.hbpColBlock = 256;
  FormattedMatrix a = buildOk(m, identityOrder(m.rows), o);
  FormattedMatrix b = buildOk(m, identityOrder(m.rows), o);
  EXPECT_EQ(a.hbp.outputHash, b.hbp.outputHash);
  EXPECT_EQ(a.hbp.col, b.hbp.col);
  EXPECT_EQ(a.hbp.addSign, b.hbp.addSign);
  EXPECT_EQ(a.hbp.competitiveBlocks, b.hbp.competitiveBlocks);
}
