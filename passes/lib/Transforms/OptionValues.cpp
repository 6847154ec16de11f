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
  // (`warp_aware`, `hybrid1`, `condenced`), as LLVM suggests a misspelt
  // option. Names shorter than five letters are one or two letters from
  // other values (bf16 is no misspelt f16), so none is suggested for them.
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
  if (nearest.size() >= 5 && best > 0 && 3 * best <= nearest.size())
    message += "; did you mean '" + nearest.str() + "'?";
  return message;
}
