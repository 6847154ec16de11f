//===- SpPermToGPU.h - Kernels specialized for one matrix -------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The code generator behind spperm-lower-to-gpu and spperm-compile: given a
// matrix in its storage format (spperm::FormattedMatrix), it emits the
// layer's kernels as `gpu.func`s into a `gpu.module`, with what is known of
// the matrix baked in as constants (row ranges, long-row chunks, block
// sizes, ELL width, partition sizes, K when fixed), and returns how the
// runtime launches them (spperm::KernelInfo, the package's `kernels`).
// docs/Kernels.md describes the families and the plan.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_CONVERSION_SPPERMTOGPU_H
#define SPPERM_CONVERSION_SPPERMTOGPU_H

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"
#include "spperm/Sparse/Formats.h"
#include "spperm/Sparse/HalfFloat.h"
#include "spperm/Sparse/Package.h"
#include "spperm/Transforms/OptionValues.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::spperm {

/// The arithmetic of the Blocked-ELL dense blocks of fp32 operands: fp32 on
/// CUDA cores (the default), or tensor cores with TF32, FP16 or split
/// 3xTF32 inputs (f32 accumulation), opt-in. Layers of 16-bit operands
/// take any tensor-core precision as "on the tensor cores, in the
/// operands' own type".
enum class Precision { F32, TF32, F16, TF32x3 };

/// `fp32`, `tf32`, `f16` or `3xtf32`; std::nullopt for anything else.
std::optional<Precision> parsePrecision(StringRef name);

/// The name parsePrecision accepts for `precision`.
StringRef getPrecisionName(Precision precision);

/// An llvm::cl modifier giving a Precision option its values.
struct PrecisionValues {
  template <typename Opt>
  void apply(Opt &option) const {
    static constexpr std::pair<Precision, const char *> kValues[] = {
        {Precision::F32, "CUDA cores"},
        {Precision::TF32, "tensor cores, TF32 inputs"},
        {Precision::F16, "tensor cores, FP16 inputs"},
        {Precision::TF32x3, "tensor cores at fp32 accuracy (each operand a "
                            "TF32 high and low part, three products)"}};
    for (auto [value, help] : kValues)
      option.getParser().addLiteralOption(getPrecisionName(value), value,
                                          help);
  }
};

/// Where an SpMM layer's long rows (longer than its split threshold) run.
enum class LongRowMode {
  /// In CTAs of the row kernel when one CTA walks the longest row in at
  /// most 12 batches of loads per group, the rows are one range and, in a
  /// layer whose groups all run at once, the longest row's own walk is 6
  /// batches or more; else in a split kernel where that pays (or nowhere).
  Auto,
  /// In CTAs of the row kernel whenever the rows are one range.
  Cta,
  /// Always in a split kernel (chunks added atomically; a second launch).
  Split,
};

/// `auto`, `cta` or `split`; std::nullopt for anything else.
std::optional<LongRowMode> parseLongRowMode(StringRef name);

/// The name parseLongRowMode accepts for `mode`.
StringRef getLongRowModeName(LongRowMode mode);

/// An llvm::cl modifier giving a LongRowMode option its values.
struct LongRowModeValues {
  template <typename Opt>
  void apply(Opt &option) const {
    static constexpr std::pair<LongRowMode, const char *> kValues[] = {
        {LongRowMode::Auto, "a CTA each where one CTA walks the longest row "
                            "in at most 12 batches of loads and that pays, "
                            "else split"},
        {LongRowMode::Cta, "a CTA each"},
        {LongRowMode::Split, "chunks in a split kernel"}};
    for (auto [value, help] : kValues)
      option.getParser().addLiteralOption(getLongRowModeName(value), value,
                                          help);
  }
};

/// Whether the SpMM variants of a csr layer with K baked in run the
/// csr-window kernel (B staged in shared memory per window of rows,
/// docs/Kernels.md) instead of the row kernels.
enum class RowWindowMode {
  /// Where it beat the row kernels when measured: K >= 512, at least 2,048
  /// columns and density at least 0.25.
  Auto,
  /// Every such variant with K >= 128.
  Always,
  /// Never.
  Never,
};

/// The option value of `mode`: `auto`, `always` or `never`.
StringRef getRowWindowModeName(RowWindowMode mode);

/// An llvm::cl modifier giving a RowWindowMode option its values.
struct RowWindowModeValues {
  template <typename Opt>
  void apply(Opt &option) const {
    static constexpr std::pair<RowWindowMode, const char *> kValues[] = {
        {RowWindowMode::Auto, "for K >= 512 on layers of >= 2048 columns "
                              "and density >= 0.25"},
        {RowWindowMode::Always, "whenever K >= 128"},
        {RowWindowMode::Never, "never"}};
    for (auto [value, help] : kValues)
      option.getParser().addLiteralOption(getRowWindowModeName(value), value,
                                          help);
  }
};

/// Whether the row and csr-window kernels read column indices as 16 bits
/// (the runtime narrows the stored int32 arrays at upload; docs/Kernels.md,
/// "Narrow column indices").
enum class NarrowIndexMode {
  /// On every layer of at most 65,536 columns (Names.h, kMaxNarrowColumns).
  Auto,
  /// Never: 32-bit indices everywhere.
  Never,
};

/// The option value of `mode`: `auto` or `never`.
StringRef getNarrowIndexModeName(NarrowIndexMode mode);

/// An llvm::cl modifier giving a NarrowIndexMode option its values.
struct NarrowIndexModeValues {
  template <typename Opt>
  void apply(Opt &option) const {
    static constexpr std::pair<NarrowIndexMode, const char *> kValues[] = {
        {NarrowIndexMode::Auto, "on layers of at most 65536 columns"},
        {NarrowIndexMode::Never, "never"}};
    for (auto [value, help] : kValues)
      option.getParser().addLiteralOption(getNarrowIndexModeName(value), value,
                                          help);
  }
};

/// Whether fp32 csr layers get in-place kernels for a column-major B (docs/Kernels.md, "In-place column-major B"): kernels
/// that read the caller's B = Xᵀ where it is, staging a chunk of X's rows
/// in shared memory, instead of the transposing kernel's row-major copy.
enum class InPlaceBMode {
  /// Layers with entries whose staged chunk fits in shared memory: up to
  /// three candidate shapes for a static K of 8 to 128, else one per range
  /// of K up to 128.
  Auto,
  /// None (the default: most callers pass B row-major).
  Never,
};

/// The option value of `mode`: `auto` or `never`.
StringRef getInPlaceBModeName(InPlaceBMode mode);

/// An llvm::cl modifier giving an InPlaceBMode option its values.
struct InPlaceBModeValues {
  template <typename Opt>
  void apply(Opt &option) const {
    static constexpr std::pair<InPlaceBMode, const char *> kValues[] = {
        {InPlaceBMode::Auto, "fp32 csr layers with 8 <= K <= 128"},
        {InPlaceBMode::Never, "never"}};
    for (auto [value, help] : kValues)
      option.getParser().addLiteralOption(getInPlaceBModeName(value), value,
                                          help);
  }
};

/// The K buckets of a package compiled without --k: 8, 32, 64, 128, 256,
/// 512.
std::vector<int64_t> defaultKBuckets();

/// What code generation knows besides the matrix.
struct KernelGenOptions {
  /// Dense-block arithmetic (bell layers with tau 16 or 32; others ignore
  /// it).
  Precision precision = Precision::F32;
  /// The K the layer is specialized for; 0 generates variants for every K
  /// (SpMV, 16-byte vector classes, a scalar fallback).
  int64_t k = 0;
  /// With k = 0: the K values that get a variant of their own, generated
  /// as with that k (`k<K>`), ahead of the variants for every K, so that
  /// a package compiled without --k runs those K as one compiled for them
  /// (docs/Kernels.md, "K buckets"). Values are in [2, 65536].
  std::vector<int64_t> kBuckets = defaultKBuckets();
  /// Threads per CTA.
  int64_t threads = 256;
  /// Row kernels: entries per broadcast batch (1 to 8; 0 chooses: 8
  /// straight-line batches when rows are too few to fill the GPU, else a
  /// loop over batches of 2, which needs fewer registers, or in SpMM of 4
  /// for rows of very uneven length; docs/Kernels.md, "Broadcast
  /// batches").
  int64_t batch = 0;
  /// SpMM with K baked in: slices of K, each its own set of CTAs (0
  /// chooses: slices of 32 columns for 64 <= K <= 128 when the layer has at
  /// most 8 warps per SM without them, always for K > 128 (kSlicing in
  /// RowPlan.h); 1: one group covers K). Ignored without a static K.
  int64_t kSlices = 0;
  /// Row kernels: rows longer than this many entries are long: cut into
  /// chunks of half of it that a split kernel adds into C atomically, or
  /// one CTA each in the row kernel (`longRows`) (0 chooses per layer and K
  /// class: planLongRows in RowPlan.cpp, docs/Kernels.md).
  int64_t splitRows = 0;
  /// Where SpMM layers run their long rows (SpMV ones always split).
  LongRowMode longRows = LongRowMode::Auto;
  /// Whether csr layers with K baked in run the csr-window kernel.
  RowWindowMode rowWindows = RowWindowMode::Auto;
  /// Whether row and window kernels read 16-bit column indices.
  NarrowIndexMode narrowIndices = NarrowIndexMode::Auto;
  /// Whether csr layers get in-place kernels for a column-major B.
  InPlaceBMode inPlaceB = InPlaceBMode::Never;
  /// Streaming multiprocessors of the target: rows are shared by several
  /// groups when too few rows would fill them. The H100 SXM's 132 for
  /// every target until the target description carries it (no pass option
  /// or flag sets it yet).
  int64_t multiprocessors = 132;
  /// The target's L2 cache in bytes: SpMM layers whose B it cannot hold run
  /// in L2 panels where that pays (usesL2Panels in RowPlan.h). The H100
  /// SXM's 50 MiB for every target until the target description carries it.
  int64_t l2Bytes = 50 * 1024 * 1024;
  /// Atomic additions of 16-byte (and 8-byte) accumulators into C as one
  /// `red.global.add.v4.f32` (sm_90 and later: targetHasVectorReductions)
  /// instead of one scalar atomic per element, where a warp's lanes add to
  /// consecutive columns (bell-tile parts, long-row chunks; not HBP).
  bool vectorReductions = true;
  /// Grid dependency control (sm_90 and later: targetHasGridDependencies):
  /// every kernel lets its dependents launch at its start
  /// (`griddepcontrol.launch_dependents`) and waits for the kernels before
  /// it (`griddepcontrol.wait`) only where it first touches C; the kernels
  /// after the first of a variant are marked `dependentLaunch`, so that the
  /// runtime launches them while the ones before still run (programmatic
  /// dependent launch, docs/Kernels.md "Launch overlap"). A variant's
  /// first kernel waits at its very start instead, so that it may follow
  /// the layer's transposing kernel that way (marked `dependentLaunch`,
  /// docs/Kernels.md "Column-major B").
  bool gridDependencies = true;
  /// The element type of B and C (accumulation is fp32 whatever it is).
  /// For f16 and bf16 each element of C is rounded once: kernels that add
  /// into their result (bell-tile, the tensor-core kernel, hbp, the split
  /// and csr-window kernels) go through the fp32 accumulator, which the
  /// row kernels add or a round kernel rounds into C (docs/Kernels.md,
  /// "Half precision").
  ::spperm::ValueType operandType = ::spperm::ValueType::F32;
  /// The element type of A's values: f32, or operandType's 16-bit type
  /// (the values arrays are then uploaded as that type, read and widened
  /// exactly by the row kernels).
  ::spperm::ValueType valueType = ::spperm::ValueType::F32;
  /// Prefix of every symbol of the layer (unique within the package).
  std::string prefix = "layer";
};

/// The name of the gpu.module that holds a package's kernels.
constexpr const char *kKernelModuleName = "spperm_kernels";

/// The name of part `index` of the kernel module that
/// spperm-split-kernel-module makes (`spperm_kernels_part_INDEX`).
std::string kernelPartName(unsigned index);

/// Joins the PTX texts of the kernel module's parts, in order, into one
/// module's text, laid out as LLVM lays out one module: the first part's
/// header (through `.address_size`), which every part must repeat; the
/// declarations (function prototypes, `.extern`s), which must precede any
/// use, then the variables and functions, each once (a definition that
/// several parts repeat word for word), each group in the order of
/// `symbolOrder` (the module's symbols; others after, as they come); then
/// the kernels in the parts' order. Sets `error` and returns false when the
/// headers differ or two parts define one name differently.
bool joinPtxParts(ArrayRef<StringRef> parts, std::string &joined,
                  std::string &error, ArrayRef<std::string> symbolOrder = {});

/// Returns the kernel module of `module` (marking it a GPU container),
/// creating it when absent.
gpu::GPUModuleOp getOrCreateKernelModule(ModuleOp module);

/// Emits the kernels of one layer into `kernels` and returns their launches
/// in the order the runtime runs them.
std::vector<::spperm::KernelInfo>
generateLayerKernels(gpu::GPUModuleOp kernels,
                     const ::spperm::FormattedMatrix &matrix,
                     const KernelGenOptions &options);

/// Emits the transposing kernel of a layer whose B has `rows` rows (the
/// matrix's columns), of the options' operand type, K (0: any) and prefix
/// (the kernel is `<prefix>_transpose_b`), and returns its launch: what the
/// runtime runs first when the caller's B is column-major
/// (docs/Kernels.md, "Column-major B").
::spperm::KernelInfo generateTransposeKernel(gpu::GPUModuleOp kernels,
                                             int64_t rows,
                                             const KernelGenOptions &options);

/// Emits the in-place kernels of a layer (docs/Kernels.md, "In-place
/// column-major B"): for an fp32 csr matrix with entries and
/// options.inPlaceB auto, one kernel per candidate shape of a static K in
/// [8, 128] (options.k), or, K not static (options.k 0), one per range of
/// K up to 128 that reads K at run time (`<prefix>_in_place_<i>`), each
/// computing C from the caller's
/// column-major B (call_arg::kBColumnMajor) over the csr arrays, for the
/// runtime to time against the transposing kernel and the row-major
/// variants; none otherwise.
std::vector<::spperm::KernelInfo>
generateInPlaceKernels(gpu::GPUModuleOp kernels,
                       const ::spperm::FormattedMatrix &matrix,
                       const KernelGenOptions &options);

/// The launch as the IR records it (spperm-lower-to-gpu's
/// `spperm.kernels`).
LaunchAttr getLaunchAttr(MLIRContext *ctx, const ::spperm::KernelInfo &info);

/// The launch `attr` describes, for the package writer.
::spperm::KernelInfo getKernelInfo(LaunchAttr attr);

/// Whether `spmm`'s matrix runs on cuSPARSE: its spperm.load carries a
/// choice of format `cusparse` (spperm-select's, forced or chosen).
bool runsOnLibrary(SpMMOp spmm);

/// Checks the options of code generation that spperm-lower-to-gpu and
/// spperm-pipeline take: an empty string, or what is wrong, naming the
/// option (`batch must be an integer in [0, 8], got 9`).
std::string verifyKernelOptions(int64_t threads, int64_t batch,
                                int64_t kSlices, int64_t splitRows,
                                StringRef target,
                                ArrayRef<int64_t> kBuckets = {});

/// What is wrong with a `k-buckets` option given with no value (`k-buckets=`,
/// `--k-buckets ''`): an empty list is refused rather than read as the
/// default, which only an option not given means. It spells out
/// defaultKBuckets(): change the two together.
constexpr const char *kEmptyKBucketsError =
    "k-buckets needs K values (2 to 65536) or 0 alone (none), got an empty "
    "list; leave it out for the default 8,32,64,128,256,512";

/// The buckets a `k-buckets` option asks for: its values, the default
/// when it is empty (the option not given), none when it is the single
/// value 0.
std::vector<int64_t> resolveKBuckets(ArrayRef<int64_t> option);

/// Whether `chip` is a GPU architecture (sm_XY, sm_XYa) that LLVM's NVPTX
/// back end knows; code generation for any other aborts inside LLVM.
bool isKnownTarget(StringRef chip);

/// The oldest architecture the kernels run on: sm_80 (Ampere), for
/// `cp.async` and the tensor-core `mma.sync` shapes the kernels use. Code
/// generation for an older one aborts inside LLVM's instruction selection.
constexpr unsigned kMinimumTargetVersion = 80;

/// Whether `chip` is a known target (isKnownTarget) of at least
/// kMinimumTargetVersion.
bool isSupportedTarget(StringRef chip);

/// Whether `chip` (sm_XY, sm_XYa) has the vector reductions
/// `red.global.add.v{2,4}.f32`: sm_90 and later (PTX ISA 8.1).
bool targetHasVectorReductions(StringRef chip);

/// Whether `chip` (sm_XY, sm_XYa) has grid dependency control
/// (`griddepcontrol`, programmatic dependent launch): sm_90 and later (PTX
/// ISA 7.8).
bool targetHasGridDependencies(StringRef chip);

/// Adds the lowering from gpu.module/gpu.func (gpu, scf, arith, memref,
/// vector, math, nvvm) to gpu.binary: for format "isa"
/// spperm-split-kernel-module first; then on each gpu.module
/// convert-nvgpu-to-nvvm, convert-scf-to-cf, convert-gpu-to-nvvm,
/// reconcile-unrealized-casts; nvvm-attach-target {chip, O=3; PTX ISA 8.1
/// for targetHasVectorReductions}; spperm-serialize-kernels (format "isa")
/// and gpu-module-to-binary{format} for the other modules.
void buildGpuToBinaryPipeline(OpPassManager &pm, StringRef chip,
                              StringRef format = "isa");

/// The PTX text of the kernel module's gpu.binary (after
/// buildGpuToBinaryPipeline with format "isa").
FailureOr<std::string> extractPtx(ModuleOp module);

/// Assembles `ptx` for `chip` with ptxas (found as $SPPERM_PTXAS, on PATH,
/// or under $CUDA_HOME/bin, /usr/local/cuda/bin). Returns the cubin, or an
/// empty string when there is no ptxas; fails with ptxas' message.
::spperm::StatusOr<std::string> assembleCubin(const std::string &ptx,
                                              StringRef chip);

} // namespace mlir::spperm

SPPERM_ENUM_OPTION_PARSER(::mlir::spperm::Precision)
SPPERM_ENUM_OPTION_PARSER(::mlir::spperm::LongRowMode)
SPPERM_ENUM_OPTION_PARSER(::mlir::spperm::RowWindowMode)
SPPERM_ENUM_OPTION_PARSER(::mlir::spperm::NarrowIndexMode)
SPPERM_ENUM_OPTION_PARSER(::mlir::spperm::InPlaceBMode)

#endif // SPPERM_CONVERSION_SPPERMTOGPU_H
