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

#include <cmath>
#include <cstddef>
#include <cstring>
#include <sstream>

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

StatusOr<Selection>
spperm::selectVariant(const std::map<std::string, double> &inputs,
                      const SelectionOptions &options,
                      const SelectorModel *model) {
  auto given = [](const std::string &s) { return !s.empty() && s != "auto"; };
  Selection out;
  if (given(options.strategy) && given(options.format)) {
    out.choice = {options.strategy, options.format};
    out.source = "forced";
    return out;
  }
  if (usesSelectorModel(options)) {
    StatusOr<SelectorModel> loaded = SelectorModel();
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
