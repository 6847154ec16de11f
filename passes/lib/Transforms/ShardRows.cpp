//===- ShardRows.cpp - Cut each layer into row shards ---------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// spperm-shard-rows: a layer (a function with one spperm.spmm of a matrix
// read whole by its spperm.load) becomes one function per shard, each
// loading its rows of the matrix, so that the rest of the compiler treats
// every shard as a layer of its own (docs/Distributed.md). The cut comes
// from the sparse core (planShards).
//
//===----------------------------------------------------------------------===//

#include "spperm/Transforms/Layers.h"
#include "spperm/Transforms/MatrixUtils.h"
#include "spperm/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace spperm {
#define GEN_PASS_DEF_SPPERMSHARDROWS
#include "spperm/Transforms/Passes.h.inc"
} // namespace spperm
} // namespace mlir

using namespace mlir;
using namespace mlir::spperm;

namespace {

/// The multiplication of a layer `func` to shard: its one spperm.spmm, whose
/// matrix comes straight from a spperm.load of the whole file and whose
/// result only func.return uses. Null when `func` has no multiplication;
/// an error (emitted, `failed` set) when it has one that cannot be sharded.
SpMMOp shardableSpmm(func::FuncOp func, ModuleOp module, bool &failed) {
  SmallVector<SpMMOp> spmms = multiplicationsOf(func);
  if (spmms.empty())
    return nullptr;
  auto fail = [&](const Twine &why) {
    func.emitOpError("cannot be cut into shards: ") << why;
    failed = true;
    return nullptr;
  };
  if (spmms.size() > 1)
    return fail("it holds " + Twine(spmms.size()) +
                " spperm.spmm ops; a layer is one multiplication");
  SpMMOp spmm = spmms.front();
  if (std::string problem = layerPlacementProblem(spmm, module);
      !problem.empty())
    return fail("its spperm.spmm " + problem);
  // The copies replace the layer: a call of it would be left dangling.
  if (std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(func, module);
      uses && !uses->empty())
    return fail("'" + uses->begin()->getUser()->getName().getStringRef() +
                "' uses it, and its shards replace it (a layer is run by "
                "the runtime, not called in the module)");
  auto load = spmm.getMatrix().getDefiningOp<LoadOp>();
  if (!load)
    return fail("its matrix does not come straight from spperm.load (shard "
                "before spperm-permute-rows and spperm-convert-format)");
  if (!load->hasOneUse())
    return fail("its matrix has other uses than the multiplication");
  for (Operation *user : spmm->getUsers())
    if (!isa<func::ReturnOp>(user))
      return fail("the product is used by '" +
                  user->getName().getStringRef() +
                  "'; a sharded layer returns it");
  return spmm;
}

/// `type` (a ranked tensor) with `rows` rows.
RankedTensorType withRows(Type type, int64_t rows) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  shape[0] = rows;
  return RankedTensorType::get(shape, tensor.getElementType());
}

struct SpPermShardRowsPass
    : public mlir::spperm::impl::SpPermShardRowsBase<SpPermShardRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (shards < 1 || shards > ::spperm::kMaxIndex) {
      mlir::emitError(getOperation().getLoc(),
                      "spperm-shard-rows: shards must be an integer "
                      "in [1, ")
          << ::spperm::kMaxIndex << "], got " << shards.getValue();
      return signalPassFailure();
    }
    if (shards == 1)
      return;
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    MatrixCache &cache = getAnalysis<MatrixCache>();
    SymbolTable symbols(module);
    // Every function, those of nested modules too: a multiplication that
    // is not a layer's is an error rather than left whole.
    SmallVector<func::FuncOp> funcs;
    module.walk([&](func::FuncOp func) { funcs.push_back(func); });
    for (func::FuncOp func : funcs) {
      // Shards already, or what another layer's copies became.
      if (func->hasAttr(kShardAttrName))
        continue;
      bool failedHere = false;
      SpMMOp spmm = shardableSpmm(func, module, failedHere);
      if (failedHere)
        return signalPassFailure();
      if (!spmm)
        continue;
      auto load = spmm.getMatrix().getDefiningOp<LoadOp>();
      if (load.getRows()) {
        load.emitOpError("already loads a row range; spperm-shard-rows cuts "
                         "whole matrices");
        return signalPassFailure();
      }
      // The features and the choice describe the whole matrix, not a
      // shard's rows.
      if (load.getFeatures() || load.getChoice()) {
        load.emitOpError("already has the whole matrix's features or choice; "
                         "shard before spperm-extract-features and "
                         "spperm-select");
        return signalPassFailure();
      }
      if (func.getSymName().empty()) {
        func.emitOpError("cannot be cut into shards: its shards are named "
                         "after it, and its name is empty");
        return signalPassFailure();
      }
      const ::spperm::CsrMatrix *m = cache.get(load, baseDir);
      if (!m)
        return signalPassFailure();
      ::spperm::StatusOr<std::vector<int32_t>> bounds = ::spperm::planShards(
          *m, static_cast<int32_t>(shards), toShardCut(cut));
      if (!bounds) {
        load.emitOpError("cannot be cut into shards: ") << bounds.message();
        return signalPassFailure();
      }
      Operation *insertAfter = func;
      for (int64_t i = 0; i < shards; ++i) {
        const int64_t begin = (*bounds)[i], end = (*bounds)[i + 1];
        std::string name = (func.getSymName() + "__shard" + Twine(i)).str();
        if (symbols.lookup(name)) {
          func.emitOpError("cannot take its shard ")
              << i << ": the name @" << name << " is taken";
          return signalPassFailure();
        }
        auto copy = cast<func::FuncOp>(func->clone());
        copy.setSymName(name);
        copy->setAttr(kShardAttrName,
                      DenseI64ArrayAttr::get(
                          ctx, {i, static_cast<int64_t>(shards), begin, end,
                                static_cast<int64_t>(m->rows)}));
        copy->setAttr(kShardOfAttrName,
                      StringAttr::get(ctx, func.getSymName()));
        // The shard's rows: the load, the product, the function's results.
        SpMMOp product = multiplicationsOf(copy).front();
        auto shardLoad = product.getMatrix().getDefiningOp<LoadOp>();
        MatrixType type = shardLoad.getResult().getType();
        shardLoad.setRowsAttr(DenseI64ArrayAttr::get(ctx, {begin, end}));
        shardLoad.getResult().setType(MatrixType::get(
            ctx, end - begin, type.getCols(), type.getElementType(),
            type.getFormat()));
        product.getResult().setType(
            withRows(product.getResult().getType(), end - begin));
        SmallVector<Type> results;
        copy.walk([&](func::ReturnOp ret) {
          results.assign(ret.getOperandTypes().begin(),
                         ret.getOperandTypes().end());
        });
        copy.setFunctionType(
            FunctionType::get(ctx, copy.getArgumentTypes(), results));
        symbols.insert(copy, std::next(Block::iterator(insertAfter)));
        insertAfter = copy;
      }
      symbols.erase(func);
    }
  }
};

} // namespace
