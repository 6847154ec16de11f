//===- Report.cpp - spperm-compile --report ---------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Tools/Report.h"

#include "spperm/Sparse/Escape.h"
#include "spperm/Sparse/Features.h"
#include "spperm/Sparse/Formats.h"
#include "spperm/Sparse/Npy.h"
#include "spperm/Sparse/Strategy.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

using namespace spperm;

namespace {

/// `text` with the characters HTML gives a meaning escaped.
std::string escape(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

std::string number(double v, const char *format = "%.4g") {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

constexpr const char *kStyle =
    "body{font-family:sans-serif;margin:2em;max-width:72em}"
    "table{border-collapse:collapse;margin:0.5em 0 1.5em}"
    "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}"
    ".spy{display:inline-block;margin-right:2em;vertical-align:top}"
    ".spy svg{border:1px solid #888;background:#fff}"
    "details{margin-bottom:1.5em}";

/// The longest median a bench record may give: a day, in milliseconds.
constexpr double kMaxBenchMs = 86400e3;

/// A horizontal bar chart of (label, value) pairs as inline SVG.
std::string barsSvg(const std::vector<std::pair<std::string, double>> &bars,
                    const std::string &unit) {
  double top = 0;
  for (const auto &b : bars)
    top = std::max(top, b.second);
  const int rowHeight = 22, labelWidth = 220, barWidth = 360;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    std::to_string(labelWidth + barWidth + 90) +
                    "\" height=\"" +
                    std::to_string(rowHeight * int(bars.size()) + 4) +
                    "\" role=\"img\" class=\"bars\">";
  for (size_t i = 0; i < bars.size(); ++i) {
    const int y = int(i) * rowHeight + 2;
    const double w = top > 0 ? barWidth * (bars[i].second / top) : 0;
    const bool ours = bars[i].first.rfind("spperm", 0) == 0;
    svg += "<text x=\"0\" y=\"" + std::to_string(y + 15) +
           "\" font-size=\"13\">" + escape(bars[i].first) + "</text>";
    svg += "<rect x=\"" + std::to_string(labelWidth) + "\" y=\"" +
           std::to_string(y + 3) + "\" width=\"" + number(w, "%.1f") +
           "\" height=\"16\" fill=\"" + (ours ? "#2171b5" : "#999") + "\"/>";
    svg += "<text x=\"" + number(labelWidth + w + 6, "%.1f") + "\" y=\"" +
           std::to_string(y + 15) + "\" font-size=\"13\">" +
           number(bars[i].second) + " " + unit + "</text>";
  }
  return svg + "</svg>";
}

/// The bars of the records that name `layer`.
void benchSection(const std::vector<BenchRecord> &records,
                  const std::string &layer, std::string &html) {
  for (const BenchRecord &r : records)
    if (r.layer == layer)
      html += "<h3>Measured (" + escape(r.path) + ": device " +
              escape(r.device) + ", K = " + escape(r.k) +
              ", median of the timed runs)</h3>\n" + barsSvg(r.medianMs, "ms") +
              "\n";
}

} // namespace

StatusOr<BenchRecord> spperm::readBenchRecord(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    return Status::error(path + ": cannot open the bench record");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("variants") ||
      !j["variants"].is_array() || !j.contains("layer") ||
      !j["layer"].is_string())
    return Status::error(path + ": not a spperm-run --bench --json record");
  BenchRecord record;
  record.path = path;
  record.layer = j["layer"].get<std::string>();
  record.device = j.contains("device") && j["device"].is_string()
                      ? j["device"].get<std::string>()
                      : "?";
  record.k = j.contains("k") ? j["k"].dump() : "?";
  for (const nlohmann::json &v : j["variants"]) {
    if (!v.is_object() || !v.contains("variant") ||
        !v["variant"].is_string() || !v.contains("median_ms") ||
        !v["median_ms"].is_number())
      return Status::error(path +
                           ": a variant lacks 'variant' or 'median_ms'");
    // A time spperm-run could have measured: not negative, not beyond a
    // day (nor NaN or infinite, which JSON cannot hold anyway).
    const double median = v["median_ms"].get<double>();
    if (!(median >= 0.0 && median <= kMaxBenchMs))
      return Status::error(path + ": variant " +
                           spperm::quoted(v["variant"].get<std::string>()) +
                           ": median_ms must be in [0, " +
                           number(kMaxBenchMs, "%.0f") + "], got " +
                           v["median_ms"].dump());
    record.medianMs.emplace_back(v["variant"].get<std::string>(), median);
  }
  return record;
}

std::string spperm::spySvg(const CsrMatrix &m,
                           const std::vector<int32_t> &order, int maxCells) {
  // At most maxCells along the longer side; the other side in proportion,
  // so that the plot keeps the matrix's aspect.
  const int64_t rows = std::max<int64_t>(m.rows, 1);
  const int64_t cols = std::max<int64_t>(m.cols, 1);
  const int64_t longer = std::max(rows, cols);
  const int64_t cells = std::min<int64_t>(longer, maxCells);
  const int64_t rowCells = std::max<int64_t>(
      1, std::min<int64_t>(rows, (rows * cells + longer - 1) / longer));
  const int64_t colCells = std::max<int64_t>(
      1, std::min<int64_t>(cols, (cols * cells + longer - 1) / longer));
  std::vector<int64_t> count(static_cast<size_t>(rowCells * colCells), 0);
  for (int64_t p = 0; p < m.rows; ++p) {
    const int64_t r = order.empty() ? p : order[static_cast<size_t>(p)];
    const int64_t cellRow = p * rowCells / std::max<int64_t>(m.rows, 1);
    for (int64_t e = m.rowPtr[r]; e < m.rowPtr[r + 1]; ++e) {
      const int64_t cellCol =
          int64_t(m.colIdx[e]) * colCells / std::max<int64_t>(m.cols, 1);
      ++count[static_cast<size_t>(cellRow * colCells + cellCol)];
    }
  }
  // Shades by the share of a cell's positions that hold an entry.
  const double cellSize = (double(std::max<int64_t>(m.rows, 1)) / rowCells) *
                          (double(std::max<int64_t>(m.cols, 1)) / colCells);
  auto shade = [&](int64_t c) -> int {
    if (c == 0)
      return 0;
    const double share = c / cellSize;
    return share >= 0.5 ? 4 : share >= 0.1 ? 3 : share >= 0.01 ? 2 : 1;
  };
  static const char *kColors[] = {"", "#9ecae1", "#4292c6", "#08519c",
                                  "#08306b"};
  // The longer side 280 pixels, the shorter in proportion (at least 8).
  const double scale = 280.0 / double(std::max(rowCells, colCells));
  const int width = std::max(8, int(std::lround(scale * double(colCells))));
  const int height = std::max(8, int(std::lround(scale * double(rowCells))));
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    std::to_string(width) + "\" height=\"" +
                    std::to_string(height) +
                    "\" viewBox=\"0 0 " + std::to_string(colCells) + " " +
                    std::to_string(rowCells) +
                    "\" preserveAspectRatio=\"none\" shape-rendering="
                    "\"crispEdges\" role=\"img\" class=\"spy-plot\">";
  // One path per shade, a subpath per run of equal cells in a row: compact
  // enough for a page of many layers.
  std::string paths[5];
  for (int64_t r = 0; r < rowCells; ++r) {
    int64_t c = 0;
    while (c < colCells) {
      const int s = shade(count[static_cast<size_t>(r * colCells + c)]);
      int64_t end = c + 1;
      while (end < colCells &&
             shade(count[static_cast<size_t>(r * colCells + end)]) == s)
        ++end;
      if (s > 0)
        paths[s] += "M" + std::to_string(c) + " " + std::to_string(r) + "h" +
                    std::to_string(end - c) + "v1h-" +
                    std::to_string(end - c) + "z";
      c = end;
    }
  }
  for (int s = 1; s <= 4; ++s)
    if (!paths[s].empty())
      svg += "<path fill=\"" + std::string(kColors[s]) + "\" d=\"" +
             paths[s] + "\"/>";
  return svg + "</svg>";
}

Status spperm::writeCompileReport(const std::string &path,
                                  const std::vector<PackageLayer> &layers,
                                  const ReportInputs &inputs) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>spperm compile report: " +
      escape(inputs.package) + "</title><style>" + kStyle +
      "</style></head><body>\n<h1>spperm compile report</h1>\n<p>" +
      escape(inputs.input) + " &rarr; " + escape(inputs.package) + ", " +
      std::to_string(layers.size()) + " layer(s), target " +
      escape(inputs.selection.target) + "</p>\n";

  // The stages.
  double total = 0;
  for (const auto &stage : inputs.stages)
    total += stage.second;
  html += "<h2>Compile stages</h2>\n<table class=\"stages\"><tr><th>stage"
          "</th><th>seconds</th><th>share</th></tr>\n";
  for (const auto &[stage, s] : inputs.stages)
    html += "<tr><td>" + escape(stage) + "</td><td class=\"n\">" +
            number(s, "%.4f") + "</td><td class=\"n\">" +
            number(total > 0 ? 100 * s / total : 0, "%.1f") + " %</td></tr>\n";
  html += "<tr><th>total</th><th class=\"n\">" + number(total, "%.4f") +
          "</th><th></th></tr></table>\n";

  std::unique_ptr<SelectorModel> model;
  for (const PackageLayer &layer : layers) {
    const CsrMatrix original = toOriginalCsr(layer.matrix);
    html += "<h2>Layer " + escape(layer.name) + "</h2>\n<table>";
    html += "<tr><td>shape</td><td>" + std::to_string(layer.matrix.rows) +
            " &times; " + std::to_string(layer.matrix.cols) + "</td></tr>";
    html += "<tr><td>nnz</td><td>" + std::to_string(layer.matrix.nnz) +
            "</td></tr>";
    html += "<tr><td>K</td><td>" +
            (layer.k ? std::to_string(layer.k) : std::string("any")) +
            "</td></tr>";
    html += "<tr><td>permutation</td><td>" +
            std::string(strategyCliName(layer.permutation.strategy)) +
            "</td></tr>";
    html += "<tr><td>format</td><td>" +
            std::string(formatName(layer.matrix.kind)) + "</td></tr>";
    bool library = false;
    for (const KernelInfo &kernel : layer.kernels)
      library |= kernel.family == ::spperm::kCusparse;
    html += "<tr><td>runs</td><td>" +
            std::string(library ? "cuSPARSE (the library)"
                        : layer.libraryCheck
                            ? "generated kernels, checked against cuSPARSE "
                              "at the first call"
                            : "generated kernels") +
            "</td></tr>";
    if (!layer.alternatives.empty()) {
      // The shortlist the runtime times beside the layer's own variant.
      std::string list;
      for (const PackageLayer &alt : layer.alternatives)
        list += std::string(list.empty() ? "" : ", ") +
                std::string(strategyCliName(alt.permutation.strategy)) + " / " +
                std::string(formatName(alt.matrix.kind));
      html += "<tr><td>shortlist</td><td>" + escape(list) +
              " (timed with the layer's own at the first call per K; the "
              "fastest runs)</td></tr>";
    }
    html += "</table>\n";

    // Spy plots: the original order, then the order the kernels walk.
    html += "<div class=\"spy\"><h3>Original rows</h3>" +
            spySvg(original, {}) + "</div>";
    html += "<div class=\"spy\"><h3>After " +
            std::string(strategyCliName(layer.permutation.strategy)) +
            "</h3>" + spySvg(original, layer.matrix.order) + "</div>\n";
    html += "<p>Spy plots down-sampled to at most 96 cells along the longer side; "
            "darker: a larger share of the cell's positions holds entries "
            "(&ge; 1 %, 10 %, 50 %).</p>\n";

    // Format statistics.
    const FormatStats stats = computeFormatStats(layer.matrix, original);
    if (layer.matrix.kind == FormatKind::Bell)
      html += "<h3>Blocked-ELL</h3><table><tr><td>fill (stored values / "
              "entries in dense blocks)</td><td class=\"n\">" +
              number(stats.fillRatio) +
              "</td></tr><tr><td>entries in dense blocks</td><td "
              "class=\"n\">" +
              number(100 * stats.denseNnzShare, "%.1f") +
              " %</td></tr></table>\n";
    if (layer.matrix.kind == FormatKind::Hbp)
      html += "<h3>HBP</h3><table><tr><td>row-length std-dev in a warp "
              "group, before hashing</td><td class=\"n\">" +
              number(stats.hbpGroupStdBefore) +
              "</td></tr><tr><td>after hashing</td><td class=\"n\">" +
              number(stats.hbpGroupStdAfter) + "</td></tr></table>\n";

    // The selector's ranking for this layer's K (as spperm-compile ranks a
    // package for any K).
    const Features features = computeFeatures(original, FeatureOptions());
    const int64_t k = layer.k ? layer.k : kAnyKSelectionK;
    SelectionOptions options = inputs.selection;
    options.strategy.clear();
    options.format.clear();
    if (!model && usesSelectorModel(options)) {
      StatusOr<SelectorModel> loaded = loadSelectorModel(options);
      if (!loaded)
        return Status::error(loaded.message());
      model = std::make_unique<SelectorModel>(std::move(*loaded));
    }
    StatusOr<Selection> ranking =
        selectVariant(selectorInputs(features, k), options, model.get());
    if (ranking) {
      html += "<h3>Selector ranking (K = " + std::to_string(k) + ", " +
              escape(ranking->source) +
              ")</h3>\n<table><tr><th>rank</th><th>strategy</th><th>format"
              "</th><th>predicted time / fastest</th></tr>\n";
      int rank = 1;
      for (const RankedCandidate &c : ranking->ranked)
        html += "<tr><td class=\"n\">" + std::to_string(rank++) + "</td><td>" +
                escape(c.candidate.strategy) + "</td><td>" +
                escape(c.candidate.format) + "</td><td class=\"n\">" +
                number(std::exp2(c.predictedLog2Ratio), "%.3f") +
                "</td></tr>\n";
      html += "</table>\n";
    }

    // Features.
    html += "<details><summary>Static features</summary><table>\n";
    for (const FeatureValue &v : flattenFeatures(features))
      html += "<tr><td>" +
              escape(v.group.empty() ? v.name : v.group + "." + v.name) +
              "</td><td class=\"n\">" + number(v.value, "%.6g") +
              "</td></tr>\n";
    html += "</table></details>\n";

    benchSection(inputs.bench, layer.name, html);
  }
  // A record that names no layer of the package was meant for another one:
  // said, and left out (the package itself is fine).
  for (const BenchRecord &r : inputs.bench)
    if (std::none_of(layers.begin(), layers.end(),
                     [&](const PackageLayer &l) { return l.name == r.layer; }))
      std::fprintf(stderr,
                   "spperm-compile: warning: %s: the record is of layer "
                   "'%s', which this package does not have; not drawn\n",
                   r.path.c_str(), r.layer.c_str());
  html += "</body></html>\n";
  return writeFileAtomically(path, html);
}
