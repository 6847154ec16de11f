//===- RaiseLinalg.cpp - spperm-raise-linalg --------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Raises a sparse-times-dense matrix product written in linalg over a CSR
// #sparse_tensor.encoding (what MLIR's sparsifier consumes) to spperm.load +
// spperm.spmm, when the sparse operand is a function argument that names its
// fixed matrix (`spperm.source`).
//
//===----------------------------------------------------------------------===//

#include "spperm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensorType.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace spperm {
#define GEN_PASS_DEF_SPPERMRAISELINALG
#include "spperm/Transforms/Passes.h.inc"
} // namespace spperm
} // namespace mlir

using namespace mlir;
using namespace mlir::spperm;

namespace {

/// Whether `type` is a 2-D f32 tensor in CSR: dense rows, ordered and unique
/// compressed columns, the identity dimension-to-level map.
bool isCsrF32(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != 2 || !tensor.getElementType().isF32() ||
      !sparse_tensor::getSparseTensorEncoding(tensor))
    return false;
  sparse_tensor::SparseTensorType stt(tensor);
  return stt.isIdentity() && stt.getLvlRank() == 2 && stt.isDenseLvl(0) &&
         stt.isCompressedLvl(1) && stt.isOrderedLvl(1) && stt.isUniqueLvl(1);
}

/// Whether `type` is a 2-D f32 tensor without a sparse encoding.
bool isDenseF32(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 2 && tensor.getElementType().isF32() &&
         !tensor.getEncoding();
}

/// Whether `init` is a tensor filled with 0.0 by linalg.fill.
bool isZeroFilled(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return false;
  return matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
}

struct RaiseSparseMatmul : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
        op.getNumDpsInits() != 1 || op->getNumResults() != 1)
      return rewriter.notifyMatchFailure(op, "not a two-input tensor op");
    if (!linalg::isaContractionOpInterface(op) ||
        !isRowMajorMatmul(op.getIndexingMaps()))
      return rewriter.notifyMatchFailure(op, "not a row-major matmul");
    Value a = op.getDpsInputOperand(0)->get();
    Value b = op.getDpsInputOperand(1)->get();
    Value init = op.getDpsInitOperand(0)->get();
    if (!isCsrF32(a.getType()) || !isDenseF32(b.getType()) ||
        !isDenseF32(init.getType()))
      return rewriter.notifyMatchFailure(op, "not CSR f32 times dense f32");
    if (!isZeroFilled(init))
      return rewriter.notifyMatchFailure(op, "the init is not zero-filled");
    // The sparse operand must be a function argument that names its matrix.
    auto arg = dyn_cast<BlockArgument>(a);
    auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                    : func::FuncOp();
    if (!func || arg.getOwner() != &func.getBody().front())
      return rewriter.notifyMatchFailure(op, "A is not a function argument");
    auto source =
        func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kSourceAttrName);
    if (!source)
      return rewriter.notifyMatchFailure(op, "A has no spperm.source");
    auto values =
        func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kValuesAttrName);

    auto aType = cast<RankedTensorType>(a.getType());
    auto cType = cast<RankedTensorType>(op->getResult(0).getType());
    // An empty product (K = 0) stays a matmul: spperm.spmm needs K >= 1.
    // (The arguments' verifier refuses a matrix spperm.spmm cannot hold.)
    if (cast<RankedTensorType>(b.getType()).getDimSize(1) == 0)
      return rewriter.notifyMatchFailure(op, "B has no columns (K = 0)");
    MLIRContext *ctx = rewriter.getContext();
    auto matrixType =
        MatrixType::get(ctx, aType.getDimSize(0), aType.getDimSize(1),
                        rewriter.getF32Type(), CsrAttr::get(ctx, {}));
    auto load = LoadOp::create(rewriter, op.getLoc(), matrixType, source,
                               values, DenseI64ArrayAttr(), FeaturesAttr(),
                               ChoiceAttr());
    auto spmm =
        SpMMOp::create(rewriter, op.getLoc(), cType, load.getResult(), b);
    rewriter.replaceOp(op, spmm.getResult());
    return success();
  }
};

struct SpPermRaiseLinalgPass
    : public mlir::spperm::impl::SpPermRaiseLinalgBase<SpPermRaiseLinalgPass> {
  void runOnOperation() override {
    // The attributes that name a matrix were checked where they are
    // written (SpPermDialect::verifyRegionArgAttribute).
    RewritePatternSet patterns(&getContext());
    populateRaiseLinalgPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::spperm::populateRaiseLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseSparseMatmul>(patterns.getContext());
}
