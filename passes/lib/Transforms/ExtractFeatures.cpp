//===- ExtractFeatures.cpp - Attach static features to matrices -*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Transforms/Passes.h"

#include "spperm/Sparse/Features.h"
#include "spperm/Sparse/MatrixIO.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlir {
namespace spperm {
#define GEN_PASS_DEF_SPPERMEXTRACTFEATURES
#include "spperm/Transforms/Passes.h.inc"
} // namespace spperm
} // namespace mlir

using namespace mlir;
using namespace mlir::spperm;

namespace {

/// Builds `#spperm.features` from the sparse core's flat feature list:
/// top-level entries stay top-level, grouped ones become nested dictionaries.
FeaturesAttr buildFeaturesAttr(MLIRContext *ctx,
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

struct SpPermExtractFeaturesPass
    : public mlir::spperm::impl::SpPermExtractFeaturesBase<SpPermExtractFeaturesPass> {
  using Base::Base;

  void runOnOperation() override {
    ::spperm::FeatureOptions options;
    options.warps = static_cast<int32_t>(warps);
    options.lineWidth = static_cast<int32_t>(lineWidth);
    options.rowsPerWarp = static_cast<int32_t>(rowsPerWarp);
    if (warps < 1 || warps > 1024 || lineWidth < 1 || lineWidth > 1024 ||
        (lineWidth & (lineWidth - 1)) != 0 || rowsPerWarp < 1 ||
        rowsPerWarp > 1024) {
      getOperation().emitError()
          << "spperm-extract-features: invalid options (warps in [1, 1024], "
             "line a power of two in [1, 1024], rows-per-warp in [1, 1024])";
      return signalPassFailure();
    }

    // One read per (file, values) pair, however many ops load it.
    llvm::StringMap<FeaturesAttr> cache;
    WalkResult result = getOperation().walk([&](LoadOp op) -> WalkResult {
      std::string path = op.resolvePath(baseDir);
      std::string values = op.getValues().value_or("file").str();
      std::string key = path + '\0' + values;
      MatrixType type = op.getResult().getType();

      auto it = cache.find(key);
      if (it == cache.end()) {
        ::spperm::StatusOr<::spperm::ValuesSpec> spec =
            ::spperm::parseValuesSpec(values);
        assert(spec && "verifier checked the values spec");
        ::spperm::ReadOptions readOptions;
        readOptions.values = *spec;
        ::spperm::StatusOr<::spperm::CsrMatrix> matrix =
            ::spperm::readMatrixFile(path, readOptions);
        if (!matrix) {
          op.emitOpError() << matrix.message();
          return WalkResult::interrupt();
        }
        if (matrix->rows != type.getRows() || matrix->cols != type.getCols()) {
          op.emitOpError() << "file " << path << " holds a " << matrix->rows
                           << "x" << matrix->cols
                           << " matrix, but the result type is "
                           << type.getRows() << "x" << type.getCols();
          return WalkResult::interrupt();
        }
        ::spperm::Features features =
            ::spperm::computeFeatures(*matrix, options);
        it = cache
                 .try_emplace(key, buildFeaturesAttr(
                                       &getContext(),
                                       ::spperm::flattenFeatures(features)))
                 .first;
      }
      op.setFeaturesAttr(it->second);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
