//===- Selector.h - The learned selector's model and inference --*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The model the learned selector ships (docs/Selector.md): for each
// candidate variant (a permutation strategy and a storage format, or the
// cuSPARSE path), gradient-boosted regression trees over the static
// features and K predict log2 of the candidate's time over the fastest
// candidate's. Selection ranks the candidates by that prediction. The model
// is a JSON file written by the training script from scikit-learn's tree
// arrays; this is its reader and the inference, with no Python and no
// exceptions at compile time.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_SELECTOR_H
#define SPPERM_SPARSE_SELECTOR_H

#include "spperm/Sparse/Status.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace spperm {

/// A regression tree in scikit-learn's array form: node 0 is the root; node
/// i is a leaf when left[i] == -1 (and right[i] == -1), otherwise
/// x[feature[i]] <= threshold[i] continues at left[i], else at right[i];
/// children come after their parent. value[i] is a leaf's prediction.
struct RegressionTree {
  std::vector<int32_t> left, right, feature;
  std::vector<double> threshold, value;

  /// The prediction for the inputs `x` (indexed like the model's features).
  double predict(const std::vector<double> &x) const;
};

/// A variant the selector chooses among: a strategy and a format, by their
/// command-line names (`--strategy`, `--format`; format "cusparse" is the
/// library path).
struct SelectorCandidate {
  std::string strategy;
  std::string format;
};

/// A gradient-boosted model: for candidate c, the predicted log2(time of c /
/// time of the fastest candidate) is init[c] + learningRate * the sum of
/// trees[c]'s predictions.
struct SelectorModel {
  /// The GPU the timings came from ("sm_90").
  std::string target;
  /// The names of the inputs, in the order the trees index them: "k",
  /// "log2_k", or flattened feature names ("rows", "row_nnz.mean", ...).
  std::vector<std::string> features;
  std::vector<SelectorCandidate> candidates;
  double learningRate = 1.0;
  std::vector<double> init;
  std::vector<std::vector<RegressionTree>> trees;
};

/// Parses a model from the text of its JSON file; errors are one line that
/// starts with `path`.
StatusOr<SelectorModel> parseSelectorModel(const std::string &text,
                                           const std::string &path);

/// Reads and parses the model file at `path`.
StatusOr<SelectorModel> readSelectorModel(const std::string &path);

/// A candidate and its predicted log2 time ratio to the fastest.
struct RankedCandidate {
  SelectorCandidate candidate;
  double predictedLog2Ratio = 0.0;
};

/// The candidates of `model`, best (lowest predicted ratio) first, for the
/// named input values; an error names the first input the model needs that
/// `inputs` lacks.
StatusOr<std::vector<RankedCandidate>>
rankCandidates(const SelectorModel &model,
               const std::map<std::string, double> &inputs);

} // namespace spperm

#endif // SPPERM_SPARSE_SELECTOR_H
