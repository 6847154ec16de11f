//===- Pipeline.cpp - spperm-pipeline -------------------------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The named pipeline from spperm IR to a module whose kernels are a
// gpu.binary with PTX: spperm-permute-rows (when a strategy is given),
// spperm-convert-format (when a format is given), spperm-lower-to-gpu and
// the upstream lowering of buildGpuToBinaryPipeline.
//
//===----------------------------------------------------------------------===//

#include "spperm/Conversion/Passes.h"
#include "spperm/Conversion/SpPermToGPU.h"
#include "spperm/Transforms/Passes.h"

#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::spperm;

namespace {

struct SpPermPipelineOptions
    : public PassPipelineOptions<SpPermPipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("GPU architecture (sm_XY)"),
                             llvm::cl::init("sm_90")};
  Option<std::string> strategy{
      *this, "strategy",
      llvm::cl::desc("Row permutation (spperm-permute-rows); empty keeps the "
                     "one in the IR"),
      llvm::cl::init("")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Storage format: csr, bell or hbp "
                     "(spperm-convert-format); empty keeps the IR's"),
      llvm::cl::init("")};
  Option<std::string> selector{
      *this, "selector",
      llvm::cl::desc("How strategy/format 'auto' is decided: 'none' (the "
                     "default: auto is refused; spperm-compile's matrix "
                     "inputs choose before the pipeline)"),
      llvm::cl::init("none")};
  Option<std::string> baseDir{
      *this, "base-dir",
      llvm::cl::desc("Directory relative matrix paths are resolved against"),
      llvm::cl::init("")};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("Blocked-ELL dense blocks: fp32, tf32 or f16"),
      llvm::cl::init("fp32")};
  Option<int64_t> threads{*this, "threads",
                          llvm::cl::desc("Threads per CTA of the kernels"),
                          llvm::cl::init(256)};
};

void buildSpPermPipeline(OpPassManager &pm, const SpPermPipelineOptions &o) {
  if (!o.strategy.empty()) {
    SpPermPermuteRowsOptions permute;
    permute.strategy = o.strategy;
    pm.addPass(createSpPermPermuteRows(permute));
  }
  if (!o.format.empty()) {
    SpPermConvertFormatOptions convert;
    convert.format = o.format;
    convert.baseDir = o.baseDir;
    pm.addPass(createSpPermConvertFormat(convert));
  }
  SpPermLowerToGPUOptions lower;
  lower.threads = o.threads;
  lower.baseDir = o.baseDir;
  lower.precision = o.precision;
  lower.target = o.target;
  pm.addPass(createSpPermLowerToGPU(lower));
  buildGpuToBinaryPipeline(pm, o.target);
}

} // namespace

void mlir::spperm::registerSpPermPipeline() {
  PassPipelineRegistration<SpPermPipelineOptions>(
      "spperm-pipeline",
      "spperm IR to matrix-specialized kernels in a gpu.binary (PTX): "
      "permute, convert, spperm-lower-to-gpu, convert-gpu-to-nvvm, "
      "nvvm-attach-target, gpu-module-to-binary",
      [](OpPassManager &pm, const SpPermPipelineOptions &o) {
        buildSpPermPipeline(pm, o);
      });
}
