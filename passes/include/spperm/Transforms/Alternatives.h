//===- Alternatives.h - Copies of a layer as its alternatives ---*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// What spperm-expand-alternatives and spperm-tensor-core-alternatives share:
// a layer's function copied as one of the layer's alternatives, which
// spperm-compile packages beside it for the runtime to time
// (docs/Selector.md, "The shortlist").
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TRANSFORMS_ALTERNATIVES_H
#define SPPERM_TRANSFORMS_ALTERNATIVES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace spperm {

/// Inserts into `symbols` right after `after` a copy of `func` named `name`
/// and marked an alternative of `layer` (spperm.alternative_of), and
/// returns it; returns null, inserting nothing, when `name` is taken.
func::FuncOp insertAlternativeCopy(SymbolTable &symbols, func::FuncOp func,
                                   StringRef name, FlatSymbolRefAttr layer,
                                   Operation *after);

} // namespace spperm
} // namespace mlir

#endif // SPPERM_TRANSFORMS_ALTERNATIVES_H
