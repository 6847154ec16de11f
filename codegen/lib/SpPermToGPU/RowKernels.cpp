//===- RowKernels.cpp - CSR and Blocked-ELL row kernels -------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The row-oriented kernel family (docs/Kernels.md): CSR SpMM with a group of
// lanes per row, the same with a Blocked-ELL prologue for bell layers (one
// pass over C: the dense blocks and the CSR residual of a row are summed in
// registers and stored once), SpMV with lanes striding over a row, and the
// split kernels that share long rows among several groups.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "KernelBuilder.h"

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::spperm::codegen;

gpu::GPUFuncOp mlir::spperm::codegen::createKernel(gpu::GPUModuleOp module,
                                                   StringRef name,
                                                   ArrayRef<KernelArg> args,
                                                   int64_t threads) {
  OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  SmallVector<Type> types;
  for (const KernelArg &a : args)
    types.push_back(a.type.isIndex()
                        ? a.type
                        : MemRefType::get({ShapedType::kDynamic}, a.type));
  auto func = gpu::GPUFuncOp::create(b, module.getLoc(), name,
                                     b.getFunctionType(types, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  return func;
}

std::vector<std::string>
mlir::spperm::codegen::argNames(ArrayRef<KernelArg> args) {
  std::vector<std::string> names;
  for (const KernelArg &a : args)
    names.push_back(a.name);
  return names;
}

bool mlir::spperm::codegen::narrowsColumnIndices(NarrowIndexMode mode,
                                                 int64_t cols) {
  return mode == NarrowIndexMode::Auto && cols <= ::spperm::kMaxNarrowColumns;
}

KernelArg mlir::spperm::codegen::columnIndexArg(MLIRContext *ctx,
                                                std::string_view name) {
  const bool narrow = !::spperm::narrowedBuffer(name).empty();
  return {name, IntegerType::get(ctx, narrow ? 16 : 32)};
}

KernelArg mlir::spperm::codegen::outputArg(MLIRContext *ctx,
                                           ::spperm::ValueType operandType,
                                           bool accumulator) {
  if (accumulator)
    return {::spperm::call_arg::kAccumulator, Float32Type::get(ctx)};
  return {::spperm::call_arg::kC,
          mlir::spperm::getElementType(ctx, operandType)};
}

SmallVector<KernelArg> mlir::spperm::codegen::bellBlockArgs(
    MLIRContext *ctx, bool condensed, ::spperm::ValueType valueType,
    ::spperm::ValueType operandType, bool accumulator) {
  namespace buffer = ::spperm::buffer;
  namespace call_arg = ::spperm::call_arg;
  Type i32 = IntegerType::get(ctx, 32);
  SmallVector<KernelArg> args = {
      {buffer::kOrder, i32},
      {buffer::kBellBlockCol, i32},
      {buffer::kBellBlockValues,
       mlir::spperm::getElementType(ctx, valueType)}};
  if (condensed)
    args.push_back({buffer::kBellTileCol, i32});
  args.push_back(
      {call_arg::kB, mlir::spperm::getElementType(ctx, operandType)});
  args.push_back(outputArg(ctx, operandType, accumulator));
  args.push_back({call_arg::kK, IndexType::get(ctx)});
  return args;
}

void mlir::spperm::codegen::addSharedF32Buffer(gpu::GPUFuncOp func,
                                               int64_t count) {
  addSharedBuffer(func, count, Float32Type::get(func.getContext()));
}

void mlir::spperm::codegen::addSharedBuffer(gpu::GPUFuncOp func,
                                            int64_t count, Type element) {
  MLIRContext *ctx = func.getContext();
  auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  BlockArgument buffer = func.addWorkgroupAttribution(
      MemRefType::get({count}, element, MemRefLayoutAttrInterface(), space),
      func.getLoc());
  func.setWorkgroupAttributionAttr(
      buffer.getArgNumber() - func.getFirstWorkgroupAttributionIndex(),
      LLVM::LLVMDialect::getAlignAttrName(),
      IntegerAttr::get(IntegerType::get(ctx, 64), 16));
}

namespace {

/// The values every row kernel computes first.
struct RowState {
  Value valid;  // i1: this group has a row or chunk
  Value row;    // its position in the permuted row space
  Value start;  // first entry
  Value end;    // one past the last entry to process here
  Value outRow; // the row of C (original order)
  Value isLong; // i1: a long row (RowSource::longThreshold), or null
};

class RowKernelEmitter {
public:
  RowKernelEmitter(const RowKernelSpec &spec, gpu::GPUFuncOp func,
                   ImplicitLocOpBuilder &b)
      : spec(spec), func(func), b(b),
        kb(b, spec.vectorReductions, spec.gridDependencies) {}

  /// The whole kernel body: with `longRows`, its CTAs first (a branch
  /// every thread of a CTA takes alike, so barriers stay legal), then this
  /// spec's.
  void emit(ArrayRef<KernelArg> args, const RowKernelSpec *longRows) {
    bind(args);
    kb.launchDependents();
    Value cta = kb.blockIdX();
    const int64_t longCtas = longRows ? longRowCtas(*longRows) : 0;
    if (!longRows) {
      emitBody(cta);
    } else {
      kb.ifThenElse(
          kb.lt(cta, longCtas),
          [&] {
            RowKernelEmitter other(*longRows, func, b);
            other.bind(args);
            other.emitBody(cta);
          },
          [&] { emitBody(kb.sub(cta, kb.idx(longCtas))); });
    }
    gpu::ReturnOp::create(b);
  }

private:
  void bind(ArrayRef<KernelArg> args) {
    for (auto [i, a] : llvm::enumerate(args))
      params[a.name] = func.getArgument(i);
  }

  /// The spec's work for CTA `cta` of its own CTAs.
  void emitBody(Value cta) {
    tid = kb.threadIdX();
    Value group = kb.div(tid, spec.lanes);
    lane = kb.rem(tid, spec.lanes);
    mask = kb.segmentMask(kb.rem(tid, kWarpSize), spec.lanes);
    // Groups of one row are consecutive: part p of row r is group
    // r * parts + p of the CTA.
    part = kb.rem(group, spec.parts);
    // With K slices, the CTAs of one slice are consecutive.
    if (spec.kSlices > 1) {
      slice = kb.div(cta, spec.ctasPerSlice);
      cta = kb.rem(cta, spec.ctasPerSlice);
    }
    Value item =
        kb.add(kb.mul(cta, spec.threads / (spec.lanes * spec.parts)),
               kb.div(group, spec.parts));
    K = spec.k > 0 ? kb.idx(spec.k) : params[::spperm::call_arg::kK];
    if (spec.spmv && spec.rowsPerGroup > 1)
      emitSpmvRows(item);
    else if (spec.spmv)
      emitSpmv(locate(item));
    else
      emitSpmm(locate(item));
  }

  Value param(llvm::StringRef name) { return params.at(name); }

  /// B[row, kcol .. kcol + vec) as f32 (row an index below 2^31). With K
  /// read at run time its address is one 32 x 32 -> 64-bit multiply-add of
  /// the row and K's bytes (below 2^32: the variant's K bound,
  /// maxRunTimeK, RowPlan.h), as a baked-in K gets from the backend.
  Value loadB(Value row, Value kcol) {
    Value B = param(::spperm::call_arg::kB);
    if (spec.k > 0)
      return kb.loadF32(B, kb.add(kb.mul(row, K), kcol), spec.vec);
    return kb.loadRowF32(B, row, K, kcol, spec.vec);
  }

  /// Where the sums go: C, or the fp32 accumulator
  /// (RowKernelSpec::outputAccumulator).
  Value output() {
    return param(spec.outputAccumulator ? ::spperm::call_arg::kAccumulator
                                        : ::spperm::call_arg::kC);
  }

  RowState locate(Value item) {
    RowState s;
    Value zero = kb.idx(0);
    const RowSource &src = spec.source;
    if (src.isChunks()) {
      s.valid = kb.lt(item, src.chunks);
      auto type = MemRefType::get({3 * src.chunks}, b.getI32Type());
      Value table = memref::GetGlobalOp::create(b, type, src.chunkTable);
      Value base = kb.mul(item, 3);
      s.row = kb.guarded(
          s.valid, [&] { return kb.loadIndex(table, base); }, zero);
      s.start = kb.guarded(
          s.valid, [&] { return kb.loadIndex(table, kb.add(base, 1)); }, zero);
      s.end = kb.guarded(
          s.valid, [&] { return kb.loadIndex(table, kb.add(base, 2)); }, zero);
    } else {
      Value rowPtr = param(spec.rowPtr);
      if (src.isTable()) {
        s.valid = kb.lt(item, src.tableRows);
        auto type = MemRefType::get({src.tableRows}, b.getI32Type());
        Value table = memref::GetGlobalOp::create(b, type, src.rowTable);
        s.row = kb.guarded(
            s.valid, [&] { return kb.loadIndex(table, item); }, zero);
      } else {
        s.row = kb.add(item, src.rowBegin);
        s.valid = kb.lt(s.row, src.rowEnd);
      }
      s.start = kb.guarded(
          s.valid, [&] { return kb.loadIndex(rowPtr, s.row); }, zero);
      s.end = kb.guarded(
          s.valid, [&] { return kb.loadIndex(rowPtr, kb.add(s.row, 1)); },
          zero);
      if (src.longThreshold > 0) {
        Value isLong = arith::CmpIOp::create(
            b, arith::CmpIPredicate::sgt, kb.sub(s.end, s.start),
            kb.idx(src.longThreshold));
        s.end = kb.select(isLong, s.start, s.end);
        s.isLong = isLong;
        if (src.dropLongRows)
          s.valid = kb.andI(s.valid, arith::XOrIOp::create(
                                         b, isLong,
                                         arith::ConstantIntOp::create(b, 1, 1)));
      }
    }
    Value order = param(spec.order);
    s.outRow =
        kb.guarded(s.valid, [&] { return kb.loadIndex(order, s.row); }, zero);
    return s;
  }

  /// acc + the dense blocks of row `s.row` (bell), for the columns starting
  /// at `kcol` (SpMM) or, for SpMV, the lane's share of each block row.
  Value densePrologue(const RowState &s, Value acc, Value kcol, Value active) {
    const DenseBlocks &d = spec.dense;
    if (d.tau == 0 || d.width == 0)
      return acc;
    return kb.guarded(
        s.valid,
        [&]() -> Value {
          Value blockRow = kb.div(s.row, d.tau);
          Value inBlock = kb.rem(s.row, d.tau);
          Value blockCol = param(spec.blockCol);
          Value blockValues = param(spec.blockValues);
          return kb.forLoop(
              part, kb.idx(d.width), kb.idx(spec.parts), acc,
              [&](Value w, ValueRange it) -> SmallVector<Value> {
                Value slot = kb.add(kb.mul(blockRow, d.width), w);
                Value bc = kb.loadIndex(blockCol, slot);
                Value has = kb.ge(bc, kb.idx(0));
                return {kb.guarded(
                    has,
                    [&]() -> Value {
                      Value col0 = kb.mul(bc, d.tau);
                      // Condensed: the slot's columns are listed, -1 past
                      // the last; a -1 column's value is 0 and its B row
                      // is not read.
                      Value jmax = d.condensed
                                       ? kb.idx(d.tau)
                                       : kb.min(kb.idx(d.tau),
                                                kb.sub(kb.idx(d.cols), col0));
                      Value base = kb.mul(
                          kb.add(kb.mul(slot, d.tau), inBlock), d.tau);
                      Value lb = spec.spmv ? lane : kb.idx(0);
                      Value step = kb.idx(spec.spmv ? spec.lanes : 1);
                      return kb.forLoop(
                          lb, jmax, step, it[0],
                          [&](Value j, ValueRange a) -> SmallVector<Value> {
                            Value v = kb.loadF32(blockValues, kb.add(base, j), 1);
                            if (!d.condensed)
                              return {multiplyAdd(v, kb.add(col0, j), kcol,
                                                  active, a[0])};
                            Value bRow = kb.loadIndex(
                                param(spec.tileCol),
                                kb.add(kb.mul(slot, d.tau), j));
                            Value listed = kb.ge(bRow, kb.idx(0));
                            return {kb.guarded(
                                listed,
                                [&] {
                                  return multiplyAdd(v, bRow, kcol, active,
                                                     a[0]);
                                },
                                a[0])};
                          })[0];
                    },
                    it[0])};
              })[0];
        },
        acc);
  }

  /// acc + v * B[bRow, kcol .. kcol + vec), skipped for inactive lanes.
  Value multiplyAdd(Value v, Value bRow, Value kcol, Value active, Value acc) {
    Value B = param(::spperm::call_arg::kB);
    if (spec.spmv)
      return kb.fma(v, kb.loadF32(B, bRow, 1), acc);
    return kb.guarded(
        active, [&] { return kb.fma(v, loadB(bRow, kcol), acc); }, acc);
  }

  void emitSpmm(const RowState &s) {
    Value colIdx = param(spec.colIdx), values = param(spec.values);
    Type accType = spec.vec == 1
                       ? Type(b.getF32Type())
                       : Type(VectorType::get({spec.vec}, b.getF32Type()));
    int64_t kTile = spec.lanes * spec.vec;
    // The columns kBase .. kBase + kTile of C (the last tile clipped at K).
    auto tile = [&](Value kBase) {
      Value kcol = kb.add(kBase, kb.mul(lane, spec.vec));
      Value active = spec.k > 0 && spec.k % kTile == 0
                         ? arith::ConstantIntOp::create(b, 1, 1)
                         : kb.lt(kcol, K);
      Value acc = densePrologue(s, kb.zero(accType), kcol, active);
      // Inactive lanes (past K) still take part in the shuffles; they
      // read an in-bounds column and their result is never stored.
      Value kcolSafe = spec.k > 0 && spec.k % kTile == 0
                           ? kcol
                           : kb.min(kcol, kb.sub(K, kb.idx(spec.vec)));
      if (spec.lanes == 1) {
        // Part p of the row takes entries p, p + parts, ...
        acc = kb.forLoop(kb.add(s.start, part), s.end, kb.idx(spec.parts), acc,
                         [&](Value p, ValueRange a) -> SmallVector<Value> {
                           Value c = kb.loadIndex(colIdx, p);
                           Value v = kb.loadF32(values, p, 1);
                           return {multiplyAdd(v, c, kcol, active, a[0])};
                         })[0];
      } else if (spec.directEntries) {
        acc = directEntries(s, kcolSafe, acc);
      } else {
        // Part p of the row takes steps p, p + parts, ...
        acc = kb.forLoop(
            kb.add(s.start, kb.mul(part, spec.lanes)), s.end,
            kb.idx(spec.lanes * spec.parts), acc,
            [&](Value p, ValueRange a) -> SmallVector<Value> {
              // The group loads `lanes` entries at once (coalesced) and
              // hands them around by shuffle.
              Value q = kb.add(p, lane);
              Value in = kb.lt(q, s.end);
              Value c = kb.guarded(
                  in, [&] { return kb.loadInteger(colIdx, q); }, kb.i32(0));
              Value v = kb.guarded(
                  in, [&] { return kb.loadF32(values, q, 1); }, kb.f32(0.0f));
              Value n = kb.min(kb.idx(spec.lanes), kb.sub(s.end, p));
              return {broadcastBatch(c, v, n, kcolSafe, a[0])};
            })[0];
      }
      Value C = output();
      Value owner = kb.andI(s.valid, active);
      if (spec.parts > 1) {
        acc = reduceParts(acc);
        owner = kb.andI(owner, kb.eq(part, kb.idx(0)));
      }
      // Everything above reads only A and B: with grid dependencies
      // it overlaps the kernels before this one. Every thread passes
      // the wait before touching C.
      kb.waitForPrerequisites();
      kb.ifThen(owner, [&] {
        Value at = kb.add(kb.mul(s.outRow, K), kcol);
        if (spec.source.isChunks()) {
          kb.atomicAddF32(acc, C, at);
          return;
        }
        Value sum = acc;
        if (spec.accumulator)
          sum = kb.fadd(sum, kb.loadF32(param(::spperm::call_arg::kAccumulator),
                                        at, spec.vec));
        if (!spec.longRowsToAccumulator) {
          kb.storeF32(sum, C, at);
          return;
        }
        // A long row's chunks are added to the accumulator next; its
        // C row is stored by the round kernel.
        kb.ifThenElse(
            s.isLong,
            [&] {
              kb.storeF32(sum, param(::spperm::call_arg::kAccumulator), at);
            },
            [&] { kb.storeF32(sum, C, at); });
      });
    };
    // One K slice per CTA (kSlices > 1), else every tile of K in turn.
    // With K read at run time (a range variant) the grid holds a slice for
    // every tile of K (the variant's K bound, boundRunTimeK, keeps the
    // grid below its limit): slice s takes tile s. A loop over the tiles
    // past the grid would keep the row's state live across the walk (more
    // registers, fewer CTAs a multiprocessor: docs/Kernels.md, "Range
    // variants").
    if (spec.kSlices > 1) {
      Value kFirst = kb.mul(slice, kTile);
      if (spec.growsWithK())
        kb.ifThen(kb.lt(kFirst, K), [&] { tile(kFirst); });
      else
        tile(kFirst);
      return;
    }
    kb.forLoop(kb.idx(0), K, kb.idx(kTile), {},
               [&](Value kBase, ValueRange) -> SmallVector<Value> {
                 tile(kBase);
                 return {};
               });
  }

  /// acc + row `s`'s entries times their rows of B (columns `kcol` ..
  /// kcol + vec; every lane reads a valid column, and an inactive lane's
  /// sum is never stored), each lane loading every entry's column and
  /// value itself (RowKernelSpec::directEntries): `batch` entries' loads
  /// issued before their multiply-adds, then the last count % batch
  /// entries one at a time.
  Value directEntries(const RowState &s, Value kcol, Value acc) {
    Value colIdx = param(spec.colIdx), values = param(spec.values);
    Value B = param(::spperm::call_arg::kB);
    const int64_t n = spec.batch;
    // acc + entries first .. first + count: every column, B row and value
    // loaded, then the multiply-adds.
    auto batch = [&](Value first, int64_t count, Value sum) -> Value {
      SmallVector<Value> vals, rows;
      for (int64_t t = 0; t < count; ++t) {
        Value q = t == 0 ? first : kb.add(first, kb.idx(t));
        Value c = kb.loadIndex(colIdx, q);
        rows.push_back(kb.loadF32(B, kb.add(kb.mul(c, K), kcol), spec.vec));
        vals.push_back(kb.loadF32(values, q, 1));
      }
      for (auto [v, row] : llvm::zip(vals, rows))
        sum = kb.fma(v, row, sum);
      return sum;
    };
    Value fullEnd = kb.sub(s.end, kb.rem(kb.sub(s.end, s.start), n));
    acc = kb.forLoop(s.start, fullEnd, kb.idx(n), acc,
                     [&](Value p, ValueRange a) -> SmallVector<Value> {
                       return {batch(p, n, a[0])};
                     })[0];
    if (n == 1)
      return acc;
    return kb.forLoop(fullEnd, s.end, kb.idx(1), acc,
                      [&](Value q, ValueRange a) -> SmallVector<Value> {
                        return {batch(q, 1, a[0])};
                      })[0];
  }

  /// The sum of the row's `parts` partial sums, valid in part 0's lanes.
  /// Every thread of the CTA must call it (it may hold a barrier): groups
  /// of one warp add by butterfly shuffles, then each warp's first group
  /// leaves its sum in shared memory for the row's first warp.
  Value reduceParts(Value acc) {
    const int64_t inWarp =
        std::min(spec.parts, std::max<int64_t>(1, kWarpSize / spec.lanes));
    const int64_t width = spec.lanes * inWarp;
    Value laneInWarp = kb.rem(tid, kWarpSize);
    Value warpMask = kb.segmentMask(laneInWarp, width);
    for (int64_t offset = spec.lanes; offset < width; offset *= 2)
      acc = kb.fadd(acc, kb.shuffleXor(acc, offset, width, warpMask));
    const int64_t warps = spec.parts / inWarp;
    if (warps == 1)
      return acc;
    // Here width == 32: a row's warps are consecutive and its group 0 is
    // the first group of its first warp.
    Value partials = func.getWorkgroupAttributions().front();
    Value warp = kb.div(tid, kWarpSize);
    Value slot = kb.mul(lane, spec.vec);
    const int64_t stride = spec.lanes * spec.vec;
    kb.ifThen(kb.lt(laneInWarp, kb.idx(spec.lanes)), [&] {
      kb.storeF32(acc, partials, kb.add(kb.mul(warp, stride), slot));
    });
    kb.barrier();
    acc = kb.guarded(
        kb.eq(part, kb.idx(0)),
        [&] {
          Value sum = acc;
          for (int64_t w = 1; w < warps; ++w)
            sum = kb.fadd(sum, kb.loadF32(partials,
                                          kb.add(kb.mul(kb.add(warp, w), stride),
                                                 slot),
                                          spec.vec));
          return sum;
        },
        acc);
    // The next K tile writes the partials again.
    kb.barrier();
    return acc;
  }

  /// acc + the group's `lanes` cached entries (c, v in the lanes; the first
  /// n are real) times their rows of B, in batches: all the batch's
  /// shuffles and B loads are issued before its multiply-adds, so a lane
  /// keeps several loads in flight instead of waiting out each one. In the
  /// loop over batches the shuffles come first and the loads after them:
  /// with each load next to its shuffle, ptxas schedules the first
  /// multiply-add ahead of the second load, one load in flight. The
  /// straight-line batches of 8 keep each load beside its shuffle: so
  /// ptxas issues all 8 loads first, where with the shuffles first it
  /// interleaves the loads with the multiply-adds (docs/Kernels.md,
  /// "Broadcast batches"). Entries past n (column 0, value 0) are loaded
  /// but not added.
  Value broadcastBatch(Value c, Value v, Value n, Value kcol, Value acc) {
    const int64_t kBatch = spec.batch;
    if (spec.dynamicBatches) {
      // Lanes past the segment (j >= lanes) read some lane's entry, which
      // is a valid column; the select drops it. The counter is an i32 (below
      // lanes + batch): one register and single-word compares in the loop.
      Value n32 = kb.toI32(n);
      return kb.forLoop(
          kb.i32(0), n32, kb.i32(static_cast<int32_t>(kBatch)), acc,
          [&](Value j0, ValueRange a) -> SmallVector<Value> {
            SmallVector<Value> cols, vals, rows, in;
            for (int64_t t = 0; t < kBatch; ++t) {
              Value j = t == 0 ? j0
                               : kb.add(j0, kb.i32(static_cast<int32_t>(t)));
              cols.push_back(kb.shuffleIdx(c, j, spec.lanes, mask));
              vals.push_back(kb.shuffleIdx(v, j, spec.lanes, mask));
              in.push_back(kb.lt(j, n32));
            }
            for (Value cj : cols)
              rows.push_back(loadB(kb.toIndex(cj), kcol));
            Value out = a[0];
            for (int64_t t = 0; t < kBatch; ++t) {
              Value sum = kb.fma(vals[t], rows[t], out);
              out = t == 0 ? sum : kb.select(in[t], sum, out);
            }
            return {out};
          })[0];
    }
    for (int64_t first = 0; first < spec.lanes; first += kBatch) {
      const int64_t last = std::min(spec.lanes, first + kBatch);
      auto batch = [&, first, last](Value accIn) -> Value {
        SmallVector<Value> vals, rows;
        for (int64_t j = first; j < last; ++j) {
          Value cj =
              kb.toIndex(kb.shuffleIdx(c, kb.idx(j), spec.lanes, mask));
          vals.push_back(kb.shuffleIdx(v, kb.idx(j), spec.lanes, mask));
          rows.push_back(loadB(cj, kcol));
        }
        Value out = accIn;
        for (int64_t j = first; j < last; ++j) {
          Value sum = kb.fma(vals[j - first], rows[j - first], out);
          out = kb.select(kb.lt(kb.idx(j), n), sum, out);
        }
        return out;
      };
      // With short rows (skipEmptyBatches), later batches only when the
      // chunk reaches them (n is the same for the whole group, so the
      // branch does not split it): a wide group's empty slots cost nothing.
      acc = first == 0 || !spec.skipEmptyBatches
                ? batch(acc)
                : kb.guarded(kb.lt(kb.idx(first), n),
                             [&] { return batch(acc); }, acc);
    }
    return acc;
  }

  /// SpMV of `rowsPerGroup` short rows per group: every row's entry loads,
  /// B gathers and reductions are straight-line code, independent of each
  /// other.
  void emitSpmvRows(Value item) {
    Value colIdx = param(spec.colIdx), values = param(spec.values);
    Value B = param(::spperm::call_arg::kB), C = output();
    SmallVector<RowState> rows;
    SmallVector<Value> sums;
    for (int64_t r = 0; r < spec.rowsPerGroup; ++r)
      rows.push_back(locate(kb.add(kb.mul(item, spec.rowsPerGroup), r)));
    for (const RowState &s : rows) {
      Value q = kb.add(s.start, lane);
      Value in = kb.lt(q, s.end);
      sums.push_back(kb.guarded(
          in,
          [&] {
            Value c = kb.loadIndex(colIdx, q);
            return kb.fma(kb.loadF32(values, q, 1), kb.loadF32(B, c, 1),
                          kb.f32(0.0f));
          },
          kb.f32(0.0f)));
    }
    for (int64_t offset = spec.lanes / 2; offset >= 1; offset /= 2)
      for (Value &sum : sums)
        sum = kb.fadd(sum, kb.shuffleXor(sum, offset, spec.lanes, mask));
    kb.waitForPrerequisites();
    Value first = kb.eq(lane, kb.idx(0));
    for (auto [s, sum] : llvm::zip(rows, sums))
      kb.ifThen(kb.andI(s.valid, first),
                [&] { kb.storeF32(sum, C, s.outRow); });
  }

  void emitSpmv(const RowState &s) {
    Value colIdx = param(spec.colIdx), values = param(spec.values);
    Value B = param(::spperm::call_arg::kB);
    Value sum = densePrologue(s, kb.f32(0.0f), Value(), Value());
    sum = kb.forLoop(kb.add(s.start, lane), s.end, kb.idx(spec.lanes), sum,
                     [&](Value q, ValueRange a) -> SmallVector<Value> {
                       Value c = kb.loadIndex(colIdx, q);
                       return {kb.fma(kb.loadF32(values, q, 1), kb.loadF32(B, c, 1),
                                      a[0])};
                     })[0];
    for (int64_t offset = spec.lanes / 2; offset >= 1; offset /= 2)
      sum = kb.fadd(sum, kb.shuffleXor(sum, offset, spec.lanes, mask));
    kb.waitForPrerequisites();
    Value C = output();
    Value first = kb.eq(lane, kb.idx(0));
    kb.ifThen(kb.andI(s.valid, first), [&] {
      if (spec.source.isChunks())
        kb.atomicAddF32(sum, C, s.outRow);
      else
        kb.storeF32(sum, C, s.outRow);
    });
  }

  const RowKernelSpec &spec;
  gpu::GPUFuncOp func;
  ImplicitLocOpBuilder &b;
  KernelBuilder kb;
  llvm::StringMap<Value> params;
  /// The thread's index in the CTA, its lane in its group, which part of
  /// its row it takes, its group's shuffle mask, K, the CTA's K slice
  /// (kSlices > 1).
  Value tid, lane, part, mask, K, slice;
};

} // namespace

int64_t mlir::spperm::codegen::longRowCtas(const RowKernelSpec &spec) {
  const int64_t perCta = spec.threads / (spec.lanes * spec.parts);
  return std::max<int64_t>(1, (spec.source.tableRows + perCta - 1) / perCta);
}

std::vector<std::string>
mlir::spperm::codegen::emitRowKernel(gpu::GPUModuleOp module,
                                     const RowKernelSpec &spec,
                                     const RowKernelSpec *longRows) {
  MLIRContext *ctx = module.getContext();
  Type i32 = IntegerType::get(ctx, 32), f32 = Float32Type::get(ctx);
  SmallVector<KernelArg> args = {{spec.order, i32}};
  if (!spec.source.isChunks())
    args.push_back({spec.rowPtr, i32});
  args.push_back(columnIndexArg(ctx, spec.colIdx));
  Type values = mlir::spperm::getElementType(ctx, spec.valueType);
  args.push_back({spec.values, values});
  if (spec.dense.tau > 0 && spec.dense.width > 0) {
    args.push_back({spec.blockCol, i32});
    args.push_back({spec.blockValues, values});
    if (spec.dense.condensed)
      args.push_back({spec.tileCol, i32});
  }
  Type operand = mlir::spperm::getElementType(ctx, spec.operandType);
  args.push_back({::spperm::call_arg::kB, operand});
  args.push_back(outputArg(ctx, spec.operandType, spec.outputAccumulator));
  if (spec.accumulator || spec.longRowsToAccumulator)
    args.push_back({::spperm::call_arg::kAccumulator, f32});
  args.push_back({::spperm::call_arg::kK, IndexType::get(ctx)});
  assert((!spec.longRowsToAccumulator ||
          (!spec.spmv && !spec.accumulator && !spec.outputAccumulator &&
           !longRows && !spec.source.isChunks() &&
           spec.source.longThreshold > 0 && !spec.source.dropLongRows)) &&
         "long rows go to the accumulator from an SpMM row kernel that "
         "keeps them and writes C");
  assert((!spec.accumulator || (!spec.spmv && !spec.source.isChunks() &&
                                (!longRows || longRows->accumulator))) &&
         "the accumulator is added by SpMM rows stored once");
  assert((spec.operandType == ::spperm::ValueType::F32 ||
          spec.outputAccumulator || !spec.source.isChunks()) &&
         "16-bit C is stored once per element, never added atomically");
  assert(!(spec.accumulator && spec.outputAccumulator) &&
         "a kernel reads the accumulator or writes it");
  assert((!spec.directEntries ||
          (!spec.spmv && spec.dynamicBatches && spec.parts == 1 &&
           spec.lanes > 1 && spec.k > 0)) &&
         (!longRows || !longRows->directEntries) &&
         "direct entries replace the dynamic batches of one group a row "
         "with K baked in");
  assert(spec.threads % (spec.lanes * spec.parts) == 0 &&
         "a CTA must hold whole rows");
  assert(
      (spec.kSlices == 1 ||
       (!spec.spmv &&
        (spec.k <= 0 || ((spec.kSlices - 1) * spec.lanes * spec.vec < spec.k &&
                         spec.kSlices * spec.lanes * spec.vec >= spec.k)))) &&
      "K slices need SpMM, and cover a baked-in K exactly (K read at "
      "run time: as many slices as the grid holds)");
  assert((!longRows || !longRows->growsWithK()) &&
         "the long rows' CTAs take all of K; only the other rows' slices "
         "grow with it");
  assert((!longRows ||
          (!spec.spmv && !longRows->spmv && longRows->source.isTable() &&
           longRows->threads == spec.threads &&
           longRows->dense.tau == spec.dense.tau &&
           longRows->rowPtr == spec.rowPtr && longRows->colIdx == spec.colIdx &&
           spec.source.dropLongRows)) &&
         "long rows run over the same arrays, and the row spec drops them");
  gpu::GPUFuncOp func = createKernel(module, spec.name, args, spec.threads);
  // The partial sums of the first group of every warp, for rows shared by
  // groups of several warps.
  int64_t partials = 0;
  for (const RowKernelSpec *s : {&spec, longRows})
    if (s && !s->spmv && s->lanes * s->parts > kWarpSize)
      partials = std::max(partials,
                          s->threads / kWarpSize * s->lanes * s->vec);
  if (partials > 0)
    addSharedF32Buffer(func, partials);
  ImplicitLocOpBuilder b(func.getLoc(), ctx);
  b.setInsertionPointToStart(&func.getBody().front());
  RowKernelEmitter(spec, func, b).emit(args, longRows);
  return argNames(args);
}
