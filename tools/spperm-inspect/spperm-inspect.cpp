//===- spperm-inspect.cpp - Print statistics of a sparse matrix -*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Reads a matrix file and prints its statistics, as a short table or (with
// --json) as one JSON object with the keys of the DESIGN contract.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Stats.h"
#include "spperm/Tools/CommandLine.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

using namespace spperm;

static const char *const kTool = "spperm-inspect";

static nlohmann::ordered_json statsToJson(const BasicStats &s) {
  nlohmann::ordered_json j;
  j["rows"] = s.rows;
  j["cols"] = s.cols;
  j["nnz"] = s.nnz;
  j["density"] = s.density;
  j["empty_rows"] = s.emptyRows;
  j["row_nnz"] = {{"mean", s.rowNnzMean},
                  {"std", s.rowNnzStd},
                  {"min", s.rowNnzMin},
                  {"max", s.rowNnzMax}};
  return j;
}

static void printTable(const std::string &path, const BasicStats &s) {
  std::printf("%-12s %s\n", "matrix", path.c_str());
  std::printf("%-12s %lld x %lld\n", "shape", static_cast<long long>(s.rows),
              static_cast<long long>(s.cols));
  std::printf("%-12s %lld\n", "nnz", static_cast<long long>(s.nnz));
  std::printf("%-12s %.6g\n", "density", s.density);
  std::printf("%-12s %lld\n", "empty rows", static_cast<long long>(s.emptyRows));
  std::printf("%-12s mean %.4f  std %.4f  min %lld  max %lld\n", "row nnz",
              s.rowNnzMean, s.rowNnzStd, static_cast<long long>(s.rowNnzMin),
              static_cast<long long>(s.rowNnzMax));
}

int main(int argc, char **argv) {
  std::string path;
  std::string values = "file";
  bool json = false;

  ArgParser args(kTool, "MATRIX [--json] [--values file|ones|random:SEED]",
                 "Reads a sparse matrix (.mtx or .smtx, optionally .gz) and "
                 "prints its statistics.");
  args.addPositional("MATRIX", "Matrix file (.mtx, .smtx, optionally .gz)",
                     &path);
  args.addFlag("json", "Print one JSON object instead of a table", &json);
  args.addOption("values", "SPEC",
                 "Values of the entries: file (default), ones, random:SEED",
                 &values);
  if (std::optional<int> exitCode = args.parse(argc, argv))
    return *exitCode;

  StatusOr<ValuesSpec> spec = parseValuesSpec(values);
  if (!spec) {
    reportError(kTool, spec.message());
    return 1;
  }
  ReadOptions options;
  options.values = *spec;
  StatusOr<CsrMatrix> matrix = readMatrixFile(path, options);
  if (!matrix) {
    reportError(kTool, matrix.message());
    return 1;
  }

  BasicStats stats = computeBasicStats(*matrix);
  if (json)
    std::printf("%s\n", statsToJson(stats).dump(2).c_str());
  else
    printTable(path, stats);
  return 0;
}
