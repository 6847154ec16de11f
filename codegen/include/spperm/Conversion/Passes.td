//===- Passes.td - spperm conversion passes ----------------*- tablegen -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_CONVERSION_PASSES_TD
#define SPPERM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def SpPermLowerToGPU : Pass<"spperm-lower-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Generate GPU kernels specialized for each multiplied matrix";
  let description = [{
    For every `spperm.spmm`, takes its matrix permuted and stored as the
    matrix type says, and emits the layer's kernels as `gpu.func`s into the
    `gpu.module @spperm_kernels` (the module becomes a
    `gpu.container_module`). What is known of the matrix is baked into the
    kernels as constants: the row ranges, group sizes and groups per row,
    the broadcast batch, the chunks of long rows (a constant
    `memref.global`), the Blocked-ELL block size and width, the HBP
    partition, and K when the dense operand's type fixes it (otherwise one
    variant per class of K).

    Each `spperm.spmm` gets a `spperm.kernels` attribute: its launches in
    the order the runtime runs them, as `#spperm.launch` attributes (name,
    family, variant, the K condition, whether C is cleared first, the
    parameters, grid, block and shared memory), i.e. the `kernels` of the
    layer in the package manifest. Kernel symbols start with `l<N>_` for
    the N-th multiplication of the module (`l<N>a<M>_` for the M-th
    alternative of layer N, a function `spperm-expand-alternatives` made);
    after `spperm-dedup-kernels` a layer may launch an earlier layer's
    kernel, which the package then shares. A matrix whose `spperm.load` carries a
    `#spperm.choice` of format `cusparse` gets no kernels: its one launch
    is the library's (`name = "cusparse"`).

    The matrices come from the pipeline's matrix cache (the `MatrixCache`
    analysis, shared by every pass of one run): each file is read once, and
    a matrix spperm-convert-format already stored in its format is not
    built again.

    Kernel families (docs/Kernels.md): `csr` (a group of lanes per row,
    entries cached in registers and broadcast by shuffle, 16-byte B and C
    accesses; when rows are too few to fill the GPU, several groups of a CTA
    share a row and reduce by shuffle and shared memory; rows sorted by
    length may get several launches), `bell` (the same over the CSR
    residual; SpMM with K >= 12 then adds the dense blocks in `bell-tile`,
    fp32 register tiles of 16 rows fed by one B row load per block column;
    SpMV, K <= 8 and the scalar variant add them in the row kernel first),
    `*-spmv` (lanes stride over a row and
    reduce by shuffle; row ranges of similar length get their own group
    size; short rows four to a group), `*-split` (chunks of long rows, added
    atomically) and `hbp` (a warp per 2-D block, fixed and
    ticketed competitive blocks, atomic combine). With `precision=tf32`,
    `f16` or `3xtf32`, bell layers with 16 x 16 or 32 x 32 blocks also get
    tensor-core variants for K a multiple of 8 (`bell-tf32`/`bell-f16`/
    `bell-3xtf32`: a warp per 16 rows, `nvgpu.mma.sync`, added into C after
    the residual's row kernel). Layers of f16 or bf16 operands (B and C)
    round each element of C once: their `bell-tile` and tensor-core kernels
    (`bell-f16`/`bell-bf16`, m16n8k16 on the operands as they are, for any
    precision but fp32) run first into an fp32 accumulator that the row
    kernel adds before it stores, and hbp adds into the accumulator, which
    a `round` kernel rounds into C (docs/Kernels.md, "Half precision").
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"256",
           "Threads per CTA (a multiple of 32, at most 1024)">,
    Option<"baseDir", "base-dir", "std::string", /*default=*/"\"\"",
           "Directory that relative matrix paths are resolved against">,
    Option<"precision", "precision", "::mlir::spperm::Precision",
           /*default=*/"::mlir::spperm::Precision::F32",
           "Blocked-ELL dense blocks: fp32 (CUDA cores), tf32, f16 or "
           "3xtf32 (tensor cores, opt-in; f16 and bf16 operands are "
           "multiplied in their own type for any of them)",
           "::mlir::spperm::PrecisionValues()">,
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "GPU architecture (sm_XY): from sm_90 on, atomic additions of "
           "16-byte accumulators are one red.global.add.v4.f32">,
    Option<"batch", "batch", "int64_t", /*default=*/"0",
           "Row kernels: entries whose B loads are issued together, 1 to "
           "8 (0: 8 in straight-line batches for layers with too few rows "
           "to fill the GPU, else a loop over batches of 2, or in SpMM of "
           "4 for rows of very uneven length; the loop loads the entries "
           "directly, with no shuffles, for 16-bit operands over many "
           "short, even rows)">,
    ListOption<"kBuckets", "k-buckets", "int64_t",
               "Without a static K: the K values (2 to 65536) that get a "
               "variant of their own, generated as for that K, ahead of the "
               "variants for every K, and from 64 up a range variant shaped "
               "as the bucket for the K just below it (and above the "
               "largest), K read at run time "
               "(default 8,32,64,128,256,512; 0 alone: none)">,
    Option<"kSlices", "k-slices", "int64_t", /*default=*/"0",
           "SpMM with a static K: the CTAs cut K into this many slices "
           "(0 chooses: slices of 32 columns for 64 <= K <= 128 when the "
           "layer has at most 8 warps per SM without them, slices of 128 "
           "or 32 columns for K > 128; 1: none); K read at run time (range "
           "variants): slices of their bucket's K over this many wide, as "
           "many as the call's K needs">,
    Option<"splitRows", "split-rows", "int64_t", /*default=*/"0",
           "Row kernels: rows longer than this many entries are cut into "
           "chunks of half as many that a second kernel adds into C "
           "atomically (16-bit C: into the fp32 accumulator, which a round "
           "kernel then stores; 0 chooses per layer: against the mean row, and "
           "for layers too small to fill the GPU against 4 batches of "
           "loads)">,
    Option<"longRows", "long-rows", "::mlir::spperm::LongRowMode",
           /*default=*/"::mlir::spperm::LongRowMode::Auto",
           "SpMM rows longer than the split threshold: auto (a CTA each in "
           "the row kernel's launch when one CTA walks the longest in at "
           "most 12 batches of loads per group and that pays, else chunks "
           "in a split kernel; docs/Kernels.md), cta (a CTA each whenever "
           "the rows are one range) or split (chunks in a split kernel)",
           "::mlir::spperm::LongRowModeValues()">,
    Option<"rowWindows", "row-windows", "::mlir::spperm::RowWindowMode",
           /*default=*/"::mlir::spperm::RowWindowMode::Auto",
           "csr layers with a static K >= 128 (256 for 16-bit operands): run "
           "the csr-window kernel "
           "(a window of rows shares its B rows through shared memory; "
           "docs/Kernels.md): auto (fp32 layers with K >= 512 of at least "
           "2048 columns and density 0.25, where it was measured to pay), "
           "always or never",
           "::mlir::spperm::RowWindowModeValues()">,
    Option<"narrowIndices", "narrow-indices",
           "::mlir::spperm::NarrowIndexMode",
           /*default=*/"::mlir::spperm::NarrowIndexMode::Auto",
           "Row and csr-window kernels read their column indices as 16 "
           "bits, which the runtime narrows from the stored int32 arrays "
           "when it uploads them (docs/Kernels.md): auto (layers of at most "
           "65536 columns) or never",
           "::mlir::spperm::NarrowIndexModeValues()">,
    Option<"inPlaceB", "in-place-b", "::mlir::spperm::InPlaceBMode",
           /*default=*/"::mlir::spperm::InPlaceBMode::Never",
           "fp32 csr layers: kernels that read a column-major B in place, "
           "up to three candidate shapes for a static K of 8 to 128, else "
           "one per range of K from 8 to 128 reading K at run time, "
           "recorded in spperm.in_place_b (docs/Kernels.md, \"In-place "
           "column-major B\"): auto or never (the default)",
           "::mlir::spperm::InPlaceBModeValues()">,
  ];
}

def SpPermDedupKernels : Pass<"spperm-dedup-kernels", "::mlir::ModuleOp"> {
  let summary = "Keep one copy of generated kernels that are the same";
  let description = [{
    Generated kernels are often the same, op for op: what is baked into
    them (row ranges, group sizes, the broadcast batch, K) does not depend
    on the row order or on which rows a shard holds when those leave the
    plan unchanged. The csr variants of several permutations of one matrix,
    the shards of an evenly cut matrix and the transposing kernels of layers
    with as many columns (and the same static K) are typical. This pass keeps the first of each set of equal kernel
    `gpu.func`s in `gpu.module @spperm_kernels` (the same attributes but
    their name, the same body, locations aside) and points every
    `#spperm.launch` of `spperm.kernels`, `spperm.transpose_b` and
    `spperm.in_place_b` at it, so fewer kernels are lowered to PTX and
    assembled and a package's `kernels.ptx` and cubin hold each once.
    Kernels launched with different dynamic shared memory sizes stay apart
    (the runtime sets a kernel's shared-memory limit for its launch).
    `spperm-pipeline` runs it after `spperm-lower-to-gpu`.
  }];
}

def SpPermSplitKernelModule
    : Pass<"spperm-split-kernel-module", "::mlir::ModuleOp"> {
  let summary = "Cut the kernel module into parts lowered and serialized in "
                "parallel";
  let description = [{
    The generated kernels of a compile all live in `gpu.module
    @spperm_kernels`, which upstream lowers and serializes as one LLVM
    module, on one thread. This pass cuts it into `gpu.module`s
    `@spperm_kernels_part_0`, `_1`, ... — consecutive runs of its kernels,
    each part with a copy of the module's other ops (globals, helper
    functions) and attributes — so that the pass manager lowers the parts
    to NVVM on as many threads, and `spperm-serialize-kernels` translates
    them to PTX in parallel and joins them into one `gpu.binary
    @spperm_kernels`. The kernels are independent (none calls another), so
    each is lowered as in one module: the joined PTX differs from one
    module's only in comments and in its local labels' numbers (LLVM
    numbers them by the function's place in its module), and ptxas makes
    the same cubin of it. `parts` bounds the number of parts; the default,
    0, gives each kernel a part of its own, so that the package's PTX does
    not depend on how many threads the compiling machine has (the pass
    manager runs the parts on as many threads as the context has).
  }];
  let options = [
    Option<"parts", "parts", "unsigned", /*default=*/"0",
           "The most parts (0: one per kernel)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def SpPermSerializeKernels
    : Pass<"spperm-serialize-kernels", "::mlir::ModuleOp"> {
  let summary = "Translate the kernel module's parts to PTX in parallel and "
                "join them into one gpu.binary";
  let description = [{
    Serializes the parts `spperm-split-kernel-module` made (after
    `nvvm-attach-target`) to PTX, each on a thread of the context's pool,
    with their target's own serializer (as `gpu-module-to-binary{format=isa}`
    does one module), and joins the texts in the parts' order into
    `gpu.binary @spperm_kernels`, laid out as LLVM lays out one module:
    one header (`.version`, `.target`, `.address_size`, which must agree),
    the declarations (function prototypes, `.extern`s), which must precede
    any use, then the variables and helper functions in the module's
    order, each once (several parts define the globals they use alike; two
    different definitions of one name are an error), then the kernels in
    the parts' order. Of kernels that call no helper function (every kernel
    spperm generates), ptxas makes the same cubin as of the one module's
    PTX (`tools/scripts/ptx_join_equivalence.py`); helpers come before the
    kernels here, after them there. Modules other than the parts are left
    to `gpu-module-to-binary`.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // SPPERM_CONVERSION_PASSES_TD
