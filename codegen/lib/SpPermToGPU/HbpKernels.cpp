//===- HbpKernels.cpp - The HBP (hash-based 2-D partition) kernel ---------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// One warp per stored 2-D block (docs/Formats.md, "hbp"): warp group by
// group, lane t follows its add_sign chain from
// begin_nnz + t - zero_row and adds the partial row into C[order[row]]. A
// warp first runs its fixed blocks, then takes competitive blocks by atomic
// ticket until none is left; the last warp to finish resets the ticket for
// the next launch. The two counters (ticket, finished warps) are the
// "tickets" parameter, which the runtime provides per stream
// (docs/RuntimeABI.md, "Ownership and threading"): launches on different
// streams never share them, and launches on one stream run one after the
// other. The combine step is the atomic addition into C, which the runtime
// clears before the launch; with 16-bit operands (B and the values widened
// as they are read) into the cleared fp32 accumulator instead, which the
// round kernel after it rounds into C once (docs/Kernels.md, "Half
// precision"). When the column block's tile of B
// (colBlock x vec floats) fits, each warp first copies it into its slice of
// shared memory (coalesced), and the chains read B from there.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "KernelBuilder.h"

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"
#include "spperm/Sparse/Package.h"

using namespace mlir;
using namespace mlir::spperm::codegen;

namespace {

class HbpKernelEmitter {
public:
  HbpKernelEmitter(const HbpKernelSpec &spec, gpu::GPUFuncOp func,
                   ImplicitLocOpBuilder &b)
      : spec(spec), func(func), b(b), kb(b) {}

  void emit(ArrayRef<KernelArg> args) {
    for (auto [i, a] : llvm::enumerate(args))
      params[a.name] = func.getArgument(i);
    K = spec.k > 0 ? kb.idx(spec.k) : params[::spperm::call_arg::kK];
    Value tid = kb.threadIdX();
    Value warp = kb.add(kb.mul(kb.blockIdX(), spec.threads / kWarpSize),
                        kb.div(tid, kWarpSize));
    lane = kb.rem(tid, kWarpSize);
    if (spec.sharedTile) {
      tile = func.getWorkgroupAttributions().front();
      tileBase = kb.mul(kb.div(tid, kWarpSize), spec.colBlock * spec.vec);
    }
    kb.ifThen(kb.lt(warp, spec.warps), [&] {
      Value ptr = params.at(::spperm::buffer::kHbpFixedBlockPtr);
      Value fixed = params.at(::spperm::buffer::kHbpFixedBlocks);
      Value lo = kb.loadIndex(ptr, warp);
      Value hi = kb.loadIndex(ptr, kb.add(warp, 1));
      kb.forLoop(lo, hi, kb.idx(1), {},
                 [&](Value i, ValueRange) -> SmallVector<Value> {
                   processBlock(kb.loadIndex(fixed, i));
                   return {};
                 });
      if (spec.competitive > 0)
        emitCompetitive();
    });
    gpu::ReturnOp::create(b);
  }

private:
  /// Where the partial rows are added: C, or the fp32 accumulator for
  /// 16-bit operands.
  Value output() {
    return params.at(spec.operandType == ::spperm::ValueType::F32
                         ? ::spperm::call_arg::kC
                         : ::spperm::call_arg::kAccumulator);
  }

  /// Takes tickets until the competitive blocks run out, then counts the
  /// warp as finished; the last one resets both counters.
  void emitCompetitive() {
    Value counters = params.at(::spperm::call_arg::kTickets);
    Value first = kb.eq(lane, kb.idx(0));
    Value competitive = params.at(::spperm::buffer::kHbpCompetitiveBlocks);
    scf::WhileOp::create(
        b, TypeRange{b.getIndexType()}, ValueRange{},
        [&](OpBuilder &nested, Location, ValueRange) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(nested.getInsertionBlock());
          Value ticket = kb.guarded(
              first,
              [&] { return kb.atomicAddI32(counters, kb.idx(0), kb.i32(1)); },
              kb.i32(0));
          ticket = kb.toIndex(kb.shuffleIdx(ticket, kb.idx(0), kWarpSize,
                                            kb.i32(-1)));
          scf::ConditionOp::create(b, kb.lt(ticket, spec.competitive),
                                   ValueRange{ticket});
        },
        [&](OpBuilder &nested, Location, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(nested.getInsertionBlock());
          processBlock(kb.loadIndex(competitive, args[0]));
          scf::YieldOp::create(b, ValueRange{});
        });
    kb.ifThen(first, [&] {
      Value done = kb.toIndex(kb.atomicAddI32(counters, kb.idx(1), kb.i32(1)));
      kb.ifThen(kb.eq(done, kb.idx(spec.warps - 1)), [&] {
        memref::StoreOp::create(b, kb.i32(0), counters, ValueRange{kb.idx(0)});
        memref::StoreOp::create(b, kb.i32(0), counters, ValueRange{kb.idx(1)});
      });
    });
  }

  /// Stored block `s`: for each `vec` columns of C, (the B tile, then) warp
  /// group by warp group.
  void processBlock(Value s) {
    const int64_t R = spec.rowBlock, groups = R / kWarpSize;
    Value block = kb.loadIndex(params.at(::spperm::buffer::kHbpBlocks), s);
    Value blockRow = kb.div(block, spec.blockCols);
    Value colBase = kb.mul(kb.rem(block, spec.blockCols), spec.colBlock);
    Value zeroRow = params.at(::spperm::buffer::kHbpZeroRow);
    Value outputHash = params.at(::spperm::buffer::kHbpOutputHash);
    Value beginNnz = params.at(::spperm::buffer::kHbpBeginNnz);
    Value order = params.at(::spperm::buffer::kOrder);
    Type accType = spec.vec == 1
                       ? Type(b.getF32Type())
                       : Type(VectorType::get({spec.vec}, b.getF32Type()));
    kb.forLoop(
        kb.idx(0), K, kb.idx(spec.vec), {},
        [&](Value kBase, ValueRange) -> SmallVector<Value> {
          if (spec.sharedTile)
            loadTile(colBase, kBase);
          kb.forLoop(
              kb.idx(0), kb.idx(groups), kb.idx(1), {},
              [&](Value g, ValueRange) -> SmallVector<Value> {
                Value slot =
                    kb.add(kb.add(kb.mul(s, R), kb.mul(g, kWarpSize)), lane);
                Value zr = kb.loadIndex(zeroRow, slot);
                kb.ifThen(kb.ge(zr, kb.idx(0)), [&] {
                  Value prow = kb.add(kb.mul(blockRow, R),
                                      kb.loadIndex(outputHash, slot));
                  Value orow = kb.loadIndex(order, prow);
                  Value j0 = kb.sub(
                      kb.add(kb.loadIndex(beginNnz,
                                          kb.add(kb.mul(s, groups), g)),
                             lane),
                      zr);
                  Value acc = walkChain(j0, kBase, colBase, accType);
                  // Scalar atomics even on sm_90: each lane adds to its
                  // own row, and one red.global.add.v4.f32 per lane made
                  // the kernel 10 % slower (0.64x on bsr-2048x512-b8;
                  // docs/Kernels.md, "Families", hbp).
                  kb.atomicAddF32(acc, output(),
                                  kb.add(kb.mul(orow, K), kBase));
                });
                return {};
              });
          return {};
        });
  }

  /// Copies B[colBase .. colBase + colBlock, kBase .. kBase + vec) into the
  /// warp's tile (zero past N), between two warp barriers.
  void loadTile(Value colBase, Value kBase) {
    Value all = kb.i32(-1);
    NVVM::SyncWarpOp::create(b, all);
    Value B = params.at(::spperm::call_arg::kB);
    kb.forLoop(lane, kb.idx(spec.colBlock), kb.idx(kWarpSize), {},
               [&](Value c, ValueRange) -> SmallVector<Value> {
                 Value col = kb.add(colBase, c);
                 Value in = kb.lt(col, spec.cols);
                 for (int64_t e = 0; e < spec.vec; ++e) {
                   Value v = kb.guarded(
                       in,
                       [&] {
                         return kb.loadF32(
                             B, kb.add(kb.add(kb.mul(col, K), kBase),
                                       kb.idx(e)),
                             1);
                       },
                       kb.f32(0.0f));
                   memref::StoreOp::create(
                       b, v, tile,
                       ValueRange{kb.add(tileBase,
                                         kb.add(kb.mul(c, spec.vec),
                                                kb.idx(e)))});
                 }
                 return {};
               });
    NVVM::SyncWarpOp::create(b, all);
  }

  /// The lane's sum over its chain starting at entry j0: a do-while over
  /// add_sign (the last entry has add_sign -1). B comes from the tile when
  /// there is one.
  Value walkChain(Value j0, Value kBase, Value colBase, Type accType) {
    Value col = params.at(::spperm::buffer::kHbpCol), data = params.at(::spperm::buffer::kHbpData);
    Value addSign = params.at(::spperm::buffer::kHbpAddSign), B = params.at(::spperm::call_arg::kB);
    Value yes = arith::ConstantIntOp::create(b, 1, 1);
    Type idxType = b.getIndexType(), i1 = b.getI1Type();
    auto loop = scf::WhileOp::create(
        b, TypeRange{idxType, accType, i1},
        ValueRange{j0, kb.zero(accType), yes},
        [&](OpBuilder &nested, Location, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(nested.getInsertionBlock());
          scf::ConditionOp::create(b, args[2], args);
        },
        [&](OpBuilder &nested, Location, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(nested.getInsertionBlock());
          Value j = args[0];
          Value c = kb.loadIndex(col, j);
          Value bv;
          if (spec.sharedTile) {
            Value at = kb.add(tileBase, kb.mul(kb.sub(c, colBase), spec.vec));
            SmallVector<Value> elems;
            for (int64_t e = 0; e < spec.vec; ++e)
              elems.push_back(kb.load(tile, kb.add(at, kb.idx(e))));
            bv = spec.vec == 1
                     ? elems[0]
                     : vector::FromElementsOp::create(
                           b, cast<VectorType>(accType), elems)
                           .getResult();
          } else {
            bv = kb.loadF32(B, kb.add(kb.mul(c, K), kBase), spec.vec);
          }
          Value acc = kb.fma(kb.loadF32(data, j, 1), bv, args[1]);
          Value step = kb.loadIndex(addSign, j);
          Value more = arith::CmpIOp::create(b, arith::CmpIPredicate::sgt,
                                             step, kb.idx(0));
          scf::YieldOp::create(b, ValueRange{kb.add(j, step), acc, more});
        });
    return loop.getResult(1);
  }

  const HbpKernelSpec &spec;
  gpu::GPUFuncOp func;
  ImplicitLocOpBuilder &b;
  KernelBuilder kb;
  llvm::StringMap<Value> params;
  Value lane, K, tile, tileBase;
};

} // namespace

std::vector<std::string>
mlir::spperm::codegen::emitHbpKernel(gpu::GPUModuleOp module,
                                     const HbpKernelSpec &spec) {
  MLIRContext *ctx = module.getContext();
  Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
  Type operand = mlir::spperm::getElementType(ctx, spec.operandType);
  SmallVector<KernelArg> args = {
      {::spperm::buffer::kOrder, i32},
      {::spperm::buffer::kHbpBlocks, i32},
      {::spperm::buffer::kHbpCol, i32},
      {::spperm::buffer::kHbpData,
       mlir::spperm::getElementType(ctx, spec.valueType)},
      {::spperm::buffer::kHbpAddSign, i32},
      {::spperm::buffer::kHbpZeroRow, i32},
      {::spperm::buffer::kHbpBeginNnz, i64},
      {::spperm::buffer::kHbpOutputHash, i32},
      {::spperm::buffer::kHbpFixedBlocks, i32},
      {::spperm::buffer::kHbpFixedBlockPtr, i32},
      {::spperm::buffer::kHbpCompetitiveBlocks, i32},
      {::spperm::call_arg::kB, operand},
      outputArg(ctx, spec.operandType,
                spec.operandType != ::spperm::ValueType::F32)};
  // Only a kernel with competitive blocks takes tickets.
  if (spec.competitive > 0)
    args.push_back({::spperm::call_arg::kTickets, i32});
  args.push_back({::spperm::call_arg::kK, IndexType::get(ctx)});
  gpu::GPUFuncOp func = createKernel(module, spec.name, args, spec.threads);
  if (spec.sharedTile)
    addSharedF32Buffer(func,
                       spec.threads / kWarpSize * spec.colBlock * spec.vec);
  ImplicitLocOpBuilder b(func.getLoc(), ctx);
  b.setInsertionPointToStart(&func.getBody().front());
  HbpKernelEmitter(spec, func, b).emit(args);
  return argNames(args);
}
