//===- Passes.h - spperm transformation passes ------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TRANSFORMS_PASSES_H
#define SPPERM_TRANSFORMS_PASSES_H

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

#include <functional>

namespace mlir {
namespace spperm {

#define GEN_PASS_DECL
#include "spperm/Transforms/Passes.h.inc"

/// Adds the pattern that inserts `spperm.permute` with `perm` between every
/// unpermuted `spperm.load` and the `spperm.spmm` ops that use it.
void populatePermuteRowsPatterns(RewritePatternSet &patterns, PermAttr perm);

/// Chooses the format an spperm.spmm's matrix should have; returns null to
/// leave it alone (or after emitting an error, which `failed` records).
using FormatChooser = std::function<FormatAttrInterface(SpMMOp op)>;

/// Adds the pattern that inserts `spperm.convert` before every
/// `spperm.spmm` whose matrix is not in the format `choose` returns.
void populateConvertFormatPatterns(RewritePatternSet &patterns,
                                   FormatChooser choose);

#define GEN_PASS_REGISTRATION
#include "spperm/Transforms/Passes.h.inc"

} // namespace spperm
} // namespace mlir

#endif // SPPERM_TRANSFORMS_PASSES_H
