//===- Layers.cpp - What a layer of a module is ---------------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Transforms/Layers.h"

using namespace mlir;
using namespace mlir::spperm;

SmallVector<SpMMOp> mlir::spperm::multiplicationsOf(func::FuncOp func) {
  SmallVector<SpMMOp> spmms;
  func.walk([&](SpMMOp spmm) { spmms.push_back(spmm); });
  return spmms;
}

std::string mlir::spperm::layerPlacementProblem(SpMMOp spmm, ModuleOp module) {
  Operation *parent = spmm->getParentOp();
  if (!isa<func::FuncOp>(parent))
    return "is inside '" + parent->getName().getStringRef().str() +
           "': a layer is a function whose body multiplies once, not inside "
           "a loop or a branch";
  if (parent->getParentOp() != module.getOperation())
    return "is in a function of a nested module: layers are the top-level "
           "module's functions";
  return "";
}
