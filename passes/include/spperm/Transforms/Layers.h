//===- Layers.h - What a layer of a module is -------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// A layer is a function of the top-level module whose body multiplies once:
// one spperm.spmm, not inside a loop or a branch (docs/Pipeline.md,
// "Layers"). spperm-compile packages layers, and the passes that copy a
// layer (spperm-shard-rows, spperm-expand-alternatives) refuse what is not
// one with the reason this header gives.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TRANSFORMS_LAYERS_H
#define SPPERM_TRANSFORMS_LAYERS_H

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir {
namespace spperm {

/// The spperm.spmm ops of `func`, at any depth, in walk order.
SmallVector<SpMMOp> multiplicationsOf(func::FuncOp func);

/// Why `spmm` cannot be the multiplication of a layer of `module`, to
/// follow "op ": it is inside a loop or a branch, or in a function of a
/// module nested in `module`; "" when its function's body holds it and that
/// function is one of `module`'s.
std::string layerPlacementProblem(SpMMOp spmm, ModuleOp module);

} // namespace spperm
} // namespace mlir

#endif // SPPERM_TRANSFORMS_LAYERS_H
