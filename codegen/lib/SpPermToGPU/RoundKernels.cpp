//===- RoundKernels.cpp - The fp32 accumulator rounded into 16-bit C -------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The last kernel of a 16-bit layer whose kernels add their partial sums
// into the fp32 accumulator (hbp; docs/Kernels.md, "Half precision"): each
// element of C is the accumulator's, rounded once to nearest even. The
// accumulator is laid out like C, so the kernel is a grid-stride loop over
// rows x K elements, `vec` a thread (16-byte loads of the accumulator for 4,
// two for 8), independent of the row order.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "KernelBuilder.h"

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"

using namespace mlir;
using namespace mlir::spperm::codegen;

std::vector<std::string>
mlir::spperm::codegen::emitRoundKernel(gpu::GPUModuleOp module,
                                       const RoundKernelSpec &spec) {
  assert(spec.operandType != ::spperm::ValueType::F32 &&
         (spec.k == 0 || spec.k % spec.vec == 0) &&
         "the round kernel rounds fp32 into 16-bit C, whole vectors");
  MLIRContext *ctx = module.getContext();
  SmallVector<KernelArg> args = {
      {::spperm::call_arg::kAccumulator, Float32Type::get(ctx)},
      {::spperm::call_arg::kC,
       mlir::spperm::getElementType(ctx, spec.operandType)},
      {::spperm::call_arg::kK, IndexType::get(ctx)}};
  gpu::GPUFuncOp func = createKernel(module, spec.name, args, spec.threads);
  ImplicitLocOpBuilder b(func.getLoc(), ctx);
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder kb(b, /*vectorReductions=*/false, spec.gridDependencies);
  kb.launchDependents();
  Value acc = func.getArgument(0), c = func.getArgument(1);
  Value k = spec.k > 0 ? kb.idx(spec.k) : func.getArgument(2);
  Value total = kb.mul(kb.idx(spec.rows), k);
  Value threads =
      kb.mul(gpu::GridDimOp::create(b, gpu::Dimension::x), spec.threads);
  Value first = kb.mul(
      kb.add(kb.mul(kb.blockIdX(), spec.threads), kb.threadIdX()), spec.vec);
  // Every thread passes the wait: the accumulator is complete only once
  // the kernels before this one are.
  kb.waitForPrerequisites();
  kb.forLoop(first, total, kb.mul(threads, spec.vec), {},
             [&](Value i, ValueRange) -> SmallVector<Value> {
               kb.storeF32(kb.loadF32(acc, i, spec.vec), c, i);
               return {};
             });
  gpu::ReturnOp::create(b);
  return argNames(args);
}
