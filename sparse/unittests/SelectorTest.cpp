//===- SelectorTest.cpp - The selector model's reader and inference -------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Selector.h"

#include "spperm/Sparse/Generators.h"

#include <gtest/gtest.h>

#include <algorithm>
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
      {"\"init\": [0.1, 0.1, 0.5]", "\"init\": [0.1]",
       "one value per candidate"},
      {"\"threshold\": [16.0, -2.0, -2.0], \"value\": [0.0, 0.0, 1.0]",
       "\"threshold\": [16.0, -2.0], \"value\": [0.0, 0.0, 1.0]",
       "same, non-zero length"},
      {"\"left\": [1, -1, -1], \"right\": [2, -1, -1], \"feature\": [1, -2, "
       "-2],\n"
       "      \"threshold\": [16.0, -2.0, -2.0], \"value\": [0.0, 0.0, 1.0]",
       "\"left\": [0, -1, -1], \"right\": [2, -1, -1], \"feature\": [1, -2, "
       "-2],\n"
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
      {"\"format\": \"bell\"", "\"format\": \"ellpack\"",
       "candidates[1].format: unknown format 'ellpack' (expected csr, bell, "
       "hbp or cusparse)"},
      {"\"format\": \"bell\"", "\"format\": \"Bell\"", "did you mean 'bell'?"},
      {"\"strategy\": \"lpt\"", "\"strategy\": \"fast\"",
       "candidates[0].strategy: unknown strategy 'fast' (expected identity, "},
      {"\"strategy\": \"lpt\", \"format\": \"csr\"",
       "\"strategy\": \"identity\", \"format\": \"cusparse\"",
       "candidates[2]: repeats candidates[0] (strategy 'identity', format "
       "'cusparse')"},
      {"\"learning_rate\": 0.5",
       "\"learning_rate\": 0.5, "
       "\"format_penalty\": {\"ellpack\": 0.1}",
       "format_penalty.ellpack: unknown format 'ellpack'"},
      {"\"learning_rate\": 0.5",
       "\"learning_rate\": 0.5, "
       "\"shortlist\": {\"cs\": 1}",
       "shortlist.cs: unknown format 'cs'"},
      {"\"version\": 1,", "\"version\": 1,,", "not valid JSON: line 2, column"},
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
  // Either spelling of a strategy names the same candidate.
  {
    std::string text = kModel;
    text.replace(text.find("\"lpt\""), 5, "\"warp_aware\"");
    StatusOr<SelectorModel> model = parseSelectorModel(text, "m.json");
    ASSERT_TRUE(model.isOk()) << model.message();
    EXPECT_EQ(model->candidates[0].strategy, "warp-aware");
  }
  EXPECT_FALSE(parseSelectorModel("{", "x.json").isOk());
  EXPECT_FALSE(parseSelectorModel("[1]", "x.json").isOk());
  EXPECT_FALSE(readSelectorModel("/nonexistent/model.json").isOk());
}

/// A syntax error says where, in one short line, however long the token.
TEST(SelectorTest, SyntaxErrorsSayWhereInOneShortLine) {
  StatusOr<SelectorModel> m = parseSelectorModel(
      "{\"a\": \"" + std::string(1 << 20, 'a') + "\x01\"}", "long.json");
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.message().rfind("long.json: not valid JSON: line 1, column ", 0),
            0u)
      << m.message();
  EXPECT_LT(m.message().size(), 300u);
  EXPECT_EQ(m.message().find('\n'), std::string::npos);
  EXPECT_NE(m.message().find("aaa...'"), std::string::npos) << m.message();
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

namespace {

std::vector<RankedCandidate> ranking(std::vector<double> predictions) {
  const char *formats[] = {"csr", "bell", "cusparse", "hbp"};
  std::vector<RankedCandidate> out;
  for (size_t i = 0; i < predictions.size(); ++i)
    out.push_back({{"identity", formats[i % 4]}, predictions[i],
                   predictions[i]});
  return out;
}

} // namespace

/// cuSPARSE moves first unless the best candidate beats it by the margin.
TEST(SelectorTest, CusparseMargin) {
  auto kept = applyCusparseMargin(ranking({0.0, 0.05, 0.2}), 0.1);
  EXPECT_EQ(kept[0].candidate.format, "csr");
  auto moved = applyCusparseMargin(ranking({0.0, 0.05, 0.08}), 0.1);
  ASSERT_EQ(moved.size(), 3u);
  EXPECT_EQ(moved[0].candidate.format, "cusparse");
  EXPECT_EQ(moved[1].candidate.format, "csr");
  EXPECT_EQ(moved[2].candidate.format, "bell");
  // Exactly the margin keeps the candidate; no cuSPARSE: unchanged.
  EXPECT_EQ(applyCusparseMargin(ranking({0.0, 0.05, 0.1}), 0.1)[0]
                .candidate.format,
            "csr");
  EXPECT_EQ(applyCusparseMargin(ranking({0.0, 0.05}), 5.0)[0].candidate.format,
            "csr");
}

/// A negative margin puts the best generated candidate ahead of a cuSPARSE
/// the model ranks first by less than -margin, and only then.
TEST(SelectorTest, NegativeCusparseMargin) {
  std::vector<RankedCandidate> libraryFirst = {
      {{"identity", "cusparse"}, 0.0, 0.0},
      {{"lpt", "csr"}, 0.05, 0.05},
      {{"identity", "bell"}, 0.3, 0.3}};
  auto ahead = applyCusparseMargin(libraryFirst, -0.1);
  ASSERT_EQ(ahead.size(), 3u);
  EXPECT_EQ(ahead[0].candidate.format, "csr");
  EXPECT_EQ(ahead[1].candidate.format, "cusparse");
  EXPECT_EQ(ahead[2].candidate.format, "bell");
  EXPECT_EQ(applyCusparseMargin(libraryFirst, -0.03)[0].candidate.format,
            "cusparse");
  EXPECT_EQ(applyCusparseMargin(libraryFirst, 0.0)[0].candidate.format,
            "cusparse");
  // Exactly -margin behind: the generated candidate runs.
  EXPECT_EQ(applyCusparseMargin(libraryFirst, -0.05)[0].candidate.format,
            "csr");
  // Only cuSPARSE: unchanged.
  EXPECT_EQ(applyCusparseMargin({libraryFirst[0]}, -1.0)[0].candidate.format,
            "cusparse");
}

/// The model's margin is read, and must not be negative.
TEST(SelectorTest, MarginIsRead) {
  std::string text = kModel;
  text.replace(text.find("\"learning_rate\""), 0, "\"margin\": 0.25, ");
  StatusOr<SelectorModel> model = parseSelectorModel(text, "m.json");
  ASSERT_TRUE(model.isOk()) << model.message();
  EXPECT_DOUBLE_EQ(model->margin, 0.25);
  std::string negative = kModel;
  negative.replace(negative.find("\"learning_rate\""), 0,
                   "\"margin\": -1, ");
  StatusOr<SelectorModel> bad = parseSelectorModel(negative, "m.json");
  ASSERT_FALSE(bad.isOk());
  EXPECT_EQ(bad.message(), "m.json: margin: must not be negative");
}

/// The checked margin (down to -1) and the format penalties are read (and
/// checked); the checked margin is the margin when absent.
TEST(SelectorTest, CheckedMarginAndPenaltyAreRead) {
  std::string text = kModel;
  text.replace(text.find("\"learning_rate\""), 0,
               "\"margin\": 0.25, \"checked_margin\": 0.05, "
               "\"format_penalty\": {\"bell\": 0.5}, ");
  StatusOr<SelectorModel> model = parseSelectorModel(text, "m.json");
  ASSERT_TRUE(model.isOk()) << model.message();
  EXPECT_DOUBLE_EQ(model->margin, 0.25);
  EXPECT_DOUBLE_EQ(model->checkedMargin, 0.05);
  EXPECT_DOUBLE_EQ(model->formatPenalty.at("bell"), 0.5);
  std::string plain = kModel;
  plain.replace(plain.find("\"learning_rate\""), 0, "\"margin\": 0.25, ");
  StatusOr<SelectorModel> noChecked = parseSelectorModel(plain, "m.json");
  ASSERT_TRUE(noChecked.isOk()) << noChecked.message();
  EXPECT_DOUBLE_EQ(noChecked->checkedMargin, 0.25);
  EXPECT_TRUE(noChecked->formatPenalty.empty());
  std::string negative = kModel;
  negative.replace(negative.find("\"learning_rate\""), 0,
                   "\"margin\": 0.0, \"checked_margin\": -0.15, ");
  StatusOr<SelectorModel> below = parseSelectorModel(negative, "m.json");
  ASSERT_TRUE(below.isOk()) << below.message();
  EXPECT_DOUBLE_EQ(below->checkedMargin, -0.15);
  for (const char *bad : {"\"checked_margin\": -1.5, ",
                          "\"format_penalty\": {\"bell\": -0.5}, ",
                          "\"format_penalty\": [1], "}) {
    std::string t = kModel;
    t.replace(t.find("\"learning_rate\""), 0, bad);
    StatusOr<SelectorModel> m = parseSelectorModel(t, "m.json");
    ASSERT_FALSE(m.isOk()) << bad;
    EXPECT_EQ(m.message().rfind("m.json: ", 0), 0u) << m.message();
  }
}

/// A format penalty reorders the ranking without changing the predictions;
/// the checked margin applies when the runtime checks the choice.
TEST(SelectorTest, PenaltyAndCheckedMarginChoose) {
  StatusOr<SelectorModel> model = shippedSelectorModel("sm_90");
  ASSERT_TRUE(model.isOk()) << model.message();
  CsrMatrix m = generateBlockSparse(2048, 1024, 32, 0.2, 3);
  std::map<std::string, double> in = selectorInputs(computeFeatures(m), 128);
  SelectorModel free = *model;
  free.formatPenalty.clear();
  StatusOr<std::vector<RankedCandidate>> a = rankCandidates(free, in);
  StatusOr<std::vector<RankedCandidate>> b = rankCandidates(*model, in);
  ASSERT_TRUE(a.isOk() && b.isOk());
  std::map<std::string, double> predicted;
  for (const RankedCandidate &c : *a)
    predicted[c.candidate.strategy + "/" + c.candidate.format] =
        c.predictedLog2Ratio;
  for (const RankedCandidate &c : *b)
    EXPECT_DOUBLE_EQ(
        c.predictedLog2Ratio,
        predicted.at(c.candidate.strategy + "/" + c.candidate.format));
  // Margins far apart: without the check cuSPARSE must win, with it the
  // best score does.
  SelectorModel wide = *model;
  wide.margin = 64.0;
  wide.checkedMargin = 0.0;
  wide.domain.clear();
  SelectionOptions plain, checked;
  checked.libraryCheck = true;
  StatusOr<Selection> p = selectVariant(in, plain, &wide);
  StatusOr<Selection> c = selectVariant(in, checked, &wide);
  ASSERT_TRUE(p.isOk() && c.isOk());
  EXPECT_EQ(p->choice.format, "cusparse");
  EXPECT_EQ(c->choice.strategy + "/" + c->choice.format,
            b->front().candidate.strategy + "/" + b->front().candidate.format);
}

/// A layer outside the model's domain gets cuSPARSE unless the runtime
/// will check the choice; either way the source says which input is out.
TEST(SelectorTest, DomainGuardsOnlyUncheckedChoices) {
  StatusOr<SelectorModel> model = shippedSelectorModel("sm_90");
  ASSERT_TRUE(model.isOk()) << model.message();
  CsrMatrix m = generateBanded(4096, 8, 2);
  std::map<std::string, double> in = selectorInputs(computeFeatures(m), 32);
  SelectorModel narrow = *model;
  narrow.margin = 0.0;
  // With the check, the best generated candidate wins whatever cuSPARSE's
  // prediction: the test is about the domain, not the margin.
  narrow.checkedMargin = -64.0;
  narrow.domain.clear();
  narrow.domain["rows"] = {0.0, 100.0};
  StatusOr<std::vector<RankedCandidate>> ranked = rankCandidates(narrow, in);
  ASSERT_TRUE(ranked.isOk()) << ranked.message();
  const SelectorCandidate *best = nullptr;
  for (const RankedCandidate &c : *ranked)
    if (c.candidate.format != "cusparse") {
      best = &c.candidate;
      break;
    }
  ASSERT_NE(best, nullptr);
  SelectionOptions plain, checked;
  checked.libraryCheck = true;
  StatusOr<Selection> p = selectVariant(in, plain, &narrow);
  StatusOr<Selection> c = selectVariant(in, checked, &narrow);
  ASSERT_TRUE(p.isOk() && c.isOk());
  EXPECT_EQ(p->choice.format, "cusparse");
  EXPECT_NE(p->source.find(", outside its domain (rows = 4096)"),
            std::string::npos)
      << p->source;
  EXPECT_EQ(p->source.find("checked"), std::string::npos) << p->source;
  EXPECT_EQ(c->choice.strategy + "/" + c->choice.format,
            best->strategy + "/" + best->format);
  EXPECT_NE(c->source.find(", outside its domain (rows = 4096): checked "
                           "against cuSPARSE at run time"),
            std::string::npos)
      << c->source;
  // Inside the domain neither mentions it.
  narrow.domain["rows"] = {0.0, 1e9};
  StatusOr<Selection> inside = selectVariant(in, plain, &narrow);
  ASSERT_TRUE(inside.isOk());
  EXPECT_EQ(inside->source.find("domain"), std::string::npos);
}

/// The shortlist, against a direct reference on random constant models:
/// only with the library check and a generated choice; the choice first
/// in its format; per format at most the model's count, best predicted
/// first; each format's best before any format's second; at most
/// maxVariants in all, or what kShortlistEntries allows for the layer's nnz.
TEST(SelectorTest, ShortlistProperties) {
  std::mt19937 rng(11);
  const std::vector<SelectorCandidate> all = {
      {"identity", "csr"}, {"lpt", "csr"},      {"bsa", "csr"},
      {"hybrid-1", "csr"}, {"identity", "bell"}, {"bsa", "bell"},
      {"lpt", "bell"},     {"identity", "hbp"},  {"identity", "cusparse"}};
  for (int trial = 0; trial < 300; ++trial) {
    SelectorModel model;
    model.target = "sm_90";
    model.features = {"log2_k"};
    model.candidates = all;
    model.checkedMargin = -1.0;
    std::uniform_real_distribution<double> value(0.0, 2.0);
    for (size_t c = 0; c < all.size(); ++c) {
      model.init.push_back(value(rng));
      model.trees.emplace_back();
    }
    std::uniform_int_distribution<int> count(0, 3);
    model.shortlist = {{"csr", count(rng)}, {"bell", count(rng)}};
    if (trial % 7 == 0)
      model.shortlist["hbp"] = 1;
    const int64_t maxVariants = trial % 3 == 0 ? 0 : 1 + trial % 4;
    const double nnz = trial % 5 == 0 ? 9e6 : 1e4;
    std::map<std::string, double> in = {{"log2_k", 5.0}, {"nnz", nnz}};
    SelectionOptions options;
    options.libraryCheck = trial % 11 != 0;
    options.maxVariants = maxVariants;
    StatusOr<Selection> s = selectVariant(in, options, &model);
    ASSERT_TRUE(s.isOk()) << s.message();
    if (!options.libraryCheck || s->choice.format == "cusparse") {
      EXPECT_TRUE(s->alternatives.empty());
      continue;
    }
    // The reference: per format, its candidates best first (the choice
    // leads its own); take them place by place, each place in rank order.
    std::map<std::string, std::vector<SelectorCandidate>> byFormat;
    byFormat[s->choice.format].push_back(s->choice);
    for (const RankedCandidate &c : s->ranked)
      if (c.candidate.format != "cusparse" &&
          !(c.candidate.format == s->choice.format &&
            c.candidate.strategy == s->choice.strategy))
        byFormat[c.candidate.format].push_back(c.candidate);
    std::vector<SelectorCandidate> want;
    for (int place = 0; place < 8; ++place) {
      std::vector<std::pair<size_t, SelectorCandidate>> here;
      for (auto &[format, list] : byFormat) {
        auto it = model.shortlist.find(format);
        const int limit = it == model.shortlist.end() ? 0 : it->second;
        if (place == 0 && format == s->choice.format)
          continue;
        if (place < static_cast<int>(list.size()) && place < limit) {
          size_t rank = 0;
          while (s->ranked[rank].candidate.strategy != list[place].strategy ||
                 s->ranked[rank].candidate.format != list[place].format)
            ++rank;
          here.push_back({rank, list[place]});
        }
      }
      std::sort(here.begin(), here.end(),
                [](const auto &a, const auto &b) { return a.first < b.first; });
      for (auto &[rank, c] : here)
        want.push_back(c);
    }
    int64_t cap = maxVariants > 0
                      ? maxVariants
                      : std::max<int64_t>(
                            1, static_cast<int64_t>(kShortlistEntries / nnz));
    if (static_cast<int64_t>(want.size()) > cap - 1)
      want.resize(static_cast<size_t>(cap - 1));
    ASSERT_EQ(s->alternatives.size(), want.size()) << "trial " << trial;
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_EQ(s->alternatives[i].strategy + "/" + s->alternatives[i].format,
                want[i].strategy + "/" + want[i].format)
          << "trial " << trial << " place " << i;
  }
}

/// The shipped model has a shortlist; a malformed one is refused.
TEST(SelectorTest, ShortlistIsRead) {
  StatusOr<SelectorModel> shipped = shippedSelectorModel("sm_90");
  ASSERT_TRUE(shipped.isOk()) << shipped.message();
  EXPECT_EQ(shipped->shortlist.at("csr"), 3);
  EXPECT_EQ(shipped->shortlist.at("bell"), 2);
  std::string base = kModel;
  const std::string anchor = "\"learning_rate\": 0.5,";
  for (const char *bad : {"\"shortlist\": [3],", "\"shortlist\": {\"csr\": -1},",
                          "\"shortlist\": {\"csr\": 99},",
                          "\"shortlist\": {\"csr\": 1.5},",
                          "\"shortlist\": {\"cusparse\": 1},"}) {
    std::string text = base;
    text.replace(text.find(anchor), anchor.size(), anchor + bad);
    StatusOr<SelectorModel> m = parseSelectorModel(text, "m.json");
    EXPECT_FALSE(m.isOk()) << bad;
    if (!m.isOk())
      EXPECT_NE(m.message().find("shortlist"), std::string::npos)
          << m.message();
  }
}

/// The inputs carry every feature under its `spperm-inspect --json` name.
TEST(SelectorTest, InputsFromFeatures) {
  CsrMatrix m = generateBanded(256, 3, 1);
  std::map<std::string, double> in = selectorInputs(computeFeatures(m), 128);
  EXPECT_EQ(in.at("rows"), 256);
  EXPECT_EQ(in.at("k"), 128);
  EXPECT_EQ(in.at("log2_k"), 7);
  EXPECT_EQ(in.at("row_nnz.max"), 7);
  EXPECT_TRUE(in.count("cta_imbalance.mean"));
  EXPECT_TRUE(in.count("blocks32.dense_nnz_share"));
}

/// The shipped sm_90 model parses, and every input it names exists for a
/// real matrix; its choice is one of its candidates (property over random
/// matrices).
TEST(SelectorTest, ShippedModelRanksRandomMatrices) {
  ASSERT_TRUE(hasShippedSelectorModel("sm_90"));
  EXPECT_FALSE(hasShippedSelectorModel("sm_00"));
  StatusOr<SelectorModel> model = shippedSelectorModel("sm_90");
  ASSERT_TRUE(model.isOk()) << model.message();
  std::mt19937 rng(7);
  for (int trial = 0; trial < 10; ++trial) {
    const int32_t rows = 64 + static_cast<int32_t>(rng() % 2000);
    CsrMatrix m = generateUniform(rows, rows, 0.001 + (rng() % 50) / 1000.0,
                                  static_cast<uint64_t>(trial));
    for (int64_t k : {1, 32, 128, 512}) {
      StatusOr<Selection> s =
          selectVariant(selectorInputs(computeFeatures(m), k), {});
      ASSERT_TRUE(s.isOk()) << s.message();
      EXPECT_EQ(s->source, "shipped model sm_90");
      EXPECT_EQ(s->ranked.size(), model->candidates.size());
      EXPECT_EQ(s->ranked.front().candidate.format, s->choice.format);
      EXPECT_EQ(s->ranked.front().candidate.strategy, s->choice.strategy);
      // Best score first (cuSPARSE may have been moved ahead by the
      // margin); a score is the prediction plus the format's penalty.
      for (size_t i = 0; i < s->ranked.size(); ++i) {
        const RankedCandidate &c = s->ranked[i];
        auto pen = model->formatPenalty.find(c.candidate.format);
        EXPECT_DOUBLE_EQ(c.score,
                         c.predictedLog2Ratio +
                             (pen == model->formatPenalty.end() ? 0.0
                                                                : pen->second));
        if (i > 0 && s->ranked[i - 1].candidate.format != "cusparse") {
          EXPECT_LE(s->ranked[i - 1].score, c.score);
        }
      }
    }
  }
}

/// Forcing, the cost model for targets without a model, and errors.
TEST(SelectorTest, SelectVariantOptions) {
  CsrMatrix m = generateBanded(512, 4, 1);
  std::map<std::string, double> in = selectorInputs(computeFeatures(m), 32);
  SelectionOptions forced;
  forced.strategy = "bsa";
  forced.format = "bell";
  StatusOr<Selection> f = selectVariant({}, forced);
  ASSERT_TRUE(f.isOk());
  EXPECT_EQ(f->source, "forced");
  EXPECT_EQ(f->choice.strategy, "bsa");
  EXPECT_TRUE(f->ranked.empty());

  SelectionOptions unknownTarget;
  unknownTarget.target = "sm_00";
  StatusOr<Selection> c = selectVariant(in, unknownTarget);
  ASSERT_TRUE(c.isOk());
  EXPECT_EQ(c->source, "cost model");
  EXPECT_EQ(c->ranked.size(), 4u);
  EXPECT_EQ(c->ranked.front().predictedLog2Ratio, 0.0);

  SelectionOptions halfForced;
  halfForced.format = "bell";
  StatusOr<Selection> h = selectVariant(in, halfForced);
  ASSERT_TRUE(h.isOk());
  EXPECT_EQ(h->choice.format, "bell");

  SelectionOptions missing;
  missing.modelPath = "/nonexistent/model.json";
  StatusOr<Selection> e = selectVariant(in, missing);
  ASSERT_FALSE(e.isOk());
  EXPECT_EQ(e.message(),
            "/nonexistent/model.json: cannot open the selector model: No "
            "such file or directory");
}

/// The cost model ranks its four candidates with the lightest traffic
/// first: on a block-dense matrix bell/bsa beats csr/identity.
TEST(SelectorTest, CostModelPrefersDenseBlocks) {
  std::map<std::string, double> in = {
      {"k", 128},        {"rows", 1e5},
      {"nnz", 1e7},      {"line_reuse", 4},
      {"cta_imbalance.mean", 1.0}, {"blocks32.dense_nnz_share", 0.9}};
  std::vector<RankedCandidate> r = rankByCostModel(in);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r.front().candidate.format, "bell");
  in["blocks32.dense_nnz_share"] = 0.0;
  in["cta_imbalance.mean"] = 1.6;
  r = rankByCostModel(in);
  EXPECT_EQ(r.front().candidate.strategy, "lpt");
  EXPECT_EQ(r.front().candidate.format, "csr");
}
