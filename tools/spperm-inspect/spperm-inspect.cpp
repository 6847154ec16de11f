//===- spperm-inspect.cpp - Study a sparse matrix ---------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Reads a matrix file and prints its static features, as a short table or
// (with --json) as one JSON object with the keys of the DESIGN contract and
// every other feature. With --strategy it also runs row-permutation
// strategies and reports their quality under the kernel model, and with
// --emit-permutation it writes one strategy's permutation.
//
//===----------------------------------------------------------------------===//

#include "PackageInfo.h"

#include "spperm/Sparse/Features.h"
#include "spperm/Sparse/Formats.h"
#include "spperm/Sparse/Interrupt.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Names.h"
#include "spperm/Sparse/Npy.h"
#include "spperm/Sparse/OutputPath.h"
#include "spperm/Sparse/Package.h"
#include "spperm/Sparse/Permutation.h"
#include "spperm/Sparse/Selector.h"
#include "spperm/Sparse/Spelling.h"
#include "spperm/Tools/CommandLine.h"
#include "spperm/Tools/Progress.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include <sys/stat.h>

using namespace spperm;
using json = nlohmann::ordered_json;

static const char *const kTool = "spperm-inspect";

namespace {

/// The outcome of one strategy on the matrix.
struct StrategyReport {
  Strategy strategy;
  int32_t rows = 0;
  Permutation permutation;
  PermutationQuality quality;
  double seconds = 0.0;
};

/// A variant of the selector's choice and shortlist as spperm-compile would
/// package it.
struct PackagedVariant {
  SelectorCandidate candidate;
  /// Empty when the package keeps it; else why it does not.
  std::string dropped;
  /// It brings a 3xTF32 twin (its dense blocks on the tensor cores;
  /// docs/Selector.md, "The shortlist").
  bool twin = false;
};

/// What spperm-compile's package keeps of `selection` (docs/Package.md,
/// "Variants" and "Size budget"), each variant built as the pipeline
/// builds it by default (its strategy's row order under `popts`; bell in
/// 16 x 16 blocks, delta searched): a bell variant with no dense block runs
/// as the csr variant of its row order, so a variant that repeats the
/// plain CSR of a kept one is dropped; then the variants over the default
/// size budget (the choice's place going to the first alternative within
/// it). The choice comes first. The first variant with dense blocks brings
/// its 3xTF32 twin (spperm-tensor-core-alternatives), which shares its
/// arrays and its fate.
StatusOr<std::vector<PackagedVariant>>
packagedVariants(const CsrMatrix &m, const Selection &selection,
                 PermutationOptions popts) {
  std::vector<SelectorCandidate> candidates = {selection.choice};
  candidates.insert(candidates.end(), selection.alternatives.begin(),
                    selection.alternatives.end());
  std::vector<PackagedVariant> out;
  // What sameComputation in spperm-compile compares: a plain-CSR variant
  // is its row order (a node of `orders`). Null for cuSPARSE.
  struct Built {
    const std::vector<int32_t> *order = nullptr;
    FormatKind kind = FormatKind::Csr;
    bool plainCsr = false;
    uint64_t bytes = 0;
  };
  std::map<std::string, std::vector<int32_t>> orders;
  // The matrix's CSR bytes, the budget's yardstick (any variant's).
  uint64_t csrSize = 0;
  std::vector<Built> built;
  std::optional<size_t> twin;
  for (const SelectorCandidate &c : candidates) {
    PackagedVariant v{c, ""};
    std::optional<Strategy> strategy = parseStrategy(c.strategy);
    std::optional<FormatKind> kind = parseFormatKind(c.format);
    if (!strategy || !kind) {
      // cuSPARSE: no arrays of its own to compare.
      out.push_back(v);
      built.push_back({});
      continue;
    }
    auto found = orders.find(c.strategy);
    if (found == orders.end()) {
      popts.strategy = *strategy;
      StatusOr<Permutation> perm = computePermutation(m, popts);
      if (!perm)
        return perm.status();
      found = orders.emplace(c.strategy, std::move(perm->order)).first;
    }
    FormatOptions fopts;
    fopts.kind = *kind;
    StatusOr<FormattedMatrix> f = buildFormat(m, found->second, fopts);
    if (!f)
      return f.status();
    PackageLayer layer;
    layer.matrix = std::move(*f);
    Built b;
    b.order = &found->second;
    b.kind = *kind;
    b.plainCsr = *kind == FormatKind::Csr ||
                 (*kind == FormatKind::Bell && layer.matrix.bell.width == 0);
    b.bytes = arrayBytes(layer);
    csrSize = csrBytes(layer.matrix);
    if (!twin && *kind == FormatKind::Bell && layer.matrix.bell.width > 0)
      twin = out.size();
    if (b.plainCsr)
      for (size_t i = 0; i < out.size(); ++i)
        if (out[i].dropped.empty() && built[i].plainCsr &&
            *built[i].order == *b.order) {
          const std::string earlier =
              out[i].candidate.strategy + " / " + out[i].candidate.format;
          if (*kind == FormatKind::Bell)
            v.dropped = "no dense block: the same computation as " + earlier;
          else if (built[i].kind == FormatKind::Bell)
            v.dropped = "the same computation as " + earlier +
                        ", which has no dense block";
          else
            v.dropped = "the same row order as " + earlier;
          break;
        }
    out.push_back(v);
    built.push_back(std::move(b));
  }
  // The size budget, after the repeats as in spperm-compile.
  auto over = [&](size_t i) {
    return built[i].order &&
           static_cast<double>(built[i].bytes) >
               kDefaultSizeBudget * static_cast<double>(csrSize);
  };
  auto ratio = [&](size_t i) {
    char text[64];
    std::snprintf(text, sizeof(text), "over the size budget (%.1fx the CSR)",
                  static_cast<double>(built[i].bytes) /
                      static_cast<double>(csrSize));
    return std::string(text);
  };
  for (size_t i = 1; i < out.size(); ++i)
    if (out[i].dropped.empty() && over(i))
      out[i].dropped = ratio(i);
  if (out[0].dropped.empty() && over(0))
    for (size_t i = 1; i < out.size(); ++i)
      if (out[i].dropped.empty()) {
        out[0].dropped = ratio(0) + ": " + out[i].candidate.strategy + " / " +
                         out[i].candidate.format + " takes its place";
        break;
      }
  if (twin && out[*twin].dropped.empty())
    out[*twin].twin = true;
  return out;
}

json featuresToJson(const std::vector<FeatureValue> &values) {
  json j = json::object();
  for (const FeatureValue &v : values) {
    json number = v.isInteger ? json(static_cast<int64_t>(v.value))
                              : json(v.value);
    if (v.group.empty())
      j[v.name] = number;
    else
      j[v.group][v.name] = number;
  }
  return j;
}

json reportToJson(const StrategyReport &r) {
  json j;
  j["strategy"] = std::string(strategyCliName(r.strategy));
  j["time_ms"] = r.seconds * 1e3;
  j["cta_max_warp_load_sum"] = r.quality.ctaMaxWarpLoadSum;
  j["hamming_adjacent_mean"] = r.quality.hammingAdjacentMean;
  j["hamming_warp_mean"] = r.quality.hammingWarpMean;
  j["window_line_fetches"] = r.quality.windowLineFetches;
  j["dense_tile_nnz_share"] = r.quality.denseTileNnzShare;
  j["valid"] = isPermutation(r.permutation.order, r.rows);
  if (r.strategy == Strategy::Bsa) {
    const std::vector<int32_t> &sizes = r.permutation.clusterSizes;
    json clusters;
    clusters["count"] = sizes.size();
    clusters["min"] = sizes.empty() ? 0 : *std::min_element(sizes.begin(), sizes.end());
    clusters["max"] = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
    int64_t total = 0;
    for (int32_t s : sizes)
      total += s;
    clusters["mean"] = sizes.empty() ? 0.0 : double(total) / sizes.size();
    clusters["sizes"] = sizes;
    j["clusters"] = clusters;
  }
  return j;
}

void printTable(const std::string &path, const Features &f) {
  const BasicStats &s = f.basic;
  std::printf("%-16s %s\n", "matrix", path.c_str());
  std::printf("%-16s %lld x %lld\n", "shape", static_cast<long long>(s.rows),
              static_cast<long long>(s.cols));
  std::printf("%-16s %lld\n", "nnz", static_cast<long long>(s.nnz));
  std::printf("%-16s %.6g\n", "density", s.density);
  std::printf("%-16s %lld\n", "empty rows",
              static_cast<long long>(s.emptyRows));
  std::printf("%-16s mean %.4f  std %.4f  min %lld  max %lld\n", "row nnz",
              s.rowNnzMean, s.rowNnzStd, static_cast<long long>(s.rowNnzMin),
              static_cast<long long>(s.rowNnzMax));
  std::printf("%-16s mean %.4f  std %.4f  max %lld\n", "warp load",
              f.warpLoadMean, f.warpLoadStd,
              static_cast<long long>(f.warpLoadMax));
  std::printf("%-16s mean %.4f  max %.4f\n", "CTA imbalance",
              f.ctaImbalanceMean, f.ctaImbalanceMax);
  std::printf("%-16s %.6g\n", "bitmask density", f.bitmaskDensity);
  std::printf("%-16s adjacent %.4f  warp %.4f\n", "hamming",
              f.hammingAdjacentMean, f.hammingWarpMean);
  std::printf("%-16s %.4f\n", "warp utilization", f.warpUtilization);
  std::printf("%-16s tau 16: %.4f  tau 32: %.4f\n", "dense-tile nnz",
              f.blocks16.denseNnzShare, f.blocks32.denseNnzShare);
}

void printReports(const std::vector<StrategyReport> &reports) {
  std::printf("\n%-12s %10s %12s %12s %14s %11s %10s\n", "strategy",
              "cta-max", "hamming-1", "hamming-Nw", "line-fetches",
              "dense-tiles", "time-ms");
  for (const StrategyReport &r : reports)
    std::printf("%-12s %10lld %12.4f %12.4f %14lld %11.4f %10.3f\n",
                std::string(strategyCliName(r.strategy)).c_str(),
                static_cast<long long>(r.quality.ctaMaxWarpLoadSum),
                r.quality.hammingAdjacentMean, r.quality.hammingWarpMean,
                static_cast<long long>(r.quality.windowLineFetches),
                r.quality.denseTileNnzShare, r.seconds * 1e3);
}

bool parseIntOption(const std::string &name, const std::string &text,
                    int32_t &out, int64_t lo = 1, int64_t hi = 1024) {
  int64_t value;
  if (!parseIntegerOption(kTool, name, text, lo, hi, value))
    return false;
  out = static_cast<int32_t>(value);
  return true;
}

} // namespace

/// Whether `name` is spelled as an NVIDIA GPU architecture: sm_ and its
/// compute capability (sm_90, sm_100a).
static bool isArchitectureName(const std::string &name) {
  return ::spperm::architectureVersion(name) != 0;
}

int main(int argc, char **argv) {
  // Before any thread starts: an interrupted run removes its temporaries
  // (the --emit-permutation file being written; Interrupt.h). An exhausted
  // memory ends the tool with one line.
  ::spperm::installInterruptCleanup();
  ::spperm::installOutOfMemoryExit(kTool);
  // Capped at the memory available, so that a matrix too large for the
  // machine ends in that one line, not in the kernel's out-of-memory killer.
  if (::spperm::Status s = ::spperm::limitMemoryToAvailable(); !s) {
    std::fprintf(stderr, "%s: error: %s\n", kTool, s.message().c_str());
    return 1;
  }
  std::string path, values = "file", strategyName, emitPath;
  // Options given, by flag: those of matrix files, and those of --explain.
  std::map<std::string, bool> seen, explainOnly;
  std::string warpsText = "32", lineText = "32", rowsPerWarpText = "4",
              tauText = "32", alphaText = "0.3", candidatesText = "64";
  bool json = false, quiet = false, strategySeen = false, emitSeen = false;

  ArgParser args(
      kTool,
      "MATRIX|PKG [--json] [--values SPEC] [--strategy S|all] "
      "[--emit-permutation FILE] [--explain [--k K]] [model options]",
      "Reads a sparse matrix (.mtx, .smtx, optionally .gz, or .npz) and "
      "prints its static features (docs/Features.md); given a package "
      "directory, prints what it holds and costs: its files, and per layer "
      "its variants with their arrays' bytes, the GPU memory they take "
      "(docs/Package.md). --strategy runs row-permutation "
      "strategies and reports their quality (docs/Permutations.md); "
      "--emit-permutation writes the permutation of one strategy, one "
      "0-based original row index per line.");
  args.addPositional("MATRIX", "Matrix file (.mtx, .smtx, optionally .gz; "
                               ".npz) or package directory",
                     &path);
  args.addFlag("-q",
               "Quiet: no progress lines for long stages on stderr (errors "
               "are still printed)",
               &quiet);
  args.addFlag("json", "Print one JSON object instead of a table", &json);
  args.addOption("values", "SPEC",
                 "Values of the entries: file (default), ones, random:SEED",
                 &values, &seen["--values"]);
  args.addOption("strategy", "S",
                 "identity, plain, flipped, lpt, warp-aware, cta-aware, "
                 "hybrid-1, hybrid-2.1, hybrid-2.2, hybrid-2.3, bsa, or all",
                 &strategyName, &strategySeen);
  args.addOption("emit-permutation", "FILE",
                 "Write the permutation of --strategy S to FILE", &emitPath,
                 &emitSeen);
  args.addOption("warps", "N", "Warps per CTA, N_w (default 32)", &warpsText,
                 &seen["--warps"]);
  args.addOption("line", "N", "Columns per cache line of B (default 32)",
                 &lineText, &seen["--line"]);
  args.addOption("rows-per-warp", "N",
                 "Rows per warp in a CTA window (default 4)",
                 &rowsPerWarpText, &seen["--rows-per-warp"]);
  args.addOption("tau", "N", "BSA column-block width (default 32)", &tauText,
                 &seen["--tau"]);
  args.addOption("alpha", "X", "BSA similarity threshold (default 0.3)",
                 &alphaText, &seen["--alpha"]);
  bool explain = false;
  std::string kText = "32", modelPath, target = "sm_90";
  args.addFlag("explain",
               "Show the selector's ranking of the candidate variants "
               "(strategy x format, and cuSPARSE) with predicted time "
               "ratios, and its choice",
               &explain);
  args.addOption("k", "K",
                 "--explain: columns of B to choose for (default 32; 0: a "
                 "package for any K, ranked as for 32)",
                 &kText, &explainOnly["--k"]);
  args.addOption("model", "FILE",
                 "--explain: selector model (default: the one shipped for "
                 "--target)",
                 &modelPath, &explainOnly["--model"]);
  args.addOption("target", "ARCH", "--explain: GPU architecture (default "
                                   "sm_90)",
                 &target, &explainOnly["--target"]);
  args.addFlag("cost-model", "--explain: rank with the analytic cost model",
               &explainOnly["--cost-model"]);
  args.addOption("candidates", "N",
                 "Candidates examined per line/block by the similarity "
                 "strategies; 0 = exact, O(M^2) (default 64)",
                 &candidatesText, &seen["--candidates"]);
  if (std::optional<int> exitCode = args.parse(argc, argv))
    return *exitCode;
  ::spperm::setOutOfMemoryFile(path);
  double progressSeconds = 1.0;
  if (std::string error; !quiet && !progressThreshold(progressSeconds, error)) {
    reportError(kTool, error);
    return 1;
  }
  // Options that would change nothing are refused, not ignored.
  if (!explain)
    for (const auto &[flag, given] : explainOnly)
      if (given) {
        reportError(kTool, flag + " applies to --explain");
        return 1;
      }

  // A package directory: what it holds and costs.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    // Any entry named manifest.json, a broken or looping link too: the
    // package reader then says what is wrong with it.
    struct stat manifest;
    if (::lstat((path + "/manifest.json").c_str(), &manifest) != 0) {
      reportError(kTool, path + ": is a directory, neither a matrix file nor "
                                "a spperm package (no manifest.json)");
      return 1;
    }
    if (strategySeen || emitSeen || explain) {
      reportError(kTool, "--strategy, --emit-permutation and --explain apply "
                         "to matrix files; " + path + " is a package");
      return 1;
    }
    for (const auto &[flag, given] : seen)
      if (given) {
        reportError(kTool, flag + " applies to matrix files; " + path +
                               " is a package");
        return 1;
      }
    return inspectPackage(kTool, path, json);
  }
  if (emitSeen) {
    if (emitPath.empty()) {
      reportError(kTool, "--emit-permutation needs a file name");
      return 1;
    }
    if (Status s = checkOutputSparesInputs(emitPath, {path, modelPath}); !s) {
      reportError(kTool, s.message());
      return 1;
    }
  }

  PermutationOptions popts;
  if (!parseIntOption("warps", warpsText, popts.warps) ||
      !parseIntOption("line", lineText, popts.lineWidth) ||
      !parseIntOption("rows-per-warp", rowsPerWarpText, popts.rowsPerWarp) ||
      !parseIntOption("tau", tauText, popts.tau) ||
      !parseIntOption("candidates", candidatesText, popts.candidateLimit, 0,
                      INT32_MAX))
    return 1;
  if ((popts.lineWidth & (popts.lineWidth - 1)) != 0) {
    reportError(kTool, "--line must be a power of two in [1, 1024], got " +
                           std::to_string(popts.lineWidth));
    return 1;
  }
  if (!parseNumberOption(kTool, "alpha", alphaText, -HUGE_VAL, HUGE_VAL,
                         popts.alpha))
    return 1;
  if (!(popts.alpha > 0.0 && popts.alpha <= 1.0)) {
    reportError(kTool, "--alpha must be in (0, 1], got " + alphaText);
    return 1;
  }
  if (Status s = validatePermutationOptions(popts); !s) {
    reportError(kTool, s.message());
    return 1;
  }

  std::vector<Strategy> strategies;
  if (strategySeen) {
    if (strategyName == "all") {
      strategies.assign(kAllStrategies.begin(), kAllStrategies.end());
    } else if (std::optional<Strategy> s = parseStrategy(strategyName)) {
      strategies.push_back(*s);
    } else {
      // The names from the one table (strategyCliName), and "all".
      std::vector<std::string_view> names;
      std::string list;
      for (Strategy s : kAllStrategies) {
        names.push_back(strategyCliName(s));
        list += std::string(strategyCliName(s)) + ", ";
      }
      names.push_back("all");
      reportError(kTool, "unknown strategy '" + strategyName + "' (expected " +
                             list.substr(0, list.size() - 2) + " or all)" +
                             didYouMean(strategyName, names));
      return 1;
    }
  }
  if (emitSeen && strategies.size() != 1) {
    reportError(kTool, "--emit-permutation needs one --strategy S (not all)");
    return 1;
  }

  // --explain's options, checked before the matrix is read; the model is
  // read once, here.
  int64_t explainK = 32;
  bool explainAnyK = false;
  SelectionOptions sopts;
  std::optional<SelectorModel> explainModel;
  if (explain) {
    // K as spperm-compile takes it: 0 for a package for any K, which the
    // selector ranks as for K = 32 (docs/Compile.md).
    if (!parseIntegerOption(kTool, "k", kText, 0, kMaxIndex, explainK))
      return 1;
    if (explainK == 0) {
      explainAnyK = true;
      explainK = kAnyKSelectionK;
    }
    // An architecture name as spperm-compile takes it; a target without a
    // shipped model then gets the cost model, as there.
    if (!isArchitectureName(target)) {
      reportError(kTool, "--target must be a GPU architecture such as "
                         "sm_90, got '" +
                             target + "'");
      return 1;
    }
    // As spperm-compile: the kernels need sm_80 or later.
    if (std::stoi(target.substr(3)) < 80) {
      reportError(kTool, "--target must be sm_80 or later (the kernels use "
                         "cp.async and tensor-core mma.sync), got '" +
                             target + "'");
      return 1;
    }
    if (explainOnly["--model"] && explainOnly["--cost-model"]) {
      reportError(kTool, "--model and --cost-model exclude each other "
                         "(--cost-model ranks without a model)");
      return 1;
    }
    sopts.modelPath = modelPath;
    sopts.target = target;
    sopts.costModel = explainOnly["--cost-model"];
    // What spperm-compile chooses by default: the runtime checks it.
    sopts.libraryCheck = true;
    if (usesSelectorModel(sopts)) {
      StatusOr<SelectorModel> model = loadSelectorModel(sopts);
      if (!model) {
        reportError(kTool, model.message());
        return 1;
      }
      if (std::string other = otherTargetWarning(modelPath, *model, target);
          !modelPath.empty() && !other.empty())
        reportWarning(kTool, other);
      explainModel = std::move(*model);
    } else if (!sopts.costModel) {
      reportWarning(kTool, costModelFallbackReason(target) +
                               "; give a model trained on the target "
                               "(--model FILE), or --cost-model to choose it");
    }
  }

  StatusOr<ValuesSpec> spec = parseValuesSpec(values);
  if (!spec) {
    reportError(kTool, spec.message());
    return 1;
  }
  ReadOptions readOptions;
  readOptions.values = *spec;
  Progress progress(kTool, !quiet, progressSeconds);
  progress.stage("reading " + path);
  StatusOr<CsrMatrix> matrix = readMatrixFile(path, readOptions);
  if (!matrix) {
    reportError(kTool, matrix.message());
    return 1;
  }

  FeatureOptions fopts;
  fopts.warps = popts.warps;
  fopts.lineWidth = popts.lineWidth;
  fopts.rowsPerWarp = popts.rowsPerWarp;
  progress.stage("computing features");
  Features features = computeFeatures(*matrix, fopts);

  std::optional<Selection> selection;
  std::optional<std::vector<PackagedVariant>> packaged;
  if (explain) {
    StatusOr<Selection> chosen =
        selectVariant(selectorInputs(features, explainK), sopts,
                      explainModel ? &*explainModel : nullptr);
    if (!chosen) {
      reportError(kTool, chosen.message());
      return 1;
    }
    selection = std::move(*chosen);
    if (!selection->alternatives.empty()) {
      progress.stage("building the shortlist's variants");
      StatusOr<std::vector<PackagedVariant>> variants =
          packagedVariants(*matrix, *selection, popts);
      if (!variants) {
        reportError(kTool, variants.message());
        return 1;
      }
      packaged = std::move(*variants);
    }
  }

  std::vector<StrategyReport> reports;
  for (Strategy s : strategies) {
    progress.stage("running strategy " + std::string(strategyCliName(s)));
    popts.strategy = s;
    auto start = std::chrono::steady_clock::now();
    StatusOr<Permutation> perm = computePermutation(*matrix, popts);
    auto stop = std::chrono::steady_clock::now();
    if (!perm) {
      reportError(kTool, perm.message());
      return 1;
    }
    StrategyReport r;
    r.strategy = s;
    r.rows = matrix->rows;
    r.permutation = std::move(*perm);
    r.seconds = std::chrono::duration<double>(stop - start).count();
    r.quality = evaluatePermutation(*matrix, r.permutation.order, popts);
    reports.push_back(std::move(r));
  }

  progress.finish();
  if (emitSeen) {
    std::string text;
    text.reserve(reports.front().permutation.order.size() * 8);
    for (int32_t row : reports.front().permutation.order)
      text += std::to_string(row) + "\n";
    if (Status s = writeFileAtomically(emitPath, text); !s) {
      reportError(kTool, s.message());
      return 1;
    }
  }

  if (json) {
    nlohmann::ordered_json out = featuresToJson(flattenFeatures(features));
    if (!reports.empty()) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const StrategyReport &r : reports)
        list.push_back(reportToJson(r));
      out["strategies"] = list;
    }
    if (selection) {
      nlohmann::ordered_json sel;
      sel["k"] = explainAnyK ? 0 : explainK;
      sel["ranked_for_k"] = explainK;
      sel["source"] = selection->source;
      sel["choice"] = {{"strategy", selection->choice.strategy},
                       {"format", selection->choice.format}};
      nlohmann::ordered_json ranked = nlohmann::ordered_json::array();
      for (const RankedCandidate &c : selection->ranked)
        ranked.push_back({{"strategy", c.candidate.strategy},
                          {"format", c.candidate.format},
                          {"predicted_ratio",
                           std::exp2(c.predictedLog2Ratio)},
                          {"score_ratio", std::exp2(c.score)}});
      sel["ranking"] = ranked;
      nlohmann::ordered_json shortlist = nlohmann::ordered_json::array();
      for (const SelectorCandidate &c : selection->alternatives)
        shortlist.push_back(
            {{"strategy", c.strategy}, {"format", c.format}});
      sel["alternatives"] = shortlist;
      if (packaged) {
        nlohmann::ordered_json kept = nlohmann::ordered_json::array();
        nlohmann::ordered_json left = nlohmann::ordered_json::array();
        for (const PackagedVariant &v : *packaged) {
          nlohmann::ordered_json item = {{"strategy", v.candidate.strategy},
                                         {"format", v.candidate.format}};
          if (v.dropped.empty()) {
            if (v.twin)
              item["tensor_core_twin"] = true;
            kept.push_back(item);
          } else {
            item["why"] = v.dropped;
            left.push_back(item);
          }
        }
        sel["package"] = kept;
        sel["not_packaged"] = left;
      }
      out["selection"] = sel;
    }
    std::printf("%s\n", out.dump(2, ' ', false,
                                 nlohmann::json::error_handler_t::replace)
                            .c_str());
  } else {
    printTable(path, features);
    if (!reports.empty())
      printReports(reports);
    if (selection) {
      std::printf(
          "\nselector (%s, K = %s%lld): %s / %s\n", selection->source.c_str(),
          explainAnyK ? "any, ranked as for " : "",
          static_cast<long long>(explainK), selection->choice.strategy.c_str(),
          selection->choice.format.c_str());
      // The ranking sorts by the score: the prediction times the model's
      // risk penalty for the format (docs/Selector.md), shown beside it.
      std::printf("  %-4s %-12s %-9s %-25s %s\n", "rank", "strategy", "format",
                  "predicted time / fastest", "ranked by (with penalty)");
      int rank = 1;
      for (const RankedCandidate &c : selection->ranked)
        std::printf("  %-4d %-12s %-9s %-25.3f %.3f\n", rank++,
                    c.candidate.strategy.c_str(), c.candidate.format.c_str(),
                    std::exp2(c.predictedLog2Ratio), std::exp2(c.score));
      // The runner-ups spperm-compile packages beside the choice; the
      // runtime times them all at the first call per K.
      if (!selection->alternatives.empty()) {
        std::printf("  shortlist:");
        const char *sep = " ";
        for (const SelectorCandidate &c : selection->alternatives) {
          std::printf("%s%s / %s", sep, c.strategy.c_str(), c.format.c_str());
          sep = ", ";
        }
        std::printf("\n");
      }
      // What spperm-compile would package of the choice and the shortlist:
      // the variants the runtime times at the first call per K.
      if (packaged) {
        std::printf("  package (timed at the first call):");
        const char *sep = " ";
        for (const PackagedVariant &v : *packaged)
          if (v.dropped.empty()) {
            std::printf("%s%s / %s%s", sep, v.candidate.strategy.c_str(),
                        v.candidate.format.c_str(),
                        v.twin ? " (and its 3xTF32 twin)" : "");
            sep = ", ";
          }
        std::printf("\n");
        for (const PackagedVariant &v : *packaged)
          if (!v.dropped.empty())
            std::printf("    not packaged: %s / %s, %s\n",
                        v.candidate.strategy.c_str(),
                        v.candidate.format.c_str(), v.dropped.c_str());
      }
    }
  }
  return 0;
}
