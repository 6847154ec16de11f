//===- spperm-gen.cpp - Generate synthetic sparse matrices ------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Writes the synthetic matrices the benchmark protocol asks for where the
// real set has none (R-MAT with Graph500 parameters, banded, uniform random,
// block-sparse, skewed row lengths, grid stencils, communities) as Matrix
// Market files.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/Interrupt.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Spelling.h"
#include "spperm/Tools/CommandLine.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>

using namespace spperm;

static const char *const kTool = "spperm-gen";

namespace {
bool parseInt(const std::string &name, const std::string &text, int64_t lo,
              int64_t hi, int64_t &out) {
  return parseIntegerOption(kTool, name, text, lo, hi, out);
}

bool parseFraction(const std::string &name, const std::string &text,
                   double &out) {
  return parseNumberOption(kTool, name, text, 0.0, 1.0, out);
}
} // namespace

int main(int argc, char **argv) {
  // An exhausted memory ends the tool with one line (Interrupt.h).
  ::spperm::installOutOfMemoryExit(kTool);
  // Capped at the memory available, so that a matrix too large for the
  // machine ends in that one line, not in the kernel's out-of-memory killer.
  if (::spperm::Status s = ::spperm::limitMemoryToAvailable(); !s) {
    std::fprintf(stderr, "%s: error: %s\n", kTool, s.message().c_str());
    return 1;
  }
  std::string kind, output, seedText = "1", shuffleText;
  bool shuffleSeen = false;
  // The kind-specific options given, by name.
  std::map<std::string, bool> seen;
  std::string rowsText = "1024", colsText, scaleText = "16",
              edgeFactorText = "16", halfWidthText = "4", densityText = "0.01",
              blockText = "32", blockDensityText = "0.1", sideText = "64",
              dimsText = "2", pointsText, communitiesText = "16",
              inDegreeText = "16", outDegreeText = "2";
  ArgParser args(
      kTool, "KIND -o FILE [options]",
      "Writes a synthetic sparse matrix as Matrix Market (.mtx, or .mtx.gz "
      "compressed). KIND is one of:\n"
      "  rmat     R-MAT, Graph500 a=0.57 b=c=0.19: 2^scale rows, "
      "edge-factor * 2^scale edges (duplicates summed)\n"
      "  banded   n x n, entries with |i - j| <= half-width\n"
      "  uniform  rows x cols, each entry present with probability density\n"
      "  block    rows x cols in block x block tiles, each dense with "
      "probability block-density\n"
      "  skewed   rows x cols, mostly short rows, some empty, a few very "
      "long\n"
      "  stencil  side^dims rows: the 2-D 5/9-point or 3-D 7/27-point "
      "stencil on a grid (bands at offsets 1, side, side^2)\n"
      "  communities  rows x cols in equal communities: in-degree entries "
      "in the row's own community's columns, out-degree anywhere\n"
      "Values are randomValue(seed, e) (see docs/MatrixFiles.md).");
  args.addPositional("KIND",
                     "rmat, banded, uniform, block, skewed, stencil or "
                     "communities",
                     &kind);
  args.addOption("-o", "FILE", "Output file (required)", &output);
  args.addOption("seed", "N", "Random seed (default 1)", &seedText);
  args.addOption("shuffle-rows", "SEED",
                 "Shuffle the rows with a random permutation (hides the "
                 "structure the locality strategies should recover)",
                 &shuffleText, &shuffleSeen);
  args.addOption("scale", "N", "rmat: log2 of the dimension (default 16)",
                 &scaleText, &seen["scale"]);
  args.addOption("edge-factor", "N", "rmat: edges per row (default 16)",
                 &edgeFactorText, &seen["edge-factor"]);
  args.addOption("rows", "N",
                 "banded/uniform/block/skewed/communities: rows (default "
                 "1024)",
                 &rowsText, &seen["rows"]);
  args.addOption("cols", "N",
                 "uniform/block/skewed/communities: columns (default rows)",
                 &colsText, &seen["cols"]);
  args.addOption("half-width", "N", "banded: half bandwidth (default 4)",
                 &halfWidthText, &seen["half-width"]);
  args.addOption("density", "P", "uniform: entry probability (default 0.01)",
                 &densityText, &seen["density"]);
  args.addOption("block", "N", "block: tile size (default 32)", &blockText,
                 &seen["block"]);
  args.addOption("block-density", "P", "block: tile probability (default 0.1)",
                 &blockDensityText, &seen["block-density"]);
  args.addOption("side", "N", "stencil: grid points per dimension (default 64)",
                 &sideText, &seen["side"]);
  args.addOption("dims", "N", "stencil: 2 or 3 (default 2)", &dimsText,
                 &seen["dims"]);
  args.addOption("points", "N",
                 "stencil: 5 or 9 in 2-D, 7 or 27 in 3-D (default 5 / 7)",
                 &pointsText, &seen["points"]);
  args.addOption("communities", "N", "communities: how many (default 16)",
                 &communitiesText, &seen["communities"]);
  args.addOption("in-degree", "X",
                 "communities: mean entries per row inside the row's "
                 "community (default 16)",
                 &inDegreeText, &seen["in-degree"]);
  args.addOption("out-degree", "X",
                 "communities: mean entries per row anywhere (default 2)",
                 &outDegreeText, &seen["out-degree"]);
  if (std::optional<int> exitCode = args.parse(argc, argv))
    return *exitCode;
  ::spperm::setOutOfMemoryFile(output);
  if (output.empty()) {
    reportError(kTool, "missing -o FILE (see --help)");
    return 1;
  }
  // The file is Matrix Market text whatever its name: a name the readers
  // take for another format would make a file they refuse.
  for (const char *other : {".smtx", ".smtx.gz", ".npz", ".npy"})
    if (endsWithIgnoreCase(output, other)) {
      reportError(kTool, "-o names a " + std::string(other) +
                             " file, but spperm-gen writes Matrix Market "
                             "(.mtx, or .mtx.gz compressed), got '" +
                             output + "'");
      return 1;
    }
  // An option of another kind would be silently ignored: refuse it.
  static const std::map<std::string, std::set<std::string>> kOptionsOf = {
      {"rmat", {"scale", "edge-factor"}},
      {"banded", {"rows", "half-width"}},
      {"uniform", {"rows", "cols", "density"}},
      {"block", {"rows", "cols", "block", "block-density"}},
      {"skewed", {"rows", "cols"}},
      {"stencil", {"side", "dims", "points"}},
      {"communities",
       {"rows", "cols", "communities", "in-degree", "out-degree"}}};
  if (auto known = kOptionsOf.find(kind); known != kOptionsOf.end())
    for (const auto &[name, given] : seen)
      if (given && !known->second.count(name)) {
        std::string kinds;
        for (const auto &[other, names] : kOptionsOf)
          if (names.count(name))
            kinds += (kinds.empty() ? "" : ", ") + other;
        reportError(kTool,
                    "--" + name + " applies to " + kinds + ", not " + kind);
        return 1;
      }

  uint64_t seed, shuffleSeed = 0;
  int64_t rows, cols;
  if (!parseUnsignedOption(kTool, "seed", seedText, seed) ||
      (shuffleSeen &&
       !parseUnsignedOption(kTool, "shuffle-rows", shuffleText, shuffleSeed)) ||
      !parseInt("rows", rowsText, 0, kMaxIndex, rows) ||
      !parseInt("cols", colsText.empty() ? rowsText : colsText, 0, kMaxIndex,
                cols))
    return 1;

  CsrMatrix m;
  if (kind == "rmat") {
    int64_t scale, edgeFactor;
    if (!parseInt("scale", scaleText, 0, 30, scale) ||
        !parseInt("edge-factor", edgeFactorText, 1, 1024, edgeFactor))
      return 1;
    if ((edgeFactor << scale) > kMaxIndex) {
      reportError(kTool, "rmat: edge-factor * 2^scale must stay below 2^31");
      return 1;
    }
    m = generateRmat(static_cast<int>(scale), static_cast<int>(edgeFactor),
                     seed);
  } else if (kind == "banded") {
    int64_t halfWidth;
    if (!parseInt("half-width", halfWidthText, 0, kMaxIndex, halfWidth))
      return 1;
    if (rows * (2 * halfWidth + 1) > kMaxIndex) {
      reportError(kTool, "banded: rows * (2 * half-width + 1) must stay below "
                         "2^31");
      return 1;
    }
    m = generateBanded(static_cast<int32_t>(rows),
                       static_cast<int32_t>(halfWidth), seed);
  } else if (kind == "uniform") {
    double density;
    if (!parseFraction("density", densityText, density))
      return 1;
    if (density * static_cast<double>(rows) * static_cast<double>(cols) >
        1e9) {
      reportError(kTool, "uniform: more than 10^9 expected entries");
      return 1;
    }
    m = generateUniform(static_cast<int32_t>(rows), static_cast<int32_t>(cols),
                        density, seed);
  } else if (kind == "block") {
    int64_t block;
    double blockDensity;
    if (!parseInt("block", blockText, 1, 1024, block) ||
        !parseFraction("block-density", blockDensityText, blockDensity))
      return 1;
    if (blockDensity * static_cast<double>(rows) * static_cast<double>(cols) >
        1e9) {
      reportError(kTool, "block: more than 10^9 expected entries");
      return 1;
    }
    m = generateBlockSparse(static_cast<int32_t>(rows),
                            static_cast<int32_t>(cols),
                            static_cast<int32_t>(block), blockDensity, seed);
  } else if (kind == "skewed") {
    // 87 % of rows short (4.5 entries), 3 % half as long as the width.
    if (static_cast<double>(rows) * (4.0 + 0.015 * static_cast<double>(cols)) >
        1e9) {
      reportError(kTool, "skewed: more than 10^9 expected entries");
      return 1;
    }
    m = generateSkewed(static_cast<int32_t>(rows), static_cast<int32_t>(cols),
                       seed);
  } else if (kind == "stencil") {
    int64_t side, dims, points;
    if (!parseInt("side", sideText, 1, kMaxIndex, side) ||
        !parseInt("dims", dimsText, 2, 3, dims))
      return 1;
    if (!parseInt("points", pointsText.empty() ? (dims == 2 ? "5" : "7")
                                               : pointsText,
                  1, 27, points))
      return 1;
    if (dims == 2 ? points != 5 && points != 9 : points != 7 && points != 27) {
      reportError(kTool, "stencil: --points must be 5 or 9 in 2-D, 7 or 27 "
                         "in 3-D, got " +
                             std::to_string(points));
      return 1;
    }
    const double n = dims == 2 ? double(side) * double(side)
                               : double(side) * double(side) * double(side);
    if (n * double(points) > double(kMaxIndex)) {
      reportError(kTool, "stencil: side^dims * points must stay below 2^31");
      return 1;
    }
    m = generateStencil(static_cast<int32_t>(side), static_cast<int>(dims),
                        static_cast<int>(points), seed);
  } else if (kind == "communities") {
    int64_t communities;
    double inDegree, outDegree;
    if (!parseInt("communities", communitiesText, 1, kMaxIndex, communities) ||
        !parseNumberOption(kTool, "in-degree", inDegreeText, 0.0, 1e6,
                           inDegree) ||
        !parseNumberOption(kTool, "out-degree", outDegreeText, 0.0, 1e6,
                           outDegree))
      return 1;
    // Each community owns at least one row and one column.
    if (rows > 0 && cols > 0 && communities > std::min(rows, cols)) {
      reportError(kTool,
                  "communities: --communities " + std::to_string(communities) +
                      " exceeds the rows or columns (" + std::to_string(rows) +
                      " x " + std::to_string(cols) + ")");
      return 1;
    }
    if (static_cast<double>(rows) * (inDegree + outDegree + 2.0) > 1e9) {
      reportError(kTool, "communities: more than 10^9 expected entries");
      return 1;
    }
    m = generateCommunities(
        static_cast<int32_t>(rows), static_cast<int32_t>(cols),
        static_cast<int32_t>(communities), inDegree, outDegree, seed);
  } else {
    reportError(kTool,
                "unknown KIND '" + kind +
                    "' (expected rmat, banded, uniform, block, skewed, "
                    "stencil or communities)" +
                    didYouMean(kind, {"rmat", "banded", "uniform", "block",
                                      "skewed", "stencil", "communities"}));
    return 1;
  }

  if (shuffleSeen)
    m = shuffleRows(m, shuffleSeed);
  if (Status s = writeMatrixMarket(output, m); !s) {
    reportError(kTool, s.message());
    return 1;
  }
  std::fprintf(stderr, "%s: wrote %s: %d x %d, %lld entries\n", kTool,
               output.c_str(), m.rows, m.cols, static_cast<long long>(m.nnz()));
  return 0;
}
