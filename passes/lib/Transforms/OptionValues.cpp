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
  // The likely slips, as a user makes them: the name that differs only in
  // case (`LPT`); else the names the value begins (`hybrid-2`: the three
  // `hybrid-2.x`); else the nearest name, where it is near: a third of its
  // letters at most (`warp_aware`, `hybrid1`, `condenced`), as LLVM
  // suggests a misspelt option. Names shorter than five letters are one or
  // two letters from other values (bf16 is no misspelt f16), so none is
  // suggested for them by distance.
  llvm::SmallVector<llvm::StringRef> slips;
  for (llvm::StringRef name : names)
    if (name.equals_insensitive(value))
      slips.push_back(name);
  if (slips.empty() && value.size() >= 2)
    for (llvm::StringRef name : names)
      if (name.starts_with_insensitive(value))
        slips.push_back(name);
  if (slips.empty()) {
    const std::string lower = value.lower();
    llvm::StringRef nearest;
    unsigned best = 0;
    for (llvm::StringRef name : names) {
      unsigned distance =
          llvm::StringRef(lower).edit_distance(name.lower(),
                                               /*AllowReplacements=*/true);
      if (nearest.empty() || distance < best) {
        nearest = name;
        best = distance;
      }
    }
    if (nearest.size() >= 5 && best > 0 && 3 * best <= nearest.size())
      slips.push_back(nearest);
  }
  if (slips.size() == 1)
    return message + "; did you mean '" + slips.front().str() + "'?";
  if (!slips.empty()) {
    message += "; did you mean one of ";
    for (size_t i = 0; i < slips.size(); ++i)
      message += (i ? ", '" : "'") + slips[i].str() + "'";
    message += "?";
  }
  return message;
}
