//===- FormatsVerifyTest.cpp - Tests of verifyFormat ------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// verifyFormat on corrupted formats: targeted corruptions of every array of
// every format, and random garbage; it must reject them, never crash, and
// whatever it accepts the executor must run safely and right.
//
//===----------------------------------------------------------------------===//

#include "FormatsTestUtil.h"

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Formats.h"
#include "spperm/Sparse/Generators.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace spperm;
using namespace spperm::test;

TEST(FormatsVerify, RejectsTargetedCorruption) {
  CsrMatrix m = generateSkewed(300, 280, 81);
  std::vector<int32_t> order = randomOrder(m.rows, 82);
  FormatOptions bo;
  bo.kind = FormatKind::Bell;
  bo.bellBlock = 8;
  bo.bellDelta = 0.1;
  FormatOptions ho;
  ho.kind = FormatKind::Hbp;
  ho.hbpRowBlock = 64;
  ho.hbpColBlock = 64;
  ho.hbpWarps = 3;
  FormattedMatrix csr = buildOk(m, order, FormatOptions());
  FormattedMatrix bell = buildOk(m, order, bo);
  FormattedMatrix hbp = buildOk(m, order, ho);
  ASSERT_GT(bell.bell.width, 0);
  ASSERT_GT(bell.bell.residual.nnz(), 0);

  auto rejects = [&](FormattedMatrix f, const char *what, bool needsOriginal) {
    if (!needsOriginal) {
      EXPECT_FALSE(verifyFormat(f).isOk()) << what;
    }
    EXPECT_FALSE(verifyFormat(f, &m).isOk()) << what;
  };
  {
    FormattedMatrix f = csr;
    f.order[0] = f.order[1];
    rejects(f, "csr order", false);
    f = csr;
    f.csr.values[5] += 1.0f;
    rejects(f, "csr value", true);
    f = csr;
    std::swap(f.order[0], f.order[1]);
    rejects(f, "csr swapped rows", true);
    f = csr;
    f.nnz += 1;
    rejects(f, "csr nnz", false);
  }
  {
    FormattedMatrix f = bell;
    f.bell.blockCol[0] = 10000;
    rejects(f, "bell block column", false);
    f = bell;
    f.bell.width += 1;
    rejects(f, "bell width", false);
    f = bell;
    f.bell.blockValues.pop_back();
    rejects(f, "bell values size", false);
    f = bell;
    f.bell.denseNnz -= 1;
    rejects(f, "bell denseNnz", false);
    f = bell;
    f.bell.delta = 0;
    rejects(f, "bell delta", false);
    f = bell;
    // A value where the original has no entry: find an in-range zero.
    size_t z = 0;
    while (f.bell.blockValues[z] != 0.0f)
      ++z;
    f.bell.blockValues[z] = 1.0f;
    rejects(f, "bell extra value", true);
    f = bell;
    size_t nz = 0;
    while (f.bell.blockValues[nz] == 0.0f)
      ++nz;
    f.bell.blockValues[nz] *= 2.0f;
    rejects(f, "bell changed value", true);
    f = bell;
    f.bell.residual.values[0] += 1.0f;
    rejects(f, "bell residual value", true);
  }
  {
    FormatOptions co = bo;
    co.bellColumns = BellColumns::Condensed;
    co.bellDelta = 0.25;
    FormattedMatrix cbell = buildOk(m, order, co);
    ASSERT_TRUE(cbell.bell.condensed);
    ASSERT_GT(cbell.bell.width, 0);
    ASSERT_GT(cbell.bell.residual.nnz(), 0);
    FormattedMatrix f = cbell;
    f.bell.tileCol[0] = m.cols;
    rejects(f, "condensed tile column range", false);
    f = cbell;
    f.bell.tileCol.pop_back();
    rejects(f, "condensed tile column count", false);
    f = cbell;
    f.bell.blockCol[0] += 1;
    rejects(f, "condensed block column", false);
    f = cbell;
    std::swap(f.bell.tileCol[0], f.bell.tileCol[1]);
    rejects(f, "condensed tile column order", false);
    f = cbell;
    f.bell.condensed = false;
    rejects(f, "tile columns without condensed", false);
    f = bell;
    f.bell.condensed = true;
    rejects(f, "condensed without tile columns", false);
    f = cbell;
    // A tile column moved to another column: its values would be read
    // against the wrong B row.
    size_t last = 0;
    while (last + 1 < f.bell.tileCol.size() && f.bell.tileCol[last + 1] >= 0)
      ++last;
    f.bell.tileCol[last] += 1;
    if (last + 1 < f.bell.tileCol.size() || f.bell.tileCol[last] < m.cols)
      rejects(f, "condensed tile column moved", true);
  }
  {
    FormattedMatrix f = hbp;
    std::swap(f.hbp.outputHash[0], f.hbp.outputHash[1]);
    // Two empty rows may swap harmlessly; swap a live with an empty lane.
    f = hbp;
    int32_t live = -1, dead = -1;
    for (int32_t t = 0; t < 32; ++t)
      (f.hbp.zeroRow[t] >= 0 ? live : dead) = t;
    ASSERT_GE(live, 0);
    if (dead >= 0) {
      std::swap(f.hbp.outputHash[live], f.hbp.outputHash[dead]);
      rejects(f, "hbp output hash", true);
    }
    f = hbp;
    f.hbp.outputHash[0] = f.hbp.outputHash[1];
    rejects(f, "hbp output hash duplicate", false);
    f = hbp;
    f.hbp.addSign[0] = 1000000;
    rejects(f, "hbp add sign", false);
    f = hbp;
    f.hbp.addSign[f.hbp.addSign.size() - 1] = 1;
    rejects(f, "hbp last add sign", false);
    f = hbp;
    f.hbp.col[0] = -5;
    rejects(f, "hbp column", false);
    f = hbp;
    f.hbp.data[3] = -f.hbp.data[3] + 1.0f;
    rejects(f, "hbp value", true);
    f = hbp;
    f.hbp.beginNnz[1] += 1;
    rejects(f, "hbp begin", false);
    f = hbp;
    f.hbp.zeroRow[live] = -1;
    rejects(f, "hbp zero row", false);
    f = hbp;
    f.hbp.blocks[0] = f.hbp.blockRows * f.hbp.blockCols;
    rejects(f, "hbp block id", false);
    f = hbp;
    if (!f.hbp.competitiveBlocks.empty()) {
      f.hbp.competitiveBlocks[0] = f.hbp.competitiveBlocks.back() + 0;
      f.hbp.competitiveBlocks.push_back(0);
      rejects(f, "hbp block lists", false);
    }
    f = hbp;
    f.hbp.fixedBlockPtr.back() += 1;
    rejects(f, "hbp fixed ptr", false);
  }
  FormattedMatrix f = csr;
  f.kind = static_cast<FormatKind>(7);
  rejects(f, "kind", false);
}

TEST(FormatsVerify, SurvivesRandomGarbage) {
  // Random corruption of every field: verifyFormat must return (either
  // way) without crashing or reading out of bounds, and what it accepts
  // must still compute the right product.
  CsrMatrix m = generateSkewed(200, 190, 91);
  std::vector<int32_t> order = randomOrder(m.rows, 92);
  std::vector<FormattedMatrix> bases;
  for (const FormatOptions &o : allConfigs())
    if (o.hbpRowBlock <= 64 || o.kind != FormatKind::Hbp)
      bases.push_back(buildOk(m, order, o));
  std::mt19937_64 rng(93);
  auto pick = [&](int64_t n) {
    return static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
  };
  auto garbage = [&]() -> int64_t {
    switch (pick(6)) {
    case 0:
      return -1;
    case 1:
      return 0;
    case 2:
      return pick(100);
    case 3:
      return std::numeric_limits<int32_t>::max();
    case 4:
      return std::numeric_limits<int32_t>::min();
    default:
      return static_cast<int32_t>(rng());
    }
  };
  auto poke = [&](auto &vec) {
    if (vec.empty() || pick(4) == 0) {
      vec.resize(static_cast<size_t>(pick(8)));
      return;
    }
    vec[pick(static_cast<int64_t>(vec.size()))] =
        static_cast<typename std::decay_t<decltype(vec)>::value_type>(
            garbage());
  };
  int rejected = 0, total = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    FormattedMatrix f = bases[pick(static_cast<int64_t>(bases.size()))];
    int mutations = 1 + static_cast<int>(pick(3));
    for (int i = 0; i < mutations; ++i) {
      switch (pick(24)) {
      case 0: f.rows = static_cast<int32_t>(garbage()); break;
      case 1: f.cols = static_cast<int32_t>(garbage()); break;
      case 2: f.nnz = garbage(); break;
      case 3: poke(f.order); break;
      case 4: poke(f.csr.rowPtr); break;
      case 5: poke(f.csr.colIdx); break;
      case 6: f.bell.block = static_cast<int32_t>(garbage()); break;
      case 7: f.bell.width = static_cast<int32_t>(garbage()); break;
      case 8: f.bell.blockRows = static_cast<int32_t>(garbage()); break;
      case 9: poke(f.bell.blockCol); break;
      case 10: poke(f.bell.blockValues); break;
      case 11: poke(f.bell.residual.rowPtr); break;
      case 12: f.bell.denseNnz = garbage(); break;
      case 13: f.hbp.rowBlock = static_cast<int32_t>(garbage()); break;
      case 14: f.hbp.colBlock = static_cast<int32_t>(garbage()); break;
      case 15: poke(f.hbp.blocks); break;
      case 16: poke(f.hbp.col); break;
      case 17: poke(f.hbp.addSign); break;
      case 18: poke(f.hbp.zeroRow); break;
      case 19: poke(f.hbp.beginNnz); break;
      case 20: poke(f.hbp.outputHash); break;
      case 21: poke(f.hbp.fixedBlocks); break;
      case 22: poke(f.hbp.fixedBlockPtr); break;
      default: f.hbp.blockCols = static_cast<int32_t>(garbage()); break;
      }
    }
    ++total;
    bool ok1 = verifyFormat(f).isOk();
    bool ok2 = verifyFormat(f, &m).isOk();
    EXPECT_FALSE(ok2 && !ok1);
    rejected += !ok2;
    // Whatever verifyFormat accepts, the executor runs safely and right.
    if (ok2)
      expectSpmmMatches(f, m, 3, "accepted mutation");
  }
  std::printf("[ garbage ] %d of %d corrupted formats rejected\n", rejected,
              total);
  EXPECT_GT(rejected, total / 2);
}
