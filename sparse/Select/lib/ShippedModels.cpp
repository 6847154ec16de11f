//===- ShippedModels.cpp - The selector models built into spperm ----------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The models of tools/selector/models/, embedded at build time
// (cmake/EmbedFiles.cmake) and parsed when asked for; and the selection
// that uses them.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Selector.h"

#include "spperm/Sparse/Names.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <map>
#include <sstream>
#include <tuple>

namespace {
struct ShippedModel {
  const char *target;
  const char *bytes;
  size_t size;
};
#include "ShippedModels.inc"
} // namespace

using namespace spperm;

bool spperm::hasShippedSelectorModel(const std::string &target) {
  for (const ShippedModel &m : kShippedModels)
    if (target == m.target)
      return true;
  return false;
}

std::string spperm::shippedSelectorTargets() {
  std::string out;
  for (const ShippedModel &m : kShippedModels)
    out += (out.empty() ? "" : ", ") + std::string(m.target);
  return out;
}

std::string spperm::costModelFallbackReason(const std::string &target) {
  const std::string targets = shippedSelectorTargets();
  return "spperm ships no selector model for " + target +
         (targets.empty() ? " (it ships none)"
                          : " (its models are for " + targets + ")") +
         ": the cost model ranks the candidates (docs/Selector.md, \"The "
         "cost model\")";
}

std::string spperm::otherTargetWarning(const std::string &modelPath,
                                       const SelectorModel &model,
                                       const std::string &target) {
  if (model.target == target)
    return "";
  return "the model " + modelPath + " was trained on " + model.target +
         ", and the target is " + target +
         ": its predictions are for the GPU it was trained on";
}

StatusOr<SelectorModel>
spperm::shippedSelectorModel(const std::string &target) {
  for (const ShippedModel &m : kShippedModels)
    if (target == m.target)
      return parseSelectorModel(std::string(m.bytes, m.size),
                                "<shipped model " + target + ">");
  return Status::error("no shipped selector model for target '" + target +
                       "'");
}

bool spperm::usesSelectorModel(const SelectionOptions &options) {
  return !options.costModel && (!options.modelPath.empty() ||
                                hasShippedSelectorModel(options.target));
}

StatusOr<SelectorModel>
spperm::loadSelectorModel(const SelectionOptions &options) {
  return options.modelPath.empty() ? shippedSelectorModel(options.target)
                                   : readSelectorModel(options.modelPath);
}

namespace {

/// The runner-ups of a checked choice: the generated candidates of
/// `ranked` (best first) up to the model's shortlist count for their format
/// (the choice fills the first place of its own), each format's best before
/// any format's second (by rank within a place), and no more than
/// `maxVariants` - 1 of them, or when that is 0, no more than the entry
/// budget allows (kShortlistEntries / `nnz` variants in all).
std::vector<SelectorCandidate>
shortlistOf(const SelectorModel &model,
            const std::vector<RankedCandidate> &ranked,
            const SelectorCandidate &choice, int64_t maxVariants, double nnz) {
  std::vector<SelectorCandidate> out;
  if (choice.format == kCusparse || model.shortlist.empty())
    return out;
  int64_t variants = maxVariants;
  if (variants <= 0)
    variants = std::max<int64_t>(
        1, static_cast<int64_t>(kShortlistEntries / std::max(1.0, nnz)));
  std::map<std::string, int> place = {{choice.format, 1}};
  // (place within its format, rank, index into ranked)
  std::vector<std::tuple<int, size_t, size_t>> order;
  for (size_t i = 0; i < ranked.size(); ++i) {
    const SelectorCandidate &cand = ranked[i].candidate;
    if (cand.format == kCusparse ||
        (cand.format == choice.format && cand.strategy == choice.strategy))
      continue;
    auto count = model.shortlist.find(cand.format);
    int &taken = place[cand.format];
    if (count == model.shortlist.end() || taken >= count->second)
      continue;
    order.emplace_back(taken++, i, i);
  }
  std::sort(order.begin(), order.end());
  for (const auto &[taken, rank, index] : order) {
    if (static_cast<int64_t>(out.size()) + 1 >= variants)
      break;
    out.push_back(ranked[index].candidate);
  }
  return out;
}

} // namespace

StatusOr<Selection>
spperm::selectVariant(const std::map<std::string, double> &inputs,
                      const SelectionOptions &options,
                      const SelectorModel *model) {
  auto given = [](const std::string &s) { return !s.empty() && s != "auto"; };
  Selection out;
  if (given(options.strategy) && given(options.format)) {
    out.choice = {options.strategy, options.format};
    out.source = kForcedSource;
    return out;
  }
  // The model read here when the caller has none; it outlives the ranking
  // (the shortlist below reads it too).
  StatusOr<SelectorModel> loaded = SelectorModel();
  const bool learned = usesSelectorModel(options);
  if (learned) {
    if (!model) {
      loaded = loadSelectorModel(options);
      if (!loaded)
        return Status::error(loaded.message());
      model = &*loaded;
    }
    StatusOr<std::vector<RankedCandidate>> ranked =
        rankCandidates(*model, inputs);
    if (!ranked)
      return Status::error(ranked.message());
    out.ranked = applyCusparseMargin(
        std::move(*ranked),
        options.margin >= 0
            ? options.margin
            : (options.libraryCheck ? model->checkedMargin : model->margin));
    out.source = options.modelPath.empty()
                     ? "shipped model " + options.target
                     : "model " + options.modelPath;
    for (const auto &[name, range] : model->domain) {
      auto it = inputs.find(name);
      if (it == inputs.end())
        return Status::error("selector: the model's domain names input '" +
                             name + "', which the layer's features lack");
      if (it->second >= range.first && it->second <= range.second)
        continue;
      // Outside the matrices the model was trained on. An unchecked
      // choice goes to the library; a checked one keeps the model's pick,
      // since the runtime's check runs the library if the guess is wrong.
      std::ostringstream why;
      why << ", outside its domain (" << name << " = " << it->second << ")";
      if (options.libraryCheck)
        why << ": checked against cuSPARSE at run time";
      else
        out.ranked = applyCusparseMargin(std::move(out.ranked), HUGE_VAL);
      out.source += why.str();
      break;
    }
  } else {
    out.ranked = rankByCostModel(inputs);
    out.source = "cost model";
  }
  for (const RankedCandidate &c : out.ranked) {
    if ((!given(options.strategy) || c.candidate.strategy == options.strategy) &&
        (!given(options.format) || c.candidate.format == options.format)) {
      out.choice = c.candidate;
      if (learned && model && options.libraryCheck &&
          !given(options.strategy) && !given(options.format))
        out.alternatives =
            shortlistOf(*model, out.ranked, out.choice, options.maxVariants,
                        inputs.count("nnz") ? inputs.at("nnz") : 0.0);
      return out;
    }
  }
  // No candidate has the forced value: keep it, and take the other half
  // from the best candidate.
  out.choice = out.ranked.front().candidate;
  if (given(options.strategy))
    out.choice.strategy = options.strategy;
  if (given(options.format))
    out.choice.format = options.format;
  return out;
}
