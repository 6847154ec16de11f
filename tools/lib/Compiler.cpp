//===- Compiler.cpp - The compiler as a library -----------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Ahead-of-time compilation of fixed sparse matrices into a package the
// runtime loads (docs/Package.md): parse the input (a matrix file or an
// in-memory matrix, one layer, or a .mlir module of spperm ops, one layer per
// function), run the compiler - the named pipeline spperm-pipeline, with the
// tuning options as its options - and write the package from the lowered
// module: every function's spperm.spmm is a layer, its matrix as the
// pipeline's matrix cache holds it, its launches as spperm-lower-to-gpu
// recorded them.
//
//===----------------------------------------------------------------------===//

#include "spperm/Tools/Compiler.h"

#include "spperm/Conversion/Pipeline.h"
#include "spperm/Conversion/SpPermToGPU.h"
#include "spperm/Dialect/SpPerm/IR/SpPerm.h"
#include "spperm/Sparse/Interrupt.h"
#include "spperm/Sparse/Npy.h"
#include "spperm/Sparse/OutputPath.h"
#include "spperm/Sparse/Package.h"
#include "spperm/Sparse/Selector.h"
#include "spperm/Sparse/Spelling.h"
#include "spperm/Tools/MlirNesting.h"
#include "spperm/Tools/Progress.h"
#include "spperm/Transforms/Layers.h"
#include "spperm/Transforms/MatrixUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sys/stat.h>

#include <unistd.h>

using namespace mlir;
using namespace mlir::spperm;

namespace {

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

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

/// A layer name from a file name: its stem without matrix extensions, with
/// characters outside [A-Za-z0-9_] replaced by '_'.
std::string layerNameFor(StringRef path) {
  // The extensions in any case, as the readers take them (A.MTX.GZ).
  StringRef name = llvm::sys::path::filename(path);
  name.consume_back_insensitive(".gz");
  for (StringRef ext : {".mtx", ".smtx", ".npz"})
    if (name.consume_back_insensitive(ext))
      break;
  std::string out;
  for (char c : name)
    out += (isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || isdigit(static_cast<unsigned char>(out[0])))
    out = "m_" + out;
  return out;
}

/// Builds `func.func @NAME(%b: tensor<NxKxT>) -> tensor<MxKxT>` around one
/// matrix (a file, or an in-memory matrix recorded under `path`) with
/// values of `valueType`, T the operands' element type. Its ops are located
/// at `shownAs` (the input as the user named it), which errors quote.
OwningOpRef<ModuleOp>
buildMatrixModule(MLIRContext *ctx, const std::string &path,
                  const std::string &shownAs, const std::string &name,
                  const std::string &values, int32_t rows, int32_t cols,
                  int64_t k, Type operandType, Type valueType) {
  OpBuilder b(ctx);
  Location loc = FileLineColLoc::get(ctx, shownAs, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  int64_t kDim = k > 0 ? k : ShapedType::kDynamic;
  auto bType = RankedTensorType::get({cols, kDim}, operandType);
  auto cType = RankedTensorType::get({rows, kDim}, operandType);
  auto func = func::FuncOp::create(b, loc, name,
                                   b.getFunctionType({bType}, {cType}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  auto matrixType =
      MatrixType::get(ctx, rows, cols, valueType, CsrAttr::get(ctx, {}));
  auto load = LoadOp::create(b, loc, matrixType, b.getStringAttr(path),
                             values == "file" ? StringAttr()
                                              : b.getStringAttr(values),
                             DenseI64ArrayAttr(), FeaturesAttr(), ChoiceAttr());
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

/// Fails the compile once `interrupted` says so (CompileRequest), between
/// two passes.
struct CheckInterrupted
    : public PassWrapper<CheckInterrupted, OperationPass<ModuleOp>> {
  explicit CheckInterrupted(const std::function<bool()> &interrupted)
      : interrupted(interrupted) {}
  StringRef getArgument() const final { return "spperm-compile-interrupt"; }
  void runOnOperation() override {
    markAllAnalysesPreserved();
    if (!interrupted())
      return;
    getOperation().emitError("interrupted");
    signalPassFailure();
  }
  const std::function<bool()> &interrupted;
};

/// What the package needs of a compilation, besides the layers.
struct CollectOptions {
  std::string baseDir;
  /// The strategy --strategy fixes for every layer, if it does, with its
  /// --warps: a layer its module already permutes keeps its own (said).
  std::optional<::spperm::Strategy> strategy;
  int64_t warps = 0;
  bool libraryCheck = true;
  /// --size-budget: a variant's arrays may take at most this many times the
  /// matrix's CSR bytes (0: no budget).
  double sizeBudget = ::spperm::kDefaultSizeBudget;
};

/// The CSR a variant computes with when it is plain CSR in effect: a csr
/// variant's matrix, or a bell variant's residual when it holds no dense
/// block; null otherwise.
const ::spperm::CsrMatrix *plainCsr(const ::spperm::PackageLayer &v) {
  const ::spperm::FormattedMatrix &f = v.matrix;
  if (f.kind == ::spperm::FormatKind::Csr)
    return &f.csr;
  if (f.kind == ::spperm::FormatKind::Bell && f.bell.width == 0)
    return &f.bell.residual;
  return nullptr;
}

/// Whether two variants store the same rows in the same order as plain CSR
/// (a bell variant without a dense block *is* csr): they would run the same
/// computation, so the package keeps one (docs/Package.md).
bool sameComputation(const ::spperm::PackageLayer &a,
                     const ::spperm::PackageLayer &b) {
  const ::spperm::CsrMatrix *x = plainCsr(a), *y = plainCsr(b);
  return x && y && a.matrix.order == b.matrix.order &&
         x->rowPtr == y->rowPtr && x->colIdx == y->colIdx &&
         x->values == y->values;
}

/// Keeps every variant of `layer` within `budget` times its CSR bytes
/// (4 (rows + 1) + 8 nnz; docs/Package.md, "Size budget"): a Blocked-ELL
/// variant padded far beyond the matrix is dropped from the alternatives,
/// and replaces nothing; when the layer's own variant is over, the first
/// alternative within the budget takes its place.
void applySizeBudget(::spperm::PackageLayer &layer, double budget) {
  if (budget <= 0 || layer.alternatives.empty())
    return;
  const double limit =
      budget * static_cast<double>(::spperm::csrBytes(layer.matrix));
  auto fits = [&](const ::spperm::PackageLayer &v) {
    return static_cast<double>(::spperm::arrayBytes(v)) <= limit;
  };
  if (!fits(layer)) {
    auto it = std::find_if(layer.alternatives.begin(), layer.alternatives.end(),
                           fits);
    if (it == layer.alternatives.end())
      return; // Nothing fits: the selector's choice stays.
    // The alternative becomes the layer's own variant (same matrix, name,
    // source and check; its strategy, format, arrays and kernels).
    ::spperm::PackageLayer chosen = std::move(*it);
    layer.alternatives.erase(it);
    std::swap(layer.permutation, chosen.permutation);
    std::swap(layer.format, chosen.format);
    std::swap(layer.matrix, chosen.matrix);
    std::swap(layer.kernels, chosen.kernels);
    // In-place kernels read their variant's arrays: they go with it.
    std::swap(layer.inPlaceB, chosen.inPlaceB);
  }
  layer.alternatives.erase(std::remove_if(layer.alternatives.begin(),
                                          layer.alternatives.end(),
                                          [&](const ::spperm::PackageLayer &v) {
                                            return !fits(v);
                                          }),
                           layer.alternatives.end());
}

/// Drops the alternatives that repeat the layer's own variant or an earlier
/// alternative.
void dropRepeatedVariants(::spperm::PackageLayer &layer) {
  std::vector<::spperm::PackageLayer> kept;
  for (::spperm::PackageLayer &alternative : layer.alternatives) {
    bool repeated = sameComputation(layer, alternative);
    for (const ::spperm::PackageLayer &k : kept)
      repeated = repeated || sameComputation(k, alternative);
    if (!repeated)
      kept.push_back(std::move(alternative));
  }
  layer.alternatives = std::move(kept);
}

/// The one spperm.spmm of a layer function; an error at the function when
/// it holds none or several.
FailureOr<SpMMOp> getLayerMultiplication(func::FuncOp func) {
  SmallVector<SpMMOp> spmms(func.getOps<SpMMOp>());
  if (spmms.size() != 1)
    return func.emitError() << "holds " << spmms.size()
                            << " spperm.spmm ops; a layer is one function "
                               "with one multiplication";
  return spmms.front();
}

/// Checks that a function with an spperm.spmm is a layer a package can
/// hold: one multiplication of one of its arguments by a matrix the
/// function loads (and may permute or convert), whose product it returns,
/// and nothing else that computes. A package runs only that product
/// (docs/Compile.md), so anything more would be dropped without a word.
LogicalResult checkLayerFunction(func::FuncOp func) {
  FailureOr<SpMMOp> found = getLayerMultiplication(func);
  if (failed(found))
    return failure();
  SpMMOp spmm = *found;
  auto dense = dyn_cast<BlockArgument>(spmm.getDense());
  if (!dense || dense.getOwner() != &func.getBody().front())
    return spmm.emitOpError()
           << "multiplies a value the function computes; a layer multiplies "
              "one of its function's arguments (the dense B the caller "
              "passes)";
  // An operation whose result nothing uses computes nothing the package
  // leaves out (nor do the operations inside it).
  WalkResult walk =
      func.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (isa<LoadOp, PermuteOp, ConvertOp, SpMMOp, func::ReturnOp>(op))
          return WalkResult::advance();
        if (isOpTriviallyDead(op))
          return WalkResult::skip();
        op->emitOpError()
            << "is not part of the layer's multiplication: a package computes "
               "only C = A * B, so spperm-compile refuses a layer function "
               "that does anything else (keep other operations outside the "
               "package)";
        return WalkResult::interrupt();
      });
  if (walk.wasInterrupted())
    return failure();
  auto result = dyn_cast<func::ReturnOp>(func.getBody().back().getTerminator());
  if (!func.getBody().hasOneBlock() || !result ||
      result.getNumOperands() != 1 || result.getOperand(0) != spmm.getResult())
    return func.emitError()
           << "must return the product of its spperm.spmm and nothing else: "
              "a package computes only that product";
  return success();
}

/// Checks that every spperm.spmm of `module` is in the body of one of its
/// top-level functions, where spperm-compile looks for layers: one inside
/// a loop or a branch, or in a nested module, would be left out (or the
/// input called empty) without a word.
LogicalResult checkLayerPlacement(ModuleOp module) {
  WalkResult walk = module.walk([&](SpMMOp spmm) {
    std::string problem = layerPlacementProblem(spmm, module);
    if (problem.empty())
      return WalkResult::advance();
    spmm.emitOpError() << problem << " (spperm-compile packages layers)";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

/// Turns every function's lowered spperm.spmm into a package layer: its
/// matrix from the pipeline's cache (taken out of it), its launches from
/// spperm.kernels, the sha256 of its source file.
LogicalResult collectLayers(ModuleOp module, MatrixCache &matrices,
                            const CollectOptions &options,
                            std::vector<::spperm::PackageLayer> &layers) {
  std::map<std::string, std::string> sourceHashes;
  // The layer each function became (by symbol): alternatives name theirs.
  std::map<std::string, size_t> layerOf;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.getOps<SpMMOp>().empty())
      continue;
    FailureOr<SpMMOp> found = getLayerMultiplication(func);
    if (failed(found))
      return failure();
    SpMMOp spmm = *found;
    LoadOp load = getSourceLoad(spmm.getMatrix());
    std::optional<::spperm::FormattedMatrix> formatted =
        matrices.takeFormatted(spmm, options.baseDir);
    if (!formatted)
      return failure();
    ::spperm::PackageLayer layer;
    layer.name = func.getSymName().str();
    // A shard spperm-shard-rows made: named after its layer, with its rows.
    if (auto shard = func->getAttrOfType<DenseI64ArrayAttr>(kShardAttrName)) {
      auto of = func->getAttrOfType<StringAttr>(kShardOfAttrName);
      if (shard.size() != 5 || !of)
        return func.emitError() << "has a malformed spperm.shard (expected "
                                   "[index, count, begin, end, rows] and "
                                   "spperm.shard_of)";
      layer.name = of.str();
      layer.shard = {static_cast<int32_t>(shard[0]),
                     static_cast<int32_t>(shard[1]),
                     static_cast<int32_t>(shard[2]),
                     static_cast<int32_t>(shard[3]),
                     static_cast<int32_t>(shard[4])};
    }
    // A copy spperm-expand-alternatives made: one of the layer's
    // alternatives (it follows its layer in the module).
    ::spperm::PackageLayer *parent = nullptr;
    if (auto of = func->getAttrOfType<FlatSymbolRefAttr>(
            kAlternativeOfAttrName)) {
      if (auto it = layerOf.find(of.getValue().str()); it != layerOf.end())
        parent = &layers[it->second];
      if (!parent || !parent->libraryCheck)
        return func.emitError()
               << "is an alternative of @" << of.getValue()
               << ", which is not a layer checked at run time before it";
      layer.name = parent->name;
      layer.shard = parent->shard;
    }
    MatrixType type = spmm.getMatrix().getType();
    layer.permutation = getPermutationOptions(type.getPerm());
    layer.format = getFormatOptions(type.getFormat());
    layer.matrix = std::move(*formatted);
    int64_t kDim =
        cast<RankedTensorType>(spmm.getDense().getType()).getDimSize(1);
    layer.k = ShapedType::isDynamic(kDim) ? 0 : kDim;
    Type operand =
        cast<RankedTensorType>(spmm.getDense().getType()).getElementType();
    layer.operandType = getValueType(operand);
    layer.valueType = getValueType(type.getElementType());
    layer.sourcePath = load.resolvePath(options.baseDir);
    // A range of rows written in the module (a shard's range is its shard
    // info, of the whole source).
    if (std::optional<ArrayRef<int64_t>> rows = load.getRows();
        rows && !layer.isShard())
      layer.sourceRows = std::pair(static_cast<int32_t>((*rows)[0]),
                                   static_cast<int32_t>((*rows)[1]));
    // Each source file is hashed once (a layer's alternatives share it).
    // An in-memory matrix has no file to hash (docs/Package.md: "" for
    // embedded data).
    auto [hashed, fresh] = sourceHashes.try_emplace(layer.sourcePath);
    if (fresh && !StringRef(layer.sourcePath)
                      .starts_with(::spperm::kMemorySourcePrefix)) {
      ::spperm::StatusOr<std::string> sha =
          ::spperm::sha256File(layer.sourcePath);
      if (!sha)
        return load.emitOpError() << sha.message();
      hashed->second = *sha;
    }
    layer.sourceSha256 = hashed->second;
    layer.values =
        *::spperm::parseValuesSpec(load.getValues().value_or("file").str());
    // spperm-permute-rows leaves a permuted matrix alone (docs/Passes.md).
    if (options.strategy && !parent &&
        (layer.permutation.strategy != *options.strategy ||
         layer.permutation.warps != options.warps)) {
      auto describe = [](::spperm::Strategy s, int64_t warps) {
        return std::string(::spperm::strategyCliName(s)) + ", --warps " +
               std::to_string(warps);
      };
      load.emitWarning() << "--strategy "
                         << ::spperm::strategyCliName(*options.strategy)
                         << " and its parameters are ignored for layer '"
                         << layer.name << "': its module permutes the matrix ("
                         << describe(layer.permutation.strategy,
                                     layer.permutation.warps)
                         << "; the options say "
                         << describe(*options.strategy, options.warps)
                         << "), and a permuted matrix keeps its order";
    }
    ChoiceAttr choice = load.getChoiceAttr();
    // A choice the pipeline did not materialize (it does only when the
    // selector runs; keep/keep leaves the types as written) is not what the
    // layer runs: said, and the layer taken as it is.
    if (choice && !parent &&
        choice.getFormat() != StringRef(::spperm::kCusparse) &&
        (::spperm::parseStrategy(choice.getStrategy().str()) !=
             layer.permutation.strategy ||
         choice.getFormat() !=
             StringRef(::spperm::formatName(layer.format.kind)))) {
      load.emitWarning()
          << "spperm.load has a #spperm.choice of strategy '"
          << choice.getStrategy() << "' and format '" << choice.getFormat()
          << "' that the layer does not run: it runs strategy '"
          << ::spperm::strategyCliName(layer.permutation.strategy)
          << "' and format '" << ::spperm::formatName(layer.format.kind)
          << "', taken as they are (the pipeline takes a module's choice "
             "when the selector runs: --strategy auto or --format auto)";
      choice = nullptr;
    }
    // Kernels the selector chose are checked against the library at run
    // time; a forced choice is taken as it is.
    layer.libraryCheck = options.libraryCheck && choice &&
                         choice.getFormat() != StringRef(::spperm::kCusparse) &&
                         choice.getSource() != ::spperm::kForcedSource;
    auto launches = spmm->getAttrOfType<ArrayAttr>(kKernelsAttrName);
    if (!launches)
      return spmm.emitOpError("has no ") << kKernelsAttrName
                                         << " (spperm-lower-to-gpu did not "
                                            "run)";
    for (Attribute launch : launches)
      layer.kernels.push_back(getKernelInfo(cast<LaunchAttr>(launch)));
    if (auto transpose = spmm->getAttrOfType<LaunchAttr>(kTransposeAttrName))
      layer.transposeB = getKernelInfo(transpose);
    if (auto inPlace = spmm->getAttrOfType<ArrayAttr>(kInPlaceAttrName))
      for (Attribute launch : inPlace)
        layer.inPlaceB.push_back(getKernelInfo(cast<LaunchAttr>(launch)));
    if (parent) {
      if (runsOnLibrary(spmm))
        return func.emitError() << "is an alternative of @" << parent->name
                                << " that runs cuSPARSE; alternatives are "
                                   "generated variants";
      layer.libraryCheck = true;
      parent->alternatives.push_back(std::move(layer));
      continue;
    }
    layerOf[func.getSymName().str()] = layers.size();
    layers.push_back(std::move(layer));
  }
  if (layers.empty()) {
    // Code of the sparsifier's world: say how to bring it in.
    bool linalg = false;
    module.walk([&](Operation *op) {
      linalg |= op->getName().getDialectNamespace() == "linalg";
    });
    return module.emitError("no function multiplies a matrix "
                            "(spperm.spmm): nothing to compile")
           << (linalg ? " (raise linalg multiplications first: spperm-opt "
                        "FILE -spperm-raise-linalg -o raised.mlir)"
                      : "");
  }
  for (::spperm::PackageLayer &layer : layers) {
    dropRepeatedVariants(layer);
    applySizeBudget(layer, options.sizeBudget);
  }
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

/// After CollectLayers: erases the kernels of the kernel module that no
/// packaged variant launches (those of the variants dropRepeatedVariants
/// and the size budget left out), so that neither kernels.ptx nor the
/// cubin carries them (docs/Package.md, "What makes a package large").
struct EraseUnlaunchedKernels
    : public PassWrapper<EraseUnlaunchedKernels, OperationPass<ModuleOp>> {
  explicit EraseUnlaunchedKernels(
      const std::vector<::spperm::PackageLayer> &layers)
      : layers(layers) {}
  StringRef getArgument() const final {
    return "spperm-compile-erase-unlaunched";
  }
  void runOnOperation() override {
    llvm::StringSet<> launched;
    auto addKernels = [&](const ::spperm::PackageLayer &v) {
      for (const ::spperm::KernelInfo &k : v.kernels)
        launched.insert(k.name);
      if (v.transposeB)
        launched.insert(v.transposeB->name);
      for (const ::spperm::KernelInfo &k : v.inPlaceB)
        launched.insert(k.name);
    };
    for (const ::spperm::PackageLayer &layer : layers) {
      addKernels(layer);
      for (const ::spperm::PackageLayer &alternative : layer.alternatives)
        addKernels(alternative);
    }
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
      if (module.getName() != kKernelModuleName)
        continue;
      for (auto func :
           llvm::make_early_inc_range(module.getOps<gpu::GPUFuncOp>()))
        if (func.isKernel() && !launched.contains(func.getName()))
          func.erase();
    }
  }
  const std::vector<::spperm::PackageLayer> &layers;
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
    if (arg == "spperm-shard-rows")
      return {"passes", "cutting the layers into shards"};
    if (arg == "spperm-select" || arg == "spperm-expand-alternatives")
      return {"selection", "selecting the variants"};
    if (arg == "spperm-permute-rows" || arg == "spperm-convert-format" ||
        arg == "spperm-tensor-core-alternatives")
      return {"passes", "permuting rows and converting formats"};
    if (arg == "spperm-lower-to-gpu" || arg == "spperm-dedup-kernels")
      return {"codegen", "generating kernels"};
    if (arg == "spperm-compile-collect")
      return {"hash", "collecting the layers (sha256 of the sources)"};
    if (arg == "spperm-compile-seed" || arg == "spperm-compile-interrupt")
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
    auto [parsedFlag, detail] = rest.split(" option: ");
    // llvm::cl spells one-letter options with one dash (-k); the tools
    // take every option with two.
    std::string flag = parsedFlag.str();
    if (!StringRef(flag).starts_with("--") && StringRef(flag).starts_with("-"))
      flag = "-" + flag;
    for (auto [suffix, what] :
         {std::pair<StringRef, StringRef>{" value invalid for long argument!",
                                          "an integer"},
          {" value invalid for floating point argument!", "a number"},
          {" value invalid for boolean argument! Try 0 or 1", "true or false"}})
      if (detail.consume_back(suffix))
        return flag + " must be " + what.str() + ", got " + detail.str();
    return flag + ": " + detail.str();
  }
  return rest.str();
}

/// Parses `text` into `options`, with what the parser says on failure in
/// `error` instead of on stderr: llvm::cl reports a bad value of an option
/// straight to llvm::errs(), so stderr is redirected to a temporary file
/// while it parses.
LogicalResult parseQuietly(SpPermPipelineOptions &options, StringRef text,
                           std::string &error) {
  // stderr is the process's: one redirection at a time (the Python module
  // compiles from several threads).
  static std::mutex redirecting;
  std::lock_guard<std::mutex> lock(redirecting);
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


/// Why `path` cannot be written as an output (a package directory when
/// `directory`, else a file), or "": its parent must be a writable
/// directory, and an existing `path` a package (`directory`) or a file.
std::string checkOutputPath(const std::string &path, bool directory) {
  ::spperm::Status writable = directory
                                  ? ::spperm::checkWritableDirectoryOf(path)
                                  : ::spperm::checkWritableFile(path);
  if (writable && directory)
    writable = ::spperm::checkPackageDestination(path);
  return writable ? "" : writable.message();
}

/// Whether `name` can name a layer (a function symbol).
bool isLayerName(StringRef name) {
  if (name.empty() || isdigit(static_cast<unsigned char>(name.front())))
    return false;
  return llvm::all_of(name, [](char c) {
    return isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

/// The one-line message refusing `name` as a layer name (quoted as package
/// messages quote names: spperm::quoted).
std::string badLayerName(StringRef name) {
  return "layer name " + ::spperm::quoted(name) +
         " must match [A-Za-z_][A-Za-z0-9_]*";
}

/// The upstream dialects, interfaces and LLVM IR translations that code
/// generation lowers through (as in spperm-opt), with spperm's.
DialectRegistry compilerRegistry() {
  DialectRegistry registry;
  registry.insert<SpPermDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  return registry;
}

/// The K options a module leaves unused (CompileResult::warnings): `--k`
/// and `--k-buckets` apply to multiplications whose K is dynamic, and a
/// static K in a layer's types is what its kernels and the selector take.
void moduleKWarnings(const ::spperm::CompileRequest &request,
                     const SpPermPipelineOptions &pipeline, ModuleOp module,
                     std::vector<std::string> &warnings) {
  const bool bucketsGiven =
      llvm::any_of(request.tuning, [](const auto &option) {
        return option.first == "k-buckets";
      });
  if (pipeline.k <= 0 && !bucketsGiven)
    return;
  // A static K and its layer for each message: any for the buckets, one
  // other than --k for --k (a --k the types agree with is not said).
  std::string anyStatic, otherThanK;
  bool anyDynamic = false;
  module.walk([&](SpMMOp op) {
    auto bType = cast<ShapedType>(op.getDense().getType());
    if (bType.isDynamicDim(1)) {
      anyDynamic = true;
      return WalkResult::interrupt();
    }
    auto func = op->getParentOfType<func::FuncOp>();
    const std::string where =
        (func ? func.getSymName().str() + ": " : std::string()) +
        "K = " + std::to_string(bType.getDimSize(1));
    if (anyStatic.empty())
      anyStatic = where;
    if (otherThanK.empty() && bType.getDimSize(1) != pipeline.k)
      otherThanK = where;
    return WalkResult::advance();
  });
  if (anyDynamic)
    return;
  auto why = [&](const std::string &where) {
    return "it applies where K is dynamic and every multiplication in " +
           request.input + " has a static K in its types (" + where + ")";
  };
  if (pipeline.k > 0 && !otherThanK.empty())
    warnings.push_back("--k " + std::to_string(pipeline.k) +
                       " is ignored: " + why(otherThanK));
  if (bucketsGiven && !anyStatic.empty())
    warnings.push_back("--k-buckets is ignored: " + why(anyStatic));
}

/// The compilation after the request's own checks: `errors` gets one line
/// per problem, `warnings` one per thing said (CompileResult::warnings).
bool compile(::spperm::CompileRequest &request, SpPermPipelineOptions &pipeline,
             StageTimes &times, std::vector<std::string> &errors,
             std::vector<std::string> &warnings) {
  auto fail = [&](std::string message) {
    errors.push_back(std::move(message));
    return false;
  };
  auto interrupted = [&] {
    return request.interrupted && request.interrupted();
  };
  MLIRContext ctx(compilerRegistry());
  ctx.loadDialect<SpPermDialect, func::FuncDialect, tensor::TensorDialect,
                  arith::ArithDialect>();
  // Diagnostics become one line each: `LOC: message`, errors and warnings
  // (CompileResult::warnings).
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error &&
        diag.getSeverity() != DiagnosticSeverity::Warning)
      return success();
    std::vector<std::string> &lines =
        diag.getSeverity() == DiagnosticSeverity::Error ? errors : warnings;
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
    // One line: a message's own line breaks (LLVM's ends some with one)
    // are folded.
    std::string message = StringRef(diag.str()).trim().str();
    llvm::replace(message, '\n', ' ');
    os << message;
    // A pass run once per function or layer may report the same problem
    // more than once: one line each.
    if (llvm::find(lines, text) == lines.end())
      lines.push_back(std::move(text));
    return success();
  });

  const bool mlirInput = !request.matrix && StringRef(request.input)
                                                .ends_with(".mlir");
  OwningOpRef<ModuleOp> module;
  // A matrix layer: its matrix, read here for its shape, goes to the
  // pipeline's matrix cache under `matrixPath`.
  std::optional<::spperm::CsrMatrix> matrix;
  std::string matrixPath;
  const std::string inputName =
      request.matrix ? ::spperm::kMemorySourcePrefix + request.layerName
                     : request.input;

  times.begin("reading " + inputName);
  auto start = std::chrono::steady_clock::now();
  if (mlirInput) {
    if (request.valuesGiven)
      return fail("--values applies to matrix files; a .mlir module says it "
                  "on each spperm.load");
    if (request.dtypeGiven || !request.valuesDtype.empty())
      return fail("--dtype and --values-dtype apply to matrix inputs; a "
                  ".mlir module's types give each layer's element types");
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
        llvm::MemoryBuffer::getFile(request.input, /*IsText=*/true);
    if (!text)
      return fail(request.input +
                  ": cannot open: " + text.getError().message());
    if (std::string nesting =
            ::spperm::checkMlirNesting((*text)->getBuffer(), request.input);
        !nesting.empty())
      return fail(nesting);
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(*text), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&ctx));
    if (!module || failed(verify(*module)))
      return errors.empty() ? fail(request.input + ": cannot parse") : false;
    // A function with an spperm.spmm becomes a layer of its name: one a
    // package cannot hold is refused at the function, before any work.
    if (failed(checkLayerPlacement(*module)))
      return false;
    for (auto func : module->getOps<func::FuncOp>()) {
      if (func.getOps<SpMMOp>().empty())
        continue;
      if (!::spperm::isValidLayerName(func.getSymName().str())) {
        func.emitError() << "layer name "
                         << ::spperm::quoted(
                                std::string_view(func.getSymName()))
                         << " must be 1 to 1024 bytes of UTF-8 text without "
                            "control characters";
        return false;
      }
      if (failed(checkLayerFunction(func)))
        return false;
    }
    moduleKWarnings(request, pipeline, *module, warnings);
    times.add("parse", since(start));
  } else {
    std::string name;
    if (request.matrix) {
      matrix = std::move(request.matrix);
      request.matrix.reset();
      matrixPath = inputName;
      name = request.layerName;
    } else {
      ::spperm::StatusOr<::spperm::ValuesSpec> spec =
          ::spperm::parseValuesSpec(request.values);
      ::spperm::ReadOptions readOptions;
      readOptions.values = *spec;
      // The file is read again to hash it (docs/Compile.md): a pipe or a
      // FIFO would be empty or block then.
      llvm::sys::fs::file_status inputStatus;
      if (!llvm::sys::fs::status(request.input, inputStatus) &&
          inputStatus.type() != llvm::sys::fs::file_type::regular_file &&
          inputStatus.type() != llvm::sys::fs::file_type::directory_file)
        return fail(request.input +
                    ": not a regular file (spperm-compile reads a matrix file "
                    "twice: save the stream to a file first)");
      ::spperm::StatusOr<::spperm::CsrMatrix> m =
          ::spperm::readMatrixFile(request.input, readOptions);
      if (!m)
        return fail(m.message());
      matrix = std::move(*m);
      SmallString<256> absolute(request.input);
      llvm::sys::fs::make_absolute(absolute);
      matrixPath = std::string(absolute);
      name = request.layerName.empty() ? layerNameFor(request.input)
                                       : request.layerName;
    }
    times.add("read", since(start));
    if (interrupted())
      return fail("interrupted");
    auto typeNamed = [&](const std::string &name) -> Type {
      return name == "f16"    ? Type(Float16Type::get(&ctx))
             : name == "bf16" ? Type(BFloat16Type::get(&ctx))
                              : Type(Float32Type::get(&ctx));
    };
    module = buildMatrixModule(
        &ctx, matrixPath, inputName, name, request.values, matrix->rows,
        matrix->cols, pipeline.k, typeNamed(request.dtype),
        typeNamed(request.valuesDtype.empty() ? request.dtype
                                              : request.valuesDtype));
  }

  // The compiler, then the layers collected from what it made.
  std::vector<::spperm::PackageLayer> layers;
  const MatrixCache *cache = nullptr;
  PassManager pm(&ctx);
  pm.addInstrumentation(
      std::make_unique<StageTimer>(times, *module, !mlirInput, cache));
  pm.addPass(std::make_unique<SeedMatrixCache>(matrixPath, request.values,
                                               matrix, cache));
  auto checkInterrupted = [&](OpPassManager &p) {
    if (request.interrupted)
      p.addPass(std::make_unique<CheckInterrupted>(request.interrupted));
  };
  checkInterrupted(pm);
  buildSpPermKernelPipeline(pm, pipeline, checkInterrupted);
  CollectOptions collect;
  collect.baseDir = pipeline.baseDir;
  collect.libraryCheck = !pipeline.noLibraryCheck;
  collect.sizeBudget = request.sizeBudget;
  collect.strategy = getFixedStrategy(pipeline.strategy);
  collect.warps = pipeline.warps;
  pm.addPass(std::make_unique<CollectLayers>(collect, layers));
  pm.addPass(std::make_unique<EraseUnlaunchedKernels>(layers));
  checkInterrupted(pm);
  buildGpuToBinaryPipeline(pm, pipeline.target);
  if (failed(pm.run(*module)))
    return errors.empty() ? fail(inputName + ": compilation failed") : false;
  // A diagnosed error that did not stop the pipeline (the NVVM target's
  // CUDA path, say) fails the compile before anything is written.
  if (!errors.empty())
    return false;
  if (interrupted())
    return fail("interrupted");

  ::spperm::PackageOptions popts;
  popts.target = pipeline.target;
  FailureOr<std::string> ptx = extractPtx(*module);
  if (failed(ptx))
    return errors.empty() ? fail(inputName + ": no PTX was generated")
                          : false;
  popts.ptx = std::move(*ptx);
  times.begin("assembling a cubin (ptxas)");
  start = std::chrono::steady_clock::now();
  ::spperm::StatusOr<std::string> cubin =
      assembleCubin(popts.ptx, pipeline.target);
  if (!cubin)
    return fail(cubin.message());
  popts.cubin = std::move(*cubin);
  times.add("cubin", since(start));
  if (interrupted())
    return fail("interrupted");

  popts.externalData = request.data == "external";
  popts.interrupted = interrupted;
  popts.rebuildAlternatives = !request.storeAlternatives;
  {
    // With external data a source inside the package's parent directory is
    // recorded relative to it, so that the directory can be moved as a
    // whole (docs/Package.md, "External data"); any other source by its
    // absolute path, whatever directory the compiler ran in (a module's
    // sources are relative to the module's directory, which no reader of
    // the package knows). An embedded package travels alone: its sources
    // (spperm-verify's reference) are recorded absolute.
    SmallString<256> parent(::spperm::resolvedPath(request.output));
    llvm::sys::fs::make_absolute(parent);
    llvm::sys::path::remove_dots(parent, /*remove_dot_dot=*/true);
    llvm::sys::path::remove_filename(parent);
    std::string prefix = std::string(parent.str()) + "/";
    auto relativize = [&](::spperm::PackageLayer &layer) {
      // An in-memory matrix's name is no path.
      if (layer.sourcePath.empty() ||
          StringRef(layer.sourcePath)
              .starts_with(::spperm::kMemorySourcePrefix))
        return;
      // The file read, links and ".." resolved on the file system (a
      // textual "a/link/../b" may name another file).
      SmallString<256> src;
      if (llvm::sys::fs::real_path(layer.sourcePath, src)) {
        src = layer.sourcePath;
        llvm::sys::fs::make_absolute(src);
        llvm::sys::path::remove_dots(src, /*remove_dot_dot=*/true);
      }
      layer.sourcePath =
          popts.externalData && StringRef(src).starts_with(prefix)
              ? StringRef(src).drop_front(prefix.size()).str()
              : std::string(src.str());
    };
    for (::spperm::PackageLayer &layer : layers) {
      relativize(layer);
      for (::spperm::PackageLayer &alternative : layer.alternatives)
        relativize(alternative);
    }
  }

  // Layer names and shards are the input's: a module with two layers of
  // one name, or some shards of a layer, is refused naming it rather than
  // the package the writer would refuse.
  if (::spperm::Status s = ::spperm::checkShards(layers); !s)
    return fail(inputName + ": " + s.message());

  // The report first (it needs only the layers): a compile whose report
  // cannot be written leaves no package, and one whose package cannot be
  // written removes its report.
  if (!request.report.empty()) {
    ::spperm::ReportInputs report;
    report.package = request.output;
    report.input = inputName;
    report.stages = times.seconds;
    report.selection.modelPath = pipeline.model;
    report.selection.target = pipeline.target;
    report.selection.costModel = pipeline.costModel;
    report.selection.libraryCheck = !pipeline.noLibraryCheck;
    report.bench = std::move(request.bench);
    if (::spperm::Status s =
            ::spperm::writeCompileReport(request.report, layers, report);
        !s)
      return fail(s.message());
  }
  times.begin("writing " + request.output);
  start = std::chrono::steady_clock::now();
  if (::spperm::Status s =
          ::spperm::writePackage(request.output, layers, popts);
      !s) {
    // The report written above goes too, where it is a file of its own: a
    // device is left alone, and a symbolic link (written through) stays.
    struct stat st;
    if (!request.report.empty() && ::lstat(request.report.c_str(), &st) == 0 &&
        S_ISREG(st.st_mode))
      ::unlink(request.report.c_str());
    return fail(s.message());
  }
  times.add("packaging", since(start));
  return errors.empty();
}

/// The options of `request` that the compile cannot use, given the format,
/// strategy and K it fixes (CompileResult::warnings).
std::vector<std::string>
unusedOptionWarnings(const ::spperm::CompileRequest &request,
                     const SpPermPipelineOptions &pipeline, bool mlirInput) {
  struct Rule {
    /// Whether the options apply to what `pipeline` fixes, and the reason
    /// they do not.
    bool applies;
    std::string why;
    std::vector<StringRef> names;
  };
  // `keep` fixes a matrix file's CSR and row order; a module's IR may
  // hold any format and permutation.
  const FormatOption format = pipeline.format;
  const bool fixedFormat = format != FormatOption::Auto &&
                           (format != FormatOption::Keep || !mlirInput);
  const bool fixedStrategy =
      pipeline.strategy != StrategyOption::Auto &&
      (pipeline.strategy != StrategyOption::Keep || !mlirInput);
  const std::optional<::spperm::Strategy> strategy =
      getFixedStrategy(pipeline.strategy);
  // The format and strategy as given (a fixed one is always given).
  auto given = [&](StringRef option) {
    std::string value;
    for (const auto &[name, text] : request.tuning)
      if (name == option)
        value = text;
    return value;
  };
  const std::string formatText = "--format " + given("format");
  const Rule rules[] = {
      {!fixedFormat || format == FormatOption::Bell,
       "it applies to bell layers and " + formatText + " makes none",
       {"block", "delta", "bell-columns", "precision"}},
      {!fixedFormat || format == FormatOption::Hbp,
       "it applies to hbp layers and " + formatText + " makes none",
       {"row-block", "col-block"}},
      {!fixedStrategy || strategy == ::spperm::Strategy::Bsa,
       "it applies to the bsa strategy and --strategy " + given("strategy") +
           " is fixed",
       {"alpha", "tau"}},
      {mlirInput || pipeline.k <= 0,
       "it applies to packages for any K and --k " +
           std::to_string(pipeline.k) + " compiles the matrix for one",
       {"k-buckets"}},
      {!pipeline.costModel, "--cost-model ranks without a model", {"model"}},
  };
  std::vector<std::string> warnings;
  for (const auto &[name, value] : request.tuning)
    for (const Rule &rule : rules)
      if (!rule.applies && llvm::is_contained(rule.names, name))
        warnings.push_back("--" + name + " is ignored: " + rule.why);
  return warnings;
}

} // namespace

namespace spperm {

bool compilePackage(CompileRequest request, CompileResult &result) {
  std::vector<std::string> &errors = result.errors;
  auto fail = [&](std::string message) {
    errors.push_back(std::move(message));
    return false;
  };
  // Progress for stages longer than a second (SPPERM_PROGRESS_SECONDS
  // overrides the threshold; the tests set 0), checked before any work.
  double progressSeconds = 1.0;
  if (std::string error;
      request.progress && !progressThreshold(progressSeconds, error))
    return fail(error);
  const bool memory = request.matrix.has_value();
  if (memory && !request.input.empty())
    return fail("give either an input file or an in-memory matrix, not both");
  if (!memory && request.input.empty())
    return fail("no input: a matrix file, a .mlir module or a matrix");
  if (memory) {
    if (!isLayerName(request.layerName))
      return fail(badLayerName(request.layerName));
    if (Status valid = request.matrix->verify(); !valid)
      return fail(std::string(kMemorySourcePrefix) + request.layerName +
                  ": " + valid.message());
    if (request.valuesGiven && request.values != "file")
      return fail("--values applies to matrix files; an in-memory matrix "
                  "carries its values");
    if (request.data != "embed")
      return fail("--data external needs a matrix file; an in-memory matrix "
                  "is embedded");
  } else if (!request.layerName.empty() &&
             StringRef(request.input).ends_with(".mlir")) {
    return fail("a layer name applies to matrix inputs; a .mlir module names "
                "each layer after its function");
  } else if (!request.layerName.empty() && !isLayerName(request.layerName)) {
    return fail(badLayerName(request.layerName));
  }
  if (request.output.empty())
    return fail("missing -o PKG (see --help)");
  // A package is a directory: `-o new.spp/` names new.spp.
  while (request.output.size() > 1 && request.output.back() == '/')
    request.output.pop_back();
  // Every output is checked before any work: a compile that cannot write
  // all of them writes none.
  if (std::string bad = checkOutputPath(request.output, /*directory=*/true);
      !bad.empty())
    return fail(bad);
  // The files the compile reads: none may be replaced by an output, nor
  // lie inside the package directory the compile replaces.
  std::vector<std::string> inputs = request.benchPaths;
  if (!memory)
    inputs.push_back(request.input);
  for (const auto &[name, value] : request.tuning)
    if (name == "model" && !value.empty())
      inputs.push_back(value);
  for (const std::string &input : inputs)
    if (::spperm::isInside(input, request.output))
      return fail(input + ": is inside the package directory " +
                  request.output +
                  ", which the compile replaces (move it out first)");
  if (!request.report.empty()) {
    if (std::string bad = checkOutputPath(request.report, /*directory=*/false);
        !bad.empty())
      return fail(bad);
    // The report may replace neither an input nor a file of a package
    // (the -o package's own directory is replaced after it is written).
    if (::spperm::samePath(request.report, request.output))
      return fail(request.report + ": --report names the package -o");
    if (::spperm::Status spares =
            ::spperm::checkOutputSparesInputs(request.report, inputs);
        !spares)
      return fail(spares.message());
  }
  if (!request.bench.empty() && request.report.empty())
    return fail("--report-bench needs --report");
  // The text of spperm-compile's own check (parseNumberOption).
  if (!(request.sizeBudget >= 0 &&
        request.sizeBudget <= ::spperm::kMaxSizeBudget)) {
    char got[32];
    std::snprintf(got, sizeof(got), "%g", request.sizeBudget);
    return fail("--size-budget must be a number in [0, 1e+09], got '" +
                std::string(got) + "'");
  }
  if (request.data != "embed" && request.data != "external")
    return fail("--data must be embed or external, got '" + request.data + "'" +
                ::spperm::didYouMean(request.data, {"embed", "external"}));
  if (StatusOr<ValuesSpec> spec = parseValuesSpec(request.values); !spec)
    return fail(spec.message());
  if (!::spperm::parseValueType(request.dtype))
    return fail("--dtype must be f32, f16 or bf16, got '" + request.dtype +
                "'" +
                ::spperm::didYouMean(request.dtype, {"f32", "f16", "bf16"}));
  if (!request.valuesDtype.empty() && request.valuesDtype != "f32" &&
      request.valuesDtype != request.dtype)
    return fail("--values-dtype must be f32 or the --dtype (" +
                request.dtype + "), got '" + request.valuesDtype + "'");

  // The tuning options, read by the pipeline's own option parser; matrix
  // inputs default to the selector's choice (`keep`, given, keeps the
  // file's row order and CSR).
  SpPermPipelineOptions pipeline;
  const bool mlirInput = !memory && StringRef(request.input).ends_with(".mlir");
  bool strategyGiven = false, formatGiven = false;
  std::string optionText;
  // The pipeline's parser reads integers in any base ("0x10", "010"); the
  // tools take decimal ones only.
  llvm::StringSet<> integerOptions, realOptions;
  for (const llvm::cl::Option *option : pipeline.getOptions()) {
    if (dynamic_cast<const SpPermPipelineOptions::Option<int64_t> *>(
            option) ||
        dynamic_cast<const SpPermPipelineOptions::ListOption<int64_t> *>(
            option))
      integerOptions.insert(option->ArgStr);
    if (dynamic_cast<const SpPermPipelineOptions::Option<double> *>(option))
      realOptions.insert(option->ArgStr);
  }
  for (const auto &[name, value] : request.tuning) {
    strategyGiven |= name == "strategy";
    formatGiven |= name == "format";
    if (integerOptions.contains(name)) {
      for (StringRef item : llvm::split(StringRef(value), ',')) {
        StringRef digits = item.trim();
        if (!digits.consume_front("+"))
          digits.consume_front("-");
        if (digits.size() > 1 && digits[0] == '0' &&
            (llvm::isDigit(digits[1]) ||
             StringRef("xXbBoO").contains(digits[1])))
          return fail("--" + name + " takes decimal integers, got '" +
                      value + "'");
      }
    }
    // The parser reads a number beyond a double's range as 0 or infinity
    // (`--delta 1e-400` would mean "search"): refused as written.
    if (realOptions.contains(name)) {
      const std::string text = StringRef(value).trim().str();
      char *end = nullptr;
      errno = 0;
      const double number = std::strtod(text.c_str(), &end);
      if (!text.empty() && end == text.c_str() + text.size() &&
          errno == ERANGE && (number == 0.0 || std::isinf(number)))
        return fail("--" + name + " " + value +
                    " is beyond the range of a double (it would be read as " +
                    (number == 0.0 ? "0" : "infinity") + ")");
    }
    optionText += name + "=" + quoteOptionValue(value) + " ";
  }
  std::string parseError;
  if (failed(parseQuietly(pipeline, optionText, parseError)))
    return fail(spellAsFlags(parseError));
  if (std::string error = verifyPipelineOptions(pipeline); !error.empty())
    return fail("--" + error);
  if (memory && !pipeline.baseDir.empty())
    return fail("--base-dir resolves matrix files of a .mlir module; an "
                "in-memory matrix has no path");
  if (!mlirInput) {
    if (!strategyGiven)
      pipeline.strategy = StrategyOption::Auto;
    if (!formatGiven)
      pipeline.format = FormatOption::Auto;
  }
  result.warnings = unusedOptionWarnings(request, pipeline, mlirInput);
  // A --model file the selector may read is checked before any work, and
  // its problem named as the model's, not as one of the first layer that
  // reads it.
  if (!pipeline.model.empty() && !pipeline.costModel &&
      (pipeline.strategy == StrategyOption::Auto ||
       pipeline.format == FormatOption::Auto))
    if (::spperm::StatusOr<::spperm::SelectorModel> model =
            ::spperm::readSelectorModel(pipeline.model);
        !model)
      return fail(model.message());

  Progress progress(request.tool.c_str(), request.progress, progressSeconds);
  StageTimes times;
  times.progress = &progress;
  bool ok = compile(request, pipeline, times, errors, result.warnings);
  progress.finish();
  result.stages = std::move(times.seconds);
  return ok;
}

std::vector<TuningOption> tuningOptions() {
  SpPermPipelineOptions pipeline;
  std::vector<TuningOption> options;
  for (const llvm::cl::Option *option : pipeline.getOptions())
    options.push_back(
        {option->ArgStr.str(),
         option->getValueExpectedFlag() != llvm::cl::ValueRequired});
  return options;
}

void printTuningOptionsHelp(size_t indent, size_t descriptionIndent) {
  SpPermPipelineOptions pipeline;
  // llvm::cl pads each option to the description's column: an option wider
  // than the column would be padded by a negative (huge) count.
  for (const llvm::cl::Option *option : pipeline.getOptions())
    descriptionIndent =
        std::max(descriptionIndent, indent + option->getOptionWidth() + 2);
  pipeline.printHelp(indent, descriptionIndent);
  llvm::outs().flush();
}

std::string formatStageTimes(
    const std::vector<std::pair<std::string, double>> &stages) {
  double total = 0;
  for (const auto &entry : stages)
    total += entry.second;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "===" << std::string(73, '-') << "===\n"
     << "                 spperm-compile execution time report\n"
     << "===" << std::string(73, '-') << "===\n"
     << llvm::format("  Total Execution Time: %.4f seconds\n\n", total)
     << "  ----Wall Time----  ----Name----\n";
  for (const auto &[stage, s] : stages)
    os << llvm::format("  %8.4f (%5.1f%%)  %s\n", s,
                       total > 0 ? 100.0 * s / total : 0.0, stage.c_str());
  os << llvm::format("  %8.4f (100.0%%)  Total\n", total);
  return text;
}

} // namespace spperm
