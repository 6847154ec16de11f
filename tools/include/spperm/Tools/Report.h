//===- Report.h - The compile report ----------------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The compile report: one self-contained HTML page (inline SVG and CSS, no
// script, nothing fetched) per package, with each layer's spy plots before
// and after its row permutation, its features, the selector's ranking, its
// format statistics, the compile stages' times and, when given, measured
// times against cuSPARSE (docs/Compile.md, "The report").
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TOOLS_REPORT_H
#define SPPERM_TOOLS_REPORT_H

#include "spperm/Sparse/Package.h"
#include "spperm/Sparse/Selector.h"
#include "spperm/Sparse/Status.h"

#include <string>
#include <utility>
#include <vector>

namespace spperm {

/// A `spperm-run --bench --json` record: the layer it timed and the median
/// of each variant it ran.
struct BenchRecord {
  std::string path, layer, device, k;
  std::vector<std::pair<std::string, double>> medianMs;
};

/// Reads and checks the record at `path` (spperm-compile reads every record
/// before compiling anything).
StatusOr<BenchRecord> readBenchRecord(const std::string &path);

/// What the report shows besides the layers themselves.
struct ReportInputs {
  /// The package's path and the command's input, for the title.
  std::string package, input;
  /// Each compile stage and its wall time in seconds, in order.
  std::vector<std::pair<std::string, double>> stages;
  /// How the variants were chosen (the ranking is recomputed with these).
  SelectionOptions selection;
  /// Measurements to draw against cuSPARSE (may be empty); each record
  /// names its layer.
  std::vector<BenchRecord> bench;
};

/// The spy plot of `m` as inline SVG, rows in the order `order` gives
/// (order[i] = the row drawn at position i; empty: the matrix's order),
/// down-sampled to at most `maxCells` x `maxCells` cells shaded by the
/// share of each cell's positions that hold an entry.
std::string spySvg(const CsrMatrix &m, const std::vector<int32_t> &order,
                   int maxCells = 96);

/// Writes the report for `layers` to `path` (atomically); an error names
/// the file and the problem.
Status writeCompileReport(const std::string &path,
                          const std::vector<PackageLayer> &layers,
                          const ReportInputs &inputs);

} // namespace spperm

#endif // SPPERM_TOOLS_REPORT_H
