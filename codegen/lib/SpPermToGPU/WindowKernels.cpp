//===- WindowKernels.cpp - Row windows with B staged in shared memory -----===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The csr-window kernel (docs/Kernels.md, "csr-window"): B reused across
// the rows of a window. A CTA owns a window of `rowsPerWarp` rows per warp
// and a K tile of 32 x `vecs` 16-byte vectors of C's columns (4 fp32 or 8
// 16-bit columns a vector, vectors a warp's width apart); it walks its
// column range (all columns, or one of `colSplits` ranges) in chunks of
// `chunkCols` columns. Each chunk's B rows (chunkCols x the K tile, in B's
// type) are copied into shared memory by cp.async, one chunk ahead of the
// multiply-adds (two buffers), and every entry of the window's rows in that
// chunk reads its B row from there, widened to fp32: B moves from L2 once
// per window instead of once per entry.
//
// A row's entries are sorted by column and unique, so the entries of a
// chunk are the next run after the row's cursor, at most chunkCols of them.
// The warp keeps a batch of 32 of the row's entries in its lanes (column
// and value), counts the run with a ballot and broadcasts each entry by
// shuffle; two passes with a batch reload between them cover any run.
//
// With colSplits > 1, the rows' entries of each column range start at the
// offsets of a constant table (rows x (colSplits + 1)), and the CTAs of the
// ranges add their sums into C atomically (C is cleared first; 16-bit C:
// into the cleared fp32 accumulator, which a round kernel then rounds into
// C); with one range the row pointers bound the rows and the sums are
// stored.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "spperm/Dialect/SpPerm/IR/SpPerm.h"

#include <limits>

using namespace mlir;
using namespace mlir::spperm::codegen;

namespace {

/// Lanes of a warp (nvgpu has a kWarpSize of its own).
constexpr int64_t kLanes = mlir::spperm::codegen::kWarpSize;

/// Columns of B and C in one 16-byte vector: 4 fp32 or 8 16-bit.
int64_t vectorColumns(::spperm::ValueType operandType) {
  return operandType == ::spperm::ValueType::F32 ? 4 : 8;
}

/// One row of a warp: where its entries are and what the warp holds.
struct RowState {
  /// The first entry of the batch in the lanes, the next entry to use, and
  /// the end of the row's entries (of this column range).
  Value base, cursor, end;
  /// This lane's entry of the batch (column as i32, value); past the end:
  /// INT32_MAX and 0.
  Value col, value;
  /// This lane's sums: perLane columns per vector, vectors vecCols apart.
  SmallVector<Value> acc;
};

class WindowKernelEmitter {
public:
  WindowKernelEmitter(const WindowKernelSpec &spec, gpu::GPUFuncOp func,
                      ImplicitLocOpBuilder &b)
      : spec(spec), func(func), b(b),
        kb(b, spec.vectorReductions, spec.gridDependencies),
        perLane(vectorColumns(spec.operandType)), vecCols(perLane * kLanes),
        tileCols(vecCols * spec.vecs) {}

  void emit(ArrayRef<KernelArg> args) {
    for (auto [i, a] : llvm::enumerate(args))
      params[a.name] = func.getArgument(i);
    stage = func.getWorkgroupAttributions()[0];
    kb.launchDependents();
    full = kb.i32(-1);
    const int64_t windowRows = spec.threads / kLanes * spec.rowsPerWarp;
    const int64_t windows = (spec.rows + windowRows - 1) / windowRows;
    Value cta = kb.blockIdX();
    Value window = kb.rem(cta, windows);
    Value rest = kb.div(cta, windows);
    Value split = kb.rem(rest, spec.colSplits);
    Value kTile = kb.div(rest, spec.colSplits);
    tid = kb.threadIdX();
    lane = kb.rem(tid, kLanes);
    Value warp = kb.div(tid, kLanes);
    // This lane's first perLane columns of C (then every vecCols); columns
    // past K read the zeros copyChunk put there and are not stored.
    kFirst = kb.mul(kTile, tileCols);
    col = kb.add(kFirst, kb.mul(lane, perLane));
    splitFirst = kb.mul(split, spec.colsPerSplit);
    // Chunks of this range that hold columns of the matrix.
    Value chunks = kb.min(
        kb.idx(spec.colsPerSplit / spec.chunkCols),
        kb.div(kb.add(kb.sub(kb.idx(spec.cols), splitFirst),
                      kb.idx(spec.chunkCols - 1)),
               spec.chunkCols));

    SmallVector<Value> rowIds;
    SmallVector<RowState> rows;
    Value rowBase =
        kb.add(kb.mul(window, windowRows), kb.mul(warp, spec.rowsPerWarp));
    for (int64_t i = 0; i < spec.rowsPerWarp; ++i) {
      Value row = kb.add(rowBase, kb.idx(i));
      rowIds.push_back(row);
      rows.push_back(startRow(row, split));
    }

    // The first chunk's B rows, then per chunk: the next one's copies,
    // wait for this one's, multiply, and a barrier before its buffer is
    // refilled.
    copyChunk(kb.idx(0), chunks, kb.idx(0));
    Value firstGroup = group;
    SmallVector<Value> inits = pack(rows);
    SmallVector<Value> out = kb.forLoop(
        kb.idx(0), chunks, kb.idx(1), inits,
        [&](Value c, ValueRange it) -> SmallVector<Value> {
          Value next = kb.add(c, kb.idx(1));
          copyChunk(next, chunks, kb.rem(next, 2));
          nvgpu::DeviceAsyncWaitOp::create(b, group, b.getI32IntegerAttr(1));
          kb.barrier();
          SmallVector<RowState> state = unpack(it, rows);
          Value first = kb.add(splitFirst, kb.mul(c, spec.chunkCols));
          Value buffer = kb.mul(kb.rem(c, 2), spec.chunkCols * tileCols);
          for (RowState &r : state)
            multiplyChunk(r, first, buffer);
          kb.barrier();
          return pack(state);
        });
    // The last iteration's copies (zeros past the range) are not left in
    // flight.
    nvgpu::DeviceAsyncWaitOp::create(b, firstGroup, b.getI32IntegerAttr(0));
    SmallVector<RowState> done = unpack(out, rows);

    // The sums read only A and B: with grid dependencies they overlap the
    // kernels before, and only the store waits for them.
    kb.waitForPrerequisites();
    // Column ranges add into C, or into the fp32 accumulator for 16-bit C.
    Value order = params.at(spec.order);
    Value C = params.at(spec.colSplits > 1 &&
                                spec.operandType != ::spperm::ValueType::F32
                            ? ::spperm::call_arg::kAccumulator
                            : ::spperm::call_arg::kC);
    for (int64_t i = 0; i < spec.rowsPerWarp; ++i) {
      Value row = rowIds[i];
      kb.ifThen(kb.lt(row, spec.rows), [&] {
        Value base = kb.mul(kb.loadIndex(order, row), spec.k);
        for (int64_t v = 0; v < spec.vecs; ++v) {
          Value c = kb.add(col, kb.idx(v * vecCols));
          kb.ifThen(kb.lt(c, spec.k), [&] {
            Value at = kb.add(base, c);
            if (spec.colSplits > 1)
              kb.atomicAddF32(done[i].acc[v], C, at);
            else
              kb.storeF32(done[i].acc[v], C, at);
          });
        }
      });
    }
    gpu::ReturnOp::create(b);
  }

private:
  Type vecType() { return VectorType::get({perLane}, b.getF32Type()); }

  /// Row `row`'s entries of column range `split` and its first batch.
  RowState startRow(Value row, Value split) {
    RowState r;
    Value zero = kb.idx(0);
    Value valid = kb.lt(row, spec.rows);
    if (spec.colSplits > 1) {
      const int64_t entries = spec.rows * (spec.colSplits + 1);
      auto type = MemRefType::get({entries}, b.getI32Type());
      Value table = memref::GetGlobalOp::create(b, type, spec.splitTable);
      Value at = kb.add(kb.mul(row, spec.colSplits + 1), split);
      r.cursor = kb.guarded(valid, [&] { return kb.loadIndex(table, at); },
                            zero);
      r.end = kb.guarded(
          valid, [&] { return kb.loadIndex(table, kb.add(at, 1)); }, zero);
    } else {
      Value rowPtr = params.at(spec.rowPtr);
      r.cursor = kb.guarded(valid, [&] { return kb.loadIndex(rowPtr, row); },
                            zero);
      r.end = kb.guarded(
          valid, [&] { return kb.loadIndex(rowPtr, kb.add(row, 1)); }, zero);
    }
    r.base = r.cursor;
    loadBatch(r);
    r.acc.assign(spec.vecs, kb.zero(vecType()));
    return r;
  }

  /// This lane's entry of the batch at r.base.
  void loadBatch(RowState &r) {
    Value at = kb.add(r.base, lane);
    Value in = kb.lt(at, r.end);
    r.col = kb.guarded(
        in, [&] { return kb.loadInteger(params.at(spec.colIdx), at); },
        kb.i32(std::numeric_limits<int32_t>::max()));
    r.value = kb.guarded(
        in, [&] { return kb.loadF32(params.at(spec.values), at, 1); },
        kb.f32(0.0f));
  }

  /// Starts the copies of chunk `c`'s B rows into buffer `which` (0 or 1),
  /// 16 bytes (perLane columns) a copy; rows past the matrix or the range's
  /// chunks, and columns past K, are filled with zeros. Sets `group`.
  void copyChunk(Value c, Value chunks, Value which) {
    Value B = params.at(::spperm::call_arg::kB);
    const int64_t copies = spec.chunkCols * tileCols / perLane;
    Value bufferBase = kb.mul(which, spec.chunkCols * tileCols);
    Value first = kb.add(splitFirst, kb.mul(c, spec.chunkCols));
    Value chunkOk = kb.lt(c, chunks);
    SmallVector<Value> tokens;
    for (int64_t q = 0; q < copies / spec.threads; ++q) {
      Value e = kb.add(tid, kb.idx(q * spec.threads));
      Value r = kb.div(e, tileCols / perLane),
            l = kb.rem(e, tileCols / perLane);
      Value brow = kb.add(first, r);
      Value bcol = kb.add(kFirst, kb.mul(l, perLane));
      Value ok = kb.andI(kb.andI(chunkOk, kb.lt(brow, spec.cols)),
                         kb.lt(bcol, spec.k));
      Value src = kb.select(ok, kb.add(kb.mul(brow, spec.k), bcol), kb.idx(0));
      Value dst = kb.add(bufferBase,
                         kb.add(kb.mul(r, tileCols), kb.mul(l, perLane)));
      tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
          b, stage, ValueRange{dst}, B, ValueRange{src},
          b.getIndexAttr(perLane), kb.select(ok, kb.idx(perLane), kb.idx(0)),
          b.getUnitAttr()));
    }
    group = nvgpu::DeviceAsyncCreateGroupOp::create(
        b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
  }

  /// The row's entries in columns [first, first + chunkCols), from the B
  /// rows in shared memory at `buffer`: two passes over the batch, with a
  /// reload when the first one used it up.
  void multiplyChunk(RowState &r, Value first, Value buffer) {
    Value last = kb.add(first, kb.idx(spec.chunkCols));
    pass(r, first, last, buffer);
    reloadIfUsedUp(r);
    pass(r, first, last, buffer);
    reloadIfUsedUp(r);
  }

  /// Multiplies the run of the batch's entries from the cursor that lie
  /// before column `last`.
  void pass(RowState &r, Value first, Value last, Value buffer) {
    Value at = kb.add(r.base, lane);
    Value in = kb.andI(kb.andI(kb.ge(at, r.cursor), kb.lt(at, r.end)),
                       kb.lt(kb.toIndex(r.col), last));
    Value n = kb.countLanes(in);
    Value offset = kb.sub(r.cursor, r.base);
    Value laneCol = kb.mul(lane, perLane);
    // Two entries per trip, their B reads in flight together; the second
    // of an odd run multiplies zero by the chunk's first B row.
    // Columns are in [first, last) for sorted, unique columns, which the
    // package reader verifies of every CSR it loads.
    SmallVector<Value> inits(r.acc);
    SmallVector<Value> acc = kb.forLoop(
        kb.idx(0), n, kb.idx(2), inits,
        [&](Value e, ValueRange accIn) -> SmallVector<Value> {
          SmallVector<Value> out(accIn);
          SmallVector<std::pair<Value, SmallVector<Value>>> loads;
          for (int64_t u = 0; u < 2; ++u) {
            Value src = kb.min(kb.add(offset, kb.add(e, kb.idx(u))),
                               kb.idx(kLanes - 1));
            Value c = kb.toIndex(kb.shuffleIdx(r.col, src, kLanes, full));
            Value v = kb.shuffleIdx(r.value, src, kLanes, full);
            Value local = kb.sub(c, first);
            if (u > 0) {
              // Past the run: the entry may be of a later chunk (or the
              // batch's padding), so it reads the chunk's first B row.
              Value ok = kb.lt(kb.add(e, kb.idx(u)), n);
              v = kb.select(ok, v, kb.f32(0.0f));
              local = kb.select(ok, local, kb.idx(0));
            }
            Value at =
                kb.add(buffer, kb.add(kb.mul(local, tileCols), laneCol));
            SmallVector<Value> bv;
            for (int64_t q = 0; q < spec.vecs; ++q)
              bv.push_back(kb.loadF32(stage, kb.add(at, kb.idx(q * vecCols)),
                                      perLane));
            loads.push_back({v, bv});
          }
          for (auto &[v, bv] : loads)
            for (int64_t q = 0; q < spec.vecs; ++q)
              out[q] = kb.fma(v, bv[q], out[q]);
          return out;
        });
    r.acc.assign(acc.begin(), acc.end());
    r.cursor = kb.add(r.cursor, n);
  }

  /// Loads the next batch when the cursor has passed the lanes' batch and
  /// the row has more entries.
  void reloadIfUsedUp(RowState &r) {
    Value usedUp = kb.andI(kb.eq(r.cursor, kb.add(r.base, kb.idx(kLanes))),
                           kb.lt(r.cursor, r.end));
    SmallVector<Value> out = kb.ifThenElse(
        usedUp, TypeRange{r.base.getType(), r.col.getType(), r.value.getType()},
        [&]() -> SmallVector<Value> {
          RowState next = r;
          next.base = r.cursor;
          loadBatch(next);
          return {next.base, next.col, next.value};
        },
        [&]() -> SmallVector<Value> { return {r.base, r.col, r.value}; });
    r.base = out[0];
    r.col = out[1];
    r.value = out[2];
  }

  /// The loop-carried values of the rows (the ends are loop-invariant).
  static SmallVector<Value> pack(ArrayRef<RowState> rows) {
    SmallVector<Value> out;
    for (const RowState &r : rows) {
      out.append({r.base, r.cursor, r.col, r.value});
      out.append(r.acc.begin(), r.acc.end());
    }
    return out;
  }
  static SmallVector<RowState> unpack(ValueRange values,
                                      ArrayRef<RowState> like) {
    SmallVector<RowState> out(like);
    size_t at = 0;
    for (RowState &r : out) {
      r.base = values[at++];
      r.cursor = values[at++];
      r.col = values[at++];
      r.value = values[at++];
      for (Value &a : r.acc)
        a = values[at++];
    }
    return out;
  }

  const WindowKernelSpec &spec;
  gpu::GPUFuncOp func;
  ImplicitLocOpBuilder &b;
  KernelBuilder kb;
  llvm::StringMap<Value> params;
  /// Columns of C a lane's vector covers, a warp's vectors, a CTA's.
  const int64_t perLane, vecCols, tileCols;
  Value stage, full, tid, lane, kFirst, col, splitFirst, group;
};

} // namespace

std::vector<std::string>
mlir::spperm::codegen::emitWindowKernel(gpu::GPUModuleOp module,
                                        const WindowKernelSpec &spec) {
  const int64_t perLane = vectorColumns(spec.operandType);
  assert(spec.k > 0 && spec.k % perLane == 0 && spec.threads % kLanes == 0 &&
         spec.chunkCols <= kLanes && (spec.vecs == 1 || spec.vecs == 2) &&
         spec.chunkCols * kLanes * spec.vecs % spec.threads == 0 &&
         spec.colsPerSplit % spec.chunkCols == 0 &&
         (spec.colSplits == 1 || !spec.splitTable.empty()) &&
         "bad window kernel shape");
  MLIRContext *ctx = module.getContext();
  Type i32 = IntegerType::get(ctx, 32);
  Type operand = mlir::spperm::getElementType(ctx, spec.operandType);
  SmallVector<KernelArg> args = {{spec.order, i32}};
  if (spec.colSplits == 1)
    args.push_back({spec.rowPtr, i32});
  args.append({columnIndexArg(ctx, spec.colIdx),
               {spec.values, mlir::spperm::getElementType(ctx, spec.valueType)},
               {::spperm::call_arg::kB, operand},
               outputArg(ctx, spec.operandType,
                         spec.colSplits > 1 &&
                             spec.operandType != ::spperm::ValueType::F32),
               {::spperm::call_arg::kK, IndexType::get(ctx)}});
  gpu::GPUFuncOp func = createKernel(module, spec.name, args, spec.threads);
  // Two buffers of chunkCols B rows of the K tile, in B's type.
  addSharedBuffer(func, 2 * spec.chunkCols * perLane * kLanes * spec.vecs,
                  operand);
  ImplicitLocOpBuilder b(func.getLoc(), ctx);
  b.setInsertionPointToStart(&func.getBody().front());
  WindowKernelEmitter(spec, func, b).emit(args);
  return argNames(args);
}
