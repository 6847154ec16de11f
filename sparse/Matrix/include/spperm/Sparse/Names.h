//===- Names.h - The vocabulary of formats, buffers and kernels -*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Every name that crosses a boundary between the sparse core, the compiler,
// the package and the runtime: storage formats (the command line, the IR,
// the manifest), the library path, the buffers of a layer, the call-bound
// kernel parameters and the kernel families. They are spelled here once;
// the strategies' names are in Strategy.h. docs/Package.md lists them as
// the manifest uses them.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_NAMES_H
#define SPPERM_SPARSE_NAMES_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace spperm {

/// Element types of a matrix's values and of B and C (ValueType,
/// HalfFloat.h): the IR's `f32`, `f16`, `bf16`.
namespace value_type_name {
inline constexpr std::string_view kF32 = "f32";
inline constexpr std::string_view kF16 = "f16";
inline constexpr std::string_view kBF16 = "bf16";
} // namespace value_type_name

/// GPU architectures: `--target`, the manifest's "target", the selector's
/// models. The compute capability that architecture name `name` spells, as
/// 10 * major + minor: "sm_", 2 to 4 digits without a leading zero, then
/// optionally `a` or `f` (sm_90 -> 90, sm_100a -> 100, sm_120f -> 120); 0
/// for any other spelling. Whether LLVM and the GPU know the architecture
/// is for them to say.
inline unsigned architectureVersion(std::string_view name) {
  if (name.substr(0, 3) != "sm_")
    return 0;
  name.remove_prefix(3);
  if (!name.empty() && (name.back() == 'a' || name.back() == 'f'))
    name.remove_suffix(1);
  if (name.size() < 2 || name.size() > 4 || name[0] == '0')
    return 0;
  unsigned version = 0;
  for (char ch : name) {
    if (ch < '0' || ch > '9')
      return 0;
    version = 10 * version + static_cast<unsigned>(ch - '0');
  }
  return version;
}

/// The arithmetic of Blocked-ELL dense blocks: spperm-lower-to-gpu's
/// `precision` option, `--precision`, the `spperm.precision` attribute of an
/// alternative (docs/Kernels.md, "Tensor cores").
namespace precision_name {
inline constexpr std::string_view kFp32 = "fp32";
inline constexpr std::string_view kTf32 = "tf32";
inline constexpr std::string_view kF16 = "f16";
inline constexpr std::string_view kTf32x3 = "3xtf32";
} // namespace precision_name

/// Whether `name` is a precision of precision_name.
inline bool isPrecisionName(std::string_view name) {
  return name == precision_name::kFp32 || name == precision_name::kTf32 ||
         name == precision_name::kF16 || name == precision_name::kTf32x3;
}

/// Storage formats: `--format`, the manifest's "format", `#spperm.<name>`.
namespace format_name {
inline constexpr std::string_view kCsr = "csr";
inline constexpr std::string_view kBell = "bell";
inline constexpr std::string_view kHbp = "hbp";
} // namespace format_name

/// How a bell layer's tiles pick their columns: the manifest's
/// "format_params.columns", `#spperm.bell<columns = ...>`, `--bell-columns`.
namespace bell_columns {
inline constexpr std::string_view kAuto = "auto";
inline constexpr std::string_view kBlocks = "blocks";
inline constexpr std::string_view kCondensed = "condensed";
} // namespace bell_columns

/// The library path: a format choice (`--format cusparse`, the selector's
/// candidate), and the name, family and variant of its one launch.
inline constexpr std::string_view kCusparse = "cusparse";

/// Whether `name` is a format choice: a storage format or kCusparse.
inline bool isFormatChoice(std::string_view name) {
  return name == format_name::kCsr || name == format_name::kBell ||
         name == format_name::kHbp || name == kCusparse;
}

/// The arrays of a layer, by their manifest names (docs/Package.md,
/// "Buffers"); kernels name their parameters the same way.
namespace buffer {
inline constexpr std::string_view kOrder = "order";
inline constexpr std::string_view kCsrRowPtr = "csr.row_ptr";
inline constexpr std::string_view kCsrColIdx = "csr.col_idx";
inline constexpr std::string_view kCsrValues = "csr.values";
inline constexpr std::string_view kBellBlockCol = "bell.block_col";
inline constexpr std::string_view kBellBlockValues = "bell.block_values";
inline constexpr std::string_view kBellTileCol = "bell.tile_col";
inline constexpr std::string_view kBellResidualRowPtr = "bell.residual.row_ptr";
inline constexpr std::string_view kBellResidualColIdx = "bell.residual.col_idx";
inline constexpr std::string_view kBellResidualValues = "bell.residual.values";
inline constexpr std::string_view kHbpBlocks = "hbp.blocks";
inline constexpr std::string_view kHbpCol = "hbp.col";
inline constexpr std::string_view kHbpData = "hbp.data";
inline constexpr std::string_view kHbpAddSign = "hbp.add_sign";
inline constexpr std::string_view kHbpZeroRow = "hbp.zero_row";
inline constexpr std::string_view kHbpBeginNnz = "hbp.begin_nnz";
inline constexpr std::string_view kHbpOutputHash = "hbp.output_hash";
inline constexpr std::string_view kHbpFixedBlocks = "hbp.fixed_blocks";
inline constexpr std::string_view kHbpFixedBlockPtr = "hbp.fixed_block_ptr";
inline constexpr std::string_view kHbpCompetitiveBlocks =
    "hbp.competitive_blocks";
} // namespace buffer

/// A kernel parameter `<buffer>.u16` takes a column-index array as 16-bit
/// unsigned integers, which the runtime narrows from the stored int32 array
/// when it uploads it (docs/Package.md, "Narrow column indices"): allowed
/// for the csr and residual column indices of a layer of at most
/// kMaxNarrowColumns columns, so that every index fits.
inline constexpr std::string_view kNarrowIndexSuffix = ".u16";
inline constexpr int64_t kMaxNarrowColumns = 65536;

namespace buffer {
inline constexpr std::string_view kCsrColIdxU16 = "csr.col_idx.u16";
inline constexpr std::string_view kBellResidualColIdxU16 =
    "bell.residual.col_idx.u16";
} // namespace buffer

/// Whether buffer `name` may be taken narrowed (`name` + kNarrowIndexSuffix).
inline constexpr bool isNarrowableIndex(std::string_view name) {
  return name == buffer::kCsrColIdx || name == buffer::kBellResidualColIdx;
}

/// The buffer a kernel parameter `<buffer>.u16` narrows; empty for any
/// other name.
inline constexpr std::string_view narrowedBuffer(std::string_view arg) {
  if (arg.size() <= kNarrowIndexSuffix.size() ||
      arg.substr(arg.size() - kNarrowIndexSuffix.size()) != kNarrowIndexSuffix)
    return {};
  std::string_view base = arg.substr(0, arg.size() - kNarrowIndexSuffix.size());
  return isNarrowableIndex(base) ? base : std::string_view();
}
static_assert(narrowedBuffer(buffer::kCsrColIdxU16) == buffer::kCsrColIdx &&
                  narrowedBuffer(buffer::kBellResidualColIdxU16) ==
                      buffer::kBellResidualColIdx,
              "the narrowed names are their buffers' with the suffix");

/// Kernel parameters the call binds rather than an array of the layer.
namespace call_arg {
/// The dense operand B and the result C (1-D memref descriptors).
inline constexpr std::string_view kB = "B";
inline constexpr std::string_view kC = "C";
/// The number of columns of B and C (a 64-bit integer).
inline constexpr std::string_view kK = "K";
/// Two 32-bit counters the runtime provides, zero before a launch, which
/// the kernel leaves at zero when it ends (the hbp kernels' ticket for
/// competitive blocks and their count of finished warps). The runtime keeps
/// one pair per stream, so that launches on different streams never share
/// it (docs/RuntimeABI.md, "Generated kernels").
inline constexpr std::string_view kTickets = "tickets";
/// The fp32 accumulator of a layer with 16-bit C: rows x K floats, laid out
/// like C (original row order), which the runtime provides per stream. The
/// kernels of a variant that add into their result (bell-tile, the
/// tensor-core kernel, hbp, SpMV's split rows) write it first; the
/// variant's last kernel (the row kernel, or a round kernel) adds it to its
/// own sums or rounds it into C once (docs/Kernels.md, "Half precision").
/// A kernel that takes it and not C writes it: its zero_output clears it,
/// not C.
inline constexpr std::string_view kAccumulator = "acc";
/// The caller's B when it is column-major (B(i, j) at i + j * rows, i.e.
/// Xᵀ for a row-major X of K x rows): what a layer's transposing kernel
/// reads, writing the row-major B that the layer's variants then read
/// (docs/RuntimeABI.md, "Column-major B").
inline constexpr std::string_view kBColumnMajor = "B_col";
} // namespace call_arg

/// Whether kernel parameter `name` is bound by the call rather than to an
/// array of the layer.
inline bool isCallArg(std::string_view name) {
  return name == call_arg::kB || name == call_arg::kC ||
         name == call_arg::kK || name == call_arg::kTickets ||
         name == call_arg::kAccumulator;
}

namespace buffer {
/// Every buffer name above, the one list that name checks walk.
inline constexpr std::string_view kAll[] = {
    kOrder,
    kCsrRowPtr,
    kCsrColIdx,
    kCsrValues,
    kBellBlockCol,
    kBellBlockValues,
    kBellTileCol,
    kBellResidualRowPtr,
    kBellResidualColIdx,
    kBellResidualValues,
    kHbpBlocks,
    kHbpCol,
    kHbpData,
    kHbpAddSign,
    kHbpZeroRow,
    kHbpBeginNnz,
    kHbpOutputHash,
    kHbpFixedBlocks,
    kHbpFixedBlockPtr,
    kHbpCompetitiveBlocks,
};
} // namespace buffer

/// The storage format whose arrays buffer `name` belongs to (`csr.row_ptr`
/// -> `csr`): the name before its first dot; empty for `order`, which every
/// layer has. Any layer may carry the csr arrays beside its own.
inline constexpr std::string_view bufferFormat(std::string_view name) {
  size_t dot = name.find('.');
  return dot == std::string_view::npos ? std::string_view()
                                       : name.substr(0, dot);
}

/// Why kernel parameter `arg` cannot be one of a layer of `cols` columns
/// because it narrows column indices that may not fit 16 bits ("narrows
/// column indices to 16 bits, but the layer has N columns (at most
/// 65536)"); empty when it can (docs/Package.md, "Narrow column indices").
inline std::string narrowIndexProblem(std::string_view arg, int64_t cols) {
  if (narrowedBuffer(arg).empty() || cols <= kMaxNarrowColumns)
    return {};
  return "narrows column indices to 16 bits, but the layer has " +
         std::to_string(cols) + " columns (at most " +
         std::to_string(kMaxNarrowColumns) + ")";
}

/// What a kernel parameter's name can be, for messages.
inline constexpr const char *kKernelArgNames =
    "a buffer (docs/Package.md, \"Buffers\"), a column-index buffer "
    "narrowed to 16 bits (csr.col_idx.u16, bell.residual.col_idx.u16), or "
    "B, C, K, tickets, acc or B_col";

/// Why kernel parameter `name` cannot be a parameter of a layer of format
/// `format` (`csr`, `bell` or `hbp`; empty: any) and `cols` columns (0: any):
/// it is no buffer, narrowed buffer or call argument (B_col included), it is
/// an array of another format than the layer's, or it narrows column
/// indices of more than kMaxNarrowColumns columns. Empty when it can.
/// Which call arguments a kernel of a given role takes is checked apart
/// (isTransposeArgs, isInPlaceCallArgs).
inline std::string kernelArgProblem(std::string_view name,
                                    std::string_view format = {},
                                    int64_t cols = 0) {
  if (isCallArg(name) || name == call_arg::kBColumnMajor)
    return {};
  std::string_view base = narrowedBuffer(name);
  std::string_view buffer = base.empty() ? name : base;
  bool known = false;
  for (std::string_view b : buffer::kAll)
    known = known || b == buffer;
  if (!known)
    return "is not " + std::string(kKernelArgNames);
  std::string_view owner = bufferFormat(buffer);
  if (!format.empty() && !owner.empty() && owner != format_name::kCsr &&
      owner != format)
    return "is an array of the " + std::string(owner) +
           " format, but the layer is " + std::string(format);
  return narrowIndexProblem(name, cols);
}

/// What isInPlaceCallArgs asks, for messages.
inline constexpr const char *kInPlaceArgsRule =
    "B_col and C once each, K at most once, and none of B, tickets or acc";

/// Whether `args` bind the call as an in-place kernel's must (a layer's
/// kernel that reads a column-major B where it is): B_col and C once each,
/// K at most once, and neither B nor the per-stream scratch; the other
/// arguments are the variant's arrays, which the caller checks.
inline bool isInPlaceCallArgs(const std::vector<std::string> &args) {
  int col = 0, c = 0, k = 0;
  for (const std::string &a : args) {
    if (a == call_arg::kB || a == call_arg::kTickets ||
        a == call_arg::kAccumulator)
      return false;
    col += a == call_arg::kBColumnMajor;
    c += a == call_arg::kC;
    k += a == call_arg::kK;
  }
  return col == 1 && c == 1 && k <= 1;
}

/// The tile of a layer's transposing kernel (kTransposeTile x
/// kTransposeTile elements; the runtime launches one CTA per tile at most).
inline constexpr int64_t kTransposeTile = 32;

/// The threads of a layer's transposing kernel's CTA (8 warps over a
/// tile), which its code assumes: the manifest's block must be this x 1 x 1.
inline constexpr int64_t kTransposeThreads = 256;

/// What isTransposeArgs asks, for messages.
inline constexpr const char *kTransposeArgsRule =
    "B_col and B once each, K at most once, and nothing else";

/// Whether `args` are what a layer's transposing kernel takes: B_col and B,
/// each once, and K at most once, nothing else.
inline bool isTransposeArgs(const std::vector<std::string> &args) {
  int col = 0, row = 0, k = 0;
  for (const std::string &a : args) {
    col += a == call_arg::kBColumnMajor;
    row += a == call_arg::kB;
    k += a == call_arg::kK;
  }
  return col == 1 && row == 1 && k <= 1 &&
         args.size() == static_cast<size_t>(col + row + k);
}

/// The most CTAs a launch has in x.
inline constexpr int64_t kMaxGridX = (int64_t{1} << 31) - 1;

/// What the values of a grid that grows with K (a kernel's `grid_k`: base,
/// ctas, columns; docs/Package.md) must be, for messages.
inline constexpr const char *kGridKValuesRule =
    "grid_k must be base >= 0, ctas >= 1 and columns >= 1, base + ctas "
    "below 2^31";

/// Why a grid that grows with K, {base, ctas, columns}, does not fit a
/// kernel launched on grid [gridX, gridY, gridZ] that takes K or not
/// (`takesK`); "" when it fits. `grid` must be base + a positive multiple
/// of ctas in x (the grid of the K the kernel was shaped for), 1 in y and
/// z, and the kernel must read K.
inline std::string gridKProblem(int64_t base, int64_t ctas, int64_t columns,
                                int64_t gridX, int64_t gridY, int64_t gridZ,
                                bool takesK) {
  if (base < 0 || ctas < 1 || columns < 1 || base > kMaxGridX - ctas)
    return kGridKValuesRule;
  if (gridX <= base || (gridX - base) % ctas != 0 || gridY != 1 ||
      gridZ != 1)
    return "grid_k needs a grid of base + a multiple of ctas in x and 1 in "
           "y and z, got [" +
           std::to_string(gridX) + ", " + std::to_string(gridY) + ", " +
           std::to_string(gridZ) + "] for base " + std::to_string(base) +
           " and ctas " + std::to_string(ctas);
  if (!takesK)
    return "grid_k needs the kernel to take K";
  return "";
}

/// Why a kernel's block [x, y, z] (each at least 1) cannot be launched:
/// CUDA takes at most 1,024 threads a block, 64 in z (docs/Limits.md); ""
/// when it can.
inline std::string blockProblem(int64_t x, int64_t y, int64_t z) {
  if (x <= 1024 && y <= 1024 && z <= 64 && x * y * z <= 1024)
    return "";
  return "block must have at most 1024 threads in all and 64 in z, got " +
         std::to_string(x) + " x " + std::to_string(y) + " x " +
         std::to_string(z);
}

/// Kernel families (informational in the manifest; docs/Kernels.md). A row
/// kernel's family is its format's name (the residual's for bell), with a
/// suffix for SpMV, long rows in the row kernel, or the split kernel.
namespace family {
inline constexpr std::string_view kSpmvSuffix = "-spmv";
inline constexpr std::string_view kLongSuffix = "+long";
inline constexpr std::string_view kSplitSuffix = "-split";
inline constexpr std::string_view kBellTile = "bell-tile";
inline constexpr std::string_view kCsrWindow = "csr-window";
inline constexpr std::string_view kBellTf32 = "bell-tf32";
inline constexpr std::string_view kBellF16 = "bell-f16";
inline constexpr std::string_view kBellBf16 = "bell-bf16";
inline constexpr std::string_view kBell3xTf32 = "bell-3xtf32";
inline constexpr std::string_view kHbp = "hbp";
/// The fp32 accumulator of a 16-bit layer rounded into C.
inline constexpr std::string_view kRound = "round";
/// A column-major B made row-major (a layer's transposing kernel).
inline constexpr std::string_view kTranspose = "transpose";
/// A layer's kernel that reads a column-major B in place.
inline constexpr std::string_view kInPlace = "in-place";
} // namespace family

} // namespace spperm

#endif // SPPERM_SPARSE_NAMES_H
