//===- LowerToGPU.cpp - spperm-lower-to-gpu -------------------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Conversion/Passes.h"
#include "spperm/Conversion/SpPermToGPU.h"
#include "spperm/Sparse/Names.h"
#include "spperm/Transforms/MatrixUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"


namespace mlir::spperm {
#define GEN_PASS_DEF_SPPERMLOWERTOGPU
#include "spperm/Conversion/Passes.h.inc"
} // namespace mlir::spperm

using namespace mlir;
using namespace mlir::spperm;

LaunchAttr mlir::spperm::getLaunchAttr(MLIRContext *ctx,
                                       const ::spperm::KernelInfo &k) {
  Builder b(ctx);
  SmallVector<Attribute> args;
  for (const std::string &a : k.args)
    args.push_back(b.getStringAttr(a));
  return LaunchAttr::get(
      ctx, k.name, k.family, k.variant, k.kMin, k.kMax, k.kAlign,
      k.zeroOutput, k.dependentLaunch, b.getArrayAttr(args),
      b.getDenseI64ArrayAttr({k.gridX, k.gridY, k.gridZ}),
      b.getDenseI64ArrayAttr({k.blockX, k.blockY, k.blockZ}), k.sharedBytes,
      k.gridCtas > 0 ? b.getDenseI64ArrayAttr(
                           {k.gridBase, k.gridCtas, k.gridColumns})
                     : DenseI64ArrayAttr());
}

::spperm::KernelInfo mlir::spperm::getKernelInfo(LaunchAttr attr) {
  ::spperm::KernelInfo k;
  k.name = attr.getName().str();
  k.family = attr.getFamily().str();
  k.variant = attr.getVariant().str();
  k.kMin = attr.getKMin();
  k.kMax = attr.getKMax();
  k.kAlign = attr.getKAlign();
  k.zeroOutput = attr.getZeroOutput();
  k.dependentLaunch = attr.getDependentLaunch();
  for (Attribute a : attr.getArgs())
    k.args.push_back(cast<StringAttr>(a).str());
  ArrayRef<int64_t> grid = attr.getGrid().asArrayRef();
  ArrayRef<int64_t> block = attr.getBlock().asArrayRef();
  k.gridX = grid[0];
  k.gridY = grid[1];
  k.gridZ = grid[2];
  k.blockX = block[0];
  k.blockY = block[1];
  k.blockZ = block[2];
  k.sharedBytes = attr.getSharedBytes();
  if (DenseI64ArrayAttr gridK = attr.getGridK()) {
    assert(gridK.size() == 3 && "grid_k is base, ctas and columns");
    k.gridBase = gridK[0];
    k.gridCtas = gridK[1];
    k.gridColumns = gridK[2];
  }
  return k;
}

bool mlir::spperm::runsOnLibrary(SpMMOp spmm) {
  LoadOp load = getSourceLoad(spmm.getMatrix());
  ChoiceAttr choice = load ? load.getChoiceAttr() : ChoiceAttr();
  return choice && choice.getFormat() == StringRef(::spperm::kCusparse);
}

namespace {

struct SpPermLowerToGPU
    : public mlir::spperm::impl::SpPermLowerToGPUBase<SpPermLowerToGPU> {
  using Base::Base;

  /// Refuses `k-buckets=` in a textual pipeline. Only here can the pass
  /// tell an empty list from an option not given: a pass made from an
  /// options struct has every option set.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(Base::initializeOptions(options, errorHandler)))
      return failure();
    if (kBuckets.hasValue() && kBuckets.empty())
      return errorHandler(Twine("spperm-lower-to-gpu: ") + kEmptyKBucketsError);
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (std::string error =
            verifyKernelOptions(threads, batch, kSlices, splitRows, target,
                                kBuckets);
        !error.empty()) {
      mlir::emitError(module.getLoc(), "spperm-lower-to-gpu: ") << error;
      return signalPassFailure();
    }
    KernelGenOptions base;
    base.threads = threads;
    base.precision = precision;
    base.vectorReductions = targetHasVectorReductions(target);
    base.gridDependencies = targetHasGridDependencies(target);
    base.batch = batch;
    base.kSlices = kSlices;
    base.kBuckets = resolveKBuckets(kBuckets);
    base.splitRows = splitRows;
    base.longRows = longRows;
    base.rowWindows = rowWindows;
    base.narrowIndices = narrowIndices;
    base.inPlaceB = inPlaceB;

    // The kernels' module takes a reserved name: another symbol of that
    // name is refused up front, and so is a gpu.module of that name while
    // a multiplication is still to be lowered (before lowering there is no
    // kernel module: its kernels would clash with the generated ones).
    if (Operation *taken =
            SymbolTable::lookupSymbolIn(module, kKernelModuleName)) {
      bool toLower = false;
      module.walk([&](SpMMOp spmm) {
        toLower |= !spmm->hasAttr(kKernelsAttrName);
        return toLower ? WalkResult::interrupt() : WalkResult::advance();
      });
      if (!isa<gpu::GPUModuleOp>(taken) || toLower) {
        taken->emitOpError() << "is named @" << kKernelModuleName
                             << ", the name spperm-lower-to-gpu gives the "
                                "generated kernels' gpu.module; rename it";
        return signalPassFailure();
      }
    }
    MatrixCache &matrices = getAnalysis<MatrixCache>();
    gpu::GPUModuleOp kernels;
    MLIRContext *ctx = module.getContext();
    // Kernel symbols start with the layer's prefix: `l<N>` for the N-th
    // multiplication, `l<N>a<M>` for the M-th alternative of layer N (a
    // function spperm-expand-alternatives made), as in the package.
    llvm::StringMap<std::string> layerPrefix;
    llvm::StringMap<int> alternativeCount;
    // The layers (by their prefix) whose in-place kernels are made.
    llvm::StringSet<> inPlaceLayers;
    int layerCount = 0;
    WalkResult result = module.walk([&](SpMMOp spmm) -> WalkResult {
      // Lowering twice would generate each kernel again under its name.
      if (spmm->hasAttr(kKernelsAttrName)) {
        spmm.emitOpError("is already lowered (it has ")
            << kKernelsAttrName << "): spperm-lower-to-gpu runs once";
        return WalkResult::interrupt();
      }
      // B and C may be f32, f16 or bf16; A's values f32 or B's type (the
      // verifier's rule).
      Type valueType = spmm.getMatrix().getType().getElementType();
      Type denseType =
          cast<ShapedType>(spmm.getDense().getType()).getElementType();
      const ::spperm::ValueType operandType = getValueType(denseType);
      // Made for the first multiplication, even one the library runs: a
      // package always has its kernels.ptx.
      if (!kernels)
        kernels = getOrCreateKernelModule(module);
      auto func = spmm->getParentOfType<FunctionOpInterface>();
      std::string prefix;
      auto of = func ? func->getAttrOfType<FlatSymbolRefAttr>(
                           kAlternativeOfAttrName)
                     : FlatSymbolRefAttr();
      const bool alternative = of && layerPrefix.count(of.getValue());
      if (alternative) {
        prefix = layerPrefix[of.getValue()] + "a" +
                 std::to_string(++alternativeCount[of.getValue()]);
      } else {
        prefix = "l" + std::to_string(layerCount++);
        if (func)
          layerPrefix[func.getName()] = prefix;
      }
      SmallVector<Attribute> launches;
      if (runsOnLibrary(spmm)) {
        ::spperm::KernelInfo library;
        library.name = library.family = library.variant =
            std::string(::spperm::kCusparse);
        launches.push_back(getLaunchAttr(ctx, library));
      } else {
        const ::spperm::FormattedMatrix *formatted =
            matrices.getFormatted(spmm, baseDir);
        if (!formatted)
          return WalkResult::interrupt();
        KernelGenOptions options = base;
        options.operandType = operandType;
        options.valueType = getValueType(valueType);
        // spperm-tensor-core-alternatives' copies name their own precision
        // (one the dialect's verifier accepted).
        if (auto named =
                func ? func->getAttrOfType<StringAttr>(kPrecisionAttrName)
                     : StringAttr())
          if (std::optional<Precision> precision =
                  parsePrecision(named.getValue()))
            options.precision = *precision;
        int64_t k = cast<ShapedType>(spmm.getDense().getType()).getDimSize(1);
        options.k = ShapedType::isDynamic(k) ? 0 : k;
        options.prefix = prefix;
        for (const ::spperm::KernelInfo &info :
             generateLayerKernels(kernels, *formatted, options))
          launches.push_back(getLaunchAttr(ctx, info));
        // In-place kernels over the first csr variant of the layer that
        // gets them.
        StringRef layer = alternative ? StringRef(layerPrefix[of.getValue()])
                                      : StringRef(prefix);
        if (!inPlaceLayers.contains(layer)) {
          SmallVector<Attribute> inPlace;
          for (const ::spperm::KernelInfo &info :
               generateInPlaceKernels(kernels, *formatted, options))
            inPlace.push_back(getLaunchAttr(ctx, info));
          if (!inPlace.empty()) {
            inPlaceLayers.insert(layer);
            spmm->setAttr(kInPlaceAttrName, ArrayAttr::get(ctx, inPlace));
          }
        }
      }
      spmm->setAttr(kKernelsAttrName, ArrayAttr::get(ctx, launches));
      // A layer's transposing kernel, for a caller's column-major B; its
      // alternatives share their layer's.
      if (!alternative) {
        KernelGenOptions transpose = base;
        transpose.operandType = operandType;
        int64_t k =
            cast<ShapedType>(spmm.getDense().getType()).getDimSize(1);
        transpose.k = ShapedType::isDynamic(k) ? 0 : k;
        transpose.prefix = prefix;
        spmm->setAttr(kTransposeAttrName,
                      getLaunchAttr(ctx, generateTransposeKernel(
                                             kernels,
                                             spmm.getMatrix().getType().getCols(),
                                             transpose)));
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
  }
};

} // namespace
