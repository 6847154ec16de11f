//===- SpPerm.h - spperm dialect --------------------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The spperm dialect: the `!spperm.matrix` type, the format, permutation and
// feature attributes, and the ops on fixed sparse matrices.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_DIALECT_SPPERM_IR_SPPERM_H
#define SPPERM_DIALECT_SPPERM_IR_SPPERM_H

#include "spperm/Sparse/HalfFloat.h"
#include "spperm/Sparse/Strategy.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

namespace mlir {
namespace spperm {
class PermAttr;

/// Whether `type` is an element type of spperm's matrices and dense
/// operands: f32, f16 or bf16 (docs/Dialects/SpPerm.md, `!spperm.matrix`).
inline bool isSupportedElementType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

/// The element type `type` (isSupportedElementType) as the sparse core
/// names it.
inline ::spperm::ValueType getValueType(Type type) {
  assert(isSupportedElementType(type) && "the verifier admits these only");
  return type.isF16()    ? ::spperm::ValueType::F16
         : type.isBF16() ? ::spperm::ValueType::BF16
                         : ::spperm::ValueType::F32;
}

/// The MLIR element type of the sparse core's `type` (getValueType's
/// inverse).
inline Type getElementType(MLIRContext *ctx, ::spperm::ValueType type) {
  switch (type) {
  case ::spperm::ValueType::F16:
    return Float16Type::get(ctx);
  case ::spperm::ValueType::BF16:
    return BFloat16Type::get(ctx);
  case ::spperm::ValueType::F32:
    break;
  }
  return Float32Type::get(ctx);
}
} // namespace spperm

/// Parses a `::spperm::Strategy` keyword in attribute parameters.
template <>
struct FieldParser<::spperm::Strategy> {
  static FailureOr<::spperm::Strategy> parse(AsmParser &parser);
};

/// Prints a strategy as its IR keyword.
AsmPrinter &operator<<(AsmPrinter &printer, ::spperm::Strategy strategy);
} // namespace mlir

#include "spperm/Dialect/SpPerm/IR/SpPermDialect.h.inc"
#include "spperm/Dialect/SpPerm/IR/SpPermEnums.h.inc"
#include "spperm/Dialect/SpPerm/IR/SpPermAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "spperm/Dialect/SpPerm/IR/SpPermAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "spperm/Dialect/SpPerm/IR/SpPermTypes.h.inc"

#define GET_OP_CLASSES
#include "spperm/Dialect/SpPerm/IR/SpPermOps.h.inc"

namespace mlir::spperm {

/// The discardable attributes the passes put on a layer's function
/// (docs/Passes.md): the layer a copy is an alternative of
/// (spperm-expand-alternatives, spperm-tensor-core-alternatives; a
/// FlatSymbolRefAttr), the precision its dense blocks are multiplied in
/// (spperm-tensor-core-alternatives: a StringAttr naming a precision of
/// spperm-lower-to-gpu, which takes it over its own option), and the shard
/// a copy is (spperm-shard-rows: [index, count, begin, end, rows]) of the
/// layer named by spperm.shard_of.
constexpr llvm::StringLiteral kAlternativeOfAttrName = "spperm.alternative_of";
constexpr llvm::StringLiteral kPrecisionAttrName = "spperm.precision";
constexpr llvm::StringLiteral kShardAttrName = "spperm.shard";
constexpr llvm::StringLiteral kShardOfAttrName = "spperm.shard_of";

/// The argument attributes that name a sparse argument's fixed matrix for
/// spperm-raise-linalg: its file (a StringAttr) and its values (a
/// StringAttr in the syntax of `--values`, ::spperm::parseValuesSpec).
constexpr llvm::StringLiteral kSourceAttrName = "spperm.source";
constexpr llvm::StringLiteral kValuesAttrName = "spperm.values";

/// The attribute of each lowered `spperm.spmm` that lists its launches in
/// order (an array of #spperm.launch; spperm-lower-to-gpu).
constexpr llvm::StringLiteral kKernelsAttrName = "spperm.kernels";

/// The attribute of each lowered `spperm.spmm` of a layer (not an
/// alternative) that holds its transposing kernel's launch (#spperm.launch;
/// docs/Kernels.md, "Column-major B").
constexpr llvm::StringLiteral kTransposeAttrName = "spperm.transpose_b";

/// The attribute of the lowered `spperm.spmm` whose csr arrays the layer's
/// in-place kernels read (the first such of a layer and its alternatives):
/// an array of #spperm.launch, one per candidate (docs/Kernels.md,
/// "In-place column-major B").
constexpr llvm::StringLiteral kInPlaceAttrName = "spperm.in_place_b";

/// Refuses a module whose multiplications spperm-lower-to-gpu already
/// lowered: `pass` (a pass that changes a matrix's storage) would leave their
/// kernels describing the storage they had. Emits the error at the first
/// such spperm.spmm.
LogicalResult checkNotLowered(Operation *root, llvm::StringRef pass);

} // namespace mlir::spperm

#endif // SPPERM_DIALECT_SPPERM_IR_SPPERM_H
