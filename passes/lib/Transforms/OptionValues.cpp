//===- OptionValues.cpp - Errors of the enum-typed options ------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Transforms/OptionValues.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir::spperm;

std::string mlir::spperm::describeUnknownOptionValue(
    llvm::StringRef value, llvm::ArrayRef<llvm::StringRef> names) {
  std::string message = "unknown value '" + value.str() +
                        "' (one of: " + llvm::join(names, ", ") + ")";
  // The nearest name, where it is near: a third of its letters at most
  // (`warp_aware`, `hybird`), as LLVM suggests a misspelt option.
  llvm::StringRef nearest;
  unsigned best = 0;
  for (llvm::StringRef name : names) {
    unsigned distance = value.edit_distance(name, /*AllowReplacements=*/true,
                                            /*MaxEditDistance=*/best);
    if (nearest.empty() || distance < best) {
      nearest = name;
      best = distance;
    }
  }
  if (!nearest.empty() && best > 0 && 3 * best <= nearest.size())
    message += "; did you mean '" + nearest.str() + "'?";
  return message;
}
