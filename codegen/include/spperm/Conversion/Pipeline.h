//===- Pipeline.h - spperm-pipeline, the compiler ---------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The named pipeline `spperm-pipeline`: spperm IR to matrix-specialized
// kernels in a gpu.binary. It is the compiler: `spperm-opt
// -spperm-pipeline="..."` runs it on IR, and spperm-compile runs it (with
// the same options, spelled as flags) before writing the package
// (docs/Compile.md, docs/Passes.md "spperm-pipeline").
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_CONVERSION_PIPELINE_H
#define SPPERM_CONVERSION_PIPELINE_H

#include "spperm/Conversion/SpPermToGPU.h"
#include "spperm/Transforms/OptionValues.h"

#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/STLExtras.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::spperm {

/// Every option of the compiler. spperm-compile's tuning flags are these
/// options, spelled the same (`--strategy`, `--max-variants`, ...).
struct SpPermPipelineOptions
    : public PassPipelineOptions<SpPermPipelineOptions> {
  /// Every option, sorted by name: what a tool spells as flags.
  std::vector<const llvm::cl::Option *> getOptions() const {
    std::vector<const llvm::cl::Option *> all;
    for (const auto &entry : OptionsMap)
      all.push_back(entry.second);
    llvm::sort(all, [](const llvm::cl::Option *a, const llvm::cl::Option *b) {
      return a->ArgStr < b->ArgStr;
    });
    return all;
  }

  // What the kernels are for.
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("GPU architecture (sm_XY): the kernels' target and the "
                     "selector's shipped model (default sm_90)"),
      llvm::cl::init("sm_90")};
  Option<int64_t> k{
      *this, "k",
      llvm::cl::desc("K the selector chooses for where the multiplication's "
                     "K is dynamic (0: 32); spperm-compile also fixes it in "
                     "the type of a matrix file's layer (0, the default: any K)"),
      llvm::cl::init(0)};

  // Several GPUs (spperm-shard-rows; docs/Distributed.md).
  Option<int64_t> shards{
      *this, "shards",
      llvm::cl::desc("Cut each layer's rows into this many shards, one per "
                     "rank, each compiled on its own (1, the default: none)"),
      llvm::cl::init(1)};
  Option<ShardCutOption> shardCut{
      *this, "shard-cut",
      llvm::cl::desc("How --shards cuts the rows: balanced (equal predicted "
                     "time, the default) or equal-rows"),
      llvm::cl::init(ShardCutOption::Balanced), ShardCutOptionValues()};

  // The decision (spperm-extract-features, spperm-select).
  Option<StrategyOption> strategy{
      *this, "strategy",
      llvm::cl::desc("Row permutation: keep (the IR's; the default, but "
                     "spperm-compile's for a matrix file is auto), auto (the "
                     "selector's choice) or a strategy (docs/Permutations.md)"),
      llvm::cl::init(StrategyOption::Keep), StrategyOptionValues()};
  Option<FormatOption> format{
      *this, "format",
      llvm::cl::desc("Storage: keep (the IR's; the default, but "
                     "spperm-compile's for a matrix file is auto), auto (the "
                     "selector's choice), csr, bell, hbp or cusparse (the "
                     "CSR run by cuSPARSE)"),
      llvm::cl::init(FormatOption::Keep), FormatOptionValues()};
  Option<std::string> model{
      *this, "model",
      llvm::cl::desc("Selector model file (JSON, docs/Selector.md); empty: "
                     "the model shipped for the target"),
      llvm::cl::init("")};
  Option<bool> costModel{
      *this, "cost-model",
      llvm::cl::desc("Rank with the analytic cost model instead of a "
                     "learned model"),
      llvm::cl::init(false)};
  Option<double> margin{
      *this, "margin",
      llvm::cl::desc("How much faster (log2, 0 to 64) a generated variant "
                     "must be predicted than cuSPARSE to be chosen; negative: "
                     "the model's own (default)"),
      llvm::cl::init(-1.0)};
  Option<bool> noLibraryCheck{
      *this, "no-library-check",
      llvm::cl::desc("Take the selector's choice as it is: no check against "
                     "cuSPARSE at the first call, no shortlist"),
      llvm::cl::init(false)};
  Option<int64_t> maxVariants{
      *this, "max-variants",
      llvm::cl::desc("The most variants (the choice included, 0 to 64) the "
                     "selector gives a layer for the runtime to time: 0 the "
                     "model's shortlist (default), 1 the choice alone; a "
                     "3xtf32 tensor-core copy may come on top "
                     "(--no-tensor-core-alternatives)"),
      llvm::cl::init(0)};

  // The permutation (spperm-extract-features, spperm-permute-rows).
  Option<int64_t> warps{*this, "warps",
                        llvm::cl::desc("Warps per CTA of the kernel model "
                                       "(1 to 1024; default 32)"),
                        llvm::cl::init(32)};
  Option<int64_t> line{*this, "line",
                       llvm::cl::desc("Columns per cache line of B (a power "
                                      "of two, 1 to 1024; default 32)"),
                       llvm::cl::init(32)};
  Option<int64_t> tau{*this, "tau",
                      llvm::cl::desc("bsa: column-block width (1 to 1024; default 32)"),
                      llvm::cl::init(32)};
  Option<double> alpha{*this, "alpha",
                       llvm::cl::desc("bsa: similarity threshold (default 0.3)"),
                       llvm::cl::init(0.3)};

  // The storage (spperm-convert-format).
  Option<int64_t> block{*this, "block",
                        llvm::cl::desc("bell: tile size (1, 2, 4, 8, 16 or "
                                       "32; default 16)"),
                        llvm::cl::init(16)};
  Option<double> delta{*this, "delta",
                       llvm::cl::desc("bell: density threshold in (0, 1]; 0 "
                                      "searches (default)"),
                       llvm::cl::init(0.0)};
  Option<BellColumnsOption> bellColumns{
      *this, "bell-columns",
      llvm::cl::desc("bell: tile columns: blocks (consecutive; default), "
                     "condensed (any of the block row's dense columns) or "
                     "auto (the cheaper by the cost model)"),
      llvm::cl::init(BellColumnsOption::Blocks), BellColumnsOptionValues()};
  Option<int64_t> rowBlock{*this, "row-block",
                           llvm::cl::desc("hbp: rows per block (a positive "
                                          "multiple of 32; default 512)"),
                           llvm::cl::init(512)};
  Option<int64_t> colBlock{*this, "col-block",
                           llvm::cl::desc("hbp: columns per block (default 4096)"),
                           llvm::cl::init(4096)};

  // The kernels (spperm-lower-to-gpu).
  Option<Precision> precision{
      *this, "precision",
      llvm::cl::desc("Blocked-ELL dense blocks: fp32 (CUDA cores), tf32 or "
                     "f16 (tensor cores, 16 x 16 or 32 x 32 blocks, K a "
                     "multiple of 8), 3xtf32 (tensor cores at fp32 "
                     "accuracy); f16 and bf16 operands are multiplied in "
                     "their own type for any but fp32; default fp32"),
      llvm::cl::init(Precision::F32), PrecisionValues()};
  Option<bool> noTensorCoreAlternatives{
      *this, "no-tensor-core-alternatives",
      llvm::cl::desc("No 3xtf32 alternative for the selected layers with "
                     "16 x 16 or 32 x 32 dense blocks "
                     "(spperm-tensor-core-alternatives; with precision fp32, "
                     "the library check and more than one variant, they "
                     "get one by default)"),
      llvm::cl::init(false)};
  Option<int64_t> threads{*this, "threads",
                          llvm::cl::desc("Threads per CTA of the kernels (a "
                                         "multiple of 32, at most 1024; default 256)"),
                          llvm::cl::init(256)};
  Option<int64_t> batch{*this, "batch",
                        llvm::cl::desc("Row kernels: entries whose B loads are issued "
                                       "together, 1 to 8 (0, the default: chosen per layer)"),
                        llvm::cl::init(0)};
  ListOption<int64_t> kBuckets{
      *this, "k-buckets",
      llvm::cl::desc("Without --k: the K values (2 to 65536) that get a "
                     "variant of their own, generated as for that K, ahead "
                     "of the variants for every K, and from 64 up a range "
                     "variant shaped as the bucket for the K just below it "
                     "(and above the largest), "
                     "K read at run time (default 8,32,64,128,256,512; 0 "
                     "alone: none)")};
  Option<int64_t> kSlices{
      *this, "k-slices",
      llvm::cl::desc("SpMM with a static K: cut K into this many slices, "
                     "each its own CTAs, up to 1024 (0 chooses: slices of 32 "
                     "columns for 64 <= K <= 128 when the layer has at most "
                     "8 warps per SM without them, slices of 128 or 32 "
                     "columns for K > 128, the default; 1: none); a package "
                     "for any K: its range variants' slices are their "
                     "bucket's K over this many wide, as many as the call's "
                     "K needs"),
      llvm::cl::init(0)};
  Option<int64_t> splitRows{
      *this, "split-rows",
      llvm::cl::desc("Row kernels: rows longer than this many entries are "
                     "cut into chunks of half as many that a second kernel "
                     "adds atomically (0, the default: chosen per layer)"),
      llvm::cl::init(0)};
  Option<LongRowMode> longRows{
      *this, "long-rows",
      llvm::cl::desc("SpMM rows longer than the split threshold: auto (default), cta "
                     "(a CTA each in the row kernel) or split (chunks in a "
                     "split kernel)"),
      llvm::cl::init(LongRowMode::Auto), LongRowModeValues()};
  Option<RowWindowMode> rowWindows{
      *this, "row-windows",
      llvm::cl::desc("csr layers with a static K >= 128 (256 for 16-bit "
                     "operands): the csr-window kernel (B shared by a window "
                     "of rows through shared memory): auto (default: fp32 "
                     "layers with K >= 512 of at least 2048 columns and "
                     "density 0.25), always or never"),
      llvm::cl::init(RowWindowMode::Auto), RowWindowModeValues()};
  Option<NarrowIndexMode> narrowIndices{
      *this, "narrow-indices",
      llvm::cl::desc("Row and csr-window kernels read 16-bit column indices "
                     "(narrowed by the runtime at upload): auto (default: "
                     "layers of at most 65536 columns) or never"),
      llvm::cl::init(NarrowIndexMode::Auto), NarrowIndexModeValues()};
  Option<InPlaceBMode> inPlaceB{
      *this, "in-place-b",
      llvm::cl::desc("fp32 csr layers: kernels that read a column-major B "
                     "in place (for a static K of 8 to 128, else one per "
                     "range of K up to 128), which the runtime times "
                     "against the transposing kernel at the first "
                     "column-major call per K: auto or never (default)"),
      llvm::cl::init(InPlaceBMode::Never), InPlaceBModeValues()};

  Option<std::string> baseDir{
      *this, "base-dir",
      llvm::cl::desc("Directory relative matrix paths are resolved against"),
      llvm::cl::init("")};
};

/// Checks the options' ranges and the target: an empty string, or what is
/// wrong, naming the option (`batch must be an integer in [0, 8], got 9`).
std::string verifyPipelineOptions(const SpPermPipelineOptions &options);

/// Adds the compiler to `pm` (docs/Passes.md, "spperm-pipeline"):
/// spperm-extract-features and spperm-select + spperm-expand-alternatives
/// when a decision is left to the selector (strategy or format `auto`, or
/// format `cusparse`), spperm-permute-rows, spperm-convert-format,
/// spperm-lower-to-gpu, and the upstream lowering to a gpu.binary
/// (buildGpuToBinaryPipeline). `options` must have passed
/// verifyPipelineOptions.
void buildSpPermPipeline(OpPassManager &pm,
                         const SpPermPipelineOptions &options);

/// buildSpPermPipeline without the upstream lowering to a gpu.binary: up
/// to spperm-lower-to-gpu, whose gpu.module a caller may still edit (as
/// spperm-compile does, removing the kernels no packaged variant launches)
/// before buildGpuToBinaryPipeline. `afterEachPass`, when given, is called
/// after each pass is added (spperm-compile adds its interruption check).
void buildSpPermKernelPipeline(
    OpPassManager &pm, const SpPermPipelineOptions &options,
    llvm::function_ref<void(OpPassManager &)> afterEachPass = nullptr);

/// Registers `spperm-pipeline` (options checked by verifyPipelineOptions).
void registerSpPermPipeline();

} // namespace mlir::spperm

#endif // SPPERM_CONVERSION_PIPELINE_H
