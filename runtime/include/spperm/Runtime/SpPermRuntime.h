/*===- SpPermRuntime.h - The spperm runtime C API ------------------*- C -*-===*
 *
 * Part of the spperm project.
 *
 *===----------------------------------------------------------------------===*
 *
 * A flat C ABI over a compiled package (docs/RuntimeABI.md): load a package
 * directory once, look its layers up, run C = A * B many times, release.
 *
 *  - Every function returns an sprt_status (but the two releases and the
 *    version, status-name and last-error queries); on failure it leaves a
 *    one-line message that sprt_last_error() returns on the same thread. No
 *    C++ exception ever crosses this interface.
 *  - Every function checks its arguments (NULL pointers, ranges, sizes)
 *    before it touches anything.
 *  - A package is verified completely (schema, sizes, bounds, checksums,
 *    format invariants) when it is loaded; a corrupt one is refused with
 *    SPRT_ERROR_CORRUPT_PACKAGE and nothing is kept.
 *  - Dimensions are int64_t; matrices are row-major float32 (sprt_spmm), or
 *    of the layer's element type (sprt_spmm_typed). Results are in
 *    the ORIGINAL row order of the compiled matrix, whatever permutation the
 *    package stores.
 *
 * spperm/Runtime/SpPermRuntime.hpp wraps this in move-only C++ classes.
 *
 *===----------------------------------------------------------------------===*/

#ifndef SPPERM_RUNTIME_SPPERMRUNTIME_H
#define SPPERM_RUNTIME_SPPERMRUNTIME_H

#include <stdint.h>
#include <stddef.h>

#if defined(_WIN32)
#define SPRT_EXPORT __declspec(dllexport)
#else
#define SPRT_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The version of this interface; sprt_abi_version() returns the library's. */
#define SPRT_ABI_VERSION 1

/** The outcome of a call. The values are stable across versions. */
typedef enum sprt_status {
  SPRT_OK = 0,
  /** A NULL pointer, an index or size out of range, a shape mismatch. */
  SPRT_ERROR_INVALID_ARGUMENT = 1,
  /** The package directory or its manifest.json is missing or unreadable,
   *  or data.bin exists but cannot be read. */
  SPRT_ERROR_IO = 2,
  /** The package is malformed, incomplete, of another version, or fails a
   *  size, bound or checksum check. */
  SPRT_ERROR_CORRUPT_PACKAGE = 3,
  /** No layer of that name. */
  SPRT_ERROR_NOT_FOUND = 4,
  /** The request needs something this build or package lacks (e.g. the GPU
   *  device in a build without CUDA). */
  SPRT_ERROR_UNSUPPORTED = 5,
  /** The device reported an error. */
  SPRT_ERROR_DEVICE = 6,
  /** Device memory could not be allocated. */
  SPRT_ERROR_OUT_OF_MEMORY = 7
} sprt_status;

/** Where a package's layers run. */
typedef enum sprt_device {
  /** The host: the sparse core's CPU executor; stream arguments are ignored. */
  SPRT_DEVICE_CPU = 0,
  /** The GPU: the package's kernels through the CUDA driver API. */
  SPRT_DEVICE_GPU = 1
} sprt_device;

/** The element type of B and C (docs/RuntimeABI.md, "Element types"). The
 *  values are stable across versions. */
typedef enum sprt_dtype {
  /** IEEE binary32: sprt_spmm's float. */
  SPRT_DTYPE_F32 = 0,
  /** IEEE binary16 (torch.float16), as 16-bit patterns. */
  SPRT_DTYPE_F16 = 1,
  /** bfloat16 (torch.bfloat16), as 16-bit patterns. */
  SPRT_DTYPE_BF16 = 2
} sprt_dtype;

/** How B's elements lie in memory (sprt_spmm_ordered; docs/RuntimeABI.md,
 *  "Column-major B"). The values are stable across versions. */
typedef enum sprt_order {
  /** Row-major: B(i, j) at b[i * k + j], as sprt_spmm takes it. */
  SPRT_ORDER_ROW = 0,
  /** Column-major: B(i, j) at b[i + j * cols], i.e. Xᵀ for a row-major X
   *  of k x cols (torch.nn.Linear's input). */
  SPRT_ORDER_COL = 1
} sprt_order;

/** A loaded package (opaque). */
typedef struct sprt_package sprt_package;

/** What sprt_layer_info reports about a layer (a different name because C
 *  has one namespace for typedefs and functions). The strings belong to the
 *  package and stay valid until it is released. */
typedef struct sprt_layer_desc {
  /** The layer's name (the --layer of spperm-run). */
  const char *name;
  /** A is rows x cols with nnz stored entries. */
  int64_t rows;
  int64_t cols;
  int64_t nnz;
  /** The K the kernels were specialized for; 0 when any K is accepted. */
  int64_t k;
  /** Storage format: "csr", "bell" or "hbp"; "cusparse" for a layer
   *  compiled to run by cuSPARSE on its CSR (--format cusparse); "mixed" for a
   *  sharded layer whose shards differ. */
  const char *format;
  /** Row-permutation strategy: "identity", "lpt", "bsa", ... */
  const char *strategy;
} sprt_layer_desc;

/** SPRT_ABI_VERSION of the library (compare with the header's). */
SPRT_EXPORT int32_t sprt_abi_version(void);

/** The enumerator's name ("SPRT_OK", ...); "SPRT_UNKNOWN_STATUS" otherwise.
 *  The string is static. */
SPRT_EXPORT const char *sprt_status_name(sprt_status status);

/** The message of the last failure on the calling thread ("" when none).
 *  Valid until the next failing call on this thread. Successful calls leave
 *  it unchanged. */
SPRT_EXPORT const char *sprt_last_error(void);

/** Loads and verifies the package directory `path` for `device`. On success
 *  *out is a new package the caller releases with sprt_package_release; on
 *  failure *out is NULL (when `out` is not NULL). */
SPRT_EXPORT sprt_status sprt_package_load(const char *path, sprt_device device,
                                          sprt_package **out);

/** Loads what rank `rank` of `ranks` runs of the package directory `path`
 *  (docs/Distributed.md): each layer compiled with `--shards ranks` is
 *  reduced to its shard `rank` (a layer of that shard's rows; C holds rows
 *  [row_begin, row_end) of the whole layer, sprt_layer_shard), and layers
 *  compiled whole are kept whole. Only that shard's arrays go to the device
 *  (the package is still read and verified whole, and its kernel module
 *  loaded whole). SPRT_ERROR_INVALID_ARGUMENT when rank is not in
 *  [0, ranks) or a sharded layer has another number of shards than
 *  `ranks`. The GPU is CUDA device SPPERM_CUDA_DEVICE (0 when unset): give
 *  each rank's process its own (docs/Distributed.md). */
SPRT_EXPORT sprt_status sprt_package_load_shard(const char *path,
                                                sprt_device device,
                                                int32_t rank, int32_t ranks,
                                                sprt_package **out);

/** Releases a package and everything it holds; NULL is accepted. The package
 *  must not be in use on another thread. */
SPRT_EXPORT void sprt_package_release(sprt_package *package);

/** The number of layers (>= 1). */
SPRT_EXPORT sprt_status sprt_layer_count(const sprt_package *package,
                                         int64_t *count);

/** The index of the layer named `name`; SPRT_ERROR_NOT_FOUND if none. */
SPRT_EXPORT sprt_status sprt_layer_find(const sprt_package *package,
                                        const char *name, int64_t *index);

/** Describes layer `index` (0 <= index < sprt_layer_count). A layer of
 *  several shards is described whole: its rows and entries are all its
 *  shards', its format and strategy shard 0's ("mixed" where the shards
 *  differ). */
SPRT_EXPORT sprt_status sprt_layer_info(const sprt_package *package,
                                        int64_t index, sprt_layer_desc *desc);

/** The element type of B and C that layer `index` takes (its package's
 *  --dtype; SPRT_DTYPE_F32 for packages that do not say). Layers of
 *  SPRT_DTYPE_F32 run through sprt_spmm or sprt_spmm_typed, the others
 *  through sprt_spmm_typed only. */
SPRT_EXPORT sprt_status sprt_layer_dtype(const sprt_package *package,
                                         int64_t index, sprt_dtype *dtype);

/** One shard of a layer (sprt_layer_shard). */
typedef struct sprt_shard_desc {
  /** Which shard of the layer this is, and how many the layer has (1: the
   *  layer was compiled whole). */
  int64_t index;
  int64_t count;
  /** The rows [row_begin, row_end) of the whole layer (of `rows`) the
   *  shard's C holds, in the original order. */
  int64_t row_begin;
  int64_t row_end;
  int64_t rows;
} sprt_shard_desc;

/** The shards layer `index` holds: sprt_layer_shard_count gives 1 for a
 *  layer compiled whole and for a layer loaded by sprt_package_load_shard
 *  (its one shard), else the layer's shard count; sprt_layer_shard
 *  describes held shard `shard` (0 <= shard < that count). */
SPRT_EXPORT sprt_status sprt_layer_shard_count(const sprt_package *package,
                                               int64_t index, int64_t *count);
SPRT_EXPORT sprt_status sprt_layer_shard(const sprt_package *package,
                                         int64_t index, int64_t shard,
                                         sprt_shard_desc *desc);

/** C = A * B for layer `layer`: B is cols x k row-major, C is rows x k
 *  row-major, rows in the original order; every element of C is written.
 *  A layer of several shards runs each shard into its rows of C; a layer
 *  loaded by sprt_package_load_shard is its shard's rows alone.
 *  1 <= k <= 2^31 - 1, and k must equal the layer's k when that is not 0.
 *  b and c are aligned to 4 bytes, and on the GPU to 16 bytes when
 *  k % 4 == 0 (SPRT_ERROR_INVALID_ARGUMENT otherwise, before anything
 *  runs). On the CPU
 *  device b and c are host pointers, must not overlap, and `stream` is
 *  ignored; the call returns when C is complete. On the GPU device b and c
 *  are DEVICE pointers (e.g. from sprt_device_malloc), `stream` is a
 *  CUstream or NULL (the legacy default stream), and the work is only
 *  enqueued: C is complete once the stream has reached this point. The
 *  first call for a layer and K bucket (the power of two at least k), on
 *  whichever stream, chooses what runs it for every stream: the tuning
 *  cache's choice when the cache file holds one for this package, layer,
 *  bucket, GPU, driver and cuSPARSE, else by timing the layer's variants
 *  and the cuSPARSE algorithms (and cuBLAS on the densified matrix), which
 *  synchronizes the stream, and then storing the choice in the cache. The
 *  cache file is $SPRT_TUNING_CACHE ("off", "0" or "" for none), else
 *  $XDG_CACHE_HOME/spperm/tuning.json, else
 *  $HOME/.cache/spperm/tuning.json; it is never required
 *  (docs/RuntimeABI.md, "Tuning cache"). Calls on one package may run
 *  concurrently from several threads (each with its own C), and calls of
 *  one layer on different streams may overlap in time: the ticket
 *  counters, workspaces and library descriptors are per stream
 *  (docs/RuntimeABI.md, "Ownership and threading"). */
SPRT_EXPORT sprt_status sprt_spmm(sprt_package *package, int64_t layer,
                                  const float *b, int64_t k, float *c,
                                  void *stream);

/** sprt_spmm with B and C of element type `b_dtype` and `c_dtype`, which
 *  must both be the layer's (sprt_layer_dtype;
 *  SPRT_ERROR_INVALID_ARGUMENT otherwise, naming both). The products are
 *  accumulated in fp32 and each element of C is rounded once to its type,
 *  to nearest even. Alignment: 2 bytes for 16-bit types, and on the GPU 16
 *  bytes when k % 8 == 0 and 8 bytes when k % 4 == 0 (the kernels move 8
 *  or 4 elements at a time); the rest as sprt_spmm, which this is for
 *  SPRT_DTYPE_F32. On the GPU, 16-bit layers choose among their generated
 *  variants and, when their values are of their type, dense GEMM through
 *  cuBLASLt with fp32 partial sums ("cublaslt-gemm") and the cuSPARSE
 *  algorithms that round C once (every f16 one; bf16 SpMV and CSR_ALG3);
 *  bf16's default SpMM and CSR_ALG2 do not and are sprt_spmm_time_typed's
 *  baselines only. */
SPRT_EXPORT sprt_status sprt_spmm_typed(sprt_package *package, int64_t layer,
                                        const void *b, sprt_dtype b_dtype,
                                        int64_t k, void *c, sprt_dtype c_dtype,
                                        void *stream);

/** sprt_spmm_typed with B in the order `b_order` (C is row-major as
 *  always; docs/RuntimeABI.md, "Column-major B"). SPRT_ORDER_ROW is
 *  sprt_spmm_typed. SPRT_ORDER_COL: B(i, j) at b[i + j * cols]; b is
 *  aligned to its element size. On the CPU the executor copies B row-major
 *  on the host first (`workspace` is ignored). On the GPU the layer's
 *  transposing kernel first writes B row-major into a workspace of cols * k
 *  elements, which the variant chosen for K then reads, all on `stream`
 *  (dense SGEMM reads the column-major B itself, and K = 1 needs no copy).
 *  The workspace is the caller's `workspace` when not NULL (a device
 *  pointer to at least `workspace_bytes` = cols * k * element size bytes,
 *  aligned to 16 bytes, that no other call uses until this one is complete
 *  on `stream`); with NULL, the runtime's: one buffer per stream (grown at
 *  a call that needs more), or, while the stream is captured into a CUDA
 *  graph, a stream-ordered allocation the graph holds as its own
 *  allocation and free nodes (cuMemAllocAsync; with a driver without it,
 *  the stream's buffer, which a capture may only allocate in the relaxed
 *  mode). A graph with such nodes has the driver's limits on memory nodes
 *  (e.g. one instance at a time, not a child graph): pass a workspace to
 *  avoid them. SPRT_ERROR_UNSUPPORTED on the GPU for a layer without a
 *  transposing kernel (a package made before them, or whose code this GPU
 *  cannot load; sprt_layer_accepts_order tells). Other arguments and the
 *  first call's choice as sprt_spmm_typed: the choice for (layer, K
 *  bucket) is shared by both orders. */
SPRT_EXPORT sprt_status sprt_spmm_ordered(sprt_package *package, int64_t layer,
                                          const void *b, sprt_dtype b_dtype,
                                          sprt_order b_order, int64_t k,
                                          void *c, sprt_dtype c_dtype,
                                          void *workspace,
                                          size_t workspace_bytes,
                                          void *stream);

/** Sets *accepted to 1 when sprt_spmm_ordered takes B of `order` for
 *  layer `index` on the package's device, else 0: row-major always;
 *  column-major on the CPU always, on the GPU when the layer (every shard)
 *  has its transposing kernel. */
SPRT_EXPORT sprt_status sprt_layer_accepts_order(const sprt_package *package,
                                                 int64_t index,
                                                 sprt_order order,
                                                 int32_t *accepted);

/** Benchmarking: runs `variant` of sprt_spmm's computation `warmup` times
 *  untimed, then `runs` times, each timed on its own (CUDA events on the
 *  GPU, a steady clock on the CPU), and writes the times in milliseconds to
 *  times_ms[0 .. runs). Returns when all runs are complete; C then holds
 *  the result of the last run. Arguments as for sprt_spmm; warmup >= 0,
 *  runs >= 1. `variant` NULL or "spperm" is what sprt_spmm runs; on the GPU
 *  the cuSPARSE baselines on the same matrix in the original row order are
 *  "cusparse-spmm-default", "cusparse-spmm-csr-alg2",
 *  "cusparse-spmm-csr-alg3" and, for k == 1, "cusparse-spmv-default",
 *  "cusparse-spmv-csr-alg1", "cusparse-spmv-csr-alg2" (each with its
 *  descriptors, buffer and preprocessing made before the first run). On
 *  the GPU, "spperm:N" runs one variant of the layer as it is, unchecked:
 *  N = 0 its own generated kernels, N >= 1 its alternative N (the
 *  selector's shortlist, which the first sprt_spmm call chooses among);
 *  "cublas-sgemm" (fp32) or "cublaslt-gemm" (16-bit) is the dense GEMM on
 *  the densified matrix. The CPU runs "spperm" (and "spperm:0", the same).
 *  SPRT_ERROR_UNSUPPORTED: an unknown variant, a GPU variant on the CPU,
 *  one that cuSPARSE refuses for this matrix and K, or a variant the layer
 *  lacks or that has no kernels for K. SPRT_ERROR_INVALID_ARGUMENT: an
 *  empty variant, or "spperm:" without a number of one to four digits. */
SPRT_EXPORT sprt_status sprt_spmm_time(sprt_package *package, int64_t layer,
                                       const char *variant, const float *b,
                                       int64_t k, float *c, void *stream,
                                       int32_t warmup, int32_t runs,
                                       float *times_ms);

/** sprt_spmm_time with B and C of element types `b_dtype` and `c_dtype`
 *  (both the layer's, as sprt_spmm_typed). For a 16-bit layer the cuSPARSE
 *  baselines run at its type (A's values rounded to it, fp32 compute), and
 *  the dense one is "cublaslt-gemm" (cublasLtMatmul on the densified
 *  matrix of that type, fp32 compute and split-K reduction) instead of
 *  "cublas-sgemm". */
SPRT_EXPORT sprt_status sprt_spmm_time_typed(
    sprt_package *package, int64_t layer, const char *variant, const void *b,
    sprt_dtype b_dtype, int64_t k, void *c, sprt_dtype c_dtype, void *stream,
    int32_t warmup, int32_t runs, float *times_ms);

/** Several GPUs (docs/Distributed.md). A communicator joins one GPU per
 *  rank over NCCL, which is loaded at the first use ($SPRT_NCCL_LIBRARY,
 *  else libnccl.so.2; SPRT_ERROR_DEVICE with the reason when it cannot
 *  be). Each rank is a process whose runtime uses its own GPU
 *  (SPPERM_CUDA_DEVICE, read once per process). */
typedef struct sprt_comm sprt_comm;

/** The bytes of a communicator's unique id. */
#define SPRT_COMM_ID_BYTES 128

/** Makes a new communicator's unique id (NCCL's), on one rank; the caller
 *  hands it to every rank by its own means (a file, a socket, argv). */
SPRT_EXPORT sprt_status
sprt_comm_unique_id(unsigned char id[SPRT_COMM_ID_BYTES]);

/** Joins the communicator `id` as rank `rank` of `ranks`; every rank calls
 *  it, and it returns once all have. Release with sprt_comm_release. */
SPRT_EXPORT sprt_status
sprt_comm_create(const unsigned char id[SPRT_COMM_ID_BYTES], int32_t rank,
                 int32_t ranks, sprt_comm **out);

/** Releases a communicator; NULL is accepted. */
SPRT_EXPORT void sprt_comm_release(sprt_comm *comm);

/** Waits until every rank of `comm` has reached this call (enqueued on
 *  `stream`, which it synchronizes). */
SPRT_EXPORT sprt_status sprt_comm_barrier(sprt_comm *comm, void *stream);

/** The rows of B rank `rank` of `ranks` holds for sprt_spmm_allgather on a
 *  layer of `cols` columns: [rank * P, min(cols, rank * P + P)) with
 *  P = ceil(cols / ranks) (empty on ranks past the columns); cols is at
 *  most 2^31 - 1, as a layer's. */
SPRT_EXPORT sprt_status sprt_comm_b_rows(int64_t cols, int32_t rank,
                                         int32_t ranks, int64_t *row_begin,
                                         int64_t *row_end);

/** The 1.5-D algorithm (docs/Distributed.md): C = A * B for layer `layer`
 *  of a package loaded for the GPU (usually by sprt_package_load_shard, so
 *  C is this rank's rows) when B's rows are split over the ranks of `comm`:
 *  `b_local` is this rank's rows of B (sprt_comm_b_rows), row-major with k
 *  columns (device memory, as B of sprt_spmm). B is all-gathered over NCCL
 *  in chunks of `chunk` columns of K (0 or >= k: all at once), each chunk
 *  multiplied as soon as it has arrived while the next is in flight; no
 *  rank holds more than two chunks of B. Every rank calls it with the same
 *  k and chunk. Enqueued on `stream` like sprt_spmm. */
SPRT_EXPORT sprt_status sprt_spmm_allgather(sprt_package *package,
                                            int64_t layer, sprt_comm *comm,
                                            const float *b_local, int64_t k,
                                            int64_t chunk, float *c,
                                            void *stream);

/** What sprt_device_properties reports about the GPU the runtime uses
 *  (CUDA device SPPERM_CUDA_DEVICE, 0 when that variable is unset). Clock
 *  and cache fields are 0 when the driver does not report them. */
typedef struct sprt_device_props {
  /** The device's name, NUL-terminated. */
  char name[256];
  /** The CUDA device ordinal. */
  int32_t ordinal;
  /** cuDriverGetVersion: 1000 * major + 10 * minor (13000 is CUDA 13.0). */
  int32_t driver_version;
  /** The cuSPARSE library loaded: 1000 * major + 100 * minor + patch; 0
   *  when it could not be loaded. */
  int32_t cusparse_version;
  int32_t compute_major;
  int32_t compute_minor;
  int32_t multiprocessors;
  /** Typical SM clock and peak memory clock, in kHz. */
  int32_t clock_khz;
  int32_t memory_clock_khz;
  /** Global memory bus width in bits. */
  int32_t memory_bus_width;
  int64_t l2_cache_bytes;
  int64_t total_memory_bytes;
} sprt_device_props;

/** Fills *props for the runtime's GPU. SPRT_ERROR_DEVICE when there is no
 *  usable GPU (the message says why: no driver library, no device, ...);
 *  SPRT_ERROR_UNSUPPORTED in a build without CUDA. */
SPRT_EXPORT sprt_status sprt_device_properties(sprt_device_props *props);

/** Allocates `bytes` (>= 0; 0 gives NULL) of GPU memory, for sprt_spmm's
 *  B and C on SPRT_DEVICE_GPU. Free it with sprt_device_free. */
SPRT_EXPORT sprt_status sprt_device_malloc(int64_t bytes, void **ptr);

/** Frees memory from sprt_device_malloc; NULL is accepted. */
SPRT_EXPORT sprt_status sprt_device_free(void *ptr);

/** Synchronous copies between host and GPU memory (they also wait for the
 *  work enqueued on the legacy default stream, i.e. stream NULL). */
SPRT_EXPORT sprt_status sprt_memcpy_htod(void *dst, const void *src,
                                         int64_t bytes);
SPRT_EXPORT sprt_status sprt_memcpy_dtoh(void *dst, const void *src,
                                         int64_t bytes);

/** The same copies enqueued on `stream` (NULL: the legacy default stream),
 *  ordered with the work on it: cuMemcpyHtoDAsync / cuMemcpyDtoHAsync. From
 *  or to pageable host memory they may return before the copy is complete;
 *  the host memory must stay valid and unchanged until the stream reaches
 *  them. (A synchronous copy from pageable memory may also return before its
 *  DMA is complete, and is not ordered with work on other streams: to poison
 *  C before a call on a stream, copy on that stream.) */
SPRT_EXPORT sprt_status sprt_memcpy_htod_async(void *dst, const void *src,
                                               int64_t bytes, void *stream);
SPRT_EXPORT sprt_status sprt_memcpy_dtoh_async(void *dst, const void *src,
                                               int64_t bytes, void *stream);

/** Creates a CUDA stream in the runtime's context that does not synchronize
 *  with the legacy default stream (cuStreamCreate with
 *  CU_STREAM_NON_BLOCKING), for sprt_spmm's `stream` in programs that link
 *  no CUDA. Destroy it with sprt_stream_destroy (NULL is accepted). */
SPRT_EXPORT sprt_status sprt_stream_create(void **stream);
SPRT_EXPORT sprt_status sprt_stream_destroy(void *stream);

/** Waits until the work enqueued on `stream` (NULL: the legacy default
 *  stream) is complete. */
SPRT_EXPORT sprt_status sprt_stream_synchronize(void *stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SPPERM_RUNTIME_SPPERMRUNTIME_H */
