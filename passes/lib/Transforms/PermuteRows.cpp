//===- PermuteRows.cpp - Record row permutations in matrix types -*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Transforms/Passes.h"


#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace spperm {
#define GEN_PASS_DEF_SPPERMPERMUTEROWS
#include "spperm/Transforms/Passes.h.inc"
} // namespace spperm
} // namespace mlir

using namespace mlir;
using namespace mlir::spperm;

namespace {

/// Whether `convert` takes the rows its source has to multiplications only:
/// a permutation put on its source goes through it.
bool convertsForMultiplications(ConvertOp convert) {
  return !convert.getResult().use_empty() &&
         llvm::all_of(convert->getUsers(), llvm::IsaPred<SpMMOp>);
}

/// spmm(load(f)) => spmm(permute(load(f))) for an unpermuted load, and
/// spmm(convert(load(f))) => spmm(convert(permute(load(f)))), the convert's
/// result taking the permutation (a convert keeps the row order).
struct PermuteLoadedMatrix : public OpRewritePattern<LoadOp> {
  PermuteLoadedMatrix(MLIRContext *ctx, PermChooser choose)
      : OpRewritePattern<LoadOp>(ctx), choose(std::move(choose)) {}

  LogicalResult matchAndRewrite(LoadOp op,
                                PatternRewriter &rewriter) const override {
    MatrixType type = op.getResult().getType();
    if (type.getPerm())
      return rewriter.notifyMatchFailure(op, "matrix is already permuted");
    SmallVector<ConvertOp> converts;
    for (Operation *user : op->getUsers())
      if (auto convert = dyn_cast<ConvertOp>(user);
          convert && convertsForMultiplications(convert))
        converts.push_back(convert);
    if (converts.empty() &&
        llvm::none_of(op->getUsers(), llvm::IsaPred<SpMMOp>))
      return rewriter.notifyMatchFailure(op, "no spperm.spmm uses it");
    PermAttr perm = choose(op);
    if (!perm)
      return rewriter.notifyMatchFailure(op, "no permutation chosen");

    rewriter.setInsertionPointAfter(op);
    MatrixType permuted = type.withFormat(type.getFormat().withPerm(perm));
    auto permute = PermuteOp::create(rewriter, op.getLoc(), permuted,
                                     op.getResult());
    // Only the multiplications (and the converts that feed only them)
    // switch: they compute in the original row order whatever the storage,
    // while other users keep the type they have.
    rewriter.replaceUsesWithIf(
        op.getResult(), permute.getResult(), [&](OpOperand &use) {
          return isa<SpMMOp>(use.getOwner()) ||
                 llvm::is_contained(converts, use.getOwner());
        });
    for (ConvertOp convert : converts)
      rewriter.modifyOpInPlace(convert, [&] {
        MatrixType to = convert.getResult().getType();
        convert.getResult().setType(
            to.withFormat(to.getFormat().withPerm(perm)));
      });
    return success();
  }

  PermChooser choose;
};

struct SpPermPermuteRowsPass
    : public mlir::spperm::impl::SpPermPermuteRowsBase<SpPermPermuteRowsPass> {
  using Base::Base;

  /// Refuses an unpermuted matrix that is converted before a multiplication
  /// uses it where the permutation cannot go through the convert: the
  /// permutation goes on the loaded matrix, and a convert keeps the row
  /// order it is given. A convert straight from the load that feeds only
  /// multiplications takes it (PermuteLoadedMatrix).
  LogicalResult checkNotConverted() {
    WalkResult walk = getOperation().walk([&](ConvertOp convert) {
      if (convert.getResult().getType().getPerm() ||
          llvm::none_of(convert->getUsers(), llvm::IsaPred<SpMMOp>) ||
          (convert.getSource().getDefiningOp<LoadOp>() &&
           convertsForMultiplications(convert)))
        return WalkResult::advance();
      convert.emitOpError("converts an unpermuted matrix that a "
                          "multiplication uses, but ")
          << getArgument()
          << " permutes a loaded matrix and takes the permutation through a "
             "convert only from the load to multiplications: permute "
             "before converting (as spperm-pipeline runs them)";
      return WalkResult::interrupt();
    });
    return failure(walk.wasInterrupted());
  }

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    if (strategy == StrategyOption::Keep)
      return;
    if (failed(checkNotLowered(getOperation(), getArgument())) ||
        failed(checkNotConverted()))
      return signalPassFailure();
    std::optional<::spperm::Strategy> parsed = getFixedStrategy(strategy);
    if (strategy == StrategyOption::Auto) {
      // Each load's choice: its strategy with this pass's parameters.
      bool failed = false;
      PermChooser choose = [&](LoadOp op) -> PermAttr {
        ChoiceAttr choice = op.getChoiceAttr();
        if (!choice) {
          op.emitOpError("has no choice for strategy=auto (run spperm-select "
                         "first)");
          failed = true;
          return nullptr;
        }
        std::optional<::spperm::Strategy> s =
            ::spperm::parseStrategy(choice.getStrategy().str());
        bool bsa = s == ::spperm::Strategy::Bsa;
        std::optional<int64_t> tauParam;
        if (bsa && tau != 0)
          tauParam = tau;
        FloatAttr alphaParam;
        if (bsa && alpha != 0.0)
          alphaParam = FloatAttr::get(Float64Type::get(ctx), alpha);
        PermAttr::elideDefaults(*s, tauParam, alphaParam);
        PermAttr perm = PermAttr::getChecked(
            [&] { return op.emitOpError() << "spperm-permute-rows: "; }, ctx,
            *s, static_cast<int64_t>(warps), static_cast<int64_t>(lineWidth),
            tauParam, alphaParam);
        failed |= !perm;
        return perm;
      };
      RewritePatternSet patterns(ctx);
      populatePermuteRowsPatterns(patterns, choose);
      if (mlir::failed(applyPatternsGreedily(getOperation(),
                                             std::move(patterns))) ||
          failed)
        return signalPassFailure();
      return;
    }
    std::optional<int64_t> tauParam;
    if (tau != 0)
      tauParam = tau;
    FloatAttr alphaParam;
    if (alpha != 0.0)
      alphaParam = FloatAttr::get(Float64Type::get(ctx), alpha);
    // The attribute's verifier owns the parameter rules; report its
    // diagnostic against the module.
    PermAttr::elideDefaults(*parsed, tauParam, alphaParam);
    PermAttr perm = PermAttr::getChecked(
        [&] {
          return mlir::emitError(getOperation().getLoc())
                 << "spperm-permute-rows: ";
        },
        ctx, *parsed, static_cast<int64_t>(warps),
        static_cast<int64_t>(lineWidth), tauParam, alphaParam);
    if (!perm)
      return signalPassFailure();

    RewritePatternSet patterns(ctx);
    populatePermuteRowsPatterns(patterns, perm);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void mlir::spperm::populatePermuteRowsPatterns(RewritePatternSet &patterns,
                                               PermChooser choose) {
  patterns.add<PermuteLoadedMatrix>(patterns.getContext(), std::move(choose));
}

void mlir::spperm::populatePermuteRowsPatterns(RewritePatternSet &patterns,
                                               PermAttr perm) {
  populatePermuteRowsPatterns(patterns, [perm](LoadOp) { return perm; });
}
