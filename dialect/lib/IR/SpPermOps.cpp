//===- SpPermOps.cpp - spperm operations ------------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"
#include "spperm/Sparse/MatrixIO.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::spperm;

//===----------------------------------------------------------------------===//
// LoadOp
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  if (getPath().empty())
    return emitOpError("requires a non-empty file path");
  // A NUL would end the path early for the file system (another file).
  if (getPath().contains('\0'))
    return emitOpError("file path contains a NUL character");
  if (std::optional<StringRef> values = getValues()) {
    ::spperm::StatusOr<::spperm::ValuesSpec> spec =
        ::spperm::parseValuesSpec(std::string_view(values->data(),
                                                   values->size()));
    if (!spec)
      return emitOpError() << spec.message();
  }
  MatrixType type = getResult().getType();
  if (!isa<CsrAttr>(type.getFormat()))
    return emitOpError("loads a matrix in #spperm.csr format, not ")
           << type.getFormat() << "; use spperm.convert to change formats";
  if (type.getPerm())
    return emitOpError("loads a matrix in file order; use spperm.permute to "
                       "reorder its rows");
  if (std::optional<ArrayRef<int64_t>> rows = getRows()) {
    if (rows->size() != 2 || (*rows)[0] < 0 || (*rows)[1] <= (*rows)[0] ||
        (*rows)[1] > ::spperm::kMaxIndex)
      return emitOpError("rows must be [begin, end) with 0 <= begin < end "
                         "<= 2^31 - 1");
    if ((*rows)[1] - (*rows)[0] != type.getRows())
      return emitOpError("rows [")
             << (*rows)[0] << ", " << (*rows)[1] << ") are "
             << (*rows)[1] - (*rows)[0] << " rows but the result type has "
             << type.getRows();
  }
  if (std::optional<FeaturesAttr> features = getFeatures()) {
    std::optional<int64_t> rows = features->getInt("rows");
    std::optional<int64_t> cols = features->getInt("cols");
    if (rows && *rows != type.getRows())
      return emitOpError("features say ")
             << *rows << " rows but the result type has " << type.getRows();
    if (cols && *cols != type.getCols())
      return emitOpError("features say ")
             << *cols << " columns but the result type has " << type.getCols();
  }
  return success();
}

std::string LoadOp::resolvePath(StringRef baseDir) {
  StringRef path = getPath();
  if (llvm::sys::path::is_absolute(path))
    return path.str();
  SmallString<256> resolved;
  if (!baseDir.empty()) {
    resolved = baseDir;
  } else if (auto fileLoc = dyn_cast<FileLineColLoc>(getLoc())) {
    StringRef dir = llvm::sys::path::parent_path(fileLoc.getFilename());
    if (!dir.empty() && llvm::sys::fs::is_directory(dir))
      resolved = dir;
  }
  llvm::sys::path::append(resolved, path);
  return std::string(resolved);
}

//===----------------------------------------------------------------------===//
// SpMMOp
//===----------------------------------------------------------------------===//

LogicalResult SpMMOp::verify() {
  MatrixType a = getMatrix().getType();
  auto b = cast<RankedTensorType>(getDense().getType());
  auto c = cast<RankedTensorType>(getResult().getType());
  // B and C are plain row-major tensors: a sparse_tensor (or any other)
  // encoding would be read as dense.
  if (b.getEncoding() || c.getEncoding())
    return emitOpError("dense operand and result must be tensors without an "
                       "encoding, got ")
           << b << " and " << c;
  if (!ShapedType::isDynamic(b.getDimSize(0)) && b.getDimSize(0) != a.getCols())
    return emitOpError("dense operand has ")
           << b.getDimSize(0) << " rows but the matrix has " << a.getCols()
           << " columns";
  if (!ShapedType::isDynamic(c.getDimSize(0)) && c.getDimSize(0) != a.getRows())
    return emitOpError("result has ")
           << c.getDimSize(0) << " rows but the matrix has " << a.getRows();
  if (b.getDimSize(1) != c.getDimSize(1)) {
    auto dim = [](int64_t d) {
      return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
    };
    return emitOpError("result has ")
           << dim(c.getDimSize(1)) << " columns but the dense operand has "
           << dim(b.getDimSize(1));
  }
  // K is a 32-bit factor in the kernels and the runtime's calls
  // (docs/Limits.md); a dynamic K compiles for any K.
  if (int64_t k = b.getDimSize(1);
      !ShapedType::isDynamic(k) && (k < 1 || k > INT32_MAX))
    return emitOpError("dense operand has ")
           << k << " columns; K must be in [1, 2^31 - 1], or ? for any K";
  if (b.getElementType() != c.getElementType())
    return emitOpError("dense operand and result must have one element type, "
                       "got ")
           << b.getElementType() << " and " << c.getElementType();
  if (!a.getElementType().isF32() && a.getElementType() != b.getElementType())
    return emitOpError("with ")
           << a.getElementType()
           << " matrix values the dense operand and result must be "
           << a.getElementType()
           << " (only f32 values mix with other operand types), got "
           << b.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// PermuteOp
//===----------------------------------------------------------------------===//

/// Checks what every storage-changing op requires of its two types: the
/// same shape and element type.
static LogicalResult verifySameMatrix(Operation *op, MatrixType source,
                                      MatrixType result) {
  if (source.getElementType() != result.getElementType())
    return op->emitOpError("changes the element type from ")
           << source.getElementType() << " to " << result.getElementType();
  if (source.getRows() != result.getRows() ||
      source.getCols() != result.getCols())
    return op->emitOpError("changes the shape from ")
           << source.getRows() << "x" << source.getCols() << " to "
           << result.getRows() << "x" << result.getCols();
  return success();
}

LogicalResult PermuteOp::verify() {
  MatrixType source = getSource().getType();
  MatrixType result = getResult().getType();
  if (failed(verifySameMatrix(*this, source, result)))
    return failure();
  if (source.getPerm())
    return emitOpError("source is already permuted by ") << source.getPerm();
  if (!result.getPerm())
    return emitOpError("result type has no row permutation");
  if (result.getFormat().withPerm(nullptr) != source.getFormat())
    return emitOpError("may only add a row permutation; the formats ")
           << source.getFormat() << " and " << result.getFormat()
           << " differ otherwise (use spperm.convert)";
  return success();
}

//===----------------------------------------------------------------------===//
// ConvertOp
//===----------------------------------------------------------------------===//

/// Streams `perm`, or "none" for a null permutation.
static InFlightDiagnostic &printPermOrNone(InFlightDiagnostic &diag,
                                           PermAttr perm) {
  if (perm)
    return diag << perm;
  return diag << "none";
}

LogicalResult ConvertOp::verify() {
  MatrixType source = getSource().getType();
  MatrixType result = getResult().getType();
  if (failed(verifySameMatrix(*this, source, result)))
    return failure();
  if (source.getPerm() != result.getPerm()) {
    InFlightDiagnostic diag = emitOpError(
        "keeps the row order, but the permutation changes from ");
    printPermOrNone(diag, source.getPerm()) << " to ";
    printPermOrNone(diag, result.getPerm()) << " (use spperm.permute)";
    return diag;
  }
  return success();
}

OpFoldResult ConvertOp::fold(FoldAdaptor) {
  if (getSource().getType() == getResult().getType())
    return getSource();
  return {};
}

LogicalResult mlir::spperm::checkNotLowered(Operation *root,
                                            llvm::StringRef pass) {
  WalkResult walk = root->walk([&](SpMMOp spmm) {
    if (!spmm->hasAttr(kKernelsAttrName))
      return WalkResult::advance();
    spmm.emitOpError("is already lowered (it has ")
        << kKernelsAttrName << "): " << pass
        << " must run before spperm-lower-to-gpu, whose kernels are made "
           "for the storage the matrix has";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

#define GET_OP_CLASSES
#include "spperm/Dialect/SpPerm/IR/SpPermOps.cpp.inc"
