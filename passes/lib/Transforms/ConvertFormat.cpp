//===- ConvertFormat.cpp - Choose the storage of each matrix ----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Transforms/Passes.h"

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Escape.h"
#include "spperm/Sparse/Names.h"
#include "spperm/Transforms/MatrixUtils.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace spperm {
#define GEN_PASS_DEF_SPPERMCONVERTFORMAT
#include "spperm/Transforms/Passes.h.inc"
} // namespace spperm
} // namespace mlir

using namespace mlir;
using namespace mlir::spperm;

namespace {

/// spmm(A) => spmm(convert(A)) when A is not in the chosen format.
struct ConvertMultipliedMatrix : public OpRewritePattern<SpMMOp> {
  ConvertMultipliedMatrix(MLIRContext *ctx, FormatChooser choose)
      : OpRewritePattern<SpMMOp>(ctx), choose(std::move(choose)) {}

  LogicalResult matchAndRewrite(SpMMOp op,
                                PatternRewriter &rewriter) const override {
    MatrixType type = op.getMatrix().getType();
    FormatAttrInterface target = choose(op);
    if (!target || target == type.getFormat())
      return rewriter.notifyMatchFailure(op, "already in the chosen format");
    assert(target.getPerm() == type.getPerm() &&
           "a format change must keep the permutation");
    rewriter.setInsertionPoint(op);
    auto convert = ConvertOp::create(rewriter, op.getLoc(),
                                     type.withFormat(target), op.getMatrix());
    rewriter.modifyOpInPlace(
        op, [&] { op.getMatrixMutable().assign(convert.getResult()); });
    return success();
  }

  FormatChooser choose;
};

struct SpPermConvertFormatPass
    : public mlir::spperm::impl::SpPermConvertFormatBase<
          SpPermConvertFormatPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ModuleOp module = getOperation();
    if (format == FormatOption::Keep)
      return;
    if (failed(checkNotLowered(module, getArgument())))
      return signalPassFailure();
    const bool chosen = format == FormatOption::Auto;
    if ((format == FormatOption::Bell || chosen) &&
        (block < 1 || block > 32 || !llvm::isPowerOf2_64(block))) {
      mlir::emitError(module.getLoc())
          << "spperm-convert-format: block must be one of 1, "
             "2, 4, 8, 16, 32, got "
          << static_cast<int64_t>(block);
      return signalPassFailure();
    }
    if ((format == FormatOption::Bell || chosen) && !(delta >= 0.0 && delta <= 1.0)) {
      mlir::emitError(module.getLoc())
          << "spperm-convert-format: delta must be in (0, 1] "
             "(or 0 to search), got "
          << ::spperm::exactNumber(delta);
      return signalPassFailure();
    }
    if ((format == FormatOption::Hbp || chosen) &&
        (rowBlock < 32 || rowBlock % 32 != 0 ||
         rowBlock > ::spperm::kMaxIndex || colBlock < 1 ||
         colBlock > ::spperm::kMaxIndex)) {
      mlir::emitError(module.getLoc())
          << "spperm-convert-format: row-block must be a "
             "positive multiple of 32 and col-block positive, both below "
             "2^31, got "
          << static_cast<int64_t>(rowBlock) << " and "
          << static_cast<int64_t>(colBlock);
      return signalPassFailure();
    }

    MatrixCache &matrices = getAnalysis<MatrixCache>();
    bool failed = false;
    FormatChooser choose = [&](SpMMOp op) -> FormatAttrInterface {
      MatrixType type = op.getMatrix().getType();
      PermAttr perm = type.getPerm();
      namespace names = ::spperm::format_name;
      std::string format = getFormatOptionName(this->format).str();
      if (chosen) {
        LoadOp load = getSourceLoad(op.getMatrix());
        if (!load || !load.getChoiceAttr()) {
          // A matrix permuted before spperm-select ran was decided for by
          // whoever permuted it (the selector skips it): keep its format.
          if (perm)
            return type.getFormat();
          if (!load)
            op.emitOpError("multiplies a matrix that does not come from "
                           "spperm.load: format=auto has no data to choose "
                           "a format for");
          else
            op.emitOpError("has no spperm-select choice for its matrix "
                           "(format=auto needs spperm-select first)");
          failed = true;
          return nullptr;
        }
        format = load.getChoiceAttr().getFormat().str();
      }
      // The library runs on the CSR.
      if (format == ::spperm::kCusparse || format == names::kCsr)
        return CsrAttr::get(ctx, perm);
      if (format == names::kHbp)
        return HbpAttr::get(ctx, rowBlock, colBlock, perm);
      // bell: the width (and a searched delta) come from the data.
      if (auto bell = dyn_cast<BellAttr>(type.getFormat()))
        if (bell.getBlock() == block &&
            (delta == 0.0 || (bell.getDelta() &&
                              bell.getDelta().getValueAsDouble() == delta)) &&
            (columns == BellColumnsOption::Auto ||
             bell.getCondensed() == (columns == BellColumnsOption::Condensed)))
          return bell;
      LoadOp load = getSourceLoad(op.getMatrix());
      if (!load) {
        op.emitOpError("needs the matrix's spperm.load to compute its "
                       "Blocked-ELL width");
        failed = true;
        return nullptr;
      }
      ::spperm::FormatOptions options;
      options.kind = ::spperm::FormatKind::Bell;
      options.bellBlock = static_cast<int32_t>(block);
      options.bellDelta = delta > 0.0 ? delta : -1.0;
      options.bellColumns = toBellColumns(columns);
      FailureOr<::spperm::FormattedMatrix> built =
          matrices.buildFormatted(load, perm, options, baseDir, op);
      if (::mlir::failed(built)) {
        failed = true;
        return nullptr;
      }
      auto bell = BellAttr::get(ctx, block, built->bell.width,
                                ResidualFormat::csr,
                                FloatAttr::get(Float64Type::get(ctx),
                                               built->bell.delta),
                                built->bell.condensed, perm);
      // The passes after this one find the matrix built.
      matrices.insertFormatted(load, type.withFormat(bell), baseDir,
                               std::move(*built));
      return bell;
    };

    RewritePatternSet patterns(ctx);
    populateConvertFormatPatterns(patterns, choose);
    if (::mlir::failed(applyPatternsGreedily(module, std::move(patterns))) ||
        failed)
      return signalPassFailure();
  }
};

} // namespace

void mlir::spperm::populateConvertFormatPatterns(RewritePatternSet &patterns,
                                                 FormatChooser choose) {
  patterns.add<ConvertMultipliedMatrix>(patterns.getContext(),
                                        std::move(choose));
}
