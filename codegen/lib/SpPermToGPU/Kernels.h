//===- Kernels.h - The kernel families of spperm-lower-to-gpu ---*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the SpPermToGPU library: the description of one kernel that a
// family emitter turns into a gpu.func, and the emitters. LayerKernels.cpp
// plans which kernels a layer gets (variants per K class, row ranges, long
// rows) and calls these.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_CODEGEN_LIB_SPPERMTOGPU_KERNELS_H
#define SPPERM_CODEGEN_LIB_SPPERMTOGPU_KERNELS_H

#include "spperm/Conversion/SpPermToGPU.h"
#include "spperm/Sparse/HalfFloat.h"
#include "spperm/Sparse/Names.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::spperm::codegen {

/// One parameter of a kernel: its name in the package ABI (a buffer name, a
/// narrowed column-index name, "B", "C", "K", "tickets" or "acc") and its
/// element type (i16, i32, i64, f32, f16 or bf16 for arrays; index for K).
struct KernelArg {
  KernelArg(std::string_view name, Type type) : name(name), type(type) {}
  std::string name;
  Type type;
};

/// Creates an empty `gpu.func` kernel named `name` whose parameters are
/// `args` (buffers as memref<?xT>, K as index), with `threads` as its known
/// block size. The entry block is left without terminator.
gpu::GPUFuncOp createKernel(gpu::GPUModuleOp module, StringRef name,
                            ArrayRef<KernelArg> args, int64_t threads);

/// The names of `args`, in order: what an emitter returns (the manifest's
/// `args`).
std::vector<std::string> argNames(ArrayRef<KernelArg> args);

/// The column-index parameter `name`: a buffer's int32 indices, or with
/// the 16-bit suffix (Names.h, kNarrowIndexSuffix) the same indices as the
/// runtime narrows them (i16, read zero-extended).
KernelArg columnIndexArg(MLIRContext *ctx, std::string_view name);

/// Whether the kernels of a layer of `cols` columns read 16-bit column
/// indices (KernelGenOptions::narrowIndices auto, and every index fits:
/// docs/Kernels.md, "Narrow column indices").
bool narrowsColumnIndices(NarrowIndexMode mode, int64_t cols);

/// The result parameter of a kernel: C, of `operandType`, or with
/// `accumulator` the fp32 accumulator (call_arg::kAccumulator) that 16-bit
/// layers' kernels adding into their result write instead.
KernelArg outputArg(MLIRContext *ctx, ::spperm::ValueType operandType,
                    bool accumulator);

/// The parameters of a kernel over a bell layer's dense blocks (the
/// tensor-core and the tile kernels): order, block columns, block values
/// (of `valueType`), B (of `operandType`), then C (of `operandType`) or,
/// with `accumulator`, the fp32 accumulator instead, and K.
SmallVector<KernelArg>
bellBlockArgs(MLIRContext *ctx, bool condensed,
              ::spperm::ValueType valueType = ::spperm::ValueType::F32,
              ::spperm::ValueType operandType = ::spperm::ValueType::F32,
              bool accumulator = false);

/// Adds a workgroup (shared-memory) buffer of `count` elements of
/// `element`, 16-byte aligned for vector accesses, as the next workgroup
/// attribution of `func`.
void addSharedBuffer(gpu::GPUFuncOp func, int64_t count, Type element);

/// addSharedBuffer of f32.
void addSharedF32Buffer(gpu::GPUFuncOp func, int64_t count);

/// Where the rows of a row kernel come from.
struct RowSource {
  /// Rows [rowBegin, rowEnd) of the permuted row space, entries through
  /// the row pointers.
  int64_t rowBegin = 0, rowEnd = 0;
  /// Rows with more entries than this are left to the split kernel (their C
  /// row gets only the dense-block part, or zero); 0: no such rows.
  int64_t longThreshold = 0;
  /// With longThreshold: the long rows are not stored here at all (the
  /// kernel's long-row CTAs own them) instead of getting the dense part.
  bool dropLongRows = false;
  /// Or: the rows listed in the constant table `rowTable` (`tableRows` of
  /// them), entries through the row pointers.
  std::string rowTable;
  int64_t tableRows = 0;
  /// Or: chunks of long rows, from the constant table `chunkTable`
  /// (`chunks` triples row, begin, end); results are added atomically.
  std::string chunkTable;
  int64_t chunks = 0;
  bool isChunks() const { return !chunkTable.empty(); }
  bool isTable() const { return !rowTable.empty(); }
};

/// The Blocked-ELL part of a bell layer (tau = 0: none).
struct DenseBlocks {
  int64_t tau = 0;
  int64_t width = 0;
  int64_t cols = 0;
  /// Condensed tiles: column j of slot s is tileCol[s * tau + j] (-1: none)
  /// instead of blockCol[s] * tau + j.
  bool condensed = false;
};

/// A row kernel: a group of `lanes` lanes per row (or chunk). SpMM: each
/// lane owns `vec` consecutive columns of C (16-byte accesses for 4), the
/// group walks the row in steps of `lanes` entries, caching them in
/// registers and broadcasting column and value by shuffle. With `parts` > 1
/// a row is shared by that many groups of one CTA (interleaved steps),
/// whose partial sums are reduced by shuffles inside a warp and through
/// shared memory across warps before one store. SpMV: the lanes stride over
/// the row and reduce by butterfly shuffles.
struct RowKernelSpec {
  std::string name;
  int64_t lanes = 32;
  /// Groups per row (a power of 2; lanes * parts <= threads; SpMM only).
  int64_t parts = 1;
  /// SpMV whose rows all fit in one step of the group (at most `lanes`
  /// entries, no dense blocks): each group takes this many consecutive
  /// rows in straight-line code, so their loads are in flight together.
  int64_t rowsPerGroup = 1;
  int64_t vec = 1;
  int64_t threads = 256;
  /// K baked in; 0 reads it from the K parameter.
  int64_t k = 0;
  /// SpMM: the columns of C are cut into this many slices of `lanes * vec`
  /// (the last one clipped at K), each its own set of CTAs (slice-major:
  /// CTA c takes slice c / ctasPerSlice), so a layer with few rows runs
  /// kSlices times as many groups, each with a shorter chain of loads. K
  /// read at run time (a range variant): kSlices is the slices of the K
  /// the launch is shaped for, and the grid holds a slice for every tile
  /// of the call's K (growsWithK; the variant's K bound, boundRunTimeK,
  /// keeps that grid within the launch limit), slice s taking tile s (none
  /// when it starts past K). 1: a group covers all of K (looping over K
  /// tiles).
  int64_t kSlices = 1;
  /// With kSlices > 1: the CTAs of one slice (its rows or chunks over the
  /// rows a CTA holds, rounded up).
  int64_t ctasPerSlice = 1;
  bool spmv = false;
  /// SpMM: entries whose shuffles and B loads are issued together before
  /// their multiply-adds (1 to 8).
  int64_t batch = 8;
  /// SpMM: a loop over the group's entries in steps of `batch` (registers
  /// for one batch, no work past the row's end) instead of straight-line
  /// batches over all `lanes` cached entries (more loads in flight).
  bool dynamicBatches = false;
  /// SpMM with dynamicBatches, one part and K baked in: every lane of a
  /// group loads each entry's column and value itself (the group's lanes
  /// read one address) instead of caching `lanes` entries and
  /// broadcasting them by shuffle; `batch` entries' B loads in flight, then
  /// the row's last entries one at a time. Fewer registers
  /// (docs/Kernels.md, "Direct entries").
  bool directEntries = false;
  /// SpMM, straight-line batches: skip the batches a chunk does not reach
  /// (worth it when rows are shorter than the group; a branch per batch
  /// otherwise).
  bool skipEmptyBatches = false;
  RowSource source;
  DenseBlocks dense;
  /// Buffer names: order, row pointers, column indices, values, and for
  /// dense blocks the block columns, block values and (condensed) tile
  /// columns.
  std::string order, rowPtr, colIdx, values, blockCol, blockValues, tileCol;
  /// Atomic additions of 2- or 4-wide accumulators as one vector reduction
  /// (sm_90 and later; KernelGenOptions::vectorReductions).
  bool vectorReductions = false;
  /// Grid dependency control (KernelGenOptions::gridDependencies): let
  /// dependents launch at the start, wait for the kernels before this one
  /// just before C is first touched.
  bool gridDependencies = false;
  /// The element type of B and C (KernelGenOptions::operandType); 16-bit
  /// operands need a source that stores each row of C once (no chunks).
  ::spperm::ValueType operandType = ::spperm::ValueType::F32;
  /// The element type of the values arrays (KernelGenOptions::valueType).
  ::spperm::ValueType valueType = ::spperm::ValueType::F32;
  /// SpMM rows stored once (no chunks): add the fp32 accumulator
  /// (call_arg::kAccumulator, which the variant's kernels before this one
  /// wrote) to each sum before C is stored, so 16-bit C is rounded once.
  bool accumulator = false;
  /// Write the fp32 accumulator instead of C (stored, or added atomically
  /// by chunks): a 16-bit SpMV variant whose long rows are split, which a
  /// round kernel ends; and the split kernel of a 16-bit SpMM variant.
  bool outputAccumulator = false;
  /// SpMM rows with longThreshold (long rows kept, not dropped): a long
  /// row's part here (its dense blocks, or zero) is stored to the fp32
  /// accumulator instead of C, for the split kernel to add its chunks to
  /// and a round kernel over the long rows to store: a 16-bit SpMM variant
  /// whose long rows are split. The other rows are stored to C.
  bool longRowsToAccumulator = false;

  /// Whether the launch's grid grows with K (KernelInfo::gridXFor): K read
  /// at run time and cut into slices, one set of ctasPerSlice CTAs per
  /// `lanes * vec` columns of K (docs/Kernels.md, "Range variants").
  bool growsWithK() const { return k <= 0 && kSlices > 1 && !spmv; }
};

/// Emits a row kernel; returns its parameter names in order. With
/// `longRows` (SpMM over the same arrays, rows from a table), the kernel's
/// first `longRowCtas(*longRows)` CTAs run that spec, one launch for both:
/// the long rows, one per CTA shared by all its groups, reduced through
/// shared memory and stored once; `spec` then drops them
/// (RowSource::dropLongRows) and its CTAs come after.
std::vector<std::string> emitRowKernel(gpu::GPUModuleOp module,
                                       const RowKernelSpec &spec,
                                       const RowKernelSpec *longRows = nullptr);

/// The CTAs a table-sourced row spec takes (its rows over the rows a CTA
/// holds, rounded up).
int64_t longRowCtas(const RowKernelSpec &spec);

/// How an HBP kernel's lanes walk their rows in a block (docs/Kernels.md,
/// "Families", hbp).
enum class HbpWalk {
  /// Each lane follows its add_sign chain, a memory latency an entry.
  Chain,
  /// The warp walks the group's rounds in software-pipelined batches
  /// through a window of add_sign in shared memory.
  Rounds,
};

/// The i32 fields of an HBP part table's entry (HbpKernelSpec::partTable).
inline constexpr int64_t kHbpPartFields = 4;

/// An HBP kernel: one warp per stored 2-D block, fixed blocks then
/// competitive ones by atomic ticket; partial sums are combined into C
/// atomically (C is cleared first). The ticket counters are the kernel's
/// "tickets" parameter (call_arg::kTickets), which the runtime provides per stream,
/// so that launches on different streams never share them.
struct HbpKernelSpec {
  std::string name;
  int64_t threads = 256;
  /// Columns of C per vector load and add, and vectors per lane: a work
  /// item (stored block, K slice) covers vec * unroll columns of C.
  int64_t vec = 1, unroll = 1;
  int64_t k = 0;
  int64_t rowBlock = 0, blockCols = 0, warps = 0, competitive = 0;
  /// Warps per format warp: 1 (a warp runs whole blocks, group by group)
  /// or rowBlock / 32 (a warp runs one group of each block).
  int64_t groupWarps = 1;
  /// Columns per column block and of the matrix (for the B tile).
  int64_t colBlock = 0, cols = 0;
  /// Stage the column block's B tile (colBlock x sliceColumns() floats per
  /// warp) in shared memory; the threads per CTA then fit the tiles (and,
  /// for HbpWalk::Rounds, the add_sign windows) in 48 KiB.
  bool sharedTile = false;

  /// The format's entries (the length of hbp.col).
  int64_t nnz = 0;
  /// With HbpWalk::Rounds, work items may be parts of warp groups instead
  /// of (stored block, group): the constant i32 table `partTable` of
  /// `parts` x kHbpPartFields {group (stored block * rowBlock / 32 +
  /// group), first entry, live lanes (a mask), the entry after the part},
  /// every group's, taken by ticket (then `warps` warps a slice,
  /// groupWarps 1, `competitive` == `parts`, and the fixed blocks are not
  /// run apart).
  std::string partTable;
  int64_t parts = 0;

  /// The columns of C of one K slice.
  int64_t sliceColumns() const { return vec * unroll; }
  HbpWalk walk = HbpWalk::Chain;
  /// With HbpWalk::Rounds, the rounds of a warp group walked per batch:
  /// their loads are issued together, and their add_sign values are one
  /// window of 32 entries a round in the warp's shared memory.
  int64_t rounds = 8;
  /// The i32 entries of a warp's add_sign window (none for a chain walk).
  int64_t windowEntries() const {
    return walk == HbpWalk::Rounds ? 32 * rounds : 0;
  }
  /// The CTAs of one K slice: warps * groupWarps warps.
  int64_t ctasPerSlice() const {
    return (warps * groupWarps * 32 + threads - 1) / threads;
  }
  /// The element types of B and of hbp.data (RowKernelSpec). With 16-bit
  /// B the partial rows go to the fp32 accumulator (call_arg::kAccumulator),
  /// not C, and a round kernel follows.
  ::spperm::ValueType operandType = ::spperm::ValueType::F32;
  ::spperm::ValueType valueType = ::spperm::ValueType::F32;
};

/// Emits an HBP kernel; returns its parameter names in order.
std::vector<std::string> emitHbpKernel(gpu::GPUModuleOp module,
                                       const HbpKernelSpec &spec);

/// The round kernel of a 16-bit layer whose other kernels add into the fp32
/// accumulator (hbp, split long rows): C = the accumulator rounded once to
/// nearest even, `vec` elements a thread (K % vec == 0), a grid-stride loop
/// over the rows x K elements (or the listed rows'). It waits for the
/// kernels before it (grid dependencies) before reading the accumulator.
struct RoundKernelSpec {
  std::string name;
  int64_t threads = 256;
  int64_t vec = 1;
  /// K baked in; 0 reads it from the K parameter.
  int64_t k = 0;
  int64_t rows = 0;
  /// Or only the rows listed in the constant table `rowTable` (`tableRows`
  /// positions of the permuted row space, their rows of C through the
  /// `order` buffer): the long rows of a 16-bit SpMM variant whose split
  /// kernel added into the accumulator (RowKernelSpec::longRowsToAccumulator).
  std::string rowTable;
  int64_t tableRows = 0;
  std::string order;
  ::spperm::ValueType operandType = ::spperm::ValueType::BF16;
  bool gridDependencies = false;
};

/// Emits a round kernel; returns its parameter names in order.
std::vector<std::string> emitRoundKernel(gpu::GPUModuleOp module,
                                         const RoundKernelSpec &spec);

/// The tile of a transposing kernel (32 x 32 elements) and its CTA.
inline constexpr int64_t kTransposeTile = ::spperm::kTransposeTile;
inline constexpr int64_t kTransposeThreads = ::spperm::kTransposeThreads;

/// A layer's transposing kernel (TransposeKernels.cpp): the caller's
/// column-major B (call_arg::kBColumnMajor) copied into a row-major B
/// (call_arg::kB) for the layer's variants, tile by tile, a grid-stride
/// loop over the tiles.
struct TransposeKernelSpec {
  std::string name;
  /// The rows of B (the layer's columns).
  int64_t rows = 0;
  /// K baked in; 0 reads it from the K parameter.
  int64_t k = 0;
  ::spperm::ValueType operandType = ::spperm::ValueType::F32;
  /// griddepcontrol.launch_dependents at its start (sm_90 and later), so
  /// that the variant's first kernel may launch while it runs.
  bool gridDependencies = false;
};

/// Emits a transposing kernel; returns its parameter names in order.
std::vector<std::string> emitTransposeKernel(gpu::GPUModuleOp module,
                                             const TransposeKernelSpec &spec);

/// A layer's in-place kernel (InPlaceKernels.cpp): C = A · B over the csr
/// arrays with B the caller's column-major B (call_arg::kBColumnMajor,
/// X = Bᵀ row-major, K x cols), read where it is. A CTA owns a chunk of
/// `samples` consecutive columns of C (rows of X) and a block of rows; it
/// stages the chunk's rows of X in dynamic shared memory, and groups of
/// `lanes` lanes walk its rows.
struct InPlaceKernelSpec {
  std::string name;
  int64_t rows = 0, cols = 0;
  /// K, baked in; with `dynamicK`, the largest K the kernel takes (its
  /// grid covers that many samples).
  int64_t k = 0;
  /// K read from the kernel's K parameter (a package without --k): the
  /// CTAs whose chunk starts at or past it return at once.
  bool dynamicK = false;
  int64_t samples = 0, lanes = 0, threads = 0, rowBlocks = 0;
  /// Buffer names: order, row pointers, column indices, values.
  std::string order, rowPtr, colIdx, values;
  /// Wait for the kernels before at the start, let dependents launch.
  bool gridDependencies = false;
};

/// The dynamic shared memory an in-place kernel stages: its chunk of X in
/// 16-byte vectors (samples x cols floats, rounded up to a vector).
int64_t inPlaceSharedBytes(const InPlaceKernelSpec &spec);

/// Emits an in-place kernel; returns its parameter names in order.
std::vector<std::string> emitInPlaceKernel(gpu::GPUModuleOp module,
                                           const InPlaceKernelSpec &spec);

/// The element type the tensor-core path feeds the MMA units.
/// TF32x3: fp32-accurate, each operand split into a TF32 high part and a
/// TF32 low part (the rest), three products per fragment (hi*lo, lo*hi,
/// hi*hi) accumulated in fp32 (docs/Kernels.md, "bell-3xtf32"). BF16:
/// m16n8k16 on bf16 operands (16-bit layers of that type; f16 layers use
/// F16).
enum class MmaPrecision { TF32, F16, TF32x3, BF16 };

/// A tensor-core kernel for the dense blocks of a bell layer (tau 16 or
/// 32): a warp per 16-row slice of a block row, adding into C.
struct MmaKernelSpec {
  std::string name;
  MmaPrecision precision = MmaPrecision::TF32;
  int64_t threads = 128;
  /// Warps sharing a 16-row slice: its chunks of 32 columns of C are dealt
  /// over them round-robin.
  int64_t chunkGroups = 1;
  /// Warps sharing a (slice, chunk group)'s stored blocks: block i goes to
  /// part i % parts, and with more than one part the warps add into C
  /// atomically.
  int64_t parts = 1;
  int64_t k = 0;
  int64_t tau = 0, width = 0, blockRows = 0, rows = 0, cols = 0;
  /// Condensed tiles (DenseBlocks::condensed).
  bool condensed = false;
  /// Atomic additions of a lane's two adjacent columns as one vector
  /// reduction (sm_90 and later; KernelGenOptions::vectorReductions).
  bool vectorReductions = false;
  /// Grid dependency control (KernelGenOptions::gridDependencies): let
  /// dependents launch at the start, wait for the kernels before this one
  /// just before C is first touched.
  bool gridDependencies = false;
  /// 16-bit operands (B and the block values of these types, multiplied as
  /// they are: precision F16 or BF16): each block's products are summed
  /// from zero and added to the running sums in fp32, and the result goes
  /// to the fp32 accumulator (stored with one part, added into it cleared
  /// with several) for the row kernel after this one (TileKernelSpec).
  ::spperm::ValueType operandType = ::spperm::ValueType::F32;
  ::spperm::ValueType valueType = ::spperm::ValueType::F32;
};

/// Emits a tensor-core kernel; returns its parameter names in order.
std::vector<std::string> emitMmaKernel(gpu::GPUModuleOp module,
                                       const MmaKernelSpec &spec);

/// The fp32 kernel for the dense blocks of a bell layer (tau 4 to 32):
/// units of `lanes` lanes, 4 columns of C each, a unit per `sliceRows` rows
/// of a block row and part; each B row load of a block feeds the slice's
/// rows from registers, the block's values staged in shared memory. Adds
/// into C (atomically when parts > 1).
struct TileKernelSpec {
  std::string name;
  int64_t threads = 128;
  int64_t lanes = 32;
  int64_t k = 0;
  int64_t tau = 0, width = 0, blockRows = 0, rows = 0, cols = 0;
  /// Condensed tiles (DenseBlocks::condensed).
  bool condensed = false;
  /// Rows of a unit (a multiple of 4 dividing tau).
  int64_t sliceRows = 16;
  /// Units sharing a block row's blocks (block i goes to part i % parts).
  int64_t parts = 1;
  /// Units sharing a (slice, part)'s columns of C: the K chunks of
  /// 4 * lanes columns are dealt round-robin over them.
  int64_t chunkGroups = 1;
  /// B rows loaded together (divides tau).
  int64_t unroll = 4;
  /// Atomic additions of 2- or 4-wide accumulators as one vector reduction
  /// (sm_90 and later; KernelGenOptions::vectorReductions).
  bool vectorReductions = false;
  /// Grid dependency control (KernelGenOptions::gridDependencies): let
  /// dependents launch at the start, wait for the kernels before this one
  /// just before C is first touched.
  bool gridDependencies = false;
  /// The element types of B and of the block values (RowKernelSpec).
  ::spperm::ValueType operandType = ::spperm::ValueType::F32;
  ::spperm::ValueType valueType = ::spperm::ValueType::F32;
  /// Write the fp32 accumulator (call_arg::kAccumulator) instead of adding
  /// into C: stored with one part (every element of the layer's rows x K
  /// once), added atomically into the cleared accumulator with several.
  /// The variant's row kernel runs after it and adds it (16-bit C).
  bool accumulator = false;
};

/// Emits a tile kernel; returns its parameter names in order.
std::vector<std::string> emitTileKernel(gpu::GPUModuleOp module,
                                        const TileKernelSpec &spec);

/// The csr-window kernel (docs/Kernels.md, "csr-window"): a CTA per window
/// of rows, K tile of 128 x vecs columns and column range; the range's B rows move
/// through shared memory in chunks (cp.async, one chunk ahead) and feed
/// every entry of the window's rows in them. K is baked in.
struct WindowKernelSpec {
  std::string name;
  int64_t threads = 256;
  /// Rows of each warp: a window is threads / 32 * rowsPerWarp rows.
  int64_t rowsPerWarp = 4;
  int64_t k = 0;
  int64_t rows = 0, cols = 0;
  /// 16-byte vectors of C per lane (1 or 2, a warp's vectors apart): a
  /// CTA's K tile is 128 * vecs columns for fp32 C, 256 * vecs for 16-bit.
  int64_t vecs = 1;
  /// Columns (B rows) per shared-memory chunk (at most 32).
  int64_t chunkCols = 32;
  /// Column ranges, each its own CTAs, of colsPerSplit columns (a multiple
  /// of chunkCols); with more than one, the constant table `splitTable`
  /// (rows x (colSplits + 1) entry offsets) bounds each row's entries per
  /// range and the sums are added into C atomically (C is cleared first).
  int64_t colSplits = 1;
  int64_t colsPerSplit = 0;
  std::string splitTable;
  /// The layer's arrays (buffer names).
  std::string_view order, rowPtr, colIdx, values;
  /// As in TileKernelSpec.
  bool vectorReductions = false;
  bool gridDependencies = false;
  /// The element types of B and C, and of the values (RowKernelSpec). With
  /// 16-bit C and column ranges, the ranges add into the fp32 accumulator
  /// (call_arg::kAccumulator, cleared first) and a round kernel follows.
  ::spperm::ValueType operandType = ::spperm::ValueType::F32;
  ::spperm::ValueType valueType = ::spperm::ValueType::F32;
};

/// Emits a csr-window kernel; returns its parameter names in order.
std::vector<std::string> emitWindowKernel(gpu::GPUModuleOp module,
                                          const WindowKernelSpec &spec);

} // namespace mlir::spperm::codegen

#endif // SPPERM_CODEGEN_LIB_SPPERMTOGPU_KERNELS_H
