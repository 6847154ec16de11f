//===- spperm-compile.cpp - Compile fixed sparse matrices -------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Ahead-of-time compilation of fixed sparse matrices into a package the
// runtime loads (docs/Package.md): parse the input (a matrix file, one
// layer, or a .mlir module of spperm ops, one layer per function), run the
// compiler - the named pipeline spperm-pipeline, with the tuning flags as
// its options - and write the package from the lowered module: every
// function's spperm.spmm is a layer, its matrix as the pipeline's matrix
// cache holds it, its launches as spperm-lower-to-gpu recorded them.
//
//===----------------------------------------------------------------------===//

#include "Report.h"

#include "spperm/Conversion/Pipeline.h"
#include "spperm/Conversion/SpPermToGPU.h"
#include "spperm/Dialect/SpPerm/IR/SpPerm.h"
#include "spperm/Sparse/Interrupt.h"
#include "spperm/Sparse/Npy.h"
#include "spperm/Sparse/Package.h"
#include "spperm/Tools/CommandLine.h"
#include "spperm/Tools/MlirNesting.h"
#include "spperm/Tools/Progress.h"
#include "spperm/Transforms/MatrixUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>

#include <unistd.h>

using namespace mlir;
using namespace mlir::spperm;
using ::spperm::ArgParser;
using ::spperm::reportError;

static const char *const kTool = "spperm-compile";

namespace {

/// The tool's own flags; the tuning flags are the pipeline's options.
struct Options {
  std::string input, output, report, reportBench;
  bool timing = false;
  bool quiet = false;
  std::string values = "file";
  bool valuesSeen = false;
  std::string data = "embed";
};

/// Wall time of each compilation stage (BENCHMARK.md's compile-time split),
/// in the order the stages first ran, and the progress report of the stages
/// as they start.
struct StageTimes {
  std::vector<std::pair<std::string, double>> seconds;
  ::spperm::Progress *progress = nullptr;
  /// Adds `s` seconds to `stage` (a new entry when it has not run before).
  void add(StringRef stage, double s) {
    for (auto &entry : seconds)
      if (entry.first == stage) {
        entry.second += s;
        return;
      }
    seconds.emplace_back(stage.str(), s);
  }
  /// Announces the stage about to start (when it turns out to be long).
  void begin(std::string what) {
    if (progress)
      progress->stage(std::move(what));
  }
};

/// Prints `times` as an execution time report, after MLIR's
/// `--mlir-timing` (stages in the order they ran, seconds and share).
void printTiming(llvm::raw_ostream &os, const StageTimes &times) {
  double total = 0;
  for (const auto &entry : times.seconds)
    total += entry.second;
  os << "===" << std::string(73, '-') << "===\n"
     << "                 spperm-compile execution time report\n"
     << "===" << std::string(73, '-') << "===\n"
     << llvm::format("  Total Execution Time: %.4f seconds\n\n", total)
     << "  ----Wall Time----  ----Name----\n";
  for (const auto &[stage, s] : times.seconds)
    os << llvm::format("  %8.4f (%5.1f%%)  %s\n", s,
                       total > 0 ? 100.0 * s / total : 0.0, stage.c_str());
  os << llvm::format("  %8.4f (100.0%%)  Total\n", total);
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

/// A layer name from a file name: its stem without matrix extensions, with
/// characters outside [A-Za-z0-9_] replaced by '_'.
std::string layerNameFor(StringRef path) {
  StringRef name = llvm::sys::path::filename(path);
  for (StringRef ext : {".gz", ".mtx", ".smtx"})
    name.consume_back(ext);
  for (StringRef ext : {".mtx", ".smtx"})
    name.consume_back(ext);
  std::string out;
  for (char c : name)
    out += (isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || isdigit(static_cast<unsigned char>(out[0])))
    out = "m_" + out;
  return out;
}

/// Builds `func.func @NAME(%b: tensor<NxKxf32>) -> tensor<MxKxf32>` around
/// one matrix file.
OwningOpRef<ModuleOp> buildMatrixModule(MLIRContext *ctx,
                                        const std::string &path,
                                        const std::string &values, int32_t rows,
                                        int32_t cols, int64_t k) {
  OpBuilder b(ctx);
  Location loc = FileLineColLoc::get(ctx, path, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  int64_t kDim = k > 0 ? k : ShapedType::kDynamic;
  auto bType = RankedTensorType::get({cols, kDim}, b.getF32Type());
  auto cType = RankedTensorType::get({rows, kDim}, b.getF32Type());
  auto func = func::FuncOp::create(b, loc, layerNameFor(path),
                                   b.getFunctionType({bType}, {cType}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  auto matrixType =
      MatrixType::get(ctx, rows, cols, b.getF32Type(), CsrAttr::get(ctx, {}));
  auto load = LoadOp::create(b, loc, matrixType, b.getStringAttr(path),
                             values == "file" ? StringAttr()
                                              : b.getStringAttr(values),
                             FeaturesAttr(), ChoiceAttr());
  auto spmm = SpMMOp::create(b, loc, cType, load.getResult(),
                             entry->getArgument(0));
  func::ReturnOp::create(b, loc, spmm.getResult());
  return module;
}

/// Hands the matrix the tool read (to learn its shape) to the pipeline's
/// matrix cache, so that no pass reads it again; keeps a pointer to the
/// cache for the stage times.
struct SeedMatrixCache
    : public PassWrapper<SeedMatrixCache, OperationPass<ModuleOp>> {
  SeedMatrixCache(std::string path, std::string values,
                  std::optional<::spperm::CsrMatrix> &matrix,
                  const MatrixCache *&cache)
      : path(std::move(path)), values(std::move(values)), matrix(matrix),
        cache(cache) {}
  StringRef getArgument() const final { return "spperm-compile-seed"; }
  void runOnOperation() override {
    MatrixCache &matrices = getAnalysis<MatrixCache>();
    if (matrix)
      matrices.insert(path, values, std::move(*matrix));
    matrix.reset();
    cache = &matrices;
    markAllAnalysesPreserved();
  }
  std::string path, values;
  std::optional<::spperm::CsrMatrix> &matrix;
  const MatrixCache *&cache;
};

/// What the package needs of a compilation, besides the layers.
struct CollectOptions {
  std::string baseDir;
  bool libraryCheck = true;
};

/// Turns every function's lowered spperm.spmm into a package layer: its
/// matrix from the pipeline's cache (taken out of it), its launches from
/// spperm.kernels, the sha256 of its source file.
LogicalResult collectLayers(ModuleOp module, MatrixCache &matrices,
                            const CollectOptions &options,
                            std::vector<::spperm::PackageLayer> &layers) {
  std::map<std::string, std::string> sourceHashes;
  for (auto func : module.getOps<func::FuncOp>()) {
    SmallVector<SpMMOp> spmms(func.getOps<SpMMOp>());
    if (spmms.empty())
      continue;
    if (spmms.size() > 1)
      return func.emitError() << "holds " << spmms.size()
                              << " spperm.spmm ops; a layer is one function "
                                 "with one multiplication";
    SpMMOp spmm = spmms.front();
    LoadOp load = getSourceLoad(spmm.getMatrix());
    std::optional<::spperm::FormattedMatrix> formatted =
        matrices.takeFormatted(spmm, options.baseDir);
    if (!formatted)
      return failure();
    ::spperm::PackageLayer layer;
    layer.name = func.getSymName().str();
    // A copy spperm-expand-alternatives made: one of the layer's
    // alternatives (it follows its layer in the module).
    ::spperm::PackageLayer *parent = nullptr;
    if (auto of = func->getAttrOfType<FlatSymbolRefAttr>(
            "spperm.alternative_of")) {
      for (::spperm::PackageLayer &l : layers)
        if (l.name == of.getValue())
          parent = &l;
      if (!parent || !parent->libraryCheck)
        return func.emitError()
               << "is an alternative of @" << of.getValue()
               << ", which is not a layer checked at run time before it";
      layer.name = parent->name;
    }
    MatrixType type = spmm.getMatrix().getType();
    layer.permutation = getPermutationOptions(type.getPerm());
    layer.format = getFormatOptions(type.getFormat());
    layer.matrix = std::move(*formatted);
    int64_t kDim =
        cast<RankedTensorType>(spmm.getDense().getType()).getDimSize(1);
    layer.k = ShapedType::isDynamic(kDim) ? 0 : kDim;
    layer.sourcePath = load.resolvePath(options.baseDir);
    // Each source file is hashed once (a layer's alternatives share it).
    auto [hashed, fresh] = sourceHashes.try_emplace(layer.sourcePath);
    if (fresh) {
      ::spperm::StatusOr<std::string> sha =
          ::spperm::sha256File(layer.sourcePath);
      if (!sha)
        return load.emitOpError() << sha.message();
      hashed->second = *sha;
    }
    layer.sourceSha256 = hashed->second;
    layer.values =
        *::spperm::parseValuesSpec(load.getValues().value_or("file").str());
    ChoiceAttr choice = load.getChoiceAttr();
    // Kernels the selector chose are checked against the library at run
    // time; a forced choice is taken as it is.
    layer.libraryCheck = options.libraryCheck && choice &&
                         choice.getFormat() != StringRef(::spperm::kCusparse) &&
                         choice.getSource() != "forced";
    auto launches = spmm->getAttrOfType<ArrayAttr>(kKernelsAttrName);
    if (!launches)
      return spmm.emitOpError("has no ") << kKernelsAttrName
                                         << " (spperm-lower-to-gpu did not "
                                            "run)";
    for (Attribute launch : launches)
      layer.kernels.push_back(getKernelInfo(cast<LaunchAttr>(launch)));
    if (parent) {
      if (runsOnLibrary(spmm))
        return func.emitError() << "is an alternative of @" << parent->name
                                << " that runs cuSPARSE; alternatives are "
                                   "generated variants";
      layer.libraryCheck = true;
      parent->alternatives.push_back(std::move(layer));
      continue;
    }
    layers.push_back(std::move(layer));
  }
  if (layers.empty())
    return module.emitError("no function multiplies a matrix "
                            "(spperm.spmm): nothing to compile");
  return success();
}

/// The last pass: collectLayers with the pipeline's matrix cache.
struct CollectLayers
    : public PassWrapper<CollectLayers, OperationPass<ModuleOp>> {
  CollectLayers(CollectOptions options,
                std::vector<::spperm::PackageLayer> &layers)
      : options(std::move(options)), layers(layers) {}
  StringRef getArgument() const final { return "spperm-compile-collect"; }
  void runOnOperation() override {
    if (failed(collectLayers(getOperation(), getAnalysis<MatrixCache>(),
                             options, layers)))
      signalPassFailure();
  }
  CollectOptions options;
  std::vector<::spperm::PackageLayer> &layers;
};

/// Times the pipeline's passes as compile stages and announces them: the
/// matrix cache's permutation and format builds are their own stages,
/// whichever pass asked for them.
struct StageTimer : public PassInstrumentation {
  StageTimer(StageTimes &times, Operation *top, bool matrixInput,
             const MatrixCache *&cache)
      : times(times), top(top), matrixInput(matrixInput), cache(cache) {}

  /// The stage a top-level pass belongs to, and how progress names it.
  std::pair<StringRef, std::string> stageOf(Pass *pass) const {
    StringRef arg = pass->getArgument();
    if (arg == "spperm-extract-features")
      return matrixInput ? std::pair<StringRef, std::string>{"features",
                                                             "computing "
                                                             "features"}
                         : std::pair<StringRef, std::string>{
                               "read + features",
                               "reading the layers' matrices and computing "
                               "features"};
    if (arg == "spperm-select" || arg == "spperm-expand-alternatives")
      return {"selection", "selecting the variants"};
    if (arg == "spperm-permute-rows" || arg == "spperm-convert-format")
      return {"passes", "permuting rows and converting formats"};
    if (arg == "spperm-lower-to-gpu")
      return {"codegen", "generating kernels"};
    if (arg == "spperm-compile-collect")
      return {"hash", "collecting the layers (sha256 of the sources)"};
    if (arg == "spperm-compile-seed")
      return {"", ""};
    return {"ptx", "lowering the kernels to PTX"};
  }

  void runBeforePass(Pass *pass, Operation *op) override {
    if (op != top)
      return;
    auto [stage, what] = stageOf(pass);
    if (!stage.empty() && stage != current)
      times.begin(what);
    current = stage;
    if (cache)
      before = cache->getTimes();
    start = std::chrono::steady_clock::now();
  }
  void runAfterPass(Pass *pass, Operation *op) override {
    if (op != top)
      return;
    double seconds = since(start);
    StringRef stage = stageOf(pass).first;
    if (stage.empty())
      return;
    if (stage == "passes" || stage == "codegen") {
      // Where the matrices were permuted and stored, those stages (first
      // seen after the passes that decide the storage).
      MatrixCacheTimes now = cache ? cache->getTimes() : MatrixCacheTimes();
      double permutation = now.permutation - before.permutation;
      double format = now.format - before.format;
      times.add(stage, std::max(0.0, seconds - permutation - format));
      times.add("permutation", permutation);
      times.add("format", format);
      return;
    }
    times.add(stage, seconds);
  }
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    runAfterPass(pass, op);
  }

  StageTimes &times;
  Operation *top;
  bool matrixInput;
  const MatrixCache *&cache;
  StringRef current;
  MatrixCacheTimes before;
  std::chrono::steady_clock::time_point start;
};

/// `--NAME` for the options of a pipeline-option error.
std::string spellAsFlags(StringRef message) {
  std::string text = message.trim().str();
  // llvm::cl's: "[<Pass-Options-Parser>]: for the --x option: ...".
  StringRef rest(text);
  rest.consume_front("<Pass-Options-Parser>");
  rest.consume_front(": ");
  if (rest.consume_front("for the ")) {
    auto [flag, detail] = rest.split(" option: ");
    if (detail.consume_front("Cannot find option named "))
      return (flag + ": unknown value " + detail.rtrim("!") + " (see --help)")
          .str();
    for (auto [suffix, what] :
         {std::pair<StringRef, StringRef>{" value invalid for long argument!",
                                          "an integer"},
          {" value invalid for floating point argument!", "a number"},
          {" value invalid for boolean argument! Try 0 or 1", "true or false"}})
      if (detail.consume_back(suffix))
        return (flag + " must be " + what + ", got " + detail).str();
    return (flag + ": " + detail).str();
  }
  return rest.str();
}

/// Parses `text` into `options`, with what the parser says on failure in
/// `error` instead of on stderr: llvm::cl reports a bad value of an option
/// straight to llvm::errs(), so stderr is redirected to a temporary file
/// while it parses.
LogicalResult parseQuietly(SpPermPipelineOptions &options, StringRef text,
                           std::string &error) {
  llvm::raw_string_ostream errors(error);
  llvm::errs().flush();
  std::FILE *capture = std::tmpfile();
  int saved = capture ? dup(STDERR_FILENO) : -1;
  if (saved >= 0)
    dup2(fileno(capture), STDERR_FILENO);
  LogicalResult result = options.parseFromString(text, errors);
  llvm::errs().flush();
  if (saved >= 0) {
    dup2(saved, STDERR_FILENO);
    close(saved);
    std::rewind(capture);
    char buffer[512];
    for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), capture)) > 0;)
      error.append(buffer, n);
  }
  if (capture)
    std::fclose(capture);
  return result;
}

/// The value of a tuning flag as the pipeline's option parser reads it.
std::string quoteOptionValue(const std::string &value) {
  if (value.find_first_of(" {}'\"") == std::string::npos && !value.empty())
    return value;
  return "{" + value + "}";
}

} // namespace

/// Why `path` cannot be written as an output (a package directory when
/// `directory`, else a file), or "": its parent must be a writable
/// directory, and an existing `path` a package (`directory`) or a file.
static std::string checkOutputPath(const std::string &path, bool directory) {
  SmallString<256> parent(path);
  llvm::sys::path::remove_filename(parent);
  if (parent.empty())
    parent = ".";
  llvm::sys::fs::file_status st;
  if (llvm::sys::fs::status(parent, st) ||
      !llvm::sys::fs::is_directory(st))
    return path + ": cannot write: " + std::string(parent) +
           " is not a directory";
  if (::access(parent.c_str(), W_OK | X_OK) != 0)
    return path + ": cannot write in " + std::string(parent) + ": " +
           std::strerror(errno);
  if (directory) {
    ::spperm::Status free = ::spperm::checkPackageDestination(path);
    return free ? "" : free.message();
  }
  if (!llvm::sys::fs::status(path, st) && llvm::sys::fs::is_directory(st))
    return path + ": is a directory";
  return "";
}

int main(int argc, char **argv) {
  // Before any thread starts: an interrupted run removes its temporaries
  // and kills its children (spperm/Sparse/Interrupt.h).
  ::spperm::installInterruptCleanup();
  Options o;
  SpPermPipelineOptions pipeline;
  ArgParser args(
      kTool,
      "INPUT -o PKG [--k K] [--strategy S|auto] [--format "
      "csr|bell|hbp|cusparse|auto] [--target sm_90] [--values SPEC] "
      "[--data embed|external] [--precision fp32|tf32|f16] [--report "
      "FILE.html] [compilation options]",
      "Compiles fixed sparse matrices into a package for the spperm runtime. "
      "INPUT is a matrix file (.mtx/.smtx, optionally .gz; one layer named "
      "after the file; --strategy and --format default to auto) or a .mlir "
      "module of spperm ops (one layer per function). The compilation "
      "options are spperm-pipeline's (spperm-opt -spperm-pipeline=\"...\"), "
      "spelled as flags. See docs/Compile.md.");
  args.addPositional("INPUT", "Matrix file or .mlir module", &o.input);
  args.addOption("-o", "PKG", "Output package directory (required)",
                 &o.output);
  args.addOption("values", "SPEC",
                 "Matrix values: file (default), ones, random:SEED", &o.values,
                 &o.valuesSeen);
  args.addOption("data", "MODE",
                 "embed (default: arrays in data.bin) or external (the "
                 "package references the matrix file and its sha256)",
                 &o.data);
  args.addOption("report", "FILE.html",
                 "Write a self-contained HTML report: per layer spy plots "
                 "before and after the permutation, features, the "
                 "selector's ranking, format statistics; the stage times",
                 &o.report);
  args.addOption("report-bench", "R.json[,R.json...]",
                 "With --report: spperm-run --bench --json records whose "
                 "times the report draws against cuSPARSE",
                 &o.reportBench);
  args.addFlag("-q",
               "Quiet: no progress lines for long stages on stderr (errors "
               "are still printed)",
               &o.quiet);
  args.addFlag("timing",
               "Print the wall time of each stage on stderr (like MLIR's "
               "--mlir-timing)",
               &o.timing);
  // The tuning flags: every option of spperm-pipeline, listed by its help.
  struct Tuning {
    std::string name, value;
    bool seen = false, flag = false;
  };
  std::vector<const llvm::cl::Option *> pipelineOptions =
      pipeline.getOptions();
  std::vector<Tuning> tuning(pipelineOptions.size());
  for (auto [option, t] : llvm::zip(pipelineOptions, tuning)) {
    t.name = option->ArgStr.str();
    t.flag = option->getValueExpectedFlag() != llvm::cl::ValueRequired;
    if (t.flag)
      args.addFlag(t.name, "", &t.seen);
    else
      args.addOption(t.name, "VALUE", "", &t.value, &t.seen);
  }
  args.addHelpSection([&] {
    llvm::outs() << "\nCOMPILATION OPTIONS (spperm-pipeline's, as --NAME "
                    "VALUE or --NAME=VALUE):\n";
    pipeline.printHelp(2, 30);
    llvm::outs().flush();
  });
  if (std::optional<int> exitCode = args.parse(argc, argv))
    return *exitCode;

  if (o.output.empty()) {
    reportError(kTool, "missing -o PKG (see --help)");
    return 1;
  }
  // Every output is checked before any work: a compile that cannot write
  // all of them writes none.
  if (std::string bad = checkOutputPath(o.output, /*directory=*/true);
      !bad.empty()) {
    reportError(kTool, bad);
    return 1;
  }
  if (!o.report.empty())
    if (std::string bad = checkOutputPath(o.report, /*directory=*/false);
        !bad.empty()) {
      reportError(kTool, bad);
      return 1;
    }
  // The bench records are read (and checked) before anything is compiled.
  std::vector<::spperm::BenchRecord> benchRecords;
  if (!o.reportBench.empty() && o.report.empty()) {
    reportError(kTool, "--report-bench needs --report");
    return 1;
  }
  for (StringRef rest = o.reportBench; !rest.empty();) {
    auto [first, tail] = rest.split(',');
    rest = tail;
    if (first.empty())
      continue;
    ::spperm::StatusOr<::spperm::BenchRecord> record =
        ::spperm::readBenchRecord(first.str());
    if (!record) {
      reportError(kTool, record.message());
      return 1;
    }
    benchRecords.push_back(std::move(*record));
  }
  // The tuning flags, read by the pipeline's own option parser.
  std::string optionText;
  for (const Tuning &t : tuning)
    if (t.seen)
      optionText += t.name + "=" + (t.flag ? "true" : quoteOptionValue(t.value)) +
                    " ";
  std::string parseError;
  if (failed(parseQuietly(pipeline, optionText, parseError))) {
    reportError(kTool, spellAsFlags(parseError));
    return 1;
  }
  if (std::string error = verifyPipelineOptions(pipeline); !error.empty()) {
    reportError(kTool, "--" + error);
    return 1;
  }
  if (o.data != "embed" && o.data != "external") {
    reportError(kTool, "--data must be embed or external, got '" + o.data + "'");
    return 1;
  }
  ::spperm::StatusOr<::spperm::ValuesSpec> valuesSpec =
      ::spperm::parseValuesSpec(o.values);
  if (!valuesSpec) {
    reportError(kTool, valuesSpec.message());
    return 1;
  }

  DialectRegistry registry;
  registry.insert<SpPermDialect>();
  // The upstream dialects, interfaces and LLVM IR translations that code
  // generation lowers through (as in spperm-opt).
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  MLIRContext ctx(registry);
  ctx.loadDialect<SpPermDialect, func::FuncDialect, tensor::TensorDialect,
                  arith::ArithDialect>();
  // Diagnostics become one line each: `spperm-compile: error: LOC: message`.
  bool diagnosed = false;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error)
      return success();
    std::string text;
    llvm::raw_string_ostream os(text);
    // FILE:LINE:COL for ops, FILE alone for the module (line 0).
    Location loc = diag.getLocation();
    if (auto fused = dyn_cast<FusedLoc>(loc);
        fused && !fused.getLocations().empty())
      loc = fused.getLocations().front();
    if (auto fileLoc = dyn_cast<FileLineColLoc>(loc)) {
      os << fileLoc.getFilename().getValue();
      if (fileLoc.getLine() != 0)
        os << ":" << fileLoc.getLine() << ":" << fileLoc.getColumn();
      os << ": ";
    }
    os << diag.str();
    reportError(kTool, text);
    diagnosed = true;
    return success();
  });

  // Progress for stages longer than a second (SPPERM_PROGRESS_SECONDS
  // overrides the threshold; the tests set 0).
  const double threshold = ::spperm::progressThreshold();
  ::spperm::Progress progress(kTool, !o.quiet, threshold);
  StageTimes times;
  times.progress = &progress;
  const bool mlirInput = StringRef(o.input).ends_with(".mlir");
  OwningOpRef<ModuleOp> module;
  // A matrix file's layer: its matrix, read here for its shape, goes to the
  // pipeline's cache.
  std::optional<::spperm::CsrMatrix> matrix;
  std::string matrixPath;

  times.begin("reading " + o.input);
  auto start = std::chrono::steady_clock::now();
  if (mlirInput) {
    if (o.valuesSeen) {
      reportError(kTool, "--values applies to matrix files; a .mlir module "
                         "says it on each spperm.load");
      return 1;
    }
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
        llvm::MemoryBuffer::getFile(o.input, /*IsText=*/true);
    if (!text) {
      reportError(kTool,
                  o.input + ": cannot open: " + text.getError().message());
      return 1;
    }
    if (std::string nesting =
            ::spperm::checkMlirNesting((*text)->getBuffer(), o.input);
        !nesting.empty()) {
      reportError(kTool, nesting);
      return 1;
    }
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(*text), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&ctx));
    if (!module || failed(verify(*module)))
      return 1;
    times.add("parse", since(start));
  } else {
    ::spperm::ReadOptions readOptions;
    readOptions.values = *valuesSpec;
    ::spperm::StatusOr<::spperm::CsrMatrix> m =
        ::spperm::readMatrixFile(o.input, readOptions);
    if (!m) {
      reportError(kTool, m.message());
      return 1;
    }
    times.add("read", since(start));
    // Matrix files default to the selector's choice (`keep`, given, keeps
    // the file's row order and CSR).
    auto given = [&](StringRef name) {
      return llvm::any_of(tuning, [&](const Tuning &t) {
        return t.seen && t.name == name;
      });
    };
    if (!given("strategy"))
      pipeline.strategy = StrategyOption::Auto;
    if (!given("format"))
      pipeline.format = FormatOption::Auto;
    SmallString<256> absolute(o.input);
    llvm::sys::fs::make_absolute(absolute);
    matrixPath = std::string(absolute);
    module = buildMatrixModule(&ctx, matrixPath, o.values, m->rows, m->cols,
                               pipeline.k);
    matrix = std::move(*m);
  }

  // The compiler, then the layers collected from what it made.
  std::vector<::spperm::PackageLayer> layers;
  const MatrixCache *cache = nullptr;
  PassManager pm(&ctx);
  pm.addInstrumentation(
      std::make_unique<StageTimer>(times, *module, !mlirInput, cache));
  pm.addPass(std::make_unique<SeedMatrixCache>(matrixPath, o.values, matrix,
                                               cache));
  buildSpPermPipeline(pm, pipeline);
  CollectOptions collect;
  collect.baseDir = pipeline.baseDir;
  collect.libraryCheck = !pipeline.noLibraryCheck;
  pm.addPass(std::make_unique<CollectLayers>(collect, layers));
  if (failed(pm.run(*module)))
    return 1;

  ::spperm::PackageOptions popts;
  popts.target = pipeline.target;
  FailureOr<std::string> ptx = extractPtx(*module);
  if (failed(ptx))
    return 1;
  popts.ptx = std::move(*ptx);
  times.begin("assembling a cubin (ptxas)");
  start = std::chrono::steady_clock::now();
  ::spperm::StatusOr<std::string> cubin =
      assembleCubin(popts.ptx, pipeline.target);
  if (!cubin) {
    reportError(kTool, cubin.message());
    return 1;
  }
  popts.cubin = std::move(*cubin);
  times.add("cubin", since(start));

  popts.externalData = o.data == "external";
  if (popts.externalData) {
    // A source inside the package's parent directory is recorded relative
    // to it, so that the directory can be moved as a whole
    // (docs/Package.md, "External data").
    SmallString<256> parent(o.output);
    llvm::sys::fs::make_absolute(parent);
    llvm::sys::path::remove_dots(parent, /*remove_dot_dot=*/true);
    llvm::sys::path::remove_filename(parent);
    std::string prefix = std::string(parent.str()) + "/";
    auto relativize = [&](::spperm::PackageLayer &layer) {
      SmallString<256> src(layer.sourcePath);
      llvm::sys::path::remove_dots(src, /*remove_dot_dot=*/true);
      if (StringRef(src).starts_with(prefix))
        layer.sourcePath = StringRef(src).drop_front(prefix.size()).str();
    };
    for (::spperm::PackageLayer &layer : layers) {
      relativize(layer);
      for (::spperm::PackageLayer &alternative : layer.alternatives)
        relativize(alternative);
    }
  }

  // The report first (it needs only the layers): a compile whose report
  // cannot be written leaves no package, and one whose package cannot be
  // written removes its report.
  if (!o.report.empty()) {
    ::spperm::ReportInputs report;
    report.package = o.output;
    report.input = o.input;
    report.stages = times.seconds;
    report.selection.modelPath = pipeline.model;
    report.selection.target = pipeline.target;
    report.selection.costModel = pipeline.costModel;
    report.selection.libraryCheck = !pipeline.noLibraryCheck;
    report.bench = std::move(benchRecords);
    if (::spperm::Status s =
            ::spperm::writeCompileReport(o.report, layers, report);
        !s) {
      reportError(kTool, s.message());
      return 1;
    }
  }
  times.begin("writing " + o.output);
  start = std::chrono::steady_clock::now();
  if (::spperm::Status s = ::spperm::writePackage(o.output, layers, popts);
      !s) {
    reportError(kTool, s.message());
    if (!o.report.empty())
      ::unlink(o.report.c_str());
    return 1;
  }
  times.add("packaging", since(start));
  progress.finish();

  if (o.timing)
    printTiming(llvm::errs(), times);
  return diagnosed ? 1 : 0;
}
