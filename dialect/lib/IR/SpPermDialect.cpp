//===- SpPermDialect.cpp - spperm dialect registration ----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"

#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::spperm;

#include "spperm/Dialect/SpPerm/IR/SpPermDialect.cpp.inc"

void SpPermDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "spperm/Dialect/SpPerm/IR/SpPermOps.cpp.inc"
      >();
}
