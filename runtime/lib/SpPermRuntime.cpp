//===- SpPermRuntime.cpp - The spperm runtime C API -------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The C API of spperm/Runtime/SpPermRuntime.h. A package is read and
// verified by the sparse core (readPackage), then handed to the backend of
// the requested device, which owns whatever it derives from the layers
// (device buffers, modules, workspaces). The CPU backend runs the sparse
// core's reference executor, spmmCpu; the GPU backend (CudaBackend.cpp and
// the other Cuda*.cpp, built when CMake finds the CUDA toolkit) runs the
// package's generated kernels, or cuSPARSE, through the driver libraries it
// loads at first use.
//
// Errors are returned as status codes, with the message kept per thread for
// sprt_last_error(). This file is built without exceptions, like the core;
// host allocation failures end the process, as in LLVM.
//
//===----------------------------------------------------------------------===//

#include "spperm/Runtime/SpPermRuntime.h"

#include "Backend.h"
#ifdef SPPERM_HAVE_CUDA
#include "CudaBackend.h"
#include "CudaComm.h"
#endif

#include "spperm/Sparse/Package.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <type_traits>
#include <memory>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::runtime_detail;

namespace {

/// The message of the last failure on this thread.
thread_local std::string lastError;

} // namespace

sprt_status spperm::runtime_detail::failWith(sprt_status status,
                                             std::string message) {
  lastError = std::move(message);
  return status;
}

namespace {

/// Why the CPU cannot time `variant`, to follow the entry point's name, or
/// "" for what it runs: "spperm", and "spperm:0" (the layer's own variant,
/// the same thing on the CPU). The GPU's variants are the layer's
/// alternatives (spperm:N), cuSPARSE's algorithms and the dense GEMMs
/// (docs/RuntimeABI.md).
std::string cpuVariantProblem(const std::string &variant) {
  if (variant == "spperm" || parseVariantIndex(variant) == size_t{0})
    return "";
  const bool gpuVariant =
      parseVariantIndex(variant) || variant.rfind("cusparse-", 0) == 0 ||
      variant.rfind("cublas-", 0) == 0 || variant.rfind("cublaslt-", 0) == 0;
  return ": variant '" + variant +
         (gpuVariant ? "' needs the GPU device (the CPU runs only 'spperm')"
                     : "' is unknown (spperm, spperm:N, cusparse-..., "
                       "cublas-sgemm, cublaslt-gemm; the CPU runs only "
                       "'spperm')");
}

/// The host executor of the sparse core. Stateless, so concurrent calls are
/// safe.
class CpuBackend final : public Backend {
public:
  sprt_status spmm(int64_t /*index*/, const PackageLayer &layer,
                   const void *b, int64_t k, void *c,
                   void * /*stream*/) override {
    run(layer, b, k, c);
    return SPRT_OK;
  }

  sprt_status spmmColumnMajor(int64_t /*index*/, const PackageLayer &layer,
                              const void *b, int64_t k, void *c,
                              void * /*workspace*/,
                              void * /*stream*/) override {
    // B row-major on the host first, then the executor as for sprt_spmm.
    const size_t rows = static_cast<size_t>(layer.matrix.cols);
    const size_t cols = static_cast<size_t>(k);
    if (layer.operandType == ValueType::F32) {
      std::vector<float> rowMajor(rows * cols);
      transposeInto(static_cast<const float *>(b), rows, cols,
                    rowMajor.data());
      run(layer, rowMajor.data(), k, c);
    } else {
      std::vector<uint16_t> rowMajor(rows * cols);
      transposeInto(static_cast<const uint16_t *>(b), rows, cols,
                    rowMajor.data());
      run(layer, rowMajor.data(), k, c);
    }
    return SPRT_OK;
  }

  sprt_status time(const char *what, int64_t /*index*/,
                   const PackageLayer &layer, const std::string &variant,
                   const void *b, int64_t k, void *c, void * /*stream*/,
                   int32_t warmup, int32_t runs, float *timesMs) override {
    if (std::string problem = cpuVariantProblem(variant); !problem.empty())
      return failWith(SPRT_ERROR_UNSUPPORTED, std::string(what) + problem);
    for (int32_t i = 0; i < warmup; ++i)
      run(layer, b, k, c);
    for (int32_t i = 0; i < runs; ++i) {
      auto start = std::chrono::steady_clock::now();
      run(layer, b, k, c);
      std::chrono::duration<float, std::milli> elapsed =
          std::chrono::steady_clock::now() - start;
      timesMs[i] = elapsed.count();
    }
    return SPRT_OK;
  }

private:
  /// Writes the rows x cols matrix whose element (i, j) is at
  /// from[i + j * rows] into `to`, row-major.
  template <typename T>
  static void transposeInto(const T *from, size_t rows, size_t cols, T *to) {
    for (size_t j = 0; j < cols; ++j)
      for (size_t i = 0; i < rows; ++i)
        to[i * cols + j] = from[i + j * rows];
  }

  /// The executor for the layer's element type.
  static void run(const PackageLayer &layer, const void *b, int64_t k,
                  void *c) {
    if (layer.operandType == ValueType::F32)
      spmmCpu(layer.matrix, static_cast<const float *>(b), k,
              static_cast<float *>(c));
    else
      spmmCpu(layer.matrix, static_cast<const uint16_t *>(b),
              layer.operandType, k, static_cast<uint16_t *>(c));
  }
};

/// Creates the backend of `device` for `package`.
sprt_status createBackend(sprt_device device, const Package &package,
                          std::unique_ptr<Backend> &out) {
  switch (device) {
  case SPRT_DEVICE_CPU:
    out = std::make_unique<CpuBackend>();
    return SPRT_OK;
  case SPRT_DEVICE_GPU:
#ifdef SPPERM_HAVE_CUDA
    return createCudaBackend(package, out);
#else
    (void)package;
    return failWith(SPRT_ERROR_UNSUPPORTED, "GPU support is not built");
#endif
  }
  return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                  "sprt_package_load: unknown device " +
                      std::to_string(static_cast<int>(device)));
}

/// Distinguishes "cannot read the package" (SPRT_ERROR_IO) from "the package
/// is bad" (SPRT_ERROR_CORRUPT_PACKAGE) after readPackage failed: the
/// directory or its manifest is missing or unreadable, or a file that is
/// there cannot be opened.
bool isIoFailure(const std::string &dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return true;
  const std::string manifest = dir + "/manifest.json";
  if (::access(manifest.c_str(), R_OK) != 0)
    return true;
  const std::string data = dir + "/data.bin";
  return ::access(data.c_str(), F_OK) == 0 && ::access(data.c_str(), R_OK) != 0;
}

/// Overflow-checked a * b for non-negative operands.
bool multiply(int64_t a, int64_t b, int64_t &out) {
  return !__builtin_mul_overflow(a, b, &out);
}

} // namespace

/// The opaque handle: the verified package, its layers as the API numbers
/// them (a sharded layer's shards are one), the strings sprt_layer_info
/// hands out, and the device's backend (which numbers the package's layers,
/// shards apart).
struct sprt_package {
  Package package;
  sprt_device device = SPRT_DEVICE_CPU;
  std::vector<LayerGroup> groups;
  std::vector<std::string> formatNames;
  std::vector<std::string> strategyNames;
  std::unique_ptr<Backend> backend;

  const PackageLayer &first(int64_t index) const {
    return package.layers[groups[index].first];
  }
  /// The layer's rows: all its shards' when it holds several.
  int64_t rows(int64_t index) const {
    const PackageLayer &l = first(index);
    return groups[index].count > 1 ? l.shard.rows : l.matrix.rows;
  }
};

namespace {
/// The bits of an enum a C caller passed. Any int may come from C, and a C++
/// load of an enum value outside its enumerators is undefined: callers
/// compare the bits, never the enum, until the value is known valid.
template <typename Enum>
std::underlying_type_t<Enum> bitsOf(const Enum &value) {
  std::underlying_type_t<Enum> raw;
  std::memcpy(&raw, &value, sizeof(raw));
  return raw;
}

/// An enum's bits in a message, as the C caller wrote the value: an int
/// (-1, not 4294967295).
template <typename Bits> std::string enumNumber(Bits raw) {
  return std::to_string(static_cast<std::make_signed_t<Bits>>(raw));
}
} // namespace

int32_t sprt_abi_version(void) { return SPRT_ABI_VERSION; }

const char *sprt_status_name(sprt_status status) {
  switch (bitsOf(status)) {
  case SPRT_OK:
    return "SPRT_OK";
  case SPRT_ERROR_INVALID_ARGUMENT:
    return "SPRT_ERROR_INVALID_ARGUMENT";
  case SPRT_ERROR_IO:
    return "SPRT_ERROR_IO";
  case SPRT_ERROR_CORRUPT_PACKAGE:
    return "SPRT_ERROR_CORRUPT_PACKAGE";
  case SPRT_ERROR_NOT_FOUND:
    return "SPRT_ERROR_NOT_FOUND";
  case SPRT_ERROR_UNSUPPORTED:
    return "SPRT_ERROR_UNSUPPORTED";
  case SPRT_ERROR_DEVICE:
    return "SPRT_ERROR_DEVICE";
  case SPRT_ERROR_OUT_OF_MEMORY:
    return "SPRT_ERROR_OUT_OF_MEMORY";
  }
  return "SPRT_UNKNOWN_STATUS";
}

const char *sprt_last_error(void) { return lastError.c_str(); }

namespace {

/// sprt_package_load (ranks 0) and sprt_package_load_shard. `device` is
/// taken by reference: it may hold any int a C caller passed, and is read
/// only through bitsOf until it is known valid.
sprt_status loadPackage(const char *what, const char *path,
                        const sprt_device &device, int32_t rank, int32_t ranks,
                        sprt_package **out) {
  if (!out)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    std::string(what) + ": the output pointer is NULL");
  *out = nullptr;
  if (!path || !*path)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    std::string(what) + ": the package path is NULL or empty");
  const auto raw = bitsOf(device);
  if (raw != SPRT_DEVICE_CPU && raw != SPRT_DEVICE_GPU)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    std::string(what) + ": unknown device " + enumNumber(raw));
  if (ranks > 0 && (rank < 0 || rank >= ranks))
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    std::string(what) + ": rank must be in [0, ranks), got " +
                        std::to_string(rank) + " of " + std::to_string(ranks));

  StatusOr<Package> read = readPackage(path);
  if (!read)
    return failWith(isIoFailure(path) ? SPRT_ERROR_IO
                                      : SPRT_ERROR_CORRUPT_PACKAGE,
                    read.message());

  auto package = std::make_unique<sprt_package>();
  package->package = std::move(*read);
  package->device = device;
  if (ranks > 0)
    if (Status s = selectShard(package->package, rank, ranks); !s)
      return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                      std::string(what) + ": " + path + ": " + s.message());
  package->groups = groupShards(package->package.layers);
  for (const LayerGroup &g : package->groups) {
    const std::vector<PackageLayer> &layers = package->package.layers;
    std::string format(runFormatName(layers[g.first]));
    std::string strategy(strategyCliName(layers[g.first].permutation.strategy));
    for (size_t i = g.first + 1; i < g.first + g.count; ++i) {
      if (runFormatName(layers[i]) != format)
        format = "mixed";
      if (strategyCliName(layers[i].permutation.strategy) != strategy)
        strategy = "mixed";
    }
    package->formatNames.push_back(std::move(format));
    package->strategyNames.push_back(std::move(strategy));
  }
  if (sprt_status s = createBackend(device, package->package, package->backend);
      s != SPRT_OK) {
    // No usable device (no driver, no GPU, no GPU support in the build):
    // the message names the package being loaded, as every load error does.
    if (s == SPRT_ERROR_DEVICE || s == SPRT_ERROR_UNSUPPORTED)
      return failWith(s, std::string(path) + ": " + lastError);
    return s;
  }
  *out = package.release();
  return SPRT_OK;
}

} // namespace

sprt_status sprt_package_load(const char *path, sprt_device device,
                              sprt_package **out) {
  return loadPackage("sprt_package_load", path, device, 0, 0, out);
}

sprt_status sprt_package_load_shard(const char *path, sprt_device device,
                                    int32_t rank, int32_t ranks,
                                    sprt_package **out) {
  if (ranks < 1)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_package_load_shard: ranks must be at least 1, got " +
                        std::to_string(ranks));
  return loadPackage("sprt_package_load_shard", path, device, rank, ranks,
                     out);
}

void sprt_package_release(sprt_package *package) { delete package; }

sprt_status sprt_layer_count(const sprt_package *package, int64_t *count) {
  if (!package || !count)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_layer_count: the package or the output pointer is "
                    "NULL");
  *count = static_cast<int64_t>(package->groups.size());
  return SPRT_OK;
}

sprt_status sprt_layer_find(const sprt_package *package, const char *name,
                            int64_t *index) {
  if (!package || !name || !index)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_layer_find: the package, the name or the output "
                    "pointer is NULL");
  for (size_t i = 0; i < package->groups.size(); ++i)
    if (package->first(i).name == name) {
      *index = static_cast<int64_t>(i);
      return SPRT_OK;
    }
  std::string names;
  for (size_t i = 0; i < package->groups.size(); ++i)
    names += (names.empty() ? "" : ", ") + package->first(i).name;
  // No function name: the tools print it after the package's path.
  return failWith(SPRT_ERROR_NOT_FOUND, "no layer named '" + std::string(name) +
                                            "' (the package has: " + names +
                                            ")");
}

namespace {

/// The check of a layer index (`what` names the function in messages).
sprt_status checkLayerIndex(const char *what, const sprt_package *package,
                            int64_t index) {
  const size_t count = package->groups.size();
  if (index < 0 || index >= static_cast<int64_t>(count))
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    std::string(what) + ": layer index " +
                        std::to_string(index) + " is out of range [0, " +
                        std::to_string(count) + ")");
  return SPRT_OK;
}

} // namespace

sprt_status sprt_layer_info(const sprt_package *package, int64_t index,
                            sprt_layer_desc *desc) {
  if (!package || !desc)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_layer_info: the package or the output pointer is "
                    "NULL");
  if (sprt_status s = checkLayerIndex("sprt_layer_info", package, index);
      s != SPRT_OK)
    return s;
  const LayerGroup &g = package->groups[index];
  const PackageLayer &layer = package->first(index);
  desc->name = layer.name.c_str();
  desc->rows = package->rows(index);
  desc->cols = layer.matrix.cols;
  desc->nnz = 0;
  for (size_t i = g.first; i < g.first + g.count; ++i)
    desc->nnz += package->package.layers[i].matrix.nnz;
  desc->k = layer.k;
  desc->format = package->formatNames[index].c_str();
  desc->strategy = package->strategyNames[index].c_str();
  return SPRT_OK;
}

sprt_status sprt_layer_shard_count(const sprt_package *package, int64_t index,
                                   int64_t *count) {
  if (!package || !count)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_layer_shard_count: the package or the output "
                    "pointer is NULL");
  if (sprt_status s =
          checkLayerIndex("sprt_layer_shard_count", package, index);
      s != SPRT_OK)
    return s;
  *count = static_cast<int64_t>(package->groups[index].count);
  return SPRT_OK;
}

sprt_status sprt_layer_shard(const sprt_package *package, int64_t index,
                             int64_t shard, sprt_shard_desc *desc) {
  if (!package || !desc)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_layer_shard: the package or the output pointer is "
                    "NULL");
  if (sprt_status s = checkLayerIndex("sprt_layer_shard", package, index);
      s != SPRT_OK)
    return s;
  const LayerGroup &g = package->groups[index];
  if (shard < 0 || shard >= static_cast<int64_t>(g.count))
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_layer_shard: shard " + std::to_string(shard) +
                        " is out of range [0, " + std::to_string(g.count) +
                        ")");
  const PackageLayer &l = package->package.layers[g.first + shard];
  if (!l.isShard()) {
    *desc = {0, 1, 0, l.matrix.rows, l.matrix.rows};
    return SPRT_OK;
  }
  *desc = {l.shard.index, l.shard.count, l.shard.rowBegin, l.shard.rowEnd,
           l.shard.rows};
  return SPRT_OK;
}

namespace {

/// The runtime's element type of `dtype`, or nullopt for bits outside the
/// enumerators.
/// The bits of an sprt_dtype a caller passed (bitsOf): internal functions
/// take these, never the enum, until toValueType has checked them.
using DtypeBits = std::underlying_type_t<sprt_dtype>;

std::optional<ValueType> toValueType(DtypeBits dtype) {
  switch (dtype) {
  case SPRT_DTYPE_F32:
    return ValueType::F32;
  case SPRT_DTYPE_F16:
    return ValueType::F16;
  case SPRT_DTYPE_BF16:
    return ValueType::BF16;
  }
  return std::nullopt;
}

sprt_dtype toDtype(ValueType type) {
  switch (type) {
  case ValueType::F32:
    return SPRT_DTYPE_F32;
  case ValueType::F16:
    return SPRT_DTYPE_F16;
  case ValueType::BF16:
    return SPRT_DTYPE_BF16;
  }
  return SPRT_DTYPE_F32;
}

/// The argument checks of sprt_spmm(_typed), sprt_spmm_time(_typed) and
/// sprt_spmm_allgather (`what` names the function in messages): B and C of
/// element types `bType` and `cType`, which must be the layer's.
sprt_status checkSpmmArguments(const char *what, const sprt_package *package,
                               int64_t layerIndex, const void *b,
                               DtypeBits bType, int64_t k, const void *c,
                               DtypeBits cType, bool checkB = true,
                               bool bColumnMajor = false) {
  auto invalid = [what](const std::string &message) {
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    std::string(what) + ": " + message);
  };
  if (!package)
    return invalid("the package is NULL");
  if (sprt_status s = checkLayerIndex(what, package, layerIndex); s != SPRT_OK)
    return s;
  const PackageLayer &layer = package->first(layerIndex);
  for (auto [name, dtype] : {std::pair<const char *, DtypeBits>{"b", bType},
                             std::pair<const char *, DtypeBits>{"c", cType}})
    if (!toValueType(dtype))
      return invalid(std::string(name) + "_dtype " + enumNumber(dtype) +
                     " is not an sprt_dtype (SPRT_DTYPE_F32, _F16, _BF16)");
  const ValueType type = layer.operandType;
  if (*toValueType(bType) != type || *toValueType(cType) != type) {
    const std::string given =
        std::string(valueTypeName(*toValueType(bType))) + " B and " +
        std::string(valueTypeName(*toValueType(cType))) + " C";
    const std::string takes =
        "layer '" + layer.name + "' takes " +
        std::string(valueTypeName(type)) + " B and C";
    return invalid(takes + ", got " + given +
                   (type != ValueType::F32 &&
                            (std::string_view(what) == "sprt_spmm" ||
                             std::string_view(what) == "sprt_spmm_time")
                        ? " (call " + std::string(what) +
                              "_typed with its dtype)"
                        : std::string()));
  }
  if (k < 1)
    return invalid("k must be at least 1, got " + std::to_string(k));
  if (layer.k != 0 && k != layer.k)
    return invalid("layer '" + layer.name + "' was compiled for K = " +
                   std::to_string(layer.k) + ", got k = " + std::to_string(k));
  const int64_t elementBytes = valueTypeBytes(type);
  int64_t bCount, cCount, bBytes, cBytes;
  if (!multiply(layer.matrix.cols, k, bCount) ||
      !multiply(package->rows(layerIndex), k, cCount) ||
      !multiply(bCount, elementBytes, bBytes) ||
      !multiply(cCount, elementBytes, cBytes))
    return invalid("k = " + std::to_string(k) +
                   " makes B or C larger than the address space");
  // The row kernels that read K at run time compute a B row's offset as a
  // 32 x 32 -> 64-bit product of the row and K (docs/Limits.md).
  if (k > kMaxIndex)
    return invalid("k must be at most 2^31 - 1, got " + std::to_string(k));
  if (checkB && !b && bCount > 0)
    return invalid("B is NULL");
  if (!c && cCount > 0)
    return invalid("C is NULL");
  // Elements are read and written whole; on the GPU, a K that is a
  // multiple of 4 selects kernels that move 4 elements at a time (16-byte
  // vector loads and stores of fp32 rows of B and C; 8-byte ones of 16-bit
  // rows, 16-byte ones when K is a multiple of 8), which fault on a
  // misaligned address — refused here instead of in the middle of a
  // launch.
  const int64_t alignment = package->device != SPRT_DEVICE_GPU
                                ? elementBytes
                                : gpuOperandAlignment(elementBytes, k);
  const int64_t vector = alignment / elementBytes;
  auto misaligned = [alignment](const void *p) {
    return reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(alignment) !=
           0;
  };
  for (auto [name, p, count] :
       {std::tuple<const char *, const void *, int64_t>{"B", b, bCount},
        std::tuple<const char *, const void *, int64_t>{"C", c, cCount}})
    // A column-major B is read an element at a time (on the GPU by the
    // transposing kernel).
    if (p && count > 0 && misaligned(p) &&
        !(bColumnMajor && p == b &&
          reinterpret_cast<uintptr_t>(p) % elementBytes == 0))
      return invalid(std::string(name) + " is not " +
                     std::to_string(alignment) + "-byte aligned" +
                     (vector > 1 ? " (K = " + std::to_string(k) +
                                       " is a multiple of " +
                                       std::to_string(vector) +
                                       ": the GPU kernels move " +
                                       std::to_string(alignment) +
                                       " bytes at a time)"
                                 : std::string()));
  if (b && c && bCount > 0 && cCount > 0) {
    auto bAddr = reinterpret_cast<uintptr_t>(b);
    auto cAddr = reinterpret_cast<uintptr_t>(c);
    if (bAddr < cAddr + static_cast<uint64_t>(cBytes) &&
        cAddr < bAddr + static_cast<uint64_t>(bBytes))
      return invalid("B and C overlap");
  }
  return SPRT_OK;
}

} // namespace

namespace {

/// Where shard `i` of layer group `g` writes: its rows of C when the package
/// holds the whole layer, all of C when it holds one shard (or the layer
/// whole).
void *shardOutput(const sprt_package *package, const LayerGroup &g, size_t i,
                  int64_t k, void *c) {
  if (g.count == 1 || !c)
    return c;
  const PackageLayer &shard = package->package.layers[g.first + i];
  return static_cast<char *>(c) + static_cast<int64_t>(shard.shard.rowBegin) *
                                      k * valueTypeBytes(shard.operandType);
}

/// sprt_spmm and sprt_spmm_typed (`what` names the function).
sprt_status spmmTyped(const char *what, sprt_package *package,
                      int64_t layerIndex, const void *b, DtypeBits bType,
                      int64_t k, void *c, DtypeBits cType, void *stream) {
  if (sprt_status s = checkSpmmArguments(what, package, layerIndex, b, bType,
                                         k, c, cType);
      s != SPRT_OK)
    return s;
  const LayerGroup &g = package->groups[layerIndex];
  // Every shard must accept K before any runs.
  if (g.count > 1)
    for (size_t i = 0; i < g.count; ++i)
      if (sprt_status s = package->backend->accepts(
              static_cast<int64_t>(g.first + i),
              package->package.layers[g.first + i], k);
          s != SPRT_OK)
        return s;
  for (size_t i = 0; i < g.count; ++i)
    if (sprt_status s = package->backend->spmm(
            static_cast<int64_t>(g.first + i),
            package->package.layers[g.first + i], b, k,
            shardOutput(package, g, i, k, c), stream);
        s != SPRT_OK)
      return s;
  return SPRT_OK;
}

/// sprt_spmm_time and sprt_spmm_time_typed (`what` names the function).
sprt_status timeTyped(const char *what, sprt_package *package,
                      int64_t layerIndex, const char *variant, const void *b,
                      DtypeBits bType, int64_t k, void *c, DtypeBits cType,
                      void *stream, int32_t warmup, int32_t runs,
                      float *times_ms) {
  if (sprt_status s = checkSpmmArguments(what, package, layerIndex, b, bType,
                                         k, c, cType);
      s != SPRT_OK)
    return s;
  if (warmup < 0 || runs < 1)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    std::string(what) +
                        ": warmup must be >= 0 and runs >= 1, got " +
                        std::to_string(warmup) + " and " +
                        std::to_string(runs));
  if (!times_ms)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    std::string(what) + ": times_ms is NULL");
  if (variant && !*variant)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    std::string(what) +
                        ": variant is empty (NULL or \"spperm\" times what "
                        "sprt_spmm runs)");
  const std::string name = variant ? variant : "spperm";
  if (name.rfind("spperm:", 0) == 0 && !parseVariantIndex(name))
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    std::string(what) + ": variant '" + name +
                        "' is not spperm:N (N the layer's variant: 0 its own, "
                        "1 and up its alternatives)");
  const LayerGroup &g = package->groups[layerIndex];
  if (g.count == 1)
    return package->backend->time(what, static_cast<int64_t>(g.first),
                                  package->package.layers[g.first], name, b, k,
                                  c, stream, warmup, runs, times_ms);
  // A layer of several shards, run as sprt_spmm runs it: timed on the host
  // on the CPU; on the GPU each rank times its own shard.
  if (package->device == SPRT_DEVICE_CPU)
    if (std::string problem = cpuVariantProblem(name); !problem.empty())
      return failWith(SPRT_ERROR_UNSUPPORTED, std::string(what) + problem);
  if (package->device != SPRT_DEVICE_CPU)
    return failWith(SPRT_ERROR_UNSUPPORTED,
                    std::string(what) + ": layer '" +
                        package->first(layerIndex).name + "' has " +
                        std::to_string(g.count) +
                        " shards; on the GPU time each shard on its rank "
                        "(sprt_package_load_shard), or the layer compiled "
                        "whole");
  for (int64_t i = 0; i < int64_t(warmup) + runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (sprt_status s = spmmTyped(what, package, layerIndex, b, bType, k, c,
                                  cType, stream);
        s != SPRT_OK)
      return s;
    std::chrono::duration<float, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    if (i >= warmup)
      times_ms[i - warmup] = elapsed.count();
  }
  return SPRT_OK;
}

} // namespace

sprt_status sprt_layer_dtype(const sprt_package *package, int64_t index,
                             sprt_dtype *dtype) {
  if (!package || !dtype)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_layer_dtype: the package or the output pointer is "
                    "NULL");
  if (sprt_status s = checkLayerIndex("sprt_layer_dtype", package, index);
      s != SPRT_OK)
    return s;
  *dtype = toDtype(package->first(index).operandType);
  return SPRT_OK;
}

sprt_status sprt_layer_accepts_order(const sprt_package *package,
                                     int64_t index, sprt_order order,
                                     int32_t *accepted) {
  const char *what = "sprt_layer_accepts_order";
  if (!package || !accepted)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    std::string(what) +
                        ": the package or the output pointer is NULL");
  if (sprt_status s = checkLayerIndex(what, package, index); s != SPRT_OK)
    return s;
  const auto raw = bitsOf(order);
  if (raw != SPRT_ORDER_ROW && raw != SPRT_ORDER_COL)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    std::string(what) + ": order " + enumNumber(raw) +
                        " is not an sprt_order (SPRT_ORDER_ROW, _COL)");
  *accepted = 1;
  if (raw == SPRT_ORDER_COL) {
    const LayerGroup &g = package->groups[index];
    for (size_t i = 0; i < g.count; ++i)
      if (!package->backend->acceptsColumnMajor(
              static_cast<int64_t>(g.first + i),
              package->package.layers[g.first + i]))
        *accepted = 0;
  }
  return SPRT_OK;
}

sprt_status sprt_spmm_ordered(sprt_package *package, int64_t layerIndex,
                              const void *b, sprt_dtype b_dtype,
                              sprt_order b_order, int64_t k, void *c,
                              sprt_dtype c_dtype, void *workspace,
                              size_t workspace_bytes, void *stream) {
  const char *what = "sprt_spmm_ordered";
  const auto order = bitsOf(b_order);
  if (order != SPRT_ORDER_ROW && order != SPRT_ORDER_COL)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    std::string(what) + ": b_order " + enumNumber(order) +
                        " is not an sprt_order (SPRT_ORDER_ROW, _COL)");
  if (order == SPRT_ORDER_ROW)
    return spmmTyped(what, package, layerIndex, b, bitsOf(b_dtype), k, c,
                     bitsOf(c_dtype), stream);
  if (sprt_status s = checkSpmmArguments(what, package, layerIndex, b,
                                         bitsOf(b_dtype), k, c,
                                         bitsOf(c_dtype), /*checkB=*/true,
                                         /*bColumnMajor=*/true);
      s != SPRT_OK)
    return s;
  const PackageLayer &layer = package->first(layerIndex);
  auto invalid = [what](const std::string &message) {
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    std::string(what) + ": " + message);
  };
  // The workspace, where the GPU uses it: large enough, aligned, apart
  // from B and C (checkSpmmArguments bounded these products).
  const uint64_t elementBytes =
      static_cast<uint64_t>(valueTypeBytes(layer.operandType));
  const uint64_t bBytes =
      static_cast<uint64_t>(layer.matrix.cols) * static_cast<uint64_t>(k) *
      elementBytes;
  const uint64_t cBytes = static_cast<uint64_t>(package->rows(layerIndex)) *
                          static_cast<uint64_t>(k) * elementBytes;
  if (workspace && package->device == SPRT_DEVICE_GPU && bBytes > 0) {
    if (workspace_bytes < bBytes)
      return invalid("the workspace holds " + std::to_string(workspace_bytes) +
                     " bytes; B row-major needs " + std::to_string(bBytes) +
                     " (cols x k x " + std::to_string(elementBytes) + ")");
    auto w = reinterpret_cast<uintptr_t>(workspace);
    if (w % 16 != 0)
      return invalid("the workspace is not 16-byte aligned");
    for (auto [name, p, bytes] :
         {std::tuple<const char *, const void *, uint64_t>{"B", b, bBytes},
          std::tuple<const char *, const void *, uint64_t>{"C", c, cBytes}}) {
      auto at = reinterpret_cast<uintptr_t>(p);
      if (p && bytes > 0 && w < at + bytes && at < w + bBytes)
        return invalid(std::string("the workspace overlaps ") + name);
    }
  }
  const LayerGroup &g = package->groups[layerIndex];
  for (size_t i = 0; i < g.count; ++i) {
    const auto index = static_cast<int64_t>(g.first + i);
    const PackageLayer &shard = package->package.layers[g.first + i];
    if (!package->backend->acceptsColumnMajor(index, shard))
      return failWith(SPRT_ERROR_UNSUPPORTED,
                      std::string(what) + ": layer '" + shard.name +
                          "' has no transposing kernel for a column-major B "
                          "(its package was made before spperm had them: "
                          "compile it again, or pass B row-major)");
    if (g.count > 1)
      if (sprt_status s = package->backend->accepts(index, shard, k);
          s != SPRT_OK)
        return s;
  }
  for (size_t i = 0; i < g.count; ++i)
    if (sprt_status s = package->backend->spmmColumnMajor(
            static_cast<int64_t>(g.first + i),
            package->package.layers[g.first + i], b, k,
            shardOutput(package, g, i, k, c), workspace, stream);
        s != SPRT_OK)
      return s;
  return SPRT_OK;
}

sprt_status sprt_spmm(sprt_package *package, int64_t layerIndex, const float *b,
                      int64_t k, float *c, void *stream) {
  return spmmTyped("sprt_spmm", package, layerIndex, b, SPRT_DTYPE_F32, k, c,
                   SPRT_DTYPE_F32, stream);
}

sprt_status sprt_spmm_typed(sprt_package *package, int64_t layerIndex,
                            const void *b, sprt_dtype b_dtype, int64_t k,
                            void *c, sprt_dtype c_dtype, void *stream) {
  // The enums' bits: a C caller may pass any int.
  return spmmTyped("sprt_spmm_typed", package, layerIndex, b, bitsOf(b_dtype),
                   k, c, bitsOf(c_dtype), stream);
}

sprt_status sprt_spmm_time(sprt_package *package, int64_t layerIndex,
                           const char *variant, const float *b, int64_t k,
                           float *c, void *stream, int32_t warmup,
                           int32_t runs, float *times_ms) {
  return timeTyped("sprt_spmm_time", package, layerIndex, variant, b,
                   SPRT_DTYPE_F32, k, c, SPRT_DTYPE_F32, stream, warmup, runs,
                   times_ms);
}

sprt_status sprt_spmm_time_typed(sprt_package *package, int64_t layerIndex,
                                 const char *variant, const void *b,
                                 sprt_dtype b_dtype, int64_t k, void *c,
                                 sprt_dtype c_dtype, void *stream,
                                 int32_t warmup, int32_t runs,
                                 float *times_ms) {
  return timeTyped("sprt_spmm_time_typed", package, layerIndex, variant, b,
                   bitsOf(b_dtype), k, c, bitsOf(c_dtype), stream, warmup,
                   runs, times_ms);
}

/// A communicator: the GPU backend's state (none without CUDA).
struct sprt_comm {
#ifdef SPPERM_HAVE_CUDA
  std::unique_ptr<CommState> state;
#endif
  int32_t rank = 0, ranks = 1;
};

sprt_status sprt_comm_b_rows(int64_t cols, int32_t rank, int32_t ranks,
                             int64_t *row_begin, int64_t *row_end) {
  // A layer has at most 2^31 - 1 columns (docs/Limits.md), which also
  // keeps per * ranks below 2^62.
  if (!row_begin || !row_end || cols < 0 || cols > INT32_MAX || ranks < 1 ||
      rank < 0 || rank >= ranks)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_comm_b_rows: needs 0 <= cols <= 2^31 - 1, 0 <= rank "
                    "< ranks and output pointers, got cols " +
                        std::to_string(cols) + ", rank " +
                        std::to_string(rank) + " of " + std::to_string(ranks));
  const int64_t per = (cols + ranks - 1) / ranks;
  *row_begin = std::min<int64_t>(cols, per * rank);
  *row_end = std::min<int64_t>(cols, per * rank + per);
  return SPRT_OK;
}

sprt_status sprt_comm_unique_id(unsigned char id[SPRT_COMM_ID_BYTES]) {
  if (!id)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_comm_unique_id: the output pointer is NULL");
#ifdef SPPERM_HAVE_CUDA
  return gpuCommUniqueId(id);
#else
  return failWith(SPRT_ERROR_UNSUPPORTED, "GPU support is not built");
#endif
}

sprt_status sprt_comm_create(const unsigned char id[SPRT_COMM_ID_BYTES],
                             int32_t rank, int32_t ranks, sprt_comm **out) {
  if (!out)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_comm_create: the output pointer is NULL");
  *out = nullptr;
  if (!id || ranks < 1 || rank < 0 || rank >= ranks)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_comm_create: needs an id and 0 <= rank < ranks, "
                    "got rank " +
                        std::to_string(rank) + " of " + std::to_string(ranks));
#ifdef SPPERM_HAVE_CUDA
  auto comm = std::make_unique<sprt_comm>();
  comm->rank = rank;
  comm->ranks = ranks;
  SPRT_RETURN_IF_ERROR(gpuCommCreate(id, rank, ranks, comm->state));
  *out = comm.release();
  return SPRT_OK;
#else
  return failWith(SPRT_ERROR_UNSUPPORTED, "GPU support is not built");
#endif
}

void sprt_comm_release(sprt_comm *comm) { delete comm; }

sprt_status sprt_comm_barrier(sprt_comm *comm, void *stream) {
  if (!comm)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_comm_barrier: the communicator is NULL");
#ifdef SPPERM_HAVE_CUDA
  return gpuCommBarrier(*comm->state, stream);
#else
  (void)stream;
  return failWith(SPRT_ERROR_UNSUPPORTED, "GPU support is not built");
#endif
}

sprt_status sprt_spmm_allgather(sprt_package *package, int64_t layerIndex,
                                sprt_comm *comm, const float *bLocal,
                                int64_t k, int64_t chunk, float *c,
                                void *stream) {
  auto invalid = [](const std::string &message) {
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_spmm_allgather: " + message);
  };
  if (!package)
    return invalid("the package is NULL");
  if (!comm)
    return invalid("the communicator is NULL");
  if (sprt_status s = checkLayerIndex("sprt_spmm_allgather", package,
                                      layerIndex);
      s != SPRT_OK)
    return s;
  const LayerGroup &g = package->groups[layerIndex];
  const PackageLayer &layer = package->first(layerIndex);
  if (g.count != 1)
    return invalid("layer '" + layer.name + "' holds " +
                   std::to_string(g.count) +
                   " shards; load this rank's (sprt_package_load_shard)");
  if (chunk < 0)
    return invalid("chunk must be >= 0, got " + std::to_string(chunk));
  int64_t begin = 0, end = 0;
  SPRT_RETURN_IF_ERROR(sprt_comm_b_rows(layer.matrix.cols, comm->rank,
                                        comm->ranks, &begin, &end));
  // C and the argument checks of sprt_spmm; B's are those of the local
  // rows (the kernels read gathered copies).
  if (sprt_status s = checkSpmmArguments(
          "sprt_spmm_allgather", package, layerIndex, nullptr, SPRT_DTYPE_F32,
          k, c, SPRT_DTYPE_F32, /*checkB=*/false);
      s != SPRT_OK)
    return s;
  if (!bLocal && end > begin)
    return invalid("b_local is NULL");
  // The communication reads b_local while the products are written to C.
  if (bLocal && c && end > begin && package->rows(layerIndex) > 0) {
    const auto bAddr = reinterpret_cast<uintptr_t>(bLocal);
    const auto cAddr = reinterpret_cast<uintptr_t>(c);
    const uint64_t bBytes = uint64_t(end - begin) * uint64_t(k) * 4;
    const uint64_t cBytes = uint64_t(package->rows(layerIndex)) * uint64_t(k) * 4;
    if (bAddr < cAddr + cBytes && cAddr < bAddr + bBytes)
      return invalid("b_local and C overlap");
  }
#ifdef SPPERM_HAVE_CUDA
  return package->backend->spmmAllgather(static_cast<int64_t>(g.first), layer,
                                         *comm->state, bLocal, k, chunk, c,
                                         stream);
#else
  (void)stream;
  return failWith(SPRT_ERROR_UNSUPPORTED, "GPU support is not built");
#endif
}

#ifdef SPPERM_HAVE_CUDA
#define SPRT_GPU_CALL(call) return call
#else
#define SPRT_GPU_CALL(call)                                                    \
  return failWith(SPRT_ERROR_UNSUPPORTED, "GPU support is not built")
#endif

sprt_status sprt_device_properties(sprt_device_props *props) {
  if (!props)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_device_properties: the output pointer is NULL");
  SPRT_GPU_CALL(gpuProperties(*props));
}

sprt_status sprt_device_malloc(int64_t bytes, void **ptr) {
  if (!ptr || bytes < 0)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_device_malloc: the output pointer is NULL or the "
                    "size negative");
  SPRT_GPU_CALL(gpuMalloc(bytes, ptr));
}

sprt_status sprt_device_free(void *ptr) {
  if (!ptr)
    return SPRT_OK;
  SPRT_GPU_CALL(gpuFree(ptr));
}

sprt_status sprt_memcpy_htod(void *dst, const void *src, int64_t bytes) {
  if (bytes < 0 || (bytes > 0 && (!dst || !src)))
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_memcpy_htod: a NULL pointer or a negative size");
  SPRT_GPU_CALL(gpuCopyToDevice(dst, src, bytes));
}

sprt_status sprt_memcpy_dtoh(void *dst, const void *src, int64_t bytes) {
  if (bytes < 0 || (bytes > 0 && (!dst || !src)))
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_memcpy_dtoh: a NULL pointer or a negative size");
  SPRT_GPU_CALL(gpuCopyToHost(dst, src, bytes));
}

sprt_status sprt_memcpy_htod_async(void *dst, const void *src, int64_t bytes,
                                   void *stream) {
  if (bytes < 0 || (bytes > 0 && (!dst || !src)))
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_memcpy_htod_async: a NULL pointer or a negative "
                    "size");
  SPRT_GPU_CALL(gpuCopyToDeviceAsync(dst, src, bytes, stream));
}

sprt_status sprt_memcpy_dtoh_async(void *dst, const void *src, int64_t bytes,
                                   void *stream) {
  if (bytes < 0 || (bytes > 0 && (!dst || !src)))
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_memcpy_dtoh_async: a NULL pointer or a negative "
                    "size");
  SPRT_GPU_CALL(gpuCopyToHostAsync(dst, src, bytes, stream));
}

sprt_status sprt_stream_create(void **stream) {
  if (!stream)
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "sprt_stream_create: the output pointer is NULL");
  SPRT_GPU_CALL(gpuStreamCreate(stream));
}

sprt_status sprt_stream_destroy(void *stream) {
  if (!stream)
    return SPRT_OK;
  SPRT_GPU_CALL(gpuStreamDestroy(stream));
}

sprt_status sprt_stream_synchronize(void *stream) {
  SPRT_GPU_CALL(gpuStreamSynchronize(stream));
}
