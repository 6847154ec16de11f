//===- InPlaceKernels.cpp - SpMM reading a column-major B in place --------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// A layer's in-place kernels (docs/Kernels.md, "In-place column-major B").
// torch.nn.Linear's Y = X · Wᵀ hands the layer B = Xᵀ column-major: X is K
// x cols row-major, sample n of X (column n of B) one contiguous vector
// x_n, and row n of Y is W · x_n. So C = W · B is K SpMVs over contiguous
// vectors, which these kernels compute without the transposing kernel's
// row-major copy of B:
//
//  * A CTA owns a chunk of T = `samples` consecutive columns of C and a
//    block of rows. It copies the chunk's T rows of X, one contiguous
//    stretch of T x cols floats, into dynamic shared memory with cp.async
//    (16 bytes a copy, zeros past K; 4 bytes a copy when the caller's B is
//    not 16-byte aligned), and meanwhile loads its groups' first rows and
//    their first batch of entries.
//  * G = `lanes` lanes per row walk the row's entries G apart, four at a
//    time, each batch's column and value loads issued one batch ahead of
//    its multiply-adds; each lane gathers x_n[c] for its T samples from
//    shared memory (no shuffles in the walk). Past a row's end a lane adds
//    nothing, so NaN and Inf in B stay where they are.
//  * The G partial sums of a row meet in a transposing butterfly: each
//    step halves the sums a lane holds, so that every lane ends with T / G
//    samples of the row (one when G > T) and stores them into C
//    (row-major, the row in the original order).
//
// The loop over a CTA's rows is uniform across the CTA (every group runs
// the same number of rows, past the block's end as empty rows), so the
// butterfly's shuffles take the full mask. The shape and the matrix's
// rows and columns are baked in, and so is K in a package compiled for one
// K (the K parameter stays, unread, so that every kernel of a package
// binds its parameters alike). A package for any K has one kernel per
// range of K ((2^(j-1), 2^j] for 2^j from 16 to 128, and 8), which reads K
// from its parameter: its grid covers the range's largest K, and a CTA
// whose chunk starts at or past K returns.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "Kernels.h"
#include "RowPlan.h"

#include "spperm/Conversion/SpPermToGPU.h"
#include "spperm/Dialect/SpPerm/IR/SpPerm.h"
#include "spperm/Sparse/Formats.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace mlir::spperm::codegen;

namespace {

/// Entries a lane loads together (one batch).
constexpr int64_t kBatch = 4;

/// Floats in a 16-byte copy.
constexpr int64_t kVector = 4;

/// Lanes of a warp (nvgpu has a kWarpSize of its own).
constexpr int64_t kLanes = mlir::spperm::codegen::kWarpSize;

/// A lane's batch: kBatch columns (index) and values (f32).
struct Batch {
  SmallVector<Value> cols, values;
};

/// Emits the body of one in-place kernel (InPlaceKernelSpec) into its
/// gpu.func.
class InPlaceKernelEmitter {
public:
  InPlaceKernelEmitter(const InPlaceKernelSpec &spec, gpu::GPUFuncOp func,
                       ImplicitLocOpBuilder &b)
      : spec(spec), func(func), b(b),
        kb(b, /*vectorReductions=*/false, spec.gridDependencies),
        groups(spec.threads / spec.lanes),
        blockRows(ceilDiv(spec.rows, spec.rowBlocks)) {}

  void emit(ArrayRef<KernelArg> args) {
    for (auto [i, a] : llvm::enumerate(args))
      params[a.name] = func.getArgument(i);
    // The first kernel of the call: B may come from the kernel before.
    kb.waitForPrerequisites();
    kb.launchDependents();
    full = kb.i32(-1);
    Value cta = kb.blockIdX();
    Value rowBlock = kb.rem(cta, spec.rowBlocks);
    k0 = kb.mul(kb.div(cta, spec.rowBlocks), spec.samples);
    k = spec.dynamicK ? params.at(::spperm::call_arg::kK) : kb.idx(spec.k);
    if (spec.dynamicK)
      kb.ifThen(kb.lt(k0, k), [&] { emitChunk(rowBlock); });
    else
      emitChunk(rowBlock);
    gpu::ReturnOp::create(b);
  }

private:
  /// The CTA's work: its chunk of samples (from k0) over block `rowBlock`
  /// of rows.
  void emitChunk(Value rowBlock) {
    Value tid = kb.threadIdX();
    lane = kb.rem(tid, spec.lanes);
    Value group = kb.div(tid, spec.lanes);
    Value r0 = kb.mul(rowBlock, blockRows);
    r1 = kb.min(kb.add(r0, blockRows), kb.idx(spec.rows));

    stage = sharedStage();
    stageChunk(tid);
    // The first row's bounds and batch load while the copies run.
    Value r = kb.add(r0, group);
    auto [e, end] = rowStart(r);
    Batch first = loadBatch(e, end);
    Value copies = nvgpu::DeviceAsyncCreateGroupOp::create(
        b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), ValueRange{});
    nvgpu::DeviceAsyncWaitOp::create(b, copies, b.getI32IntegerAttr(0));
    kb.barrier();

    const int64_t rounds = ceilDiv(blockRows, groups);
    SmallVector<Value> inits = {r, e, end};
    llvm::append_range(inits, first.cols);
    llvm::append_range(inits, first.values);
    kb.forLoop(kb.idx(0), kb.idx(rounds), kb.idx(1), inits,
               [&](Value, ValueRange it) -> SmallVector<Value> {
                 Value row = it[0];
                 Batch batch = unpackBatch(it.drop_front(3));
                 SmallVector<Value> acc = walkRow(it[1], it[2], batch);
                 // The next row's bounds and first batch before the
                 // butterfly and the store.
                 Value next = kb.add(row, groups);
                 auto [nextE, nextEnd] = rowStart(next);
                 Batch nextBatch = loadBatch(nextE, nextEnd);
                 reduce(acc);
                 kb.ifThen(kb.lt(row, r1), [&] { storeRow(row, acc); });
                 SmallVector<Value> out = {next, nextE, nextEnd};
                 llvm::append_range(out, nextBatch.cols);
                 llvm::append_range(out, nextBatch.values);
                 return out;
               });
  }

  /// The chunk of X as a static memref over the dynamic shared memory.
  Value sharedStage() {
    auto workgroup = gpu::AddressSpaceAttr::get(
        b.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
    auto bytes = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                 MemRefLayoutAttrInterface(), workgroup);
    Value raw = gpu::DynamicSharedMemoryOp::create(b, bytes);
    auto floats =
        MemRefType::get({inPlaceSharedBytes(spec) / 4}, b.getF32Type(),
                        MemRefLayoutAttrInterface(), workgroup);
    return memref::ViewOp::create(b, floats, raw, kb.idx(0), ValueRange{});
  }

  /// Starts the copies of the chunk's rows of X (elements [k0 * cols,
  /// (k0 + tc) * cols) of B's memory, tc = min(T, K - k0)) into the stage,
  /// zeros past them; not committed.
  void stageChunk(Value tid) {
    Value B = params.at(::spperm::call_arg::kBColumnMajor);
    Value first = kb.mul(k0, spec.cols);
    Value count =
        kb.mul(kb.min(kb.idx(spec.samples), kb.sub(k, k0)), spec.cols);
    // 16-byte copies need the chunk's first element 16-byte aligned: k0 is
    // a multiple of T (of 4), so the caller's pointer decides.
    Value address = kb.add(memref::ExtractAlignedPointerAsIndexOp::create(b, B),
                           kb.mul(first, 4));
    Value aligned = kb.eq(kb.rem(address, 16), kb.idx(0));
    const int64_t elements = spec.samples * spec.cols;
    const int64_t vectors = ceilDiv(elements, kVector);
    kb.ifThenElse(
        aligned,
        [&] {
          for (int64_t q = 0; q < ceilDiv(vectors, spec.threads); ++q) {
            Value v = kb.add(tid, kb.idx(q * spec.threads));
            auto copy = [&] {
              Value at = kb.mul(v, kVector);
              // The elements of this vector that lie in the chunk (0 to 4).
              Value present =
                  kb.max(kb.min(kb.sub(count, at), kb.idx(kVector)), kb.idx(0));
              Value src = kb.select(kb.lt(kb.idx(0), present),
                                    kb.add(first, at), kb.idx(0));
              nvgpu::DeviceAsyncCopyOp::create(
                  b, stage, ValueRange{at}, B, ValueRange{src},
                  b.getIndexAttr(kVector), present, b.getUnitAttr());
            };
            if ((q + 1) * spec.threads <= vectors)
              copy();
            else
              kb.ifThen(kb.lt(v, vectors), copy);
          }
        },
        [&] {
          kb.forLoop(tid, kb.idx(elements), kb.idx(spec.threads), {},
                     [&](Value at, ValueRange) -> SmallVector<Value> {
                       Value present =
                           kb.select(kb.lt(at, count), kb.idx(1), kb.idx(0));
                       Value src = kb.select(kb.lt(at, count),
                                             kb.add(first, at), kb.idx(0));
                       nvgpu::DeviceAsyncCopyOp::create(
                           b, stage, ValueRange{at}, B, ValueRange{src},
                           b.getIndexAttr(1), present, UnitAttr());
                       return {};
                     });
        });
  }

  /// This lane's first entry of row `r` and the row's end (0 and 0 for a
  /// row past the block).
  std::pair<Value, Value> rowStart(Value r) {
    Value rowPtr = params.at(spec.rowPtr);
    Value in = kb.lt(r, r1);
    Value zero = kb.idx(0);
    Value start = kb.guarded(
        in, [&] { return kb.loadIndex(rowPtr, r); }, zero);
    Value end = kb.guarded(
        in, [&] { return kb.loadIndex(rowPtr, kb.add(r, 1)); }, zero);
    return {kb.add(start, lane), end};
  }

  /// The lane's kBatch entries from `e` on, `lanes` apart: columns and
  /// values, 0 and 0.0 past `end` (not loaded).
  Batch loadBatch(Value e, Value end) {
    Batch batch;
    for (int64_t u = 0; u < kBatch; ++u) {
      Value at = kb.add(e, u * spec.lanes);
      Value in = kb.lt(at, end);
      batch.cols.push_back(kb.guarded(
          in, [&] { return kb.loadIndex(params.at(spec.colIdx), at); },
          kb.idx(0)));
      batch.values.push_back(kb.guarded(
          in, [&] { return kb.load(params.at(spec.values), at); },
          kb.f32(0.0f)));
    }
    return batch;
  }

  /// The batch held in `values`: kBatch columns, then kBatch values.
  Batch unpackBatch(ValueRange values) {
    Batch batch;
    batch.cols.assign(values.begin(), values.begin() + kBatch);
    batch.values.assign(values.begin() + kBatch, values.begin() + 2 * kBatch);
    return batch;
  }

  /// The lane's T sums over its entries of the row (from `e`, whose first
  /// batch is `batch`, to `end`), each batch's successor loaded before its
  /// multiply-adds.
  SmallVector<Value> walkRow(Value e, Value end, const Batch &batch) {
    const int64_t step = kBatch * spec.lanes;
    Value left = kb.max(kb.sub(end, e), kb.idx(0));
    Value batches = kb.div(kb.add(left, step - 1), step);
    SmallVector<Value> inits = {e};
    llvm::append_range(inits, batch.cols);
    llvm::append_range(inits, batch.values);
    for (int64_t j = 0; j < spec.samples; ++j)
      inits.push_back(kb.f32(0.0f));
    SmallVector<Value> out = kb.forLoop(
        kb.idx(0), batches, kb.idx(1), inits,
        [&](Value, ValueRange it) -> SmallVector<Value> {
          Value at = it[0];
          Batch current = unpackBatch(it.drop_front(1));
          SmallVector<Value> acc(it.begin() + 1 + 2 * kBatch, it.end());
          Value next = kb.add(at, step);
          Batch ahead = loadBatch(next, end);
          for (int64_t u = 0; u < kBatch; ++u) {
            Value in = kb.lt(kb.add(at, u * spec.lanes), end);
            TypeRange types = ValueRange(acc).getTypes();
            acc = kb.ifThenElse(
                in, types,
                [&]() -> SmallVector<Value> {
                  SmallVector<Value> sums;
                  for (int64_t j = 0; j < spec.samples; ++j) {
                    Value x = kb.load(
                        stage, kb.add(current.cols[u], kb.idx(j * spec.cols)));
                    sums.push_back(kb.fma(current.values[u], x, acc[j]));
                  }
                  return sums;
                },
                [&]() -> SmallVector<Value> { return acc; });
          }
          SmallVector<Value> yield = {next};
          llvm::append_range(yield, ahead.cols);
          llvm::append_range(yield, ahead.values);
          llvm::append_range(yield, acc);
          return yield;
        });
    return SmallVector<Value>(out.begin() + 1 + 2 * kBatch, out.end());
  }

  /// Reduces the lanes' T sums of a row over the group: afterwards acc
  /// holds samples lane * T / G + i, i < T / G (T >= G), or the one sample
  /// lane % T (G > T).
  void reduce(SmallVector<Value> &acc) {
    const int64_t T = spec.samples, G = spec.lanes;
    // Offsets of T and more (G > T): a plain butterfly.
    for (int64_t off = G / 2; off >= T && off >= 1; off /= 2)
      for (Value &a : acc)
        a = kb.fadd(a, kb.shuffleXor(a, off, kLanes, full));
    // The rest: each step keeps half of the sums (the upper half where the
    // lane's bit `off` is set), adding the partner's.
    int64_t count = T;
    for (int64_t off = std::min(G / 2, T / 2); off >= 1; off /= 2) {
      Value upper = kb.eq(kb.andI(lane, kb.idx(off)), kb.idx(off));
      count /= 2;
      for (int64_t i = 0; i < count; ++i) {
        Value send = kb.select(upper, acc[i], acc[i + count]);
        Value keep = kb.select(upper, acc[i + count], acc[i]);
        acc[i] = kb.fadd(keep, kb.shuffleXor(send, off, kLanes, full));
      }
      acc.resize(count);
    }
  }

  /// Stores the lane's samples of row `row` (positions of the permuted row
  /// space) into C's row order[row], those below K.
  void storeRow(Value row, ArrayRef<Value> acc) {
    Value C = params.at(::spperm::call_arg::kC);
    Value base =
        kb.add(kb.mul(kb.loadIndex(params.at(spec.order), row), k), k0);
    const int64_t T = spec.samples, G = spec.lanes;
    if (T < G) {
      kb.ifThen(kb.andI(kb.lt(lane, T), kb.lt(kb.add(k0, lane), k)), [&] {
        memref::StoreOp::create(b, acc[0], C, ValueRange{kb.add(base, lane)});
      });
      return;
    }
    const int64_t per = T / G;
    Value first = kb.mul(lane, per);
    auto vectors = [&] {
      auto type = VectorType::get({kVector}, b.getF32Type());
      for (int64_t q = 0; q < per; q += kVector) {
        Value v = vector::FromElementsOp::create(
            b, type, ValueRange(acc.slice(q, kVector)));
        kb.storeF32(v, C, kb.add(base, kb.add(first, q)));
      }
    };
    auto scalars = [&] {
      for (int64_t i = 0; i < per; ++i) {
        Value j = kb.add(first, i);
        kb.ifThen(kb.lt(kb.add(k0, j), k), [&] {
          memref::StoreOp::create(b, acc[i], C, ValueRange{kb.add(base, j)});
        });
      }
    };
    // Whole chunks (a baked-in K that is a multiple of T) in 16-byte
    // vectors. A kernel that reads K (8 samples, at least 8 lanes: one
    // sample a lane at most) never has 4 samples a lane.
    if (per % kVector == 0 && !spec.dynamicK && spec.k % T == 0)
      return vectors();
    scalars();
  }

  const InPlaceKernelSpec &spec;
  gpu::GPUFuncOp func;
  ImplicitLocOpBuilder &b;
  KernelBuilder kb;
  const int64_t groups, blockRows;
  llvm::StringMap<Value> params;
  /// K (the constant, or the K parameter).
  Value full, lane, k0, k, r1, stage;
};

} // namespace

int64_t
mlir::spperm::codegen::inPlaceSharedBytes(const InPlaceKernelSpec &spec) {
  return ceilDiv(spec.samples * spec.cols, kVector) * kVector * 4;
}

std::vector<std::string>
mlir::spperm::codegen::emitInPlaceKernel(gpu::GPUModuleOp module,
                                         const InPlaceKernelSpec &spec) {
  assert(spec.k >= 1 && spec.rows >= 1 && spec.cols >= 1 &&
         "an in-place kernel needs K and the matrix's shape");
  assert(spec.samples % kVector == 0 && spec.lanes >= 1 &&
         spec.lanes <= kLanes && llvm::isPowerOf2_64(spec.samples) &&
         llvm::isPowerOf2_64(spec.lanes) && spec.threads % kLanes == 0 &&
         spec.rowBlocks >= 1 && "an in-place shape out of range");
  MLIRContext *ctx = module.getContext();
  Type f32 = Float32Type::get(ctx);
  SmallVector<KernelArg> args = {{spec.order, IntegerType::get(ctx, 32)},
                                 {spec.rowPtr, IntegerType::get(ctx, 32)},
                                 columnIndexArg(ctx, spec.colIdx),
                                 {spec.values, f32},
                                 {::spperm::call_arg::kBColumnMajor, f32},
                                 {::spperm::call_arg::kC, f32},
                                 {::spperm::call_arg::kK, IndexType::get(ctx)}};
  gpu::GPUFuncOp func = createKernel(module, spec.name, args, spec.threads);
  ImplicitLocOpBuilder b(func.getLoc(), ctx);
  b.setInsertionPointToStart(&func.getBody().front());
  InPlaceKernelEmitter(spec, func, b).emit(args);
  return argNames(args);
}

std::vector<::spperm::KernelInfo>
mlir::spperm::generateInPlaceKernels(gpu::GPUModuleOp kernels,
                                     const ::spperm::FormattedMatrix &matrix,
                                     const KernelGenOptions &options) {
  if (options.inPlaceB != InPlaceBMode::Auto ||
      matrix.kind != ::spperm::FormatKind::Csr ||
      options.operandType != ::spperm::ValueType::F32 ||
      options.valueType != ::spperm::ValueType::F32 || matrix.nnz == 0)
    return {};
  // What each kernel takes: K baked in, or (a package for any K) ranges of
  // K read from the parameter, each by the first shape of its largest K
  // (the fewest samples a CTA, which the runtime's timings keep where an
  // in-place kernel wins at all).
  struct Range {
    int64_t kMin, kMax;
    std::vector<InPlaceShape> shapes;
  };
  std::vector<Range> ranges;
  if (options.k > 0) {
    ranges.push_back({options.k, options.k,
                      inPlaceShapes(matrix.rows, matrix.cols, matrix.nnz,
                                    options.k, options.multiprocessors)});
  } else {
    for (int64_t top = kInPlaceMinK; top <= kInPlaceMaxK; top *= 2) {
      std::vector<InPlaceShape> shapes = inPlaceShapes(
          matrix.rows, matrix.cols, matrix.nnz, top, options.multiprocessors);
      if (shapes.empty())
        continue;
      shapes.resize(1);
      ranges.push_back(
          {top == kInPlaceMinK ? top : top / 2 + 1, top, std::move(shapes)});
    }
  }
  std::vector<::spperm::KernelInfo> infos;
  for (const Range &range : ranges)
    for (const InPlaceShape &shape : range.shapes) {
      InPlaceKernelSpec spec;
      spec.name = options.prefix + "_in_place_" + std::to_string(infos.size());
      spec.rows = matrix.rows;
      spec.cols = matrix.cols;
      spec.k = range.kMax;
      spec.dynamicK = options.k == 0;
      spec.samples = shape.samples;
      spec.lanes = shape.lanes;
      spec.threads = shape.threads;
      spec.rowBlocks = shape.rowBlocks;
      spec.order = ::spperm::buffer::kOrder;
      spec.rowPtr = ::spperm::buffer::kCsrRowPtr;
      // The same column indices as the layer's row kernels read.
      spec.colIdx = narrowsColumnIndices(options.narrowIndices, matrix.cols)
                        ? ::spperm::buffer::kCsrColIdxU16
                        : ::spperm::buffer::kCsrColIdx;
      spec.values = ::spperm::buffer::kCsrValues;
      spec.gridDependencies = options.gridDependencies;
      ::spperm::KernelInfo info;
      info.name = spec.name;
      info.family = std::string(::spperm::family::kInPlace);
      info.variant = info.family + ".t" + std::to_string(spec.samples) + ".g" +
                     std::to_string(spec.lanes);
      info.kMin = range.kMin;
      info.kMax = range.kMax;
      info.args = emitInPlaceKernel(kernels, spec);
      info.gridX = spec.rowBlocks * ceilDiv(spec.k, spec.samples);
      info.blockX = spec.threads;
      info.sharedBytes = inPlaceSharedBytes(spec);
      infos.push_back(std::move(info));
    }
  return infos;
}
