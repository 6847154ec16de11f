//===- Select.cpp - Choose each matrix's strategy and format ----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Transforms/Passes.h"

#include "spperm/Sparse/Formats.h"
#include "spperm/Sparse/Names.h"

#include "spperm/Sparse/Selector.h"
#include "spperm/Sparse/Strategy.h"
#include "spperm/Transforms/MatrixUtils.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace mlir {
namespace spperm {
#define GEN_PASS_DEF_SPPERMSELECT
#include "spperm/Transforms/Passes.h.inc"
} // namespace spperm
} // namespace mlir

using namespace mlir;
using namespace mlir::spperm;

std::map<std::string, double>
mlir::spperm::getSelectorInputs(FeaturesAttr features, int64_t k) {
  std::map<std::string, double> flat;
  auto number = [](Attribute a) -> std::optional<double> {
    if (auto i = dyn_cast<IntegerAttr>(a))
      return static_cast<double>(i.getValue().getSExtValue());
    if (auto f = dyn_cast<FloatAttr>(a))
      return f.getValueAsDouble();
    return std::nullopt;
  };
  for (NamedAttribute entry : features.getEntries()) {
    if (std::optional<double> v = number(entry.getValue())) {
      flat[entry.getName().str()] = *v;
      continue;
    }
    if (auto group = dyn_cast<DictionaryAttr>(entry.getValue()))
      for (NamedAttribute inner : group)
        if (std::optional<double> v = number(inner.getValue()))
          flat[entry.getName().str() + "." + inner.getName().str()] = *v;
  }
  return ::spperm::selectorInputs(std::move(flat), k);
}

namespace {

/// Whether `matrix` comes from its load through a spperm.convert (before or
/// after a spperm.permute).
bool isConverted(Value matrix) {
  for (Operation *op = matrix.getDefiningOp(); op;
       op = op->getOperand(0).getDefiningOp()) {
    if (isa<ConvertOp>(op))
      return true;
    if (!isa<PermuteOp>(op))
      return false;
  }
  return false;
}

/// Whether `format` has kernels for 16-bit operands (every generated
/// format; a cuSPARSE layer has none, and not every cuSPARSE algorithm
/// rounds a 16-bit C once: the runtime's library check brings in those
/// that do, docs/Kernels.md "Half precision").
bool hasHalfKernels(const std::string &format) {
  return format == ::spperm::format_name::kCsr ||
         format == ::spperm::format_name::kBell ||
         format == ::spperm::format_name::kHbp;
}

/// Keeps the candidates of `selection` that have 16-bit kernels: an empty
/// string, or why it cannot (a forced format without them).
std::string restrictToHalfFormats(::spperm::Selection &selection,
                                  bool fixedFormat) {
  std::vector<::spperm::SelectorCandidate> &alts = selection.alternatives;
  if (!hasHalfKernels(selection.choice.format)) {
    if (fixedFormat)
      return "has format '" + selection.choice.format +
             "', which has no kernels for f16 or bf16 operands (csr, bell "
             "and hbp have)";
    auto first = llvm::find_if(alts, [](const auto &c) {
      return hasHalfKernels(c.format);
    });
    if (first != alts.end()) {
      selection.choice = *first;
      alts.erase(first);
    } else {
      selection.choice.format = std::string(::spperm::format_name::kCsr);
    }
    selection.source += ", restricted to generated kernels for 16-bit operands";
  }
  llvm::erase_if(alts, [&](const ::spperm::SelectorCandidate &c) {
    return !hasHalfKernels(c.format) ||
           (c.format == selection.choice.format &&
            c.strategy == selection.choice.strategy);
  });
  return "";
}

struct SpPermSelectPass
    : public mlir::spperm::impl::SpPermSelectBase<SpPermSelectPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    std::optional<::spperm::Strategy> fixedStrategy =
        getFixedStrategy(strategy);
    const bool fixedFormat =
        format != FormatOption::Keep && format != FormatOption::Auto;
    if (maxVariants < 0 || maxVariants > ::spperm::kMaxVariantsLimit) {
      mlir::emitError(module.getLoc())
          << "spperm-select: max-variants must be an integer in [0, "
          << ::spperm::kMaxVariantsLimit << "], got "
          << static_cast<int64_t>(maxVariants);
      return signalPassFailure();
    }
    if (k < 1 || k > ::spperm::kMaxIndex) {
      mlir::emitError(module.getLoc())
          << "spperm-select: k must be an integer in [1, "
          << ::spperm::kMaxIndex << "], got " << static_cast<int64_t>(k);
      return signalPassFailure();
    }
    if (std::string problem = ::spperm::checkMargin(margin); !problem.empty()) {
      mlir::emitError(module.getLoc()) << "spperm-select: " << problem;
      return signalPassFailure();
    }
    // The spelling of an architecture (spperm-lower-to-gpu asks LLVM's NVPTX
    // back end which it knows); a target without a shipped model ranks with
    // the cost model.
    if (::spperm::architectureVersion(target) == 0) {
      mlir::emitError(module.getLoc())
          << "spperm-select: target must be a GPU architecture such as sm_90, "
             "got '"
          << target << "'";
      return signalPassFailure();
    }
    ::spperm::SelectionOptions options;
    options.modelPath = model;
    options.target = target;
    options.costModel = costModel;
    options.strategy = fixedStrategy
                           ? std::string(::spperm::strategyCliName(
                                 *fixedStrategy))
                           : "auto";
    options.format = fixedFormat ? getFormatOptionName(format).str() : "auto";
    options.margin = margin;
    options.libraryCheck = libraryCheck;
    options.maxVariants = maxVariants;
    // The learned model, read when the first matrix needs it, once.
    std::optional<::spperm::SelectorModel> learned;
    // Whether a layer was ranked by the cost model for want of a model for
    // the target (not because costModel asked for it).
    bool fellBack = false;

    WalkResult result = module.walk([&](SpMMOp op) -> WalkResult {
      LoadOp load = getSourceLoad(op.getMatrix());
      // The first multiplication of a matrix decides.
      if (!load || load.getChoiceAttr())
        return WalkResult::advance();
      // A matrix the module already permutes or converts keeps what it has:
      // the choice is made with that strategy (and format) forced, so that
      // it records what the layer runs rather than a variant its IR leaves
      // out.
      ::spperm::SelectionOptions layerOptions = options;
      MatrixType type = op.getMatrix().getType();
      if (PermAttr perm = type.getPerm())
        layerOptions.strategy =
            std::string(::spperm::strategyCliName(perm.getStrategy()));
      if (isConverted(op.getMatrix()))
        layerOptions.format = std::string(
            ::spperm::formatName(getFormatOptions(type.getFormat()).kind));
      const bool layerFixed =
          layerOptions.strategy != "auto" && layerOptions.format != "auto";
      int64_t kk = k;
      auto bType = cast<ShapedType>(op.getDense().getType());
      if (bType.getRank() == 2 && !bType.isDynamicDim(1))
        kk = std::max<int64_t>(1, bType.getDimSize(1));
      std::map<std::string, double> inputs;
      if (FeaturesAttr features = load.getFeaturesAttr())
        inputs = getSelectorInputs(features, kk);
      else if (!layerFixed)
        return load.emitOpError(
            "has no features to choose its variant from (run "
            "spperm-extract-features first)");
      if (!learned && ::spperm::usesSelectorModel(layerOptions) &&
          !layerFixed) {
        ::spperm::StatusOr<::spperm::SelectorModel> loaded =
            ::spperm::loadSelectorModel(layerOptions);
        if (!loaded)
          return load.emitOpError() << loaded.message();
        learned = std::move(*loaded);
        if (std::string other =
                ::spperm::otherTargetWarning(model, *learned, target);
            !model.empty() && !other.empty())
          mlir::emitWarning(module.getLoc()) << "spperm-select: " << other;
      }
      fellBack |= !layerFixed && !costModel &&
                  !::spperm::usesSelectorModel(layerOptions);
      ::spperm::StatusOr<::spperm::Selection> selection =
          ::spperm::selectVariant(inputs, layerOptions,
                                  learned ? &*learned : nullptr);
      if (!selection)
        return load.emitOpError() << selection.message();
      // 16-bit operands run generated kernels only (docs/Kernels.md,
      // "Half precision"): a cuSPARSE candidate gives way to the best of
      // the others, or to csr under the same strategy.
      if (!cast<ShapedType>(op.getDense().getType()).getElementType().isF32())
        if (std::string error = restrictToHalfFormats(
                *selection, layerOptions.format != "auto");
            !error.empty())
          return load.emitOpError() << error;
      ArrayAttr alternatives;
      if (!selection->alternatives.empty()) {
        SmallVector<Attribute> list;
        for (const ::spperm::SelectorCandidate &alt : selection->alternatives)
          list.push_back(
              ChoiceAttr::get(ctx, alt.strategy, alt.format, "shortlist"));
        alternatives = ArrayAttr::get(ctx, list);
      }
      load.setChoiceAttr(ChoiceAttr::get(ctx, selection->choice.strategy,
                                         selection->choice.format,
                                         selection->source, alternatives));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    if (fellBack)
      mlir::emitWarning(module.getLoc())
          << "spperm-select: " << ::spperm::costModelFallbackReason(target)
          << "; give a model trained on the target (--model FILE; the "
             "pass option model=FILE), or choose the cost model "
             "(--cost-model; cost-model=1)";
  }
};

} // namespace
