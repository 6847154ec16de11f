//===- SpPermTypes.td - spperm types -----------------------*- tablegen -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_DIALECT_SPPERM_IR_SPPERMTYPES_TD
#define SPPERM_DIALECT_SPPERM_IR_SPPERMTYPES_TD

include "spperm/Dialect/SpPerm/IR/SpPermAttrs.td"
include "mlir/IR/AttrTypeBase.td"

def SpPerm_MatrixType : TypeDef<SpPerm_Dialect, "Matrix"> {
  let mnemonic = "matrix";
  let summary = "A fixed sparse matrix in a given storage format";
  let description = [{
    A `rows` × `cols` sparse matrix whose values are `f32`, `f16` or
    `bf16`, stored in `format` (a format attribute, which may carry a row
    permutation). Dimensions are static and below 2^31 (indices are 32 bits
    wide); zero is allowed.

    ```mlir
    !spperm.matrix<2003x2003xf32, #spperm.csr>
    !spperm.matrix<1024x1024xbf16, #spperm.csr>
    !spperm.matrix<512x2048xf32, #spperm.bell<block = 32, width = 4, residual = csr>>
    ```
  }];
  let parameters = (ins
    "int64_t":$rows,
    "int64_t":$cols,
    "::mlir::Type":$elementType,
    "::mlir::spperm::FormatAttrInterface":$format
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The row permutation of the format, or null.
    ::mlir::spperm::PermAttr getPerm() const { return getFormat().getPerm(); }
    /// The same matrix in another format.
    MatrixType withFormat(::mlir::spperm::FormatAttrInterface format) const {
      return get(getContext(), getRows(), getCols(), getElementType(), format);
    }
  }];
}

#endif // SPPERM_DIALECT_SPPERM_IR_SPPERMTYPES_TD
