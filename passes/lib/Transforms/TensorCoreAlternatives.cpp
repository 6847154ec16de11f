//===- TensorCoreAlternatives.cpp - 3xTF32 twins of dense-block layers ----===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// spperm-tensor-core-alternatives: the first variant of each layer (the
// layer itself or an alternative of it) whose matrix is Blocked-ELL with
// 16 x 16 or 32 x 32 dense blocks, and whose choice the runtime checks, gets
// a copy that multiplies its blocks on the tensor cores at fp32 accuracy,
// packaged as one more alternative of the layer (docs/Kernels.md,
// `bell-3xtf32`; a 16-bit layer's copy multiplies its operands as they are,
// m16n8k16 of their type, "Half precision").
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Names.h"
#include "spperm/Sparse/Selector.h"
#include "spperm/Transforms/Alternatives.h"
#include "spperm/Transforms/MatrixUtils.h"
#include "spperm/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"

namespace mlir {
namespace spperm {
#define GEN_PASS_DEF_SPPERMTENSORCOREALTERNATIVES
#include "spperm/Transforms/Passes.h.inc"
} // namespace spperm
} // namespace mlir

using namespace mlir;
using namespace mlir::spperm;

namespace {

/// The precision the copies' dense blocks are multiplied in (a name of
/// spperm-lower-to-gpu's precision option).
constexpr std::string_view kTensorCorePrecision =
    ::spperm::precision_name::kTf32x3;

/// Whether `func` is a layer whose dense blocks the tensor-core kernel
/// takes (16 x 16 or 32 x 32, at least one stored) and whose choice the
/// runtime times against the library and the other alternatives. (Its copy
/// multiplies fp32 operands in 3xTF32, and 16-bit operands in their own
/// type: docs/Kernels.md, "Half precision".)
bool hasTensorCoreBlocks(func::FuncOp func) {
  SmallVector<SpMMOp> spmms(func.getOps<SpMMOp>());
  if (spmms.size() != 1)
    return false;
  SpMMOp spmm = spmms.front();
  // 16-bit operands are multiplied as they are: only with values of their
  // type (a --values-dtype f32 layer's values would be rounded).
  Type operand = cast<ShapedType>(spmm.getDense().getType()).getElementType();
  if (!operand.isF32() &&
      spmm.getMatrix().getType().getElementType() != operand)
    return false;
  auto bell = dyn_cast<BellAttr>(spmm.getMatrix().getType().getFormat());
  if (!bell || (bell.getBlock() != 16 && bell.getBlock() != 32) ||
      bell.getWidth() <= 0)
    return false;
  LoadOp load = getSourceLoad(spmm.getMatrix());
  ChoiceAttr choice = load ? load.getChoiceAttr() : ChoiceAttr();
  return choice && choice.getSource() != ::spperm::kForcedSource;
}

struct SpPermTensorCoreAlternativesPass
    : public mlir::spperm::impl::SpPermTensorCoreAlternativesBase<
          SpPermTensorCoreAlternativesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SymbolTable symbols(module);
    // Collected first: the copies are inserted into the module being
    // walked.
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    // The layers that have their copy: one per layer, of its first variant
    // in module order (the choice, then the shortlist's runner-ups in their
    // rank) with such blocks.
    llvm::StringSet<> twinned;
    for (func::FuncOp func : funcs) {
      auto of = func->getAttrOfType<FlatSymbolRefAttr>(kAlternativeOfAttrName);
      StringRef layerName = of ? of.getValue() : func.getSymName();
      if (func->hasAttr(kPrecisionAttrName)) {
        twinned.insert(layerName);
        continue;
      }
      if (twinned.contains(layerName) || !hasTensorCoreBlocks(func))
        continue;
      twinned.insert(layerName);
      std::string name = (func.getSymName() + "__x3").str();
      // Its copy from an earlier run: the pass is idempotent.
      if (Operation *existing = symbols.lookup(name);
          existing && existing->hasAttr(kPrecisionAttrName))
        continue;
      func::FuncOp copy = insertAlternativeCopy(
          symbols, func, name,
          of ? of : FlatSymbolRefAttr::get(ctx, layerName), func);
      if (!copy) {
        func.emitOpError("cannot take its tensor-core alternative: the name @")
            << name << " is taken";
        return signalPassFailure();
      }
      copy->setAttr(kPrecisionAttrName,
                    StringAttr::get(ctx, kTensorCorePrecision));
    }
  }
};

} // namespace
