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

/// The attributes of a lowered spperm.spmm that hold arrays of
/// #spperm.launch (the transposing launch, kTransposeAttrName, is one).
constexpr StringLiteral kLaunchArrays[] = {kKernelsAttrName, kInPlaceAttrName};

/// Calls `fn` on every #spperm.launch of `module` and stores what it
/// returns in its place (an attribute whose launches all come back as they
/// were is left alone).
void rewriteLaunches(ModuleOp module, function_ref<LaunchAttr(LaunchAttr)> fn) {
  module.walk([&](SpMMOp spmm) {
    for (StringLiteral name : kLaunchArrays) {
      auto launches = spmm->getAttrOfType<ArrayAttr>(name);
      if (!launches)
        continue;
      SmallVector<Attribute> updated;
      for (Attribute launch : launches)
        updated.push_back(fn(cast<LaunchAttr>(launch)));
      if (!llvm::equal(updated, launches))
        spmm->setAttr(name, ArrayAttr::get(module.getContext(), updated));
    }
    if (auto transpose = spmm->getAttrOfType<LaunchAttr>(kTransposeAttrName))
      if (LaunchAttr updated = fn(transpose); updated != transpose)
        spmm->setAttr(kTransposeAttrName, updated);
  });
}

/// A kernel and what decides whether another is the same.
struct Kernel {
  gpu::GPUFuncOp func;
  /// Its attributes but its name.
  DictionaryAttr attributes;
  /// The dynamic shared memory it is launched with.
  int64_t sharedBytes;
};

/// A hash of what makes two kernels the same: their attributes but the
/// name, the dynamic shared memory they are launched with, and every op of
/// the body (locations and SSA names aside).
llvm::hash_code kernelHash(const Kernel &k) {
  llvm::hash_code hash = llvm::hash_combine(k.attributes, k.sharedBytes);
  gpu::GPUFuncOp func = k.func;
  func.getBody().walk([&](Operation *op) {
    hash =
        llvm::hash_combine(hash, OperationEquivalence::computeHash(
                                     op, OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::IgnoreLocations));
  });
  return hash;
}

/// Whether kernels `a` and `b` are the same but for their names.
/// OperationEquivalence compares ops' properties by their hash, so the
/// properties are compared again here, op for op.
bool sameKernel(const Kernel &a, const Kernel &b) {
  gpu::GPUFuncOp f = a.func, g = b.func;
  if (a.attributes != b.attributes || a.sharedBytes != b.sharedBytes ||
      !OperationEquivalence::isRegionEquivalentTo(
          &f.getBody(), &g.getBody(), OperationEquivalence::IgnoreLocations))
    return false;
  SmallVector<Operation *> x, y;
  f.getBody().walk([&](Operation *op) { x.push_back(op); });
  g.getBody().walk([&](Operation *op) { y.push_back(op); });
  return x.size() == y.size() &&
         llvm::all_of(llvm::zip_equal(x, y), [](auto pair) {
           auto [p, q] = pair;
           return p->getPropertiesAsAttribute() ==
                  q->getPropertiesAsAttribute();
         });
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

    llvm::DenseMap<llvm::hash_code, SmallVector<Kernel, 1>> seen;
    llvm::StringMap<std::string> keptFor;
    for (gpu::GPUFuncOp func :
         llvm::make_early_inc_range(kernels.getOps<gpu::GPUFuncOp>())) {
      if (!func.isKernel())
        continue;
      auto shared = sharedBytes.find(func.getName());
      if (shared == sharedBytes.end() || shared->second == kMixed)
        continue;
      NamedAttrList attributes(func->getAttrDictionary());
      attributes.erase(SymbolTable::getSymbolAttrName());
      Kernel kernel{func, attributes.getDictionary(func.getContext()),
                    shared->second};
      SmallVector<Kernel, 1> &same = seen[kernelHash(kernel)];
      auto kept = llvm::find_if(
          same, [&](const Kernel &other) { return sameKernel(other, kernel); });
      if (kept == same.end()) {
        same.push_back(kernel);
        continue;
      }
      gpu::GPUFuncOp keptFunc = kept->func;
      keptFor[func.getName()] = keptFunc.getName().str();
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
