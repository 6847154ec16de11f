//===- Pipeline.cpp - spperm-pipeline -------------------------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The compiler as one named pipeline: the decision (features, selector,
// shortlist), the permutation and storage, spperm-lower-to-gpu and the
// upstream lowering of buildGpuToBinaryPipeline (docs/Passes.md).
//
//===----------------------------------------------------------------------===//

#include "spperm/Conversion/Pipeline.h"

#include "spperm/Conversion/Passes.h"
#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Escape.h"
#include "spperm/Sparse/Names.h"
#include "spperm/Sparse/Selector.h"
#include "spperm/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/MathExtras.h"

#include <cstdio>


using namespace mlir;
using namespace mlir::spperm;

std::string
mlir::spperm::verifyPipelineOptions(const SpPermPipelineOptions &o) {
  auto range = [](StringRef name, int64_t value, int64_t lo,
                  int64_t hi) -> std::string {
    if (value >= lo && value <= hi)
      return "";
    return (name + " must be an integer in [" + Twine(lo) + ", " +
            Twine(hi) + "], got " + Twine(value))
        .str();
  };
  for (std::string error :
       {range("k", o.k, 0, ::spperm::kMaxIndex),
        range("shards", o.shards, 1, ::spperm::kMaxIndex),
        range("max-variants", o.maxVariants, 0, ::spperm::kMaxVariantsLimit),
        range("warps", o.warps, 1, 1024), range("line", o.line, 1, 1024),
        range("tau", o.tau, 1, 1024), range("block", o.block, 1, 32),
        range("row-block", o.rowBlock, 32, ::spperm::kMaxIndex),
        range("col-block", o.colBlock, 1, ::spperm::kMaxIndex)})
    if (!error.empty())
      return error;
  // The passes' own shape rules, named by the option up front rather than by
  // the pass that would refuse them after the matrix is read.
  if (!llvm::isPowerOf2_64(o.block))
    return "block must be one of 1, 2, 4, 8, 16, 32, got " +
           std::to_string(o.block);
  if (!llvm::isPowerOf2_64(o.line))
    return "line must be a power of two in [1, 1024], got " +
           std::to_string(o.line);
  if (!(o.alpha > 0.0 && o.alpha <= 1.0))
    return "alpha must be in (0, 1], got " + ::spperm::exactNumber(o.alpha);
  if (!(o.delta >= 0.0 && o.delta <= 1.0))
    return "delta must be in (0, 1] (or 0 to search), got " +
           ::spperm::exactNumber(o.delta);
  if (o.rowBlock % 32 != 0)
    return "row-block must be a multiple of 32, got " +
           std::to_string(o.rowBlock);
  if (std::string problem = ::spperm::checkMargin(o.margin); !problem.empty())
    return problem;
  if (o.kBuckets.hasValue() && o.kBuckets.empty())
    return kEmptyKBucketsError;
  return verifyKernelOptions(o.threads, o.batch, o.kSlices, o.splitRows,
                             o.target, o.kBuckets);
}

void mlir::spperm::buildSpPermPipeline(OpPassManager &pm,
                                       const SpPermPipelineOptions &o) {
  buildSpPermKernelPipeline(pm, o);
  buildGpuToBinaryPipeline(pm, o.target);
}

void mlir::spperm::buildSpPermKernelPipeline(
    OpPassManager &pm, const SpPermPipelineOptions &o,
    llvm::function_ref<void(OpPassManager &)> afterEachPass) {
  auto addPass = [&](std::unique_ptr<Pass> pass) {
    pm.addPass(std::move(pass));
    if (afterEachPass)
      afterEachPass(pm);
  };
  std::optional<::spperm::Strategy> fixedStrategy =
      getFixedStrategy(o.strategy);
  const bool fixedFormat = o.format != FormatOption::Keep &&
                           o.format != FormatOption::Auto;
  // The selector records each matrix's choice, which permute-rows and
  // convert-format then materialize; a forced cusparse is a choice too
  // (the library runs the layer).
  const bool selecting = o.strategy == StrategyOption::Auto ||
                         o.format == FormatOption::Auto ||
                         o.format == FormatOption::Cusparse;
  // Shards first: every pass after it sees each shard as a layer.
  if (o.shards > 1) {
    SpPermShardRowsOptions shard;
    shard.shards = o.shards;
    shard.cut = o.shardCut;
    shard.baseDir = o.baseDir;
    addPass(createSpPermShardRows(shard));
  }
  if (selecting && !(fixedStrategy && fixedFormat)) {
    SpPermExtractFeaturesOptions extract;
    extract.baseDir = o.baseDir;
    extract.warps = o.warps;
    extract.lineWidth = o.line;
    addPass(createSpPermExtractFeatures(extract));
  }
  if (selecting) {
    SpPermSelectOptions select;
    select.model = o.model;
    select.target = o.target;
    select.costModel = o.costModel;
    select.margin = o.margin;
    select.libraryCheck = !o.noLibraryCheck;
    select.maxVariants = o.maxVariants;
    select.strategy = fixedStrategy ? o.strategy.getValue()
                                    : StrategyOption::Auto;
    select.format = fixedFormat ? o.format.getValue() : FormatOption::Auto;
    select.k = o.k > 0 ? o.k : ::spperm::kAnyKSelectionK;
    addPass(createSpPermSelect(select));
    // The shortlist's runner-ups become layers of their own (spperm-compile
    // packages them as their layer's alternatives).
    addPass(createSpPermExpandAlternatives());
  }
  if (selecting || o.strategy != StrategyOption::Keep) {
    SpPermPermuteRowsOptions permute;
    permute.strategy = selecting ? StrategyOption::Auto : o.strategy.getValue();
    permute.warps = o.warps;
    permute.lineWidth = o.line;
    if (selecting || fixedStrategy == ::spperm::Strategy::Bsa) {
      permute.tau = o.tau;
      permute.alpha = o.alpha;
    }
    addPass(createSpPermPermuteRows(permute));
  }
  if (selecting || o.format != FormatOption::Keep) {
    SpPermConvertFormatOptions convert;
    convert.format = selecting ? FormatOption::Auto : o.format.getValue();
    convert.block = o.block;
    convert.delta = o.delta;
    convert.columns = o.bellColumns;
    convert.rowBlock = o.rowBlock;
    convert.colBlock = o.colBlock;
    convert.baseDir = o.baseDir;
    addPass(createSpPermConvertFormat(convert));
  }
  // Layers with dense blocks get a 3xTF32 twin for the runtime to time
  // beside the shortlist (docs/Kernels.md, `bell-3xtf32`).
  if (selecting && !o.noLibraryCheck && o.maxVariants != 1 &&
      o.precision == Precision::F32 && !o.noTensorCoreAlternatives)
    addPass(createSpPermTensorCoreAlternatives());
  SpPermLowerToGPUOptions lower;
  lower.threads = o.threads;
  lower.baseDir = o.baseDir;
  lower.precision = o.precision;
  lower.target = o.target;
  lower.batch = o.batch;
  lower.kSlices = o.kSlices;
  lower.kBuckets.assign(o.kBuckets.begin(), o.kBuckets.end());
  lower.splitRows = o.splitRows;
  lower.longRows = o.longRows;
  lower.rowWindows = o.rowWindows;
  lower.narrowIndices = o.narrowIndices;
  lower.inPlaceB = o.inPlaceB;
  addPass(createSpPermLowerToGPU(lower));
  addPass(createSpPermDedupKernels());
}

void mlir::spperm::registerSpPermPipeline() {
  registerPassPipeline(
      "spperm-pipeline",
      "The compiler: spperm IR to matrix-specialized kernels in a gpu.binary "
      "(PTX) - spperm-shard-rows for shards > 1, "
      "spperm-extract-features and spperm-select when the selector "
      "decides, spperm-permute-rows, spperm-convert-format, "
      "spperm-tensor-core-alternatives for selected dense-block layers, "
      "spperm-lower-to-gpu, spperm-dedup-kernels, "
      "spperm-split-kernel-module, convert-gpu-to-nvvm, "
      "nvvm-attach-target, spperm-serialize-kernels",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        SpPermPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (std::string error = verifyPipelineOptions(options);
            !error.empty())
          return errorHandler("spperm-pipeline: " + error);
        buildSpPermPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const ::mlir::detail::PassOptions &)> optHandler) {
        optHandler(SpPermPipelineOptions());
      });
}
