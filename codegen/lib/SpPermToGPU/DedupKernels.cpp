//===- DedupKernels.cpp - spperm-dedup-kernels ----------------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Conversion/Passes.h"
#include "spperm/Conversion/SpPermToGPU.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::spperm {
#define GEN_PASS_DEF_SPPERMDEDUPKERNELS
#include "spperm/Conversion/Passes.h.inc"
} // namespace mlir::spperm

using namespace mlir;
using namespace mlir::spperm;

namespace {

/// The launch attributes a lowered spperm.spmm carries, by name: arrays of
/// #spperm.launch, and the one transposing launch.
constexpr StringLiteral kLaunchArrays[] = {kKernelsAttrName, kInPlaceAttrName};

/// Calls `fn` on every #spperm.launch of `module` and stores what it
/// returns in its place.
void rewriteLaunches(ModuleOp module,
                     function_ref<LaunchAttr(LaunchAttr)> fn) {
  module.walk([&](SpMMOp spmm) {
    for (StringLiteral name : kLaunchArrays) {
      auto launches = spmm->getAttrOfType<ArrayAttr>(name);
      if (!launches)
        continue;
      SmallVector<Attribute> updated;
      for (Attribute launch : launches)
        updated.push_back(fn(cast<LaunchAttr>(launch)));
      spmm->setAttr(name, ArrayAttr::get(module.getContext(), updated));
    }
    if (auto transpose = spmm->getAttrOfType<LaunchAttr>(kTransposeAttrName))
      spmm->setAttr(kTransposeAttrName, fn(transpose));
  });
}

/// A kernel's attributes without its name.
DictionaryAttr attributesButName(gpu::GPUFuncOp func) {
  NamedAttrList attrs(func->getAttrDictionary());
  attrs.erase(SymbolTable::getSymbolAttrName());
  return attrs.getDictionary(func.getContext());
}

/// A hash of what makes two kernels the same: their attributes but the
/// name, every op of the body (locations and SSA names aside) and the
/// dynamic shared memory they are launched with.
llvm::hash_code kernelHash(gpu::GPUFuncOp func, int64_t sharedBytes) {
  llvm::hash_code hash =
      llvm::hash_combine(attributesButName(func), sharedBytes);
  func.getBody().walk([&](Operation *op) {
    hash = llvm::hash_combine(
        hash, OperationEquivalence::computeHash(
                  op, OperationEquivalence::ignoreHashValue,
                  OperationEquivalence::ignoreHashValue,
                  OperationEquivalence::IgnoreLocations));
  });
  return hash;
}

/// Whether kernels `a` and `b` are the same but for their names.
bool sameKernel(gpu::GPUFuncOp a, gpu::GPUFuncOp b) {
  return attributesButName(a) == attributesButName(b) &&
         OperationEquivalence::isRegionEquivalentTo(
             &a.getBody(), &b.getBody(),
             OperationEquivalence::IgnoreLocations);
}

struct SpPermDedupKernelsPass
    : public mlir::spperm::impl::SpPermDedupKernelsBase<
          SpPermDedupKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto kernels = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName);
    if (!kernels)
      return;
    // The dynamic shared memory each kernel is launched with; one launched
    // with several sizes (none is generated so) keeps its own copy.
    constexpr int64_t kMixed = -1;
    llvm::StringMap<int64_t> sharedBytes;
    rewriteLaunches(module, [&](LaunchAttr launch) {
      auto [it, fresh] =
          sharedBytes.try_emplace(launch.getName(), launch.getSharedBytes());
      if (!fresh && it->second != launch.getSharedBytes())
        it->second = kMixed;
      return launch;
    });

    llvm::DenseMap<llvm::hash_code, SmallVector<gpu::GPUFuncOp, 1>> seen;
    llvm::StringMap<std::string> keptFor;
    for (gpu::GPUFuncOp func :
         llvm::make_early_inc_range(kernels.getOps<gpu::GPUFuncOp>())) {
      if (!func.isKernel())
        continue;
      auto shared = sharedBytes.find(func.getName());
      if (shared == sharedBytes.end() || shared->second == kMixed)
        continue;
      SmallVector<gpu::GPUFuncOp, 1> &same =
          seen[kernelHash(func, shared->second)];
      auto kept = llvm::find_if(
          same, [&](gpu::GPUFuncOp other) { return sameKernel(other, func); });
      if (kept == same.end()) {
        same.push_back(func);
        continue;
      }
      keptFor[func.getName()] = kept->getName().str();
      func.erase();
    }
    if (keptFor.empty())
      return;
    MLIRContext *ctx = module.getContext();
    rewriteLaunches(module, [&](LaunchAttr launch) {
      auto it = keptFor.find(launch.getName());
      if (it == keptFor.end())
        return launch;
      ::spperm::KernelInfo info = getKernelInfo(launch);
      info.name = it->second;
      return getLaunchAttr(ctx, info);
    });
  }
};

} // namespace
