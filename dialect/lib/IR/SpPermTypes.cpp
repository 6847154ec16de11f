//===- SpPermTypes.cpp - spperm types ---------------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"
#include "spperm/Sparse/CsrMatrix.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::spperm;

/// `!spperm.matrix<RxCxT, #format>`
Type MatrixType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t, 2> shape;
  Type elementType;
  Attribute format;
  if (failed(parser.parseLess()) ||
      failed(parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                       /*withTrailingX=*/true)) ||
      failed(parser.parseType(elementType)))
    return {};
  // The format is not optional: say which attribute is missing.
  if (failed(parser.parseOptionalComma())) {
    parser.emitError(parser.getCurrentLocation(),
                     "expected ',' and the storage format after the element "
                     "type (#spperm.csr, #spperm.bell<...> or "
                     "#spperm.hbp<...>)");
    return {};
  }
  if (failed(parser.parseAttribute(format)) || failed(parser.parseGreater()))
    return {};
  if (shape.size() != 2) {
    parser.emitError(loc, "expected a 2-D shape, got ")
        << shape.size() << " dimension(s)";
    return {};
  }
  auto formatAttr = dyn_cast<FormatAttrInterface>(format);
  if (!formatAttr) {
    parser.emitError(loc, "expected a storage format attribute "
                          "(#spperm.csr, #spperm.bell or #spperm.hbp), got ")
        << format;
    return {};
  }
  return parser.getChecked<MatrixType>(loc, parser.getContext(), shape[0],
                                       shape[1], elementType, formatAttr);
}

void MatrixType::print(AsmPrinter &printer) const {
  printer << '<' << getRows() << 'x' << getCols() << 'x' << getElementType()
          << ", " << getFormat() << '>';
}

LogicalResult MatrixType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t rows, int64_t cols, Type elementType,
                                 FormatAttrInterface format) {
  if (rows < 0 || rows > ::spperm::kMaxIndex)
    return emitError() << "row count " << rows << " is outside [0, 2^31 - 1]";
  if (cols < 0 || cols > ::spperm::kMaxIndex)
    return emitError() << "column count " << cols
                       << " is outside [0, 2^31 - 1]";
  if (!isSupportedElementType(elementType))
    return emitError() << "element type must be f32, f16 or bf16, got "
                       << elementType;
  if (!format)
    return emitError() << "expected a storage format attribute";
  return format.verifyShape(emitError, rows, cols);
}

#define GET_TYPEDEF_CLASSES
#include "spperm/Dialect/SpPerm/IR/SpPermTypes.cpp.inc"

void SpPermDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "spperm/Dialect/SpPerm/IR/SpPermTypes.cpp.inc"
      >();
}
