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

#include "spperm/Sparse/Features.h"
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

/// The most candidates of one format a model's shortlist may name.
constexpr int kMaxShortlist = 8;

/// The largest `max-variants` (`--max-variants`) accepted: the most
/// variants, the choice included, a layer may carry for the runtime to time.
constexpr int64_t kMaxVariantsLimit = 64;

/// The most stored entries a layer's variants may hold together unless
/// `SelectionOptions::maxVariants` says otherwise: compile time and package
/// size grow with them (a bell variant of a 10.9 M-entry block matrix adds
/// 4 s), so a layer of more than a third of this carries two variants, of
/// more than half (10.5 M entries) the choice alone, which keeps
/// spperm-compile within 5 s on 10 M-entry layers
/// (tools/selector/train.py's SHORTLIST_ENTRIES).
constexpr double kShortlistEntries = 21e6;

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
  /// A candidate other than cuSPARSE is chosen over it only when predicted
  /// faster by this much (log2 units; "margin" in the file, default 0).
  double margin = 0.0;
  /// The margin for layers whose choice the runtime checks against cuSPARSE
  /// at their first call (the library check, spperm-compile's default): a
  /// wrong guess there costs only the check, so it may be negative (down to
  /// -1: the best generated candidate runs when cuSPARSE is predicted ahead
  /// by less; "checked_margin" in the file; the margin when absent).
  double checkedMargin = 0.0;
  /// A risk prior per format ("format_penalty" in the file, log2 units):
  /// added to a candidate's prediction when ranking, so that a format whose
  /// misses cost much (bell on the wrong matrix is 2-4x slower) is chosen
  /// only when predicted clearly ahead.
  std::map<std::string, double> formatPenalty;
  /// The training range of some inputs ("domain" in the file): an
  /// unchecked layer outside it gets cuSPARSE rather than an extrapolated
  /// guess (a checked one is verified against cuSPARSE at run time).
  std::map<std::string, std::pair<double, double>> domain;
  /// How many of each format's best-ranked candidates a layer whose choice
  /// the runtime checks carries ("shortlist" in the file, format name to
  /// count, each in [0, kMaxShortlist]): the runtime times them all at the
  /// first call per K and runs the fastest (docs/Selector.md, "The
  /// shortlist"). Empty: the choice alone.
  std::map<std::string, int> shortlist;
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
  /// What the ranking sorts by: the prediction plus the model's penalty for
  /// the candidate's format.
  double score = 0.0;
};

/// The candidates of `model`, best (lowest score) first, for the
/// named input values; an error names the first input the model needs that
/// `inputs` lacks (a missing `row_nnz_histogram.*` bucket is 0: the
/// features leave out empty trailing buckets).
StatusOr<std::vector<RankedCandidate>>
rankCandidates(const SelectorModel &model,
               const std::map<std::string, double> &inputs);

/// The inputs a model may name, for a matrix with features `f` multiplied
/// by K = `k` columns: every flattened feature ("rows", "row_nnz.mean", as
/// `spperm-inspect --json` nests them), "k" and "log2_k".
std::map<std::string, double> selectorInputs(const Features &f, int64_t k);

/// The same from features already flattened to `group.name` keys (what
/// `#spperm.features` holds): `features` with "k" and "log2_k" added.
std::map<std::string, double>
selectorInputs(std::map<std::string, double> features, int64_t k);

/// `ranked` with the best generated (non-cuSPARSE) candidate first when
/// its score plus `margin` (log2 units) is at most cuSPARSE's, else with
/// cuSPARSE first. A margin >= 0 asks a generated candidate to be ahead by
/// that much; a negative one lets it run when cuSPARSE is ahead by less.
std::vector<RankedCandidate>
applyCusparseMargin(std::vector<RankedCandidate> ranked, double margin);

/// The analytic fallback for targets without a trained model, over the
/// inputs of selectorInputs (it reads `k`, `rows`, `nnz`, `line_reuse`,
/// `cta_imbalance.mean` and `blocks32.dense_nnz_share`): each of
/// csr/identity, csr/lpt, bell/bsa and cuSPARSE is given the time its
/// compulsory traffic takes at the H100's bandwidth (or the launch floor),
/// stretched by the CTA imbalance its row order leaves; best first, as
/// log2 ratios to the best (docs/Selector.md, "The cost model").
std::vector<RankedCandidate>
rankByCostModel(const std::map<std::string, double> &inputs);

/// Whether a model for `target` ("sm_90") is built into spperm
/// (tools/selector/models/TARGET.json; compiled into SpPermSelect).
bool hasShippedSelectorModel(const std::string &target);

/// The targets of the shipped models, as "sm_90" or "sm_80, sm_90".
std::string shippedSelectorTargets();

/// Why a selection for `target`, which has no shipped model, ranks with
/// the cost model: "spperm ships no selector model for sm_80 (its models
/// are for sm_90): the cost model ranks the candidates (...)", for a
/// warning that the caller ends with how to choose otherwise.
std::string costModelFallbackReason(const std::string &target);

/// The warning for a model file trained on another target than `target`,
/// or "" when it was trained on it.
std::string otherTargetWarning(const std::string &modelPath,
                               const SelectorModel &model,
                               const std::string &target);

/// The model built in for `target`, parsed.
StatusOr<SelectorModel> shippedSelectorModel(const std::string &target);

/// The K a package for any K is chosen for (spperm-compile without --k,
/// spperm-inspect --explain --k 0; docs/Compile.md).
constexpr int64_t kAnyKSelectionK = 32;

/// How a variant is chosen: the options of `spperm-select` and of
/// `spperm-compile --strategy auto --format auto`.
struct SelectionOptions {
  /// A model file; empty: the model shipped for `target`, or the cost
  /// model when there is none.
  std::string modelPath;
  std::string target = "sm_90";
  /// Use the analytic cost model even when a model exists.
  bool costModel = false;
  /// Overrides the model's cuSPARSE margin when not negative (log2 units:
  /// 0.1 asks a generated variant to be predicted >= 7 % faster).
  double margin = -1.0;
  /// The runtime will check the choice against cuSPARSE (the package's
  /// `library_check`): the model's checked margin applies, and a layer
  /// outside the model's domain keeps the model's pick.
  bool libraryCheck = false;
  /// With the library check, the most variants (the choice included) a
  /// layer carries for the runtime to time: 0 takes the model's shortlist
  /// within kShortlistEntries, 1 carries the choice alone.
  int64_t maxVariants = 0;
  /// A forced strategy or format (empty or "auto": chosen). With one of
  /// them forced, the best-ranked candidate that has it wins; with both,
  /// no model is consulted.
  std::string strategy, format;
};

/// Checks SelectionOptions::margin as spperm-select and spperm-compile take
/// it: a number at most 64 (negative: the model's own). Returns the problem
/// ("margin must be ..., got X"), or an empty string when it is valid.
std::string checkMargin(double margin);

/// Selection::source of a choice the user forced (both strategy and format
/// given): taken as it is, not checked against cuSPARSE at run time.
constexpr const char *kForcedSource = "forced";

/// A choice and how it was made.
struct Selection {
  SelectorCandidate choice;
  /// Every candidate, best first, as the model (after its cuSPARSE margin)
  /// or the cost model ranked them; empty when both were forced.
  std::vector<RankedCandidate> ranked;
  /// "model FILE", "shipped model TARGET", "cost model" or "forced"; with
  /// ", outside its domain (NAME = V)" when the layer is outside the
  /// model's domain: without the library check the layer then goes to
  /// cuSPARSE; with it the model's pick stands and the source adds
  /// ": checked against cuSPARSE at run time".
  std::string source;
  /// The runner-ups the runtime times beside the choice at the first call
  /// per K: with the library check, a learned model with a shortlist,
  /// nothing forced and a generated choice, the best-ranked candidates of
  /// each format up to the model's count for it (the choice counts for its
  /// format), each format's best before any format's second, at most
  /// `maxVariants` - 1 (or as many as kShortlistEntries allows); otherwise
  /// empty.
  std::vector<SelectorCandidate> alternatives;
};

/// Whether `options` choose with a learned model (a model file, or the
/// model shipped for the target) rather than the cost model.
bool usesSelectorModel(const SelectionOptions &options);

/// The learned model `options` name: the file, else the shipped one.
StatusOr<SelectorModel> loadSelectorModel(const SelectionOptions &options);

/// Chooses a variant for a layer with the inputs of selectorInputs. When
/// `options` use a learned model, `model` is it (loaded once by a caller
/// that selects for many layers); null loads it here.
StatusOr<Selection> selectVariant(const std::map<std::string, double> &inputs,
                                  const SelectionOptions &options,
                                  const SelectorModel *model = nullptr);

} // namespace spperm

#endif // SPPERM_SPARSE_SELECTOR_H
