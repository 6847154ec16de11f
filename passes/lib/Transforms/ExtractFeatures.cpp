//===- ExtractFeatures.cpp - Attach static features to matrices -*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Transforms/Passes.h"

#include "spperm/Sparse/Features.h"
#include "spperm/Transforms/MatrixUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace spperm {
#define GEN_PASS_DEF_SPPERMEXTRACTFEATURES
#include "spperm/Transforms/Passes.h.inc"
} // namespace spperm
} // namespace mlir

using namespace mlir;
using namespace mlir::spperm;

FeaturesAttr
mlir::spperm::buildFeaturesAttr(MLIRContext *ctx,
                                ArrayRef<::spperm::FeatureValue> values) {
  Builder b(ctx);
  auto number = [&](const ::spperm::FeatureValue &v) -> Attribute {
    if (v.isInteger)
      return b.getI64IntegerAttr(static_cast<int64_t>(v.value));
    return b.getF64FloatAttr(v.value);
  };
  SmallVector<NamedAttribute> top;
  llvm::MapVector<StringRef, SmallVector<NamedAttribute>> groups;
  for (const ::spperm::FeatureValue &v : values) {
    if (v.group.empty())
      top.push_back(b.getNamedAttr(v.name, number(v)));
    else
      groups[v.group].push_back(b.getNamedAttr(v.name, number(v)));
  }
  for (auto &[group, entries] : groups)
    top.push_back(b.getNamedAttr(group, b.getDictionaryAttr(entries)));
  return FeaturesAttr::get(ctx, b.getDictionaryAttr(top));
}

namespace {

struct SpPermExtractFeaturesPass
    : public mlir::spperm::impl::SpPermExtractFeaturesBase<SpPermExtractFeaturesPass> {
  using Base::Base;

  void runOnOperation() override {
    ::spperm::FeatureOptions options;
    options.warps = static_cast<int32_t>(warps);
    options.lineWidth = static_cast<int32_t>(lineWidth);
    options.rowsPerWarp = static_cast<int32_t>(rowsPerWarp);
    // Each option named with its rule and value, as the other passes do.
    auto refuse = [&](StringRef rule, int64_t value) {
      mlir::emitError(getOperation().getLoc())
          << "spperm-extract-features: " << rule << ", got " << value;
      signalPassFailure();
    };
    if (warps < 1 || warps > 1024)
      return refuse("warps must be in [1, 1024]", warps);
    if (lineWidth < 1 || lineWidth > 1024 ||
        (lineWidth & (lineWidth - 1)) != 0)
      return refuse("line must be a power of two in [1, 1024]", lineWidth);
    if (rowsPerWarp < 1 || rowsPerWarp > 1024)
      return refuse("rows-per-warp must be in [1, 1024]", rowsPerWarp);

    // One read and one feature set per (file, values), however many ops
    // load it.
    MatrixCache &matrices = getAnalysis<MatrixCache>();
    llvm::DenseMap<const ::spperm::CsrMatrix *, FeaturesAttr> computed;
    WalkResult result = getOperation().walk([&](LoadOp op) -> WalkResult {
      const ::spperm::CsrMatrix *matrix = matrices.get(op, baseDir);
      if (!matrix)
        return WalkResult::interrupt();
      FeaturesAttr &features = computed[matrix];
      if (!features)
        features = buildFeaturesAttr(
            &getContext(), ::spperm::flattenFeatures(
                               ::spperm::computeFeatures(*matrix, options)));
      op.setFeaturesAttr(features);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
