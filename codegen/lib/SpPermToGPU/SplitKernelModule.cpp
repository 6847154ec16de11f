//===- SplitKernelModule.cpp - spperm-split-kernel-module -----------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Conversion/Passes.h"
#include "spperm/Conversion/SpPermToGPU.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include <algorithm>
#include <string>

namespace mlir::spperm {
#define GEN_PASS_DEF_SPPERMSPLITKERNELMODULE
#include "spperm/Conversion/Passes.h.inc"
} // namespace mlir::spperm

using namespace mlir;
using namespace mlir::spperm;

std::string mlir::spperm::kernelPartName(unsigned index) {
  return std::string(kKernelModuleName) + "_part_" + std::to_string(index);
}

namespace {

struct SpPermSplitKernelModule
    : public mlir::spperm::impl::SpPermSplitKernelModuleBase<
          SpPermSplitKernelModule> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto kernels = dyn_cast_or_null<gpu::GPUModuleOp>(
        SymbolTable::lookupSymbolIn(module, kKernelModuleName));
    if (!kernels)
      return;
    SmallVector<Operation *> entries, shared;
    // A kernel: a gpu.func kernel, or (lowered) a function marked one.
    for (Operation &op : kernels.getBody()->getOperations()) {
      auto func = dyn_cast<gpu::GPUFuncOp>(op);
      const bool kernel =
          func ? func.isKernel()
               : op.hasAttr(gpu::GPUDialect::getKernelFuncAttrName());
      (kernel ? entries : shared).push_back(&op);
    }
    const size_t limit = parts == 0 ? entries.size() : parts;
    const size_t count =
        std::max<size_t>(1, std::min<size_t>(entries.size(), limit));

    // The parts, in order, where the module was; each part's kernels a
    // consecutive run, so joining the parts' PTX keeps the kernels' order.
    OpBuilder builder(kernels);
    for (size_t part = 0; part < count; ++part) {
      auto clone = cast<gpu::GPUModuleOp>(
          builder.cloneWithoutRegions(*kernels.getOperation()));
      clone.setSymName(kernelPartName(part));
      Block *body = builder.createBlock(&clone.getBodyRegion());
      OpBuilder inside = OpBuilder::atBlockEnd(body);
      IRMapping mapping;
      for (Operation *op : shared)
        inside.clone(*op, mapping);
      const size_t begin = entries.size() * part / count;
      const size_t end = entries.size() * (part + 1) / count;
      for (size_t i = begin; i < end; ++i)
        inside.clone(*entries[i], mapping);
      builder.setInsertionPointAfter(clone);
    }
    kernels.erase();
  }
};

} // namespace
