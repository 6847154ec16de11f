//===- Package.h - The compiled-model package -------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The package `spperm-compile` writes and the runtime loads (the DESIGN
// contract; docs/Package.md gives the exact layout): a directory with
//   manifest.json   schema, version, target, per layer: name, shape, nnz,
//                   strategy and format with their parameters, kernels,
//                   buffers (offset, size, sha256)
//   data.bin        the layers' arrays, each 256-byte aligned
//   kernels.ptx     (and kernels.<arch>.cubin) once code generation exists
// Writing is atomic (a temporary directory renamed into place). Reading
// verifies schema, version, sizes, bounds and every checksum before anything
// is used, and refuses a corrupt package with one clear line.
//
// With external data, data.bin is left out: a layer names its source matrix
// file (path + sha256 + values spec) and the reader rebuilds the arrays with
// the sparse core (deterministically), then checks them against the
// buffers' recorded checksums.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_PACKAGE_H
#define SPPERM_SPARSE_PACKAGE_H

#include "spperm/Sparse/Formats.h"
#include "spperm/Sparse/HalfFloat.h"
#include "spperm/Sparse/Names.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Permutation.h"
#include "spperm/Sparse/Status.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spperm {

/// The manifest's schema version this build writes and reads.
constexpr int kPackageVersion = 1;

/// A generated kernel of a layer and its launch configuration (filled in by
/// code generation). The kernels of a layer form variants, each a sequence of
/// launches for a range of K: the runtime takes the variant of the first
/// kernel whose K condition holds and launches every kernel of that variant
/// in manifest order (docs/Package.md, "Kernels").
struct KernelInfo {
  /// The `gpu.func` symbol in kernels.ptx ("cusparse" for the library path).
  std::string name;
  /// The kernel family (csr, csr-split, bell, hbp, hbp-combine, spmv,
  /// cusparse, ...): informational.
  std::string family;
  /// The variant this launch belongs to.
  std::string variant;
  /// The K condition: kMin <= K <= kMax (kMax 0 = no bound) and
  /// K % kAlign == 0.
  int64_t kMin = 1, kMax = 0, kAlign = 1;
  /// C must be zero before this launch (the runtime clears it once).
  bool zeroOutput = false;
  /// The kernel waits for the kernels before it in its variant
  /// (`griddepcontrol.wait`, sm_90 and later) before it touches C, so the
  /// runtime may launch it as their programmatic dependent, while they
  /// still run (docs/Kernels.md, "Launch overlap"). Never set on a
  /// variant's first kernel.
  bool dependentLaunch = false;
  /// The kernel's parameters in order: a buffer name of the layer
  /// ("order", "csr.row_ptr", ...), "B", "C", "tickets" (each passed as a
  /// 1-D memref descriptor: allocated pointer, aligned pointer, offset,
  /// size, stride) or "K" (a 64-bit integer).
  std::vector<std::string> args;
  int64_t gridX = 1, gridY = 1, gridZ = 1;
  int64_t blockX = 1, blockY = 1, blockZ = 1;
  int64_t sharedBytes = 0;
  /// A grid that grows with K (gridCtas 0: none, `grid` is the launch's):
  /// at a call with K, gridBase + gridCtas * ceil(K / gridColumns) CTAs in
  /// x, one slice of gridCtas CTAs per gridColumns columns of K, each
  /// computing its own columns (a range variant's row kernel, whose K
  /// bound keeps that grid within 2^31 - 1 CTAs: docs/Kernels.md "Range
  /// variants").
  int64_t gridBase = 0, gridCtas = 0, gridColumns = 0;

  /// The most K slices a grid that grows with K holds within 2^31 - 1 CTAs
  /// in x (0 when there is no such grid or its base is out of range).
  int64_t gridMaxSlices() const {
    if (gridCtas <= 0 || gridColumns <= 0 || gridBase < 0 ||
        gridBase > kMaxGridX)
      return 0;
    return (kMaxGridX - gridBase) / gridCtas;
  }

  /// The largest K whose grid fits the launch limit: for a grid that grows
  /// with K, the columns of gridMaxSlices() slices; INT64_MAX for any other
  /// grid.
  int64_t gridReachK() const {
    if (gridCtas <= 0 || gridColumns <= 0)
      return INT64_MAX;
    const int64_t slices = gridMaxSlices();
    return slices > INT64_MAX / gridColumns ? INT64_MAX
                                            : slices * gridColumns;
  }

  /// The CTAs in x of a launch at K = `k` (1 <= k <= gridReachK()): gridX,
  /// or for a grid that grows with K its size at k. Past gridReachK() the
  /// grid stops at 2^31 - 1 CTAs and would leave columns of C unwritten,
  /// which is why acceptsK refuses such a K.
  int64_t gridXFor(int64_t k) const {
    const int64_t most = gridMaxSlices();
    if (most <= 0)
      return gridX;
    const int64_t slices = k / gridColumns + (k % gridColumns != 0);
    return gridBase + gridCtas * std::max<int64_t>(1, std::min(slices, most));
  }

  /// Why the grid that grows with K is not valid ("" when it is, or when
  /// there is none; the rule is spperm::gridKProblem's).
  std::string gridKProblem() const {
    if (gridBase == 0 && gridCtas == 0 && gridColumns == 0)
      return "";
    return spperm::gridKProblem(
        gridBase, gridCtas, gridColumns, gridX, gridY, gridZ,
        std::find(args.begin(), args.end(), call_arg::kK) != args.end());
  }

  /// Whether the K condition holds for `k` and the launch's grid reaches
  /// it (gridReachK).
  bool acceptsK(int64_t k) const {
    return k >= kMin && (kMax == 0 || k <= kMax) && kAlign > 0 &&
           k % kAlign == 0 && k <= gridReachK();
  }
};

/// The kernel that names the variant run at K = `k`: the first of
/// `kernels`, in manifest order, that accepts k and all of whose variant's
/// kernels accept it too (docs/RuntimeABI.md, "Choosing the launches for
/// K"); null when no variant accepts k.
inline const KernelInfo *firstKernelForK(const std::vector<KernelInfo> &kernels,
                                         int64_t k) {
  auto variantAccepts = [&](const std::string &variant) {
    return std::all_of(kernels.begin(), kernels.end(),
                       [&](const KernelInfo &kernel) {
                         return kernel.variant != variant ||
                                kernel.acceptsK(k);
                       });
  };
  for (const KernelInfo &kernel : kernels)
    if (kernel.acceptsK(k) && variantAccepts(kernel.variant))
      return &kernel;
  return nullptr;
}

/// Where a shard sits in its layer: a layer compiled for N ranks
/// (`spperm-compile --shards N`) is N package layers of one name, shard i
/// holding rows [rowBegin, rowEnd) of the whole layer's `rows`, each
/// permuted, stored and given kernels on its own (docs/Package.md,
/// "Shards"; docs/Distributed.md). count 1: a whole layer.
struct ShardInfo {
  int32_t index = 0;
  int32_t count = 1;
  int32_t rowBegin = 0, rowEnd = 0;
  int32_t rows = 0;
};

/// One layer (one fixed sparse matrix) of a package.
struct PackageLayer {
  std::string name;
  /// The matrix in its storage format (order, arrays).
  FormattedMatrix matrix;
  /// How it was made: strategy and its parameters, format parameters.
  PermutationOptions permutation;
  FormatOptions format;
  /// The K the kernels were specialized for; 0 when any K is accepted.
  int64_t k = 0;
  /// The element type of B and C the kernels take ("dtype" in the
  /// manifest, absent for f32; an alternative has its layer's). The values
  /// of A are f32 whatever it is.
  ValueType operandType = ValueType::F32;
  /// The element type of A's values ("values_dtype", absent for f32): f32,
  /// or operandType's 16-bit type, whose values the arrays hold exactly (as
  /// f32) and the runtime uploads in that type.
  ValueType valueType = ValueType::F32;
  /// The source matrix: path as given, sha256 of the file's bytes, values.
  std::string sourcePath;
  std::string sourceSha256;
  ValuesSpec values;
  /// Rows [first, second) of the source matrix when the layer holds only
  /// those (a `rows` range of spperm.load written in the module; the
  /// source's "row_begin" / "row_end" in the manifest); absent: all of its
  /// rows. A shard's rows count within these.
  std::optional<std::pair<int32_t, int32_t>> sourceRows;
  std::vector<KernelInfo> kernels;
  /// The kernel that makes a caller's column-major B row-major before the
  /// variant chosen runs ("transpose_b" in the manifest; args B_col, B and
  /// K; docs/RuntimeABI.md, "Column-major B"). Absent in packages made
  /// before it and in alternatives (they share their layer's).
  std::optional<KernelInfo> transposeB;
  /// Kernels that compute C from a caller's column-major B in place, over
  /// this variant's arrays ("in_place_b" in the manifest; args: arrays of
  /// the variant, B_col, C and optionally K; docs/Kernels.md, "In-place
  /// column-major B"): candidates the runtime times against the
  /// transposing kernel and the variant chosen for K at the first
  /// column-major call. At most one variant of a layer has them; empty in
  /// packages made without them.
  std::vector<KernelInfo> inPlaceB;
  /// The runtime checks the generated kernels against cuSPARSE at the first
  /// call for each K and keeps them only when at least 2 % faster ("library_check": true in the
  /// manifest; set by spperm-compile for variants the selector chose).
  bool libraryCheck = false;
  /// Other variants of the same matrix for the runtime to time beside this
  /// one (the selector's shortlist; "alternatives" in the manifest): each
  /// has this layer's name, shape, K, source and library check, and its own
  /// strategy, format, arrays and generated kernels. The runtime times the
  /// layer and its alternatives at the first call per K and runs the
  /// fastest, if it beats cuSPARSE. Only a layer with the library check and
  /// generated kernels has them; an alternative has none of its own.
  std::vector<PackageLayer> alternatives;
  /// An alternative whose arrays are not stored in data.bin but rebuilt at
  /// load from its layer's matrix ("rebuilt": true in the manifest; set by
  /// writePackage where the rebuild reproduces them, docs/Package.md).
  bool rebuilt = false;
  /// The shard of its layer this is (count 1: the whole layer).
  ShardInfo shard;

  /// Whether this is one shard of a layer cut for several ranks.
  bool isShard() const { return shard.count > 1; }

  /// Variant `which` of the layer: 0 the layer itself, n >= 1 its
  /// alternative n (which must be at most alternatives.size()).
  const PackageLayer &variant(size_t which) const {
    return which == 0 ? *this : alternatives[which - 1];
  }
};

/// Package-wide settings.
struct PackageOptions {
  std::string target = "sm_90";
  /// Leave data.bin out; layers are rebuilt from their source files.
  bool externalData = false;
  /// Store an alternative's arrays only where rebuilding them at load from
  /// the layer's own matrix (its permutation and format options) would not
  /// reproduce them; otherwise they are rebuilt (docs/Package.md,
  /// "Rebuilt alternatives").
  bool rebuildAlternatives = true;
  /// Code generation's outputs, written beside the manifest when non-empty.
  std::string ptx;
  std::string cubin;
  /// Asked once the package is complete in its temporary directory, just
  /// before it goes into place: when it returns true the directory is
  /// removed and writePackage fails with "interrupted", leaving what was
  /// at the destination (the Python module's Ctrl-C; docs/Python.md).
  std::function<bool()> interrupted;
};

/// A loaded package.
struct Package {
  /// SHA-256 of manifest.json as read (64 hex digits; set by readPackage):
  /// what identifies the package's content, since the manifest records the
  /// checksum of every other file (the runtime's tuning cache keys on it).
  std::string manifestSha256;
  std::string target;
  bool externalData = false;
  std::vector<PackageLayer> layers;
  std::string ptx;
  std::string cubin;
};

/// A layer as a package's users see it: a whole layer, or the consecutive
/// shards of a sharded one (layers [first, first + count) of
/// Package::layers).
struct LayerGroup {
  size_t first = 0;
  size_t count = 1;
};

/// `layers` grouped: a whole layer alone, a sharded layer's shards
/// together (the consecutive shards of one name: all of them, as
/// checkShards requires of a package, or the one selectShard kept).
std::vector<LayerGroup> groupShards(const std::vector<PackageLayer> &layers);

/// OK when no two layers share a name except the shards of one sharded
/// layer, which follow each other numbered 0 to count - 1, all with the
/// same count, columns, K and whole-layer rows, and cut the rows into
/// consecutive ranges (shard i's rows are its range's length); else the
/// first problem.
Status checkShards(const std::vector<PackageLayer> &layers);

/// `text` in single quotes for a one-line message, as every package message
/// quotes names: if `text` has control characters or is not valid UTF-8, its
/// bytes below 0x20 or above 0x7e and its backslashes are written as \xNN;
/// text past 200 bytes is cut at a character's start and marked with "...".
std::string quoted(std::string_view text);

/// Whether `name` may name a layer in a package: 1 to 1024 bytes of UTF-8
/// text without control characters (docs/Package.md).
bool isValidLayerName(std::string_view name);

/// OK when `layer` holds all of its source's rows, or its `sourceRows` are a
/// range of its rows' count (a shard's: its whole layer's); else why not.
Status checkSourceRows(const PackageLayer &layer);

/// Reduces `package` to what rank `rank` of `ranks` runs (docs/Package.md,
/// "Shards"): each sharded layer to its shard `rank`, whole layers kept
/// (every rank holds them). An error when a sharded layer has a count other
/// than `ranks`, or rank is not in [0, ranks).
Status selectShard(Package &package, int32_t rank, int32_t ranks);

/// OK when `dir` is free or a package directory that writePackage may
/// replace; else the error writePackage would give.
Status checkPackageDestination(const std::string &dir);

/// Copies the package directory `source` (its files, as they are) to `dir`
/// as writePackage writes one: atomically, replacing a package there (or
/// refusing what checkPackageDestination refuses); a failed copy leaves
/// what was there.
Status copyPackageDirectory(const std::string &source, const std::string &dir);

/// Writes `layers` to the directory `dir` (which must not exist, or is
/// replaced when it is a package directory), atomically.
Status writePackage(const std::string &dir,
                    const std::vector<PackageLayer> &layers,
                    const PackageOptions &options);

/// Reads and verifies the package in `dir`.
StatusOr<Package> readPackage(const std::string &dir);

/// Reads and validates `dir`/manifest.json alone (docs/Package.md, "Reading
/// and verification", steps 1 to 5): every layer's and alternative's
/// metadata (name, shape, dtypes, format and strategy with their
/// parameters, kernels, source), with no arrays and no kernel code. For
/// tools that need what a package holds but not its data.
StatusOr<Package> readPackageManifest(const std::string &dir);

/// Variant `alternative` of a layer rebuilt from `original` (the layer's
/// matrix in CSR, original row order): its permutation and format options
/// applied. Fails only where they cannot be applied; the callers compare
/// the result with the arrays (or checksums) they expect.
Status rebuildAlternative(const CsrMatrix &original,
                          const PackageLayer &alternative,
                          FormattedMatrix &out);

/// One array of a layer as the package stores it.
struct LayerBuffer {
  /// The buffer's name in the manifest ("order", "csr.row_ptr", ...).
  std::string_view name;
  /// Its element type in data.bin: "i32", "i64", "f32", or for the values
  /// of a layer whose values are 16-bit, "f16" / "bf16"
  /// (docs/Package.md, "Buffers").
  std::string_view dtype;
  /// The first element (the layer's own storage): int32, int64, or float
  /// for "f32", "f16" and "bf16" (each value exactly representable in the
  /// stored type).
  const void *data;
  /// The number of elements.
  uint64_t count;

  /// Its size in data.bin, in bytes.
  uint64_t bytes() const { return count * elementBytes(dtype); }
  /// Its size in host memory (at `data`), in bytes.
  uint64_t hostBytes() const { return count * (dtype == "i64" ? 8 : 4); }
  /// Whether data.bin stores it as 16-bit values.
  bool isHalf() const { return elementBytes(dtype) == 2; }

  /// The bytes of one element of a buffer dtype (0 for a name that is
  /// none).
  static uint64_t elementBytes(std::string_view dtype) {
    if (dtype == "i32" || dtype == "f32")
      return 4;
    if (dtype == "i64")
      return 8;
    if (dtype == "f16" || dtype == "bf16")
      return 2;
    return 0;
  }
};

/// The arrays of `layer` in data.bin order (the same list the writer uses).
/// The names and types are static strings; `data` points into `layer`.
std::vector<LayerBuffer> layerBuffers(const PackageLayer &layer);

/// The bytes of a variant's arrays (layerBuffers) as data.bin stores them
/// (16-bit values at 2 bytes).
uint64_t arrayBytes(const PackageLayer &variant);

/// One array the GPU runtime uploads for a variant's generated kernels
/// (docs/Package.md, "What a package costs").
struct UploadedArray {
  /// The kernel parameter it binds: the buffer's name, or for column
  /// indices narrowed to 16 bits the name with kNarrowIndexSuffix.
  std::string name;
  /// The stored array it is made from.
  LayerBuffer buffer;
  /// Whether each element is stored as 2 bytes: narrowed column indices,
  /// or the f32 values of a layer whose values are f16 or bf16.
  bool twoBytes = false;

  /// Its size on the device.
  uint64_t bytes() const {
    return twoBytes ? buffer.count * 2 : buffer.hostBytes();
  }
};

/// The arrays the GPU runtime uploads for `variant`: those its generated
/// kernels take (none for a variant without any), in data.bin order, a
/// narrowed array right before its buffer's plain one when a kernel takes
/// both.
std::vector<UploadedArray> uploadedArrays(const PackageLayer &variant);

/// The device bytes of uploadedArrays(variant), the arrays that are the
/// same (sameUpload) counted once, as the GPU runtime uploads them.
uint64_t uploadedArrayBytes(const PackageLayer &variant);

/// Whether `a` and `b` put the same bytes on the device: the same stored
/// type, the same width on the device and equal contents, whatever their
/// names. The GPU runtime uploads such arrays once for all the variants of
/// a layer that take them (a bell variant and its tensor-core twin hold the
/// same arrays; docs/Package.md, "What a package costs").
bool sameUpload(const UploadedArray &a, const UploadedArray &b);

/// The device bytes of every variant of `layer` (its own and its
/// alternatives) with the arrays that are the same (sameUpload) counted
/// once: what the GPU runtime allocates for the layer's generated kernels
/// at load.
uint64_t layerUploadedBytes(const PackageLayer &layer);

/// The family of a variant's tensor-core kernel (`bell-tf32`, `bell-f16`,
/// `bell-3xtf32`, or `bell-bf16` for bf16 operands: how its dense blocks
/// are multiplied where K allows),
/// empty when it has none (docs/Kernels.md).
std::string_view tensorCoreFamily(const PackageLayer &variant);

/// Whether `kernel` is a generated kernel, not the cuSPARSE entry (variant
/// "cusparse").
inline bool isGeneratedKernel(const KernelInfo &kernel) {
  return kernel.variant != kCusparse;
}

/// Whether `variant` runs generated kernels for some K: it has a kernel
/// other than the cuSPARSE entry (a layer compiled with `--format cusparse`
/// has none, and the runtime runs it through cuSPARSE on its CSR).
bool hasGeneratedKernels(const PackageLayer &variant);

/// The format `variant` runs in, for people: its storage format's name, or
/// "cusparse" when its kernels are the cuSPARSE entry alone (`--format
/// cusparse`: its arrays are the CSR that cuSPARSE takes).
std::string_view runFormatName(const PackageLayer &variant);

/// The bytes of `m` as plain CSR with int32 indices and float values,
/// 4 (rows + 1) + 8 nnz: the yardstick of a package's size
/// (docs/Package.md, "What a package costs").
uint64_t csrBytes(const FormattedMatrix &m);

/// spperm-compile's --size-budget: by default every variant's arrays within
/// this many times csrBytes (docs/Package.md, "Size budget"), and the
/// largest budget it takes.
inline constexpr double kDefaultSizeBudget = 2.0;
inline constexpr double kMaxSizeBudget = 1e9;

/// SHA-256 of `size` bytes, as 64 lowercase hex digits.
std::string sha256Hex(const void *data, size_t size);

/// SHA-256 of a file's bytes. Anything but a regular file (a directory, a
/// device, a FIFO) is an error.
StatusOr<std::string> sha256File(const std::string &path);

} // namespace spperm

#endif // SPPERM_SPARSE_PACKAGE_H
