//===- SpellingTest.cpp - Tests of the likely-slip rule ---------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Spelling.h"

#include "gtest/gtest.h"

#include <random>

using namespace spperm;

namespace {

const std::vector<std::string_view> kStrategies = {
    "identity", "lpt",        "warp-aware", "cta-aware",
    "hybrid-1", "hybrid-2.1", "hybrid-2.2", "hybrid-2.3",
    "hybrid-3", "bsa",        "auto"};

TEST(SpellingTest, EditDistanceIgnoresCase) {
  EXPECT_EQ(editDistanceIgnoringCase("", ""), 0u);
  EXPECT_EQ(editDistanceIgnoringCase("abc", ""), 3u);
  EXPECT_EQ(editDistanceIgnoringCase("", "abc"), 3u);
  EXPECT_EQ(editDistanceIgnoringCase("LPT", "lpt"), 0u);
  EXPECT_EQ(editDistanceIgnoringCase("kitten", "sitting"), 3u);
  EXPECT_EQ(editDistanceIgnoringCase("warp_aware", "warp-aware"), 1u);
  EXPECT_EQ(editDistanceIgnoringCase("condenced", "condensed"), 1u);
}

/// The distance is a metric: symmetric, zero only for equal strings (up to
/// case), and within the triangle inequality, on random short strings.
TEST(SpellingTest, EditDistanceIsAMetric) {
  std::mt19937 rng(7);
  auto word = [&] {
    std::string w(rng() % 7, 'a');
    for (char &c : w)
      c = "abAB-"[rng() % 5];
    return w;
  };
  for (int trial = 0; trial < 2000; ++trial) {
    const std::string a = word(), b = word(), c = word();
    const size_t ab = editDistanceIgnoringCase(a, b);
    EXPECT_EQ(ab, editDistanceIgnoringCase(b, a));
    EXPECT_LE(ab, std::max(a.size(), b.size()));
    EXPECT_GE(ab,
              a.size() > b.size() ? a.size() - b.size() : b.size() - a.size());
    EXPECT_LE(editDistanceIgnoringCase(a, c),
              ab + editDistanceIgnoringCase(b, c));
  }
}

TEST(SpellingTest, CaseOnlyComesFirst) {
  EXPECT_EQ(didYouMean("LPT", kStrategies), "; did you mean 'lpt'?");
  EXPECT_EQ(didYouMean("Hybrid-1", kStrategies), "; did you mean 'hybrid-1'?");
}

TEST(SpellingTest, PrefixesNameEveryNameTheyBegin) {
  EXPECT_EQ(didYouMean("hybrid-2", kStrategies),
            "; did you mean one of 'hybrid-2.1', 'hybrid-2.2', "
            "'hybrid-2.3'?");
  EXPECT_EQ(didYouMean("ID", kStrategies), "; did you mean 'identity'?");
  // One letter begins too many names to be a slip of any.
  EXPECT_EQ(didYouMean("h", kStrategies), "");
}

TEST(SpellingTest, NearestWhereNear) {
  EXPECT_EQ(didYouMean("warp_aware", kStrategies),
            "; did you mean 'warp-aware'?");
  EXPECT_EQ(didYouMean("hybrid1", kStrategies), "; did you mean 'hybrid-1'?");
  EXPECT_EQ(didYouMean("presicion", {"precision", "preset", "k"}),
            "; did you mean 'precision'?");
}

TEST(SpellingTest, NothingWhereNothingIsNear) {
  EXPECT_EQ(didYouMean("frobnicate", kStrategies), "");
  // Short names are a letter or two from others: bf16 is no misspelt f16.
  EXPECT_EQ(didYouMean("bf16", {"f32", "f16", "tf32"}), "");
  EXPECT_EQ(didYouMean("lp", {"lpt"}), "; did you mean 'lpt'?");
  EXPECT_EQ(didYouMean("xpt", {"lpt"}), "");
  EXPECT_EQ(didYouMean("anything", {}), "");
  EXPECT_EQ(didYouMean("", kStrategies), "");
}

TEST(SpellingTest, SlipsAreThePositionsInOrder) {
  EXPECT_EQ(likelySlips("hybrid-2", kStrategies),
            (std::vector<size_t>{5, 6, 7}));
  EXPECT_EQ(likelySlips("bsa", kStrategies), (std::vector<size_t>{9}));
  EXPECT_TRUE(likelySlips("zzz", kStrategies).empty());
}

TEST(SpellingTest, MessageForms) {
  EXPECT_EQ(didYouMean(std::vector<std::string>{}), "");
  EXPECT_EQ(didYouMean(std::vector<std::string>{"--k"}),
            "; did you mean '--k'?");
  EXPECT_EQ(didYouMean(std::vector<std::string>{"a", "b", "c"}),
            "; did you mean one of 'a', 'b', 'c'?");
}

} // namespace
