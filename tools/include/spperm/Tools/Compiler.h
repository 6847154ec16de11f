//===- Compiler.h - The compiler as a library -------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// What spperm-compile does, callable in-process (by the tool and by the
// Python module, docs/Python.md): read the input (a matrix file, a matrix in
// memory, or a .mlir module of spperm ops), run the named pipeline
// spperm-pipeline with the tuning options, and write the package
// (docs/Package.md) and optionally the HTML report. The interface is plain
// C++ (no MLIR types), so that its callers need no MLIR headers.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TOOLS_COMPILER_H
#define SPPERM_TOOLS_COMPILER_H

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Package.h"
#include "spperm/Tools/Report.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace spperm {

/// The path an in-memory matrix is recorded under in the package's
/// `source.path` (docs/Package.md): "memory:" and the layer's name.
constexpr const char *kMemorySourcePrefix = "memory:";

/// One compilation: the input, the outputs and the options of
/// spperm-compile (docs/Compile.md).
struct CompileRequest {
  /// A matrix file (.mtx, .smtx, .npz; .gz for the text formats) or a .mlir
  /// module; empty when `matrix` is given.
  std::string input;
  /// An in-memory matrix, compiled as one layer named `layerName` (a
  /// symbol name: [A-Za-z_][A-Za-z0-9_]*); `input` must then be empty.
  std::optional<CsrMatrix> matrix;
  std::string layerName;
  /// The package directory to write (replaced if it is a package).
  std::string output;
  /// The HTML report to write ("" for none) and the bench records it draws,
  /// read from `benchPaths` (which, like the input and a --model, no output
  /// may replace).
  std::string report;
  std::vector<BenchRecord> bench;
  std::vector<std::string> benchPaths;
  /// --values: matrix files only; "file" keeps the file's values.
  std::string values = "file";
  bool valuesGiven = false;
  /// --dtype: the element type of B and C (f32, f16 or bf16; matrix
  /// inputs only: a .mlir module's tensor types say it).
  std::string dtype = "f32";
  bool dtypeGiven = false;
  /// --values-dtype: the element type A's values are stored and read in
  /// (f32, or the --dtype; empty: the --dtype's), rounded to nearest even.
  std::string valuesDtype;
  /// --data: "embed" or "external" (matrix files only).
  std::string data = "embed";
  /// --store-alternatives: store every alternative's arrays in data.bin
  /// instead of rebuilding the reproducible ones at load (docs/Package.md,
  /// "Rebuilt alternatives").
  bool storeAlternatives = false;
  /// --size-budget X: every variant's arrays within X times the matrix's
  /// CSR bytes (docs/Package.md, "Size budget"); 0 for none.
  double sizeBudget = ::spperm::kDefaultSizeBudget;
  /// The tuning options (spperm-pipeline's, tuningOptions()) by name, as
  /// given: "true" for a flag. Matrix inputs default to strategy and format
  /// `auto`.
  std::vector<std::pair<std::string, std::string>> tuning;
  /// Progress lines on stderr for long stages, prefixed with `tool`.
  bool progress = false;
  std::string tool = "spperm-compile";
  /// Polled between the compile's stages and after each of its passes (may
  /// be empty): once it returns true the compile stops and fails with the
  /// error "interrupted", writing nothing (the Python module's Ctrl-C).
  std::function<bool()> interrupted;
};

/// What a compilation reports besides the package.
struct CompileResult {
  /// One line per problem (no tool prefix), the first being the cause;
  /// empty on success.
  std::vector<std::string> errors;
  /// One line per warning (no tool prefix); the package is made all the
  /// same. A tuning option given that the compile cannot use: a bell
  /// option with another --format fixed, an hbp option likewise, --alpha
  /// or --tau with another --strategy fixed, --k-buckets with a matrix
  /// compiled for one K, --k or --k-buckets on a module whose every K is
  /// static, --model with --cost-model; a module's #spperm.choice that its
  /// layer does not run; any other warning a pass emits, as
  /// `LOC: message`.
  std::vector<std::string> warnings;
  /// The wall time of each stage in seconds, in the order they first ran
  /// (BENCHMARK.md's compile-time split).
  std::vector<std::pair<std::string, double>> stages;
};

/// Compiles `request`. Every output path is checked before any work; on
/// failure `result.errors` says why and no output is left behind (an
/// existing package at `output` is kept).
bool compilePackage(CompileRequest request, CompileResult &result);

/// A tuning option of the compiler (an option of spperm-pipeline).
struct TuningOption {
  std::string name;
  /// Whether it is a flag (no value).
  bool flag = false;
};

/// Every tuning option, in the order `--help` lists them.
std::vector<TuningOption> tuningOptions();

/// Prints the tuning options' help to stdout, indented by `indent`.
void printTuningOptionsHelp(size_t indent, size_t descriptionIndent);

/// The compile stages' times as an execution time report (after MLIR's
/// `--mlir-timing`), for stderr.
std::string formatStageTimes(
    const std::vector<std::pair<std::string, double>> &stages);

} // namespace spperm

#endif // SPPERM_TOOLS_COMPILER_H
