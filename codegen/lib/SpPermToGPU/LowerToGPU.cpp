//===- LowerToGPU.cpp - spperm-lower-to-gpu -------------------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Conversion/Passes.h"
#include "spperm/Conversion/SpPermToGPU.h"
#include "spperm/Transforms/MatrixUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <limits>

namespace mlir::spperm {
#define GEN_PASS_DEF_SPPERMLOWERTOGPU
#include "spperm/Conversion/Passes.h.inc"
} // namespace mlir::spperm

using namespace mlir;
using namespace mlir::spperm;

/// The manifest's description of a launch, as an attribute.
static DictionaryAttr launchAttr(Builder &b, const ::spperm::KernelInfo &k) {
  SmallVector<Attribute> args;
  for (const std::string &a : k.args)
    args.push_back(b.getStringAttr(a));
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("name", b.getStringAttr(k.name)),
      b.getNamedAttr("family", b.getStringAttr(k.family)),
      b.getNamedAttr("variant", b.getStringAttr(k.variant)),
      b.getNamedAttr("k_min", b.getI64IntegerAttr(k.kMin)),
      b.getNamedAttr("k_max", b.getI64IntegerAttr(k.kMax)),
      b.getNamedAttr("k_align", b.getI64IntegerAttr(k.kAlign)),
      b.getNamedAttr("zero_output", b.getBoolAttr(k.zeroOutput)),
      b.getNamedAttr("dependent_launch", b.getBoolAttr(k.dependentLaunch)),
      b.getNamedAttr("args", b.getArrayAttr(args)),
      b.getNamedAttr("grid", b.getDenseI64ArrayAttr(
                                 {k.gridX, k.gridY, k.gridZ})),
      b.getNamedAttr("block", b.getDenseI64ArrayAttr(
                                  {k.blockX, k.blockY, k.blockZ}))};
  return b.getDictionaryAttr(fields);
}

namespace {

struct SpPermLowerToGPU
    : public mlir::spperm::impl::SpPermLowerToGPUBase<SpPermLowerToGPU> {
  using Base::Base;

  void runOnOperation() override {
    const int64_t threadCount = threads;
    if (threadCount < 32 || threadCount > 1024 || threadCount % 32 != 0) {
      getOperation().emitError("spperm-lower-to-gpu: threads must be a "
                               "multiple of 32 in [32, 1024], got ")
          << std::to_string(threadCount);
      return signalPassFailure();
    }
    ModuleOp module = getOperation();
    if (batch < 0 || batch > 8) {
      module.emitError("spperm-lower-to-gpu: batch must be in [0, 8], got ")
          << std::to_string(batch);
      return signalPassFailure();
    }
    if (kSlices < 0 || kSlices > 1024) {
      module.emitError(
          "spperm-lower-to-gpu: k-slices must be in [0, 1024], got ")
          << std::to_string(kSlices);
      return signalPassFailure();
    }
    if (splitRows < 0 || splitRows > std::numeric_limits<int32_t>::max()) {
      module.emitError(
          "spperm-lower-to-gpu: split-rows must be in [0, 2147483647], got ")
          << std::to_string(splitRows);
      return signalPassFailure();
    }
    std::optional<LongRowMode> longRowMode = parseLongRowMode(longRows);
    if (!longRowMode) {
      module.emitError("spperm-lower-to-gpu: long-rows must be auto, cta or "
                       "split, got '")
          << longRows.getValue() << "'";
      return signalPassFailure();
    }
    if (!isKnownTarget(target)) {
      module.emitError("spperm-lower-to-gpu: target must be a GPU "
                       "architecture such as sm_90, got '")
          << target.getValue() << "'";
      return signalPassFailure();
    }
    std::optional<Precision> mode = parsePrecision(precision);
    if (!mode) {
      module.emitError("spperm-lower-to-gpu: precision must be fp32, tf32 "
                       "or f16, got '")
          << precision.getValue() << "'";
      return signalPassFailure();
    }
    SmallVector<SpMMOp> spmms;
    module.walk([&](SpMMOp op) { spmms.push_back(op); });
    if (spmms.empty())
      return;
    MatrixCache cache(baseDir);
    gpu::GPUModuleOp kernels = getOrCreateKernelModule(module);
    Builder b(module.getContext());
    for (auto [index, spmm] : llvm::enumerate(spmms)) {
      FailureOr<::spperm::FormattedMatrix> formatted =
          buildFormattedMatrix(spmm, cache);
      if (failed(formatted))
        return signalPassFailure();
      KernelGenOptions options;
      options.threads = threads;
      options.precision = *mode;
      options.vectorReductions = targetHasVectorReductions(target);
      options.gridDependencies = targetHasGridDependencies(target);
      options.batch = batch;
      options.kSlices = kSlices;
      options.splitRows = splitRows;
      options.longRows = *longRowMode;
      int64_t k = cast<ShapedType>(spmm.getDense().getType()).getDimSize(1);
      options.k = ShapedType::isDynamic(k) ? 0 : k;
      auto func = spmm->getParentOfType<FunctionOpInterface>();
      std::string prefix = func ? func.getName().str() : "layer";
      for (char &c : prefix)
        if (!isalnum(static_cast<unsigned char>(c)))
          c = '_';
      options.prefix = prefix + "_" + std::to_string(index);
      SmallVector<Attribute> launches;
      for (const ::spperm::KernelInfo &info :
           generateLayerKernels(kernels, *formatted, options))
        launches.push_back(launchAttr(b, info));
      spmm->setAttr("spperm.kernels", b.getArrayAttr(launches));
    }
  }
};

} // namespace
