//===- Selector.cpp - The learned selector's model and inference ----------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Selector.h"

#include "spperm/Sparse/Escape.h"
#include "spperm/Sparse/JsonSyntax.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Names.h"
#include "spperm/Sparse/Spelling.h"
#include "spperm/Sparse/Strategy.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <type_traits>

#include <sys/stat.h>

using namespace spperm;
using json = nlohmann::json;

double RegressionTree::predict(const std::vector<double> &x) const {
  int32_t node = 0;
  while (left[node] >= 0)
    node = x[feature[node]] <= threshold[node] ? left[node] : right[node];
  return value[node];
}

namespace {

/// The candidate of strategy `s` in storage `format` (a format choice).
SelectorCandidate candidate(Strategy s, std::string_view format) {
  return {std::string(strategyCliName(s)), std::string(format)};
}

/// "unknown strategy 'NAME' (expected ...)", with a likely slip named.
std::string unknownStrategy(const std::string &name) {
  std::vector<std::string_view> names;
  std::string list;
  for (Strategy s : kAllStrategies) {
    names.push_back(strategyCliName(s));
    list += (list.empty() ? "" : ", ") + std::string(strategyCliName(s));
  }
  return "unknown strategy " + spperm::quoted(name) + " (expected " + list +
         ")" + didYouMean(name, names);
}

/// "unknown format 'NAME' (expected csr, bell, hbp or cusparse)".
std::string unknownFormatChoice(const std::string &name) {
  const std::vector<std::string_view> names = {
      format_name::kCsr, format_name::kBell, format_name::kHbp, kCusparse};
  return "unknown format " + spperm::quoted(name) +
         " (expected csr, bell, hbp or cusparse)" + didYouMean(name, names);
}

/// Reads the model's JSON without exceptions: each accessor reports the
/// first problem as "PATH: WHERE: what".
class ModelReader {
public:
  explicit ModelReader(std::string path) : path(std::move(path)) {}

  Status fail(const std::string &where, const std::string &what) const {
    return Status::error(path + ": " + where + ": " + what);
  }

  const json *field(const json &object, const std::string &where,
                    const char *key, Status &status) const {
    auto it = object.find(key);
    if (it == object.end()) {
      status = fail(where, std::string("missing '") + key + "'");
      return nullptr;
    }
    return &*it;
  }

  bool string(const json &object, const std::string &where, const char *key,
              std::string &out, Status &status) const {
    const json *v = field(object, where, key, status);
    if (!v)
      return false;
    if (!v->is_string()) {
      status = fail(where, std::string("'") + key + "' must be a string");
      return false;
    }
    out = v->get<std::string>();
    return true;
  }

  bool number(const json &v, const std::string &where, double &out,
              Status &status) const {
    if (!v.is_number() || !std::isfinite(v.get<double>())) {
      status = fail(where, "must be a finite number");
      return false;
    }
    out = v.get<double>();
    return true;
  }

  template <typename T>
  bool numbers(const json &object, const std::string &where, const char *key,
               std::vector<T> &out, Status &status) const {
    const json *v = field(object, where, key, status);
    if (!v)
      return false;
    if (!v->is_array()) {
      status = fail(where, std::string("'") + key + "' must be an array");
      return false;
    }
    out.clear();
    for (size_t i = 0; i < v->size(); ++i) {
      const json &e = (*v)[i];
      std::string at = where + "." + key + "[" + std::to_string(i) + "]";
      if constexpr (std::is_integral_v<T>) {
        if (!e.is_number_integer() || e.get<int64_t>() < INT32_MIN ||
            e.get<int64_t>() > INT32_MAX) {
          status = fail(at, "must be a 32-bit integer");
          return false;
        }
        out.push_back(static_cast<T>(e.get<int64_t>()));
      } else {
        double d;
        if (!number(e, at, d, status))
          return false;
        out.push_back(d);
      }
    }
    return true;
  }

  /// A tree whose arrays agree in length, whose children follow their
  /// parents (so every walk ends) and whose features exist.
  bool tree(const json &t, const std::string &where, size_t featureCount,
            RegressionTree &out, Status &status) const {
    if (!t.is_object()) {
      status = fail(where, "must be an object");
      return false;
    }
    if (!numbers(t, where, "left", out.left, status) ||
        !numbers(t, where, "right", out.right, status) ||
        !numbers(t, where, "feature", out.feature, status) ||
        !numbers(t, where, "threshold", out.threshold, status) ||
        !numbers(t, where, "value", out.value, status))
      return false;
    const size_t n = out.left.size();
    if (n == 0 || out.right.size() != n || out.feature.size() != n ||
        out.threshold.size() != n || out.value.size() != n) {
      status = fail(where, "left, right, feature, threshold and value must "
                           "have the same, non-zero length");
      return false;
    }
    for (size_t i = 0; i < n; ++i) {
      const std::string at = where + " node " + std::to_string(i);
      const int32_t l = out.left[i], r = out.right[i];
      if (l < 0 || r < 0) {
        if (l != -1 || r != -1) {
          status = fail(at, "a leaf has left = right = -1");
          return false;
        }
        continue;
      }
      if (static_cast<size_t>(l) <= i || static_cast<size_t>(l) >= n ||
          static_cast<size_t>(r) <= i || static_cast<size_t>(r) >= n) {
        status = fail(at, "children must come after their parent, inside "
                          "the tree");
        return false;
      }
      if (out.feature[i] < 0 ||
          static_cast<size_t>(out.feature[i]) >= featureCount) {
        status = fail(at, "feature index out of range");
        return false;
      }
    }
    return true;
  }

private:
  std::string path;
};

/// Best (lowest predicted ratio) first, ties in their given order.
void sortByPrediction(std::vector<RankedCandidate> &ranked) {
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const RankedCandidate &a, const RankedCandidate &b) {
                     return a.score < b.score;
                   });
}

} // namespace

StatusOr<SelectorModel> spperm::parseSelectorModel(const std::string &text,
                                                   const std::string &path) {
  if (std::string syntax = jsonSyntaxError(text); !syntax.empty())
    return Status::error(path + ": not valid JSON: " + syntax);
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded())
    return Status::error(path + ": not valid JSON");
  if (!root.is_object())
    return Status::error(path + ": a selector model is a JSON object");
  ModelReader r(path);
  Status status = Status::ok();
  std::string kind;
  if (!r.string(root, "model", "format", kind, status))
    return status;
  if (kind != "spperm-selector")
    return r.fail("model", "format must be \"spperm-selector\", got \"" +
                               kind + "\"");
  const json *version = r.field(root, "model", "version", status);
  if (!version)
    return status;
  if (!version->is_number_integer() || version->get<int64_t>() != 1)
    return r.fail("model", "unsupported version (this build reads 1)");

  SelectorModel model;
  if (!r.string(root, "model", "target", model.target, status))
    return status;
  const json *features = r.field(root, "model", "features", status);
  if (!features)
    return status;
  if (!features->is_array() || features->empty())
    return r.fail("model", "'features' must be a non-empty array");
  for (const json &f : *features) {
    if (!f.is_string())
      return r.fail("model", "'features' must hold strings");
    model.features.push_back(f.get<std::string>());
  }
  const json *candidates = r.field(root, "model", "candidates", status);
  if (!candidates)
    return status;
  if (!candidates->is_array() || candidates->empty())
    return r.fail("model", "'candidates' must be a non-empty array");
  for (size_t i = 0; i < candidates->size(); ++i) {
    const json &c = (*candidates)[i];
    std::string at = "candidates[" + std::to_string(i) + "]";
    if (!c.is_object())
      return r.fail(at, "must be an object");
    SelectorCandidate cand;
    if (!r.string(c, at, "strategy", cand.strategy, status) ||
        !r.string(c, at, "format", cand.format, status))
      return status;
    std::optional<Strategy> strategy = parseStrategy(cand.strategy);
    if (!strategy)
      return r.fail(at + ".strategy", unknownStrategy(cand.strategy));
    if (!isFormatChoice(cand.format))
      return r.fail(at + ".format", unknownFormatChoice(cand.format));
    // One spelling of each strategy, so that candidates compare by name.
    cand.strategy = std::string(strategyCliName(*strategy));
    for (size_t j = 0; j < model.candidates.size(); ++j)
      if (model.candidates[j].strategy == cand.strategy &&
          model.candidates[j].format == cand.format)
        return r.fail(at, "repeats candidates[" + std::to_string(j) +
                              "] (strategy '" + cand.strategy + "', format '" +
                              cand.format + "')");
    model.candidates.push_back(std::move(cand));
  }
  const json *rate = r.field(root, "model", "learning_rate", status);
  if (!rate)
    return status;
  if (!r.number(*rate, "learning_rate", model.learningRate, status))
    return status;
  if (model.learningRate <= 0)
    return r.fail("learning_rate", "must be positive");
  if (root.contains("margin")) {
    if (!r.number(root["margin"], "margin", model.margin, status))
      return status;
    if (model.margin < 0)
      return r.fail("margin", "must not be negative");
  }
  model.checkedMargin = model.margin;
  if (root.contains("checked_margin")) {
    if (!r.number(root["checked_margin"], "checked_margin",
                  model.checkedMargin, status))
      return status;
    if (model.checkedMargin < -1)
      return r.fail("checked_margin", "must not be below -1");
  }
  if (root.contains("format_penalty")) {
    const json &penalty = root["format_penalty"];
    if (!penalty.is_object())
      return r.fail("format_penalty",
                    "must be an object of format names to numbers");
    for (auto it = penalty.begin(); it != penalty.end(); ++it) {
      double v = 0.0;
      if (!r.number(it.value(), "format_penalty." + it.key(), v, status))
        return status;
      if (!isFormatChoice(it.key()))
        return r.fail("format_penalty." + it.key(),
                      unknownFormatChoice(it.key()));
      if (v < 0)
        return r.fail("format_penalty." + it.key(), "must not be negative");
      model.formatPenalty[it.key()] = v;
    }
  }
  if (root.contains("shortlist")) {
    const json &shortlist = root["shortlist"];
    if (!shortlist.is_object())
      return r.fail("shortlist",
                    "must be an object of format names to counts");
    for (auto it = shortlist.begin(); it != shortlist.end(); ++it) {
      const json &n = it.value();
      if (!n.is_number_integer() || n.get<int64_t>() < 0 ||
          n.get<int64_t>() > kMaxShortlist)
        return r.fail("shortlist." + it.key(),
                      "must be an integer in [0, " +
                          std::to_string(kMaxShortlist) + "]");
      if (!isFormatChoice(it.key()))
        return r.fail("shortlist." + it.key(), unknownFormatChoice(it.key()));
      if (it.key() == kCusparse)
        return r.fail("shortlist.cusparse",
                      "the library is always timed; only generated formats "
                      "are listed");
      model.shortlist[it.key()] = static_cast<int>(n.get<int64_t>());
    }
  }
  if (root.contains("domain")) {
    const json &domain = root["domain"];
    if (!domain.is_object())
      return r.fail("domain", "must be an object of [low, high] ranges");
    for (auto it = domain.begin(); it != domain.end(); ++it) {
      const json &range = it.value();
      std::string at = "domain." + it.key();
      if (!range.is_array() || range.size() != 2 || !range[0].is_number() ||
          !range[1].is_number() || range[0].get<double>() > range[1].get<double>())
        return r.fail(at, "must be [low, high] with low <= high");
      model.domain[it.key()] = {range[0].get<double>(), range[1].get<double>()};
    }
  }
  if (!r.numbers(root, "model", "init", model.init, status))
    return status;
  const size_t count = model.candidates.size();
  if (model.init.size() != count)
    return r.fail("init", "needs one value per candidate");
  const json *trees = r.field(root, "model", "trees", status);
  if (!trees)
    return status;
  if (!trees->is_array() || trees->size() != count)
    return r.fail("trees", "needs one list of trees per candidate");
  model.trees.resize(count);
  for (size_t c = 0; c < count; ++c) {
    const json &list = (*trees)[c];
    std::string at = "trees[" + std::to_string(c) + "]";
    if (!list.is_array())
      return r.fail(at, "must be an array of trees");
    for (size_t t = 0; t < list.size(); ++t) {
      RegressionTree tree;
      if (!r.tree(list[t], at + "[" + std::to_string(t) + "]",
                  model.features.size(), tree, status))
        return status;
      model.trees[c].push_back(std::move(tree));
    }
  }
  return model;
}

StatusOr<SelectorModel> spperm::readSelectorModel(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return Status::error(
        path + ": cannot open the selector model: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    return directoryGivenForFile(path, "selector model");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error(path + ": cannot open the selector model");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    return Status::error(path + ": cannot read the selector model");
  return parseSelectorModel(text.str(), path);
}

StatusOr<std::vector<RankedCandidate>>
spperm::rankCandidates(const SelectorModel &model,
                       const std::map<std::string, double> &inputs) {
  std::vector<double> x;
  for (const std::string &name : model.features) {
    auto it = inputs.find(name);
    if (it != inputs.end()) {
      x.push_back(it->second);
      continue;
    }
    // The row-length histogram leaves out its empty trailing buckets.
    if (name.rfind("row_nnz_histogram.", 0) == 0) {
      x.push_back(0.0);
      continue;
    }
    return Status::error("selector: the model needs input '" + name +
                         "', which the layer's features lack");
  }
  std::vector<RankedCandidate> ranked;
  for (size_t c = 0; c < model.candidates.size(); ++c) {
    double sum = 0.0;
    for (const RegressionTree &tree : model.trees[c])
      sum += tree.predict(x);
    const double predicted = model.init[c] + model.learningRate * sum;
    auto penalty = model.formatPenalty.find(model.candidates[c].format);
    ranked.push_back({model.candidates[c], predicted,
                      predicted + (penalty == model.formatPenalty.end()
                                       ? 0.0
                                       : penalty->second)});
  }
  sortByPrediction(ranked);
  return ranked;
}

std::string spperm::checkMargin(double margin) {
  if (margin <= 64.0) // not NaN either
    return "";
  return "margin must be a number at most 64 (or negative: the model's own), "
         "got " +
         exactNumber(margin);
}

std::map<std::string, double>
spperm::selectorInputs(std::map<std::string, double> features, int64_t k) {
  features["k"] = static_cast<double>(k);
  features["log2_k"] =
      std::log2(static_cast<double>(std::max<int64_t>(k, 1)));
  return features;
}

std::map<std::string, double> spperm::selectorInputs(const Features &f,
                                                     int64_t k) {
  std::map<std::string, double> flat;
  for (const FeatureValue &v : flattenFeatures(f))
    flat[v.group.empty() ? v.name : v.group + "." + v.name] = v.value;
  return selectorInputs(std::move(flat), k);
}

std::vector<RankedCandidate>
spperm::applyCusparseMargin(std::vector<RankedCandidate> ranked,
                            double margin) {
  auto isLibrary = [](const RankedCandidate &c) {
    return c.candidate.format == kCusparse;
  };
  auto library = std::find_if(ranked.begin(), ranked.end(), isLibrary);
  auto generated = std::find_if_not(ranked.begin(), ranked.end(), isLibrary);
  if (library == ranked.end() || generated == ranked.end())
    return ranked;
  const bool keepGenerated = generated->score + margin <= library->score;
  if (keepGenerated && generated != ranked.begin())
    // A negative margin: the best generated candidate goes ahead of
    // cuSPARSE, which the model ranked first by less than -margin.
    std::rotate(ranked.begin(), generated, generated + 1);
  else if (!keepGenerated && library != ranked.begin())
    std::rotate(ranked.begin(), library, library + 1);
  return ranked;
}

std::vector<RankedCandidate>
spperm::rankByCostModel(const std::map<std::string, double> &inputs) {
  auto get = [&](const char *name, double fallback) {
    auto it = inputs.find(name);
    return it == inputs.end() ? fallback : it->second;
  };
  // Bytes the GPU must move (docs/Selector.md, "The cost model"): the CSR
  // arrays, C, and B once per cache line a row touches; a kernel takes
  // the longer of that at the H100's measured bandwidth and the launch
  // floor, stretched by the imbalance its row order leaves.
  const double kk = std::max(1.0, get("k", 32.0));
  const double rows = get("rows", 0.0);
  const double nnz = get("nnz", 0.0);
  const double bytesPerMs = 3.0e9; // 3.0 TB/s
  const double floorMs = 0.0035;   // an empty kernel, timed
  const double reuse = std::max(1.0, get("line_reuse", 1.0));
  const double csrBytes = nnz * 8.0 + rows * 4.0 + rows * kk * 4.0 +
                          nnz * kk * 4.0 / std::min(reuse, 32.0);
  auto time = [&](double bytes, double imbalance) {
    return std::max(bytes / bytesPerMs, floorMs) * imbalance;
  };
  const double imbalance = std::max(1.0, get("cta_imbalance.mean", 1.0));
  // A length-sorting order removes most of the CTA imbalance; a dense
  // block skips the column indices of the entries it holds and reads B
  // once per block row.
  const double share = get("blocks32.dense_nnz_share", 0.0);
  const double bellBytes =
      csrBytes - share * (nnz * 4.0 + nnz * kk * 4.0 / std::min(reuse, 32.0) *
                                          0.5);
  std::vector<RankedCandidate> ranked = {
      {candidate(Strategy::Identity, format_name::kCsr),
       std::log2(time(csrBytes, imbalance))},
      {candidate(Strategy::Lpt, format_name::kCsr),
       std::log2(time(csrBytes, 1.0 + (imbalance - 1.0) / 4))},
      {candidate(Strategy::Bsa, format_name::kBell),
       std::log2(time(bellBytes, 1.0 + (imbalance - 1.0) / 2))},
      // The library: the same traffic, at the efficiency it was measured
      // at on small and large layers (docs/results).
      {candidate(Strategy::Identity, kCusparse),
       std::log2(time(csrBytes, 1.0) * 1.3)},
  };
  double best = ranked.front().predictedLog2Ratio;
  for (const RankedCandidate &c : ranked)
    best = std::min(best, c.predictedLog2Ratio);
  for (RankedCandidate &c : ranked) {
    c.predictedLog2Ratio -= best;
    c.score = c.predictedLog2Ratio;
  }
  sortByPrediction(ranked);
  return ranked;
}
