//===- Passes.h - spperm transformation passes ------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TRANSFORMS_PASSES_H
#define SPPERM_TRANSFORMS_PASSES_H

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"
#include "spperm/Sparse/Features.h"
#include "spperm/Transforms/OptionValues.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

#include <functional>
#include <map>
#include <string>

namespace mlir {
namespace spperm {

#define GEN_PASS_DECL
#include "spperm/Transforms/Passes.h.inc"

/// Chooses the permutation of a loaded matrix; returns null to leave it
/// alone (or after emitting an error).
using PermChooser = std::function<PermAttr(LoadOp op)>;

/// Adds the pattern that inserts `spperm.permute` with the permutation
/// `choose` returns between every unpermuted `spperm.load` and the
/// `spperm.spmm` ops that use it.
void populatePermuteRowsPatterns(RewritePatternSet &patterns,
                                 PermChooser choose);

/// The same with one permutation for every matrix.
void populatePermuteRowsPatterns(RewritePatternSet &patterns, PermAttr perm);

/// Builds `#spperm.features` from the sparse core's flat feature list:
/// top-level entries stay top-level, grouped ones become nested
/// dictionaries (what spperm-extract-features attaches).
FeaturesAttr buildFeaturesAttr(MLIRContext *ctx,
                               ArrayRef<::spperm::FeatureValue> values);

/// The selector's inputs for a matrix with `features` multiplied by K = `k`
/// columns: the features flattened to `group.name` (as
/// ::spperm::selectorInputs names them), `k` and `log2_k`.
std::map<std::string, double> getSelectorInputs(FeaturesAttr features,
                                                int64_t k);

/// Chooses the format an spperm.spmm's matrix should have; returns null to
/// leave it alone (or after emitting an error, which `failed` records).
using FormatChooser = std::function<FormatAttrInterface(SpMMOp op)>;

/// Adds the pattern that inserts `spperm.convert` before every
/// `spperm.spmm` whose matrix is not in the format `choose` returns.
void populateConvertFormatPatterns(RewritePatternSet &patterns,
                                   FormatChooser choose);

/// Adds the pattern that raises a row-major sparse-dense matrix product in
/// linalg (matmul, or the equivalent generic) whose CSR operand is a
/// function argument with `spperm.source` to spperm.load + spperm.spmm.
void populateRaiseLinalgPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "spperm/Transforms/Passes.h.inc"

} // namespace spperm
} // namespace mlir

#endif // SPPERM_TRANSFORMS_PASSES_H
