//===- MatrixUtils.cpp - From spperm IR to sparse-core objects --*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Transforms/MatrixUtils.h"

#include "spperm/Sparse/HalfFloat.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Shards.h"

#include <chrono>
#include <cmath>
#include <cstdio>

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
    options.bellColumns = bell.getCondensed()
                              ? ::spperm::BellColumns::Condensed
                              : ::spperm::BellColumns::Blocks;
  } else if (auto hbp = dyn_cast<HbpAttr>(format)) {
    options.kind = ::spperm::FormatKind::Hbp;
    options.hbpRowBlock = static_cast<int32_t>(hbp.getRows());
    options.hbpColBlock = static_cast<int32_t>(hbp.getCols());
  }
  return options;
}

//===----------------------------------------------------------------------===//
// MatrixCache
//===----------------------------------------------------------------------===//

namespace {

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

/// The printed form of an attribute or type, part of a cache key.
template <typename T>
std::string printed(T value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (value)
    os << value;
  return text;
}

} // namespace

/// The key of the matrix read from `path` with `values`.
static std::string joinKey(const std::string &path, StringRef values) {
  return path + '\0' + values.str();
}

/// The key suffix of a load's row range ("" for the whole matrix).
static std::string rowsKey(LoadOp op) {
  std::optional<ArrayRef<int64_t>> rows = op.getRows();
  if (!rows)
    return "";
  return std::string(1, '\0') + "rows=" + std::to_string((*rows)[0]) + "," +
         std::to_string((*rows)[1]);
}

std::string MatrixCache::matrixKey(LoadOp op, StringRef baseDir) const {
  return joinKey(op.resolvePath(baseDir), op.getValues().value_or("file")) +
         rowsKey(op);
}

std::string MatrixCache::formattedKey(LoadOp load, MatrixType type,
                                      StringRef baseDir) const {
  return matrixKey(load, baseDir) + '\0' + printed(type);
}

void MatrixCache::insert(const std::string &path, StringRef values,
                         ::spperm::CsrMatrix matrix) {
  matrices[joinKey(path, values)] =
      std::make_unique<::spperm::CsrMatrix>(std::move(matrix));
}

const ::spperm::CsrMatrix *MatrixCache::get(LoadOp op, StringRef baseDir) {
  std::string path = op.resolvePath(baseDir);
  StringRef values = op.getValues().value_or("file");
  auto it = matrices.find(joinKey(path, values));
  if (it == matrices.end()) {
    ::spperm::StatusOr<::spperm::ValuesSpec> spec =
        ::spperm::parseValuesSpec(values.str());
    assert(spec && "the verifier checked the values spec");
    ::spperm::ReadOptions readOptions;
    readOptions.values = *spec;
    auto start = std::chrono::steady_clock::now();
    ::spperm::StatusOr<::spperm::CsrMatrix> matrix =
        ::spperm::readMatrixFile(path, readOptions);
    times.read += since(start);
    if (!matrix) {
      op.emitOpError() << matrix.message();
      return nullptr;
    }
    it = matrices
             .try_emplace(joinKey(path, values),
                          std::make_unique<::spperm::CsrMatrix>(
                              std::move(*matrix)))
             .first;
  }
  const ::spperm::CsrMatrix *m = it->second.get();
  // A shard: its rows of the file's matrix, kept beside it.
  if (std::optional<ArrayRef<int64_t>> rows = op.getRows()) {
    const int64_t begin = (*rows)[0], end = (*rows)[1];
    if (end > m->rows) {
      op.emitOpError() << "rows [" << begin << ", " << end << ") of file "
                       << path << ", which has " << m->rows << " rows";
      return nullptr;
    }
    auto slice = matrices.find(joinKey(path, values) + rowsKey(op));
    if (slice == matrices.end())
      slice = matrices
                  .try_emplace(joinKey(path, values) + rowsKey(op),
                               std::make_unique<::spperm::CsrMatrix>(
                                   ::spperm::sliceRows(
                                       *m, static_cast<int32_t>(begin),
                                       static_cast<int32_t>(end))))
                  .first;
    m = slice->second.get();
  }
  MatrixType type = op.getResult().getType();
  if (m->rows != type.getRows() || m->cols != type.getCols()) {
    op.emitOpError() << "file " << path << " holds a " << m->rows << "x"
                     << m->cols << " matrix, but the result type is "
                     << type.getRows() << "x" << type.getCols();
    return nullptr;
  }
  // 16-bit values: the file's fp32 values rounded to the type (to nearest
  // even), kept beside them; in memory the arrays stay f32, each value
  // exactly representable in the type (the package stores them in it).
  Type element = type.getElementType();
  if (element.isF32())
    return m;
  const ::spperm::ValueType valueType = getValueType(element);
  const std::string key = joinKey(path, values) + rowsKey(op) +
                          std::string(1, '\0') + "type=" +
                          std::string(::spperm::valueTypeName(valueType));
  auto rounded = matrices.find(key);
  if (rounded == matrices.end()) {
    auto copy = std::make_unique<::spperm::CsrMatrix>(*m);
    for (int32_t r = 0; r < copy->rows; ++r) {
      for (int32_t p = copy->rowPtr[r]; p < copy->rowPtr[r + 1]; ++p) {
        const float v = copy->values[p];
        copy->values[p] = ::spperm::roundToValueType(v, valueType);
        // A finite value that rounds to an infinity would make every
        // product it enters Inf: refused like a file's Inf value.
        if (std::isfinite(copy->values[p]))
          continue;
        char value[32];
        std::snprintf(value, sizeof(value), "%g", static_cast<double>(v));
        op.emitOpError() << "the value " << value << " (row " << r + 1
                         << ", column "
                         << copy->colIdx[p] + 1 << ") overflows "
                         << ::spperm::valueTypeName(valueType)
                         << " (largest finite value "
                         << (valueType == ::spperm::ValueType::F16
                                 ? "65504"
                                 : "3.3895e38")
                         << "); scale the matrix or use a wider dtype";
        return nullptr;
      }
    }
    rounded = matrices.try_emplace(key, std::move(copy)).first;
  }
  return rounded->second.get();
}

const ::spperm::Permutation *
MatrixCache::getPermutation(LoadOp op, PermAttr perm, StringRef baseDir) {
  std::string key = matrixKey(op, baseDir) + '\0' + printed(perm);
  auto it = permutations.find(key);
  if (it != permutations.end())
    return it->second.get();
  const ::spperm::CsrMatrix *m = get(op, baseDir);
  if (!m)
    return nullptr;
  auto start = std::chrono::steady_clock::now();
  ::spperm::StatusOr<::spperm::Permutation> order =
      ::spperm::computePermutation(*m, getPermutationOptions(perm));
  times.permutation += since(start);
  if (!order) {
    op.emitOpError() << order.message();
    return nullptr;
  }
  return permutations
      .try_emplace(key,
                   std::make_unique<::spperm::Permutation>(std::move(*order)))
      .first->second.get();
}

FailureOr<::spperm::FormattedMatrix>
MatrixCache::buildFormatted(LoadOp load, PermAttr perm,
                            const ::spperm::FormatOptions &options,
                            StringRef baseDir, Operation *op) {
  const ::spperm::CsrMatrix *m = get(load, baseDir);
  const ::spperm::Permutation *order =
      m ? getPermutation(load, perm, baseDir) : nullptr;
  if (!order)
    return failure();
  auto start = std::chrono::steady_clock::now();
  ::spperm::StatusOr<::spperm::FormattedMatrix> built =
      ::spperm::buildFormat(*m, order->order, options);
  times.format += since(start);
  if (!built)
    return op->emitOpError() << built.message();
  return std::move(*built);
}

void MatrixCache::insertFormatted(LoadOp load, MatrixType type,
                                  StringRef baseDir,
                                  ::spperm::FormattedMatrix matrix) {
  formatted[formattedKey(load, type, baseDir)] =
      std::make_unique<::spperm::FormattedMatrix>(std::move(matrix));
}

const ::spperm::FormattedMatrix *MatrixCache::getFormatted(SpMMOp spmm,
                                                           StringRef baseDir) {
  MatrixType type = spmm.getMatrix().getType();
  LoadOp load = getSourceLoad(spmm.getMatrix());
  if (!load) {
    spmm.emitOpError("multiplies a matrix that does not come from "
                     "spperm.load");
    return nullptr;
  }
  std::string key = formattedKey(load, type, baseDir);
  auto it = formatted.find(key);
  if (it != formatted.end())
    return it->second.get();
  FailureOr<::spperm::FormattedMatrix> built =
      buildFormatted(load, type.getPerm(), getFormatOptions(type.getFormat()),
                     baseDir, spmm);
  if (failed(built))
    return nullptr;
  if (auto bell = dyn_cast<BellAttr>(type.getFormat()))
    if (built->bell.width != bell.getWidth()) {
      // The type records the data's width (docs/Dialects/SpPerm.md): a
      // smaller one cannot hold the tiles, a larger one is not what runs.
      spmm.emitOpError() << "the data "
                         << (built->bell.width > bell.getWidth() ? "needs"
                                                                 : "has")
                         << " Blocked-ELL width " << built->bell.width
                         << " but the type says " << bell.getWidth()
                         << " (spperm-convert-format records the data's)";
      return nullptr;
    }
  return formatted
      .try_emplace(key,
                   std::make_unique<::spperm::FormattedMatrix>(
                       std::move(*built)))
      .first->second.get();
}

std::optional<::spperm::FormattedMatrix>
MatrixCache::takeFormatted(SpMMOp spmm, StringRef baseDir) {
  if (!getFormatted(spmm, baseDir))
    return std::nullopt;
  auto it = formatted.find(formattedKey(getSourceLoad(spmm.getMatrix()),
                                       spmm.getMatrix().getType(), baseDir));
  std::optional<::spperm::FormattedMatrix> out(std::move(*it->second));
  formatted.erase(it);
  return out;
}
