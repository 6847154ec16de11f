//===- MatrixUtils.cpp - From spperm IR to sparse-core objects --*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Transforms/MatrixUtils.h"

#include "spperm/Sparse/MatrixIO.h"

#include <chrono>

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

void MatrixCache::insert(const std::string &path, StringRef values,
                         ::spperm::CsrMatrix matrix) {
  matrices[path + '\0' + values.str()] =
      std::make_unique<::spperm::CsrMatrix>(std::move(matrix));
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

FailureOr<::spperm::FormattedMatrix>
mlir::spperm::buildFormattedMatrix(SpMMOp spmm, MatrixCache &cache,
                                   FormatTimes *times) {
  MatrixType type = spmm.getMatrix().getType();
  LoadOp load = getSourceLoad(spmm.getMatrix());
  if (!load)
    return spmm.emitOpError("multiplies a matrix that does not come from "
                            "spperm.load");
  const ::spperm::CsrMatrix *m = cache.get(load);
  if (!m)
    return failure();
  auto since = [](std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  auto start = std::chrono::steady_clock::now();
  ::spperm::StatusOr<::spperm::Permutation> order =
      ::spperm::computePermutation(*m, getPermutationOptions(type.getPerm()));
  if (times)
    times->permutation += since(start);
  if (!order)
    return spmm.emitOpError() << order.message();
  start = std::chrono::steady_clock::now();
  ::spperm::StatusOr<::spperm::FormattedMatrix> formatted =
      ::spperm::buildFormat(*m, order->order,
                            getFormatOptions(type.getFormat()));
  if (times)
    times->format += since(start);
  if (!formatted)
    return spmm.emitOpError() << formatted.message();
  if (auto bell = dyn_cast<BellAttr>(type.getFormat()))
    if (formatted->bell.width > bell.getWidth())
      return spmm.emitOpError()
             << "the data needs Blocked-ELL width " << formatted->bell.width
             << " but the type says " << bell.getWidth();
  return std::move(*formatted);
}
