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
// two for 8), independent of the row order. With a row table it rounds only
// the listed rows (a variant's split long rows), through the row order.
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
  assert((spec.rowTable.empty() || !spec.order.empty()) &&
         "listed rows reach C through the row order");
  MLIRContext *ctx = module.getContext();
  const bool listed = !spec.rowTable.empty();
  SmallVector<KernelArg> args;
  if (listed)
    args.push_back({spec.order, IntegerType::get(ctx, 32)});
  args.push_back({::spperm::call_arg::kAccumulator, Float32Type::get(ctx)});
  args.push_back({::spperm::call_arg::kC,
                  mlir::spperm::getElementType(ctx, spec.operandType)});
  args.push_back({::spperm::call_arg::kK, IndexType::get(ctx)});
  gpu::GPUFuncOp func = createKernel(module, spec.name, args, spec.threads);
  ImplicitLocOpBuilder b(func.getLoc(), ctx);
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder kb(b, /*vectorReductions=*/false, spec.gridDependencies);
  kb.launchDependents();
  // The order (listed rows only), then acc, C and K.
  const unsigned accArg = listed ? 1 : 0;
  Value acc = func.getArgument(accArg), c = func.getArgument(accArg + 1);
  Value k = spec.k > 0 ? kb.idx(spec.k) : func.getArgument(accArg + 2);
  Value total = kb.mul(kb.idx(listed ? spec.tableRows : spec.rows), k);
  Value table;
  if (listed)
    table = memref::GetGlobalOp::create(
        b, MemRefType::get({spec.tableRows}, b.getI32Type()), spec.rowTable);
  Value threads =
      kb.mul(gpu::GridDimOp::create(b, gpu::Dimension::x), spec.threads);
  Value first = kb.mul(
      kb.add(kb.mul(kb.blockIdX(), spec.threads), kb.threadIdX()), spec.vec);
  // Every thread passes the wait: the accumulator is complete only once
  // the kernels before this one are.
  kb.waitForPrerequisites();
  kb.forLoop(first, total, kb.mul(threads, spec.vec), {},
             [&](Value i, ValueRange) -> SmallVector<Value> {
               Value at = i;
               if (listed) {
                 // Element i of the listed rows: column i % K of the row
                 // of C that table entry i / K names.
                 Value entry = spec.k > 0
                                   ? kb.div(i, spec.k)
                                   : arith::DivUIOp::create(b, i, k);
                 Value col = spec.k > 0 ? kb.rem(i, spec.k)
                                        : arith::RemUIOp::create(b, i, k);
                 Value row = kb.loadIndex(table, entry);
                 Value outRow = kb.loadIndex(func.getArgument(0), row);
                 at = kb.add(kb.mul(outRow, k), col);
               }
               kb.storeF32(kb.loadF32(acc, at, spec.vec), c, at);
               return {};
             });
  gpu::ReturnOp::create(b);
  return argNames(args);
}
