//===- SelectorTest.cpp - The selector model's reader and inference -------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Selector.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace spperm;

namespace {

/// Two candidates over inputs log2_k and row_nnz.mean: csr/lpt is predicted
/// best for short rows, bell/identity for long ones (a stump each), and
/// cusparse a constant 0.5 behind.
const char *kModel = R"({
  "format": "spperm-selector", "version": 1, "target": "sm_90",
  "features": ["log2_k", "row_nnz.mean"],
  "candidates": [{"strategy": "lpt", "format": "csr"},
                 {"strategy": "identity", "format": "bell"},
                 {"strategy": "identity", "format": "cusparse"}],
  "learning_rate": 0.5,
  "init": [0.1, 0.1, 0.5],
  "trees": [
    [{"left": [1, -1, -1], "right": [2, -1, -1], "feature": [1, -2, -2],
      "threshold": [16.0, -2.0, -2.0], "value": [0.0, 0.0, 1.0]}],
    [{"left": [1, -1, -1], "right": [2, -1, -1], "feature": [1, -2, -2],
      "threshold": [16.0, -2.0, -2.0], "value": [0.0, 1.0, 0.0]}],
    []
  ]
})";

TEST(SelectorTest, ParsesAndRanks) {
  StatusOr<SelectorModel> model = parseSelectorModel(kModel, "m.json");
  ASSERT_TRUE(model.isOk()) << model.message();
  EXPECT_EQ(model->target, "sm_90");
  ASSERT_EQ(model->candidates.size(), 3u);
  ASSERT_EQ(model->trees[0].size(), 1u);

  auto shortRows = rankCandidates(*model, {{"log2_k", 5}, {"row_nnz.mean", 4}});
  ASSERT_TRUE(shortRows.isOk()) << shortRows.message();
  EXPECT_EQ((*shortRows)[0].candidate.format, "csr");
  EXPECT_DOUBLE_EQ((*shortRows)[0].predictedLog2Ratio, 0.1);
  EXPECT_EQ((*shortRows)[1].candidate.format, "cusparse");
  EXPECT_DOUBLE_EQ((*shortRows)[2].predictedLog2Ratio, 0.6);

  auto longRows = rankCandidates(*model, {{"log2_k", 5}, {"row_nnz.mean", 40}});
  ASSERT_TRUE(longRows.isOk());
  EXPECT_EQ((*longRows)[0].candidate.format, "bell");
  // The threshold is inclusive (x <= threshold goes left), as in sklearn.
  auto edge = rankCandidates(*model, {{"log2_k", 5}, {"row_nnz.mean", 16}});
  ASSERT_TRUE(edge.isOk());
  EXPECT_EQ((*edge)[0].candidate.format, "csr");
}

TEST(SelectorTest, MissingInputIsNamed) {
  StatusOr<SelectorModel> model = parseSelectorModel(kModel, "m.json");
  ASSERT_TRUE(model.isOk());
  auto ranked = rankCandidates(*model, {{"log2_k", 5}});
  ASSERT_FALSE(ranked.isOk());
  EXPECT_NE(ranked.message().find("'row_nnz.mean'"), std::string::npos)
      << ranked.message();
}

/// Each malformed model gets a one-line error naming the file and where.
TEST(SelectorTest, MalformedModels) {
  struct Case {
    const char *from, *to, *expect;
  };
  const Case cases[] = {
      {"\"spperm-selector\"", "\"other\"", "format must be"},
      {"\"version\": 1", "\"version\": 2", "unsupported version"},
      {"\"learning_rate\": 0.5", "\"learning_rate\": -1", "must be positive"},
      {"\"init\": [0.1, 0.1, 0.5]", "\"init\": [0.1]", "one value per candidate"},
      {"\"threshold\": [16.0, -2.0, -2.0], \"value\": [0.0, 0.0, 1.0]",
       "\"threshold\": [16.0, -2.0], \"value\": [0.0, 0.0, 1.0]",
       "same, non-zero length"},
      {"\"left\": [1, -1, -1], \"right\": [2, -1, -1], \"feature\": [1, -2, -2],\n"
       "      \"threshold\": [16.0, -2.0, -2.0], \"value\": [0.0, 0.0, 1.0]",
       "\"left\": [0, -1, -1], \"right\": [2, -1, -1], \"feature\": [1, -2, -2],\n"
       "      \"threshold\": [16.0, -2.0, -2.0], \"value\": [0.0, 0.0, 1.0]",
       "children must come after their parent"},
      {"\"feature\": [1, -2, -2],\n      \"threshold\": [16.0, -2.0, -2.0], "
       "\"value\": [0.0, 1.0, 0.0]",
       "\"feature\": [7, -2, -2],\n      \"threshold\": [16.0, -2.0, -2.0], "
       "\"value\": [0.0, 1.0, 0.0]",
       "feature index out of range"},
      {"\"target\": \"sm_90\",", "", "missing 'target'"},
      {"\"features\": [\"log2_k\", \"row_nnz.mean\"]", "\"features\": []",
       "non-empty"},
  };
  for (const Case &c : cases) {
    std::string text = kModel;
    size_t at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, std::string(c.from).size(), c.to);
    StatusOr<SelectorModel> model = parseSelectorModel(text, "bad.json");
    ASSERT_FALSE(model.isOk()) << c.expect;
    EXPECT_EQ(model.message().rfind("bad.json: ", 0), 0u) << model.message();
    EXPECT_NE(model.message().find(c.expect), std::string::npos)
        << model.message();
    EXPECT_EQ(model.message().find('\n'), std::string::npos);
  }
  EXPECT_FALSE(parseSelectorModel("{", "x.json").isOk());
  EXPECT_FALSE(parseSelectorModel("[1]", "x.json").isOk());
  EXPECT_FALSE(readSelectorModel("/nonexistent/model.json").isOk());
}

/// Property: a random full tree of depth d predicts the value of the leaf a
/// direct walk of the same thresholds reaches.
TEST(SelectorTest, RandomTreesAgreeWithAWalk) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int round = 0; round < 50; ++round) {
    const int depth = 1 + round % 5;
    RegressionTree t;
    // Breadth-first full tree: node i has children 2i + 1 and 2i + 2.
    const int nodes = (1 << (depth + 1)) - 1;
    for (int i = 0; i < nodes; ++i) {
      const bool leaf = 2 * i + 1 >= nodes;
      t.left.push_back(leaf ? -1 : 2 * i + 1);
      t.right.push_back(leaf ? -1 : 2 * i + 2);
      t.feature.push_back(leaf ? -2 : i % 3);
      t.threshold.push_back(leaf ? -2.0 : u(rng));
      t.value.push_back(u(rng));
    }
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> x = {u(rng), u(rng), u(rng)};
      int node = 0;
      for (int level = 0; level < depth; ++level)
        node = x[node % 3] <= t.threshold[node] ? 2 * node + 1 : 2 * node + 2;
      EXPECT_DOUBLE_EQ(t.predict(x), t.value[node]);
    }
  }
}

} // namespace
