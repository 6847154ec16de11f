//===- ExpandAlternatives.cpp - The shortlist as alternative layers -------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// spperm-expand-alternatives: a layer (a function with one spperm.spmm)
// whose matrix's #spperm.choice lists alternatives gets one copy per
// alternative, with that alternative as its choice, so that the passes that
// materialize a choice treat every copy like any layer.
//
//===----------------------------------------------------------------------===//

#include "spperm/Transforms/Alternatives.h"
#include "spperm/Transforms/Layers.h"
#include "spperm/Transforms/MatrixUtils.h"
#include "spperm/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace spperm {
#define GEN_PASS_DEF_SPPERMEXPANDALTERNATIVES
#include "spperm/Transforms/Passes.h.inc"
} // namespace spperm
} // namespace mlir

using namespace mlir;
using namespace mlir::spperm;

namespace {

/// The loads of `func`, in walk order.
SmallVector<LoadOp> loadsOf(func::FuncOp func) {
  SmallVector<LoadOp> loads;
  func.walk([&](LoadOp load) { loads.push_back(load); });
  return loads;
}

/// The load in `func` whose choice lists alternatives, or null. More than
/// one such load, or one in a function that is not a layer of `module` (one
/// multiplication, of this matrix, in the body of a function of `module`:
/// Layers.h), is an error (emitted; `failed` set).
LoadOp findShortlistedLoad(func::FuncOp func, ModuleOp module, bool &failed) {
  LoadOp found;
  func.walk([&](LoadOp load) {
    ChoiceAttr choice = load.getChoiceAttr();
    if (!choice || !choice.getAlternatives())
      return WalkResult::advance();
    if (found) {
      load.emitOpError("is the second matrix with alternatives in function @")
          << func.getSymName() << "; a layer has one";
      failed = true;
      return WalkResult::interrupt();
    }
    found = load;
    return WalkResult::advance();
  });
  if (!found || failed)
    return found;
  SmallVector<SpMMOp> spmms = multiplicationsOf(func);
  if (spmms.size() != 1 || getSourceLoad(spmms.front().getMatrix()) != found) {
    found.emitOpError("has alternatives, but function @")
        << func.getSymName()
        << " is not a layer (one spperm.spmm of this matrix)";
    failed = true;
    return found;
  }
  if (std::string problem = layerPlacementProblem(spmms.front(), module);
      !problem.empty()) {
    spmms.front().emitOpError(problem).attachNote(found.getLoc())
        << "its matrix has alternatives, which only a layer takes";
    failed = true;
  }
  return found;
}

struct SpPermExpandAlternativesPass
    : public mlir::spperm::impl::SpPermExpandAlternativesBase<
          SpPermExpandAlternativesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SymbolTable symbols(module);
    // Collected first: the copies are inserted into the module being
    // walked. Every function, those of nested modules too, so that a list
    // there is an error rather than left behind.
    SmallVector<func::FuncOp> funcs;
    module.walk([&](func::FuncOp func) { funcs.push_back(func); });
    for (func::FuncOp func : funcs) {
      bool failedHere = false;
      LoadOp load = findShortlistedLoad(func, module, failedHere);
      if (failedHere)
        return signalPassFailure();
      if (!load)
        continue;
      ChoiceAttr choice = load.getChoiceAttr();
      ArrayAttr alternatives = choice.getAlternatives();
      // The load's position, to find its copy in each clone.
      SmallVector<LoadOp> loads = loadsOf(func);
      const size_t loadIndex = llvm::find(loads, load) - loads.begin();
      Operation *insertAfter = func;
      for (auto [i, element] : llvm::enumerate(alternatives)) {
        std::string name =
            (func.getSymName() + "__alt" + Twine(i + 1)).str();
        func::FuncOp copy = insertAlternativeCopy(
            symbols, func, name,
            FlatSymbolRefAttr::get(ctx, func.getSymName()), insertAfter);
        if (!copy) {
          func.emitOpError("cannot take its alternative ")
              << (i + 1) << ": the name @" << name << " is taken";
          return signalPassFailure();
        }
        loadsOf(copy)[loadIndex].setChoiceAttr(cast<ChoiceAttr>(element));
        insertAfter = copy;
      }
      load.setChoiceAttr(ChoiceAttr::get(ctx, choice.getStrategy(),
                                         choice.getFormat(),
                                         choice.getSource()));
    }
  }
};

} // namespace
