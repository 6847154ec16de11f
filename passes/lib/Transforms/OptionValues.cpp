//===- OptionValues.cpp - Errors of the enum-typed options ------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Transforms/OptionValues.h"

#include "spperm/Sparse/Spelling.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir::spperm;

std::string mlir::spperm::describeUnknownOptionValue(
    llvm::StringRef value, llvm::ArrayRef<llvm::StringRef> names) {
  std::vector<std::string_view> spellings(names.begin(), names.end());
  return "unknown value '" + value.str() +
         "' (one of: " + llvm::join(names, ", ") + ")" +
         ::spperm::didYouMean(std::string_view(value), spellings);
}
