//===- spperm-compile.cpp - Compile fixed sparse matrices -------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Ahead-of-time compilation of fixed sparse matrices into a package the
// runtime loads (docs/Package.md). The input is a matrix file (one layer) or
// a .mlir module of spperm ops (one layer per function). The module goes
// through spperm-extract-features, spperm-permute-rows and
// spperm-convert-format; then every function's spperm.spmm becomes a layer:
// its matrix is read, permuted and converted with the sparse core, exactly as
// its type says, and written with the package writer.
//
//===----------------------------------------------------------------------===//

#include "Report.h"

#include "spperm/Conversion/Passes.h"
#include "spperm/Conversion/SpPermToGPU.h"
#include "spperm/Dialect/SpPerm/IR/SpPerm.h"
#include "spperm/Sparse/Features.h"
#include "spperm/Sparse/Npy.h"
#include "spperm/Sparse/Package.h"
#include "spperm/Tools/CommandLine.h"
#include "spperm/Tools/MlirNesting.h"
#include "spperm/Tools/Progress.h"
#include "spperm/Transforms/MatrixUtils.h"
#include "spperm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

using namespace mlir;
using namespace mlir::spperm;
using ::spperm::ArgParser;
using ::spperm::reportError;

static const char *const kTool = "spperm-compile";

namespace {

/// The command line.
struct Options {
  std::string input, output, report, reportBench;
  std::string k = "0";
  std::string strategy, format;
  bool strategySeen = false, formatSeen = false;
  bool timing = false;
  bool quiet = false;
  std::string model, margin;
  std::string maxVariants = "0";
  bool costModel = false, noLibraryCheck = false;
  std::string target = "sm_90";
  std::string values = "file";
  bool valuesSeen = false;
  std::string data = "embed";
  std::string precision = "fp32";
  std::string batch = "0";
  std::string kSlices = "0";
  std::string splitRows = "0";
  std::string longRows = "auto";
  std::string warps = "32", line = "32", tau = "32", alpha = "0.3";
  std::string block = "16", delta = "0", rowBlock = "512", colBlock = "4096";
};

/// Wall time of each compilation stage (BENCHMARK.md's compile-time split),
/// and the progress report of the stages as they start.
struct StageTimes {
  std::vector<std::pair<std::string, double>> seconds;
  ::spperm::Progress *progress = nullptr;
  void add(const char *stage, double s) { seconds.emplace_back(stage, s); }
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

bool parseInt64(const std::string &name, const std::string &text, int64_t lo,
                int64_t hi, int64_t &out) {
  return ::spperm::parseIntegerOption(kTool, name, text, lo, hi, out);
}

bool parseDouble(const std::string &name, const std::string &text,
                 double &out) {
  return ::spperm::parseNumberOption(kTool, name, text, -HUGE_VAL, HUGE_VAL,
                                     out);
}

bool endsWith(StringRef s, StringRef suffix) { return s.ends_with(suffix); }

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
                                        int32_t cols, int64_t k,
                                        FeaturesAttr features) {
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
                             features, ChoiceAttr());
  auto spmm = SpMMOp::create(b, loc, cType, load.getResult(),
                             entry->getArgument(0));
  func::ReturnOp::create(b, loc, spmm.getResult());
  return module;
}

/// Turns every function's spperm.spmm into a package layer, reading and
/// converting its matrix exactly as its type says.
LogicalResult collectLayers(ModuleOp module, MatrixCache &matrices,
                            const std::string &baseDir, bool cusparse,
                            bool libraryCheck,
                            std::vector<::spperm::PackageLayer> &layers,
                            StageTimes &times) {
  FormatTimes formatTimes;
  double hashSeconds = 0.0;
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
    FailureOr<::spperm::FormattedMatrix> formatted =
        buildFormattedMatrix(spmm, matrices, &formatTimes);
    if (failed(formatted))
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
    int64_t kDim = cast<RankedTensorType>(spmm.getDense().getType()).getDimSize(1);
    layer.k = ShapedType::isDynamic(kDim) ? 0 : kDim;
    layer.sourcePath = load.resolvePath(baseDir);
    // Each source file is hashed once (a layer's alternatives share it).
    auto [hashed, fresh] = sourceHashes.try_emplace(layer.sourcePath);
    if (fresh) {
      auto hashStart = std::chrono::steady_clock::now();
      ::spperm::StatusOr<std::string> sha =
          ::spperm::sha256File(layer.sourcePath);
      hashSeconds += since(hashStart);
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
    layer.libraryCheck = libraryCheck && choice &&
                         choice.getFormat() != "cusparse" &&
                         choice.getSource() != "forced";
    if (cusparse || (choice && choice.getFormat() == "cusparse")) {
      ::spperm::KernelInfo kernel;
      kernel.name = "cusparse";
      kernel.family = "cusparse";
      kernel.variant = "cusparse";
      layer.kernels.push_back(kernel);
    }
    if (parent) {
      if (!layer.kernels.empty())
        return func.emitError() << "is an alternative of @" << parent->name
                                << " that runs cuSPARSE; alternatives are "
                                   "generated variants";
      layer.libraryCheck = true;
      parent->alternatives.push_back(std::move(layer));
      continue;
    }
    layers.push_back(std::move(layer));
  }
  times.add("permutation", formatTimes.permutation);
  times.add("format", formatTimes.format);
  times.add("hash", hashSeconds);
  if (layers.empty())
    return module.emitError("no function multiplies a matrix "
                            "(spperm.spmm): nothing to compile");
  return success();
}

/// Generates every layer's kernels into the module's gpu.module, lowers it
/// to PTX (spperm-pipeline's upstream half) and assembles a cubin when
/// ptxas is available.
LogicalResult generateCode(ModuleOp module,
                           std::vector<::spperm::PackageLayer> &layers,
                           const std::string &target,
                           const KernelGenOptions &base,
                           ::spperm::PackageOptions &popts, StageTimes &times) {
  times.begin("generating kernels");
  auto start = std::chrono::steady_clock::now();
  module.getContext()
      ->loadDialect<arith::ArithDialect, gpu::GPUDialect, math::MathDialect,
                    memref::MemRefDialect, NVVM::NVVMDialect,
                    nvgpu::NVGPUDialect, scf::SCFDialect,
                    vector::VectorDialect>();
  gpu::GPUModuleOp kernels = getOrCreateKernelModule(module);
  for (auto [index, layer] : llvm::enumerate(layers)) {
    // Layers run by cuSPARSE keep their library entry and get no kernels
    // (the module, and so kernels.ptx, exists all the same).
    if (!layer.kernels.empty() && layer.kernels.front().variant == "cusparse")
      continue;
    KernelGenOptions options = base;
    options.k = layer.k;
    options.prefix = "l" + std::to_string(index);
    layer.kernels = generateLayerKernels(kernels, layer.matrix, options);
    for (auto [alt, alternative] : llvm::enumerate(layer.alternatives)) {
      options.prefix = "l" + std::to_string(index) + "a" +
                       std::to_string(alt + 1);
      alternative.kernels =
          generateLayerKernels(kernels, alternative.matrix, options);
    }
  }
  times.add("codegen", since(start));
  times.begin("lowering the kernels to PTX");
  start = std::chrono::steady_clock::now();
  PassManager pm(module.getContext());
  buildGpuToBinaryPipeline(pm, target);
  if (failed(pm.run(module)))
    return failure();
  FailureOr<std::string> ptx = extractPtx(module);
  if (failed(ptx))
    return failure();
  popts.ptx = std::move(*ptx);
  times.add("ptx", since(start));
  times.begin("assembling a cubin (ptxas)");
  start = std::chrono::steady_clock::now();
  ::spperm::StatusOr<std::string> cubin = assembleCubin(popts.ptx, target);
  if (!cubin)
    return module.emitError() << cubin.message();
  popts.cubin = std::move(*cubin);
  times.add("cubin", since(start));
  return success();
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  ArgParser args(
      kTool,
      "INPUT -o PKG [--k K] [--strategy S|auto] [--format "
      "csr|bell|hbp|cusparse|auto] [--target sm_90] [--values SPEC] "
      "[--data embed|external] [--precision fp32|tf32|f16] [--report "
      "FILE.html] [parameters]",
      "Compiles fixed sparse matrices into a package for the spperm runtime. "
      "INPUT is a matrix file (.mtx/.smtx, optionally .gz; one layer named "
      "after the file) or a .mlir module of spperm ops (one layer per "
      "function). See docs/Compile.md.");
  args.addPositional("INPUT", "Matrix file or .mlir module", &o.input);
  args.addOption("-o", "PKG", "Output package directory (required)",
                 &o.output);
  args.addOption("k", "K",
                 "Number of columns of B the package is specialized for; "
                 "0 (default) accepts any K",
                 &o.k);
  args.addOption("strategy", "S",
                 "Row permutation: identity, plain, flipped, lpt, warp-aware, "
                 "cta-aware, hybrid-1, hybrid-2.1, hybrid-2.2, hybrid-2.3, "
                 "bsa, or auto (default for matrix files)",
                 &o.strategy, &o.strategySeen);
  args.addOption("format", "F",
                 "Storage: csr, bell, hbp, cusparse (CSR run by cuSPARSE) or "
                 "auto (default for matrix files)",
                 &o.format, &o.formatSeen);
  args.addOption("target", "ARCH", "GPU architecture (default sm_90)",
                 &o.target);
  args.addOption("model", "FILE",
                 "Selector model for auto (JSON, docs/Selector.md; default: "
                 "the model shipped for --target)",
                 &o.model);
  args.addOption("margin", "X",
                 "auto: how much faster (log2) a generated variant must be "
                 "predicted than cuSPARSE to be chosen (default: the model's)",
                 &o.margin);
  args.addFlag("no-library-check",
               "auto: do not mark the chosen kernels to be checked against "
               "cuSPARSE by the runtime at their first call",
               &o.noLibraryCheck);
  args.addOption("max-variants", "N",
                 "auto with the library check: the most variants (the choice "
                 "included) of the model's shortlist a layer carries for the "
                 "runtime to time at its first call; 0 (default) the model's "
                 "shortlist, 1 the choice alone",
                 &o.maxVariants);
  args.addFlag("cost-model",
               "Choose auto variants with the analytic cost model instead of "
               "a learned model",
               &o.costModel);
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
  args.addOption("precision", "P",
                 "Blocked-ELL dense blocks: fp32 (default, CUDA cores), tf32 "
                 "or f16 (tensor cores, opt-in; bell layers with 16 x 16 or "
                 "32 x 32 blocks, K a multiple of 8)",
                 &o.precision);
  args.addOption("batch", "N",
                 "Row kernels: entries broadcast per batch, 1 to 8 (default "
                 "0: chosen per layer)",
                 &o.batch);
  args.addOption("k-slices", "N",
                 "SpMM compiled for one K (--k): cut K into N slices, each "
                 "its own CTAs (default 0 chooses: slices of 32 columns for "
                 "64 <= K <= 128 when the layer has at most 8 warps per SM "
                 "without them; 1: none)",
                 &o.kSlices);
  args.addOption("split-rows", "N",
                 "Row kernels: rows longer than N entries are cut into chunks "
                 "of N/2 that a second kernel adds atomically (default 0: "
                 "chosen per layer)",
                 &o.splitRows);
  args.addOption("long-rows", "M",
                 "SpMM rows longer than the split threshold: auto (default: "
                 "a CTA each in the row kernel's launch when one CTA walks "
                 "the longest in at most 12 batches of loads per group and "
                 "that pays, else chunks in a split kernel), cta or split",
                 &o.longRows);
  args.addOption("warps", "N", "Warps per CTA (default 32)", &o.warps);
  args.addOption("line", "N", "Columns per cache line of B (default 32)",
                 &o.line);
  args.addOption("tau", "N", "bsa: column-block width (default 32)", &o.tau);
  args.addOption("alpha", "X", "bsa: similarity threshold (default 0.3)",
                 &o.alpha);
  args.addOption("block", "N", "bell: tile size (default 16)", &o.block);
  args.addOption("delta", "X",
                 "bell: density threshold; 0 searches (default)", &o.delta);
  args.addOption("row-block", "N", "hbp: rows per block (default 512)",
                 &o.rowBlock);
  args.addOption("col-block", "N", "hbp: columns per block (default 4096)",
                 &o.colBlock);
  if (std::optional<int> exitCode = args.parse(argc, argv))
    return *exitCode;

  if (o.output.empty()) {
    reportError(kTool, "missing -o PKG (see --help)");
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
  int64_t k, batch, kSlices, splitRows, warps, line, tau, block, rowBlock,
      colBlock;
  double alpha, delta;
  if (!parseInt64("k", o.k, 0, ::spperm::kMaxIndex, k) ||
      !parseInt64("batch", o.batch, 0, 8, batch) ||
      !parseInt64("k-slices", o.kSlices, 0, 1024, kSlices) ||
      !parseInt64("split-rows", o.splitRows, 0,
                  std::numeric_limits<int32_t>::max(), splitRows) ||
      !parseInt64("warps", o.warps, 1, 1024, warps) ||
      !parseInt64("line", o.line, 1, 1024, line) ||
      !parseInt64("tau", o.tau, 1, 1024, tau) ||
      !parseInt64("block", o.block, 1, 32, block) ||
      !parseInt64("row-block", o.rowBlock, 32, ::spperm::kMaxIndex, rowBlock) ||
      !parseInt64("col-block", o.colBlock, 1, ::spperm::kMaxIndex, colBlock) ||
      !parseDouble("alpha", o.alpha, alpha) ||
      !parseDouble("delta", o.delta, delta))
    return 1;
  if (!isKnownTarget(o.target)) {
    reportError(kTool, "--target must be a GPU architecture such as sm_90, "
                       "got '" + o.target + "'");
    return 1;
  }
  std::optional<LongRowMode> longRows = parseLongRowMode(o.longRows);
  if (!longRows) {
    reportError(kTool, "--long-rows must be auto, cta or split, got '" +
                           o.longRows + "'");
    return 1;
  }
  std::optional<Precision> precision = parsePrecision(o.precision);
  if (!precision) {
    reportError(kTool, "--precision must be fp32, tf32 or f16, got '" +
                           o.precision + "'");
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
  if (o.strategySeen && o.strategy != "auto" &&
      !::spperm::parseStrategy(o.strategy)) {
    reportError(kTool, "unknown strategy '" + o.strategy +
                           "' (expected identity, plain, flipped, lpt, "
                           "warp-aware, cta-aware, hybrid-1, hybrid-2.1, "
                           "hybrid-2.2, hybrid-2.3, bsa or auto)");
    return 1;
  }
  if (o.formatSeen && o.format != "csr" && o.format != "bell" &&
      o.format != "hbp" && o.format != "cusparse" && o.format != "auto") {
    reportError(kTool, "unknown format '" + o.format +
                           "' (expected csr, bell, hbp, cusparse or auto)");
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
    if (auto fused = dyn_cast<FusedLoc>(loc); fused && !fused.getLocations().empty())
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
  bool mlirInput = endsWith(o.input, ".mlir");
  std::string baseDir;
  OwningOpRef<ModuleOp> module;
  std::string strategy = o.strategySeen ? o.strategy : "";
  std::string format = o.formatSeen ? o.format : "";

  MatrixCache matrices(baseDir);
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
    times.begin("computing features");
    start = std::chrono::steady_clock::now();
    ::spperm::FeatureOptions fopts;
    fopts.warps = static_cast<int32_t>(warps);
    fopts.lineWidth = static_cast<int32_t>(line);
    ::spperm::Features features = ::spperm::computeFeatures(*m, fopts);
    times.add("features", since(start));
    // Matrix files default to the selector's choice.
    if (strategy.empty())
      strategy = "auto";
    if (format.empty())
      format = "auto";
    SmallString<256> absolute(o.input);
    llvm::sys::fs::make_absolute(absolute);
    module = buildMatrixModule(
        &ctx, std::string(absolute), o.values, m->rows, m->cols, k,
        buildFeaturesAttr(&ctx, ::spperm::flattenFeatures(features)));
    // The layer reads its matrix through the cache: not a second time.
    matrices.insert(std::string(absolute), o.values, std::move(*m));
  }

  // The selector (spperm-select), when either half is left to it: it
  // records each matrix's choice, which the passes below materialize.
  const bool selecting = strategy == "auto" || format == "auto";
  if (selecting) {
    if (mlirInput) {
      // A module's layers name their matrix files: spperm-extract-features
      // reads each and computes its features, timed as one stage.
      times.begin("reading the layers' matrices and computing features");
      start = std::chrono::steady_clock::now();
      PassManager extractPm(&ctx);
      SpPermExtractFeaturesOptions extract;
      extract.baseDir = baseDir;
      extract.warps = warps;
      extract.lineWidth = line;
      extractPm.addPass(createSpPermExtractFeatures(extract));
      if (failed(extractPm.run(*module)))
        return 1;
      times.add("read + features", since(start));
    }
    times.begin("selecting the variants");
    start = std::chrono::steady_clock::now();
    PassManager select(&ctx);
    SpPermSelectOptions choose;
    choose.model = o.model;
    choose.target = o.target;
    choose.costModel = o.costModel;
    double marginValue = -1.0;
    if (!o.margin.empty() &&
        !::spperm::parseNumberOption(kTool, "margin", o.margin, 0.0, 64.0,
                                     marginValue))
      return 1;
    choose.margin = marginValue;
    choose.libraryCheck = !o.noLibraryCheck;
    int64_t maxVariants = 0;
    if (!parseInt64("max-variants", o.maxVariants, 0, 64, maxVariants))
      return 1;
    choose.maxVariants = maxVariants;
    choose.strategy = strategy;
    choose.format = format;
    choose.k = k > 0 ? k : 32;
    select.addPass(createSpPermSelect(choose));
    // The shortlist's runner-ups become layers of their own (packaged as
    // their layer's alternatives below).
    select.addPass(createSpPermExpandAlternatives());
    if (failed(select.run(*module)))
      return 1;
    times.add("selection", since(start));
    strategy = "auto";
    format = "auto";
  }

  // The pipeline up to the storage decisions.
  times.begin("permuting rows and converting formats");
  start = std::chrono::steady_clock::now();
  PassManager pm(&ctx);
  if (!strategy.empty()) {
    SpPermPermuteRowsOptions permute;
    permute.strategy = strategy;
    permute.warps = warps;
    permute.lineWidth = line;
    if (strategy == "bsa" || strategy == "auto") {
      permute.tau = tau;
      permute.alpha = alpha;
    }
    pm.addPass(createSpPermPermuteRows(permute));
  }
  bool cusparse = format == "cusparse";
  if (!format.empty()) {
    SpPermConvertFormatOptions convert;
    convert.format = cusparse ? "csr" : format;
    convert.block = block;
    convert.delta = delta;
    convert.rowBlock = rowBlock;
    convert.colBlock = colBlock;
    convert.baseDir = baseDir;
    pm.addPass(createSpPermConvertFormat(convert));
  }
  if (failed(pm.run(*module)))
    return 1;
  times.add("passes", since(start));

  std::vector<::spperm::PackageLayer> layers;
  times.begin("collecting the layers (sha256 of the sources)");
  if (failed(collectLayers(*module, matrices, baseDir, cusparse,
                           !o.noLibraryCheck, layers,
                           times)))
    return 1;

  ::spperm::PackageOptions popts;
  popts.target = o.target;
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
  KernelGenOptions codegen;
  codegen.precision = *precision;
  codegen.vectorReductions = targetHasVectorReductions(o.target);
  codegen.gridDependencies = targetHasGridDependencies(o.target);
  codegen.batch = batch;
  codegen.kSlices = kSlices;
  codegen.splitRows = splitRows;
  codegen.longRows = *longRows;
  if (failed(generateCode(*module, layers, o.target, codegen, popts, times)))
    return 1;

  times.begin("writing " + o.output);
  start = std::chrono::steady_clock::now();
  if (::spperm::Status s = ::spperm::writePackage(o.output, layers, popts);
      !s) {
    reportError(kTool, s.message());
    return 1;
  }
  times.add("packaging", since(start));
  progress.finish();

  if (o.timing)
    printTiming(llvm::errs(), times);
  if (!o.report.empty()) {
    ::spperm::ReportInputs report;
    report.package = o.output;
    report.input = o.input;
    report.stages = times.seconds;
    report.selection.modelPath = o.model;
    report.selection.target = o.target;
    report.selection.costModel = o.costModel;
    report.selection.libraryCheck = !o.noLibraryCheck;
    report.bench = std::move(benchRecords);
    if (::spperm::Status s =
            ::spperm::writeCompileReport(o.report, layers, report);
        !s) {
      reportError(kTool, s.message());
      return 1;
    }
  }
  return diagnosed ? 1 : 0;
}
