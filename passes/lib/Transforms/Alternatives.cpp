//===- Alternatives.cpp - Copies of a layer as its alternatives -----------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Transforms/Alternatives.h"

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"

using namespace mlir;

func::FuncOp mlir::spperm::insertAlternativeCopy(SymbolTable &symbols,
                                                 func::FuncOp func,
                                                 StringRef name,
                                                 FlatSymbolRefAttr layer,
                                                 Operation *after) {
  if (symbols.lookup(name))
    return nullptr;
  auto copy = cast<func::FuncOp>(func->clone());
  copy.setSymName(name);
  copy->setAttr(kAlternativeOfAttrName, layer);
  symbols.insert(copy, std::next(Block::iterator(after)));
  return copy;
}
