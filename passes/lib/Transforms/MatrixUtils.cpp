//===- MatrixUtils.cpp - From spperm IR to sparse-core objects --*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Transforms/MatrixUtils.h"

#include "spperm/Sparse/MatrixIO.h"

using namespace mlir;
using namespace mlir::spperm;

LoadOp mlir::spperm::getSourceLoad(Value matrix) {
  while (Operation *def = matrix.getDefiningOp()) {
    if (auto load = dyn_cast<LoadOp>(def))
      return load;
    if (auto permute = dyn_cast<PermuteOp>(def)) {
      matrix = permute.getSource();
      continue;
    }
    if (auto convert = dyn_cast<ConvertOp>(def)) {
      matrix = convert.getSource();
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

::spperm::PermutationOptions mlir::spperm::getPermutationOptions(PermAttr perm) {
  ::spperm::PermutationOptions options;
  if (!perm)
    return options;
  options.strategy = perm.getStrategy();
  options.warps = static_cast<int32_t>(perm.getWarps());
  options.lineWidth = static_cast<int32_t>(perm.getLine());
  if (perm.getTau())
    options.tau = static_cast<int32_t>(*perm.getTau());
  if (perm.getAlpha())
    options.alpha = perm.getAlpha().getValueAsDouble();
  return options;
}

::spperm::FormatOptions
mlir::spperm::getFormatOptions(FormatAttrInterface format) {
  ::spperm::FormatOptions options;
  if (auto bell = dyn_cast<BellAttr>(format)) {
    options.kind = ::spperm::FormatKind::Bell;
    options.bellBlock = static_cast<int32_t>(bell.getBlock());
    options.bellDelta =
        bell.getDelta() ? bell.getDelta().getValueAsDouble() : -1.0;
  } else if (auto hbp = dyn_cast<HbpAttr>(format)) {
    options.kind = ::spperm::FormatKind::Hbp;
    options.hbpRowBlock = static_cast<int32_t>(hbp.getRows());
    options.hbpColBlock = static_cast<int32_t>(hbp.getCols());
  }
  return options;
}

const ::spperm::CsrMatrix *MatrixCache::get(LoadOp op) {
  std::string path = op.resolvePath(baseDir);
  std::string values = op.getValues().value_or("file").str();
  std::string key = path + '\0' + values;
  auto it = matrices.find(key);
  if (it == matrices.end()) {
    ::spperm::StatusOr<::spperm::ValuesSpec> spec =
        ::spperm::parseValuesSpec(values);
    assert(spec && "the verifier checked the values spec");
    ::spperm::ReadOptions readOptions;
    readOptions.values = *spec;
    ::spperm::StatusOr<::spperm::CsrMatrix> matrix =
        ::spperm::readMatrixFile(path, readOptions);
    if (!matrix) {
      op.emitOpError() << matrix.message();
      return nullptr;
    }
    it = matrices
             .try_emplace(key, std::make_unique<::spperm::CsrMatrix>(
                                   std::move(*matrix)))
             .first;
  }
  const ::spperm::CsrMatrix *m = it->second.get();
  MatrixType type = op.getResult().getType();
  if (m->rows != type.getRows() || m->cols != type.getCols()) {
    op.emitOpError() << "file " << path << " holds a " << m->rows << "x"
                     << m->cols << " matrix, but the result type is "
                     << type.getRows() << "x" << type.getCols();
    return nullptr;
  }
  return m;
}
