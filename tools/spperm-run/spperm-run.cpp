//===- spperm-run.cpp - Run a compiled package ------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Loads a package through the runtime's C API (which verifies it), reads the
// dense operand B from a .npy file, computes C = A * B for one layer in the
// original row order, and writes C as a .npy file, atomically: on any error
// nothing is written. On the GPU, B is staged to device memory and C copied
// back (sprt_device_malloc, sprt_memcpy_*).
//
// --bench times the layer per docs/BENCHMARK.md through sprt_spmm_time
// (CUDA events on the GPU): warm-up runs, then timed runs, the median
// reported; --baseline cusparse adds the cuSPARSE algorithms on the same
// matrix (SpMM default / CSR_ALG2 / CSR_ALG3, and SpMV for K = 1), each
// checked against the package's C. A table goes to stdout and, with --json,
// one JSON record (device, clocks, matrix, K, variants, times) to a file.
//
//===----------------------------------------------------------------------===//

#include "Ranks.h"

#include "spperm/Runtime/SpPermRuntime.hpp"
#include "spperm/Sparse/HalfFloat.h"
#include "spperm/Sparse/Interrupt.h"
#include "spperm/Sparse/Npy.h"
#include "spperm/Sparse/OutputPath.h"
#include "spperm/Sparse/Spelling.h"
#include "spperm/Tools/CommandLine.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace spperm;
namespace rt = spperm::runtime;

static const char *const kTool = "spperm-run";

namespace {

/// Reports `message` and returns the tool's failure exit code.
int fail(const std::string &message) {
  reportError(kTool, message);
  return 1;
}

std::string shape(int64_t rows, int64_t cols) {
  return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

/// "STATUS_NAME: message" of the runtime's last failure.
std::string runtimeError(sprt_status status) {
  return std::string(sprt_last_error()) + " (" + sprt_status_name(status) +
         ")";
}

/// A GPU buffer, freed on destruction.
class DeviceArray {
public:
  DeviceArray() = default;
  ~DeviceArray() { (void)sprt_device_free(ptr); }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;
  sprt_status allocate(int64_t bytes) { return sprt_device_malloc(bytes, &ptr); }
  void *get() const { return ptr; }

private:
  void *ptr = nullptr;
};

/// Where B and C live for the runtime: host vectors on the CPU, device
/// buffers (staged from and to the host vectors) on the GPU. For a layer of
/// 16-bit operands, B is rounded to its type and C widened back exactly
/// (float32 .npy files, or float16 ones for a float16 layer).
struct Operands {
  sprt_device device = SPRT_DEVICE_CPU;
  ValueType type = ValueType::F32;
  DenseMatrix *b = nullptr;
  DenseMatrix *c = nullptr;
  /// B and C as the type's bit patterns (16-bit types).
  std::vector<uint16_t> bBits, cBits;
  DeviceArray db, dc;

  sprt_dtype dtype() const {
    return type == ValueType::F16    ? SPRT_DTYPE_F16
           : type == ValueType::BF16 ? SPRT_DTYPE_BF16
                                     : SPRT_DTYPE_F32;
  }
  bool narrow() const { return type != ValueType::F32; }
  int64_t bBytes() const {
    return int64_t(b->data.size()) * valueTypeBytes(type);
  }
  int64_t cBytes() const {
    return int64_t(c->data.size()) * valueTypeBytes(type);
  }
  const void *hostB() const {
    return narrow() ? static_cast<const void *>(bBits.data())
                    : static_cast<const void *>(b->data.data());
  }
  void *hostC() {
    return narrow() ? static_cast<void *>(cBits.data())
                    : static_cast<void *>(c->data.data());
  }
  const void *bPtr() const {
    return device == SPRT_DEVICE_GPU ? static_cast<const void *>(db.get())
                                     : hostB();
  }
  void *cPtr() { return device == SPRT_DEVICE_GPU ? dc.get() : hostC(); }

  /// Rounds B to the layer's type; allocates and stages B (GPU).
  sprt_status prepare() {
    if (narrow()) {
      bBits = narrowArray(b->data, type);
      cBits.resize(c->data.size());
    }
    if (device != SPRT_DEVICE_GPU)
      return SPRT_OK;
    if (sprt_status s = db.allocate(bBytes()); s != SPRT_OK)
      return s;
    if (sprt_status s = dc.allocate(cBytes()); s != SPRT_OK)
      return s;
    return sprt_memcpy_htod(db.get(), hostB(), bBytes());
  }
  /// Fills C with NaN, so that an element left unwritten cannot pass.
  sprt_status poison() {
    std::fill(c->data.begin(), c->data.end(),
              std::numeric_limits<float>::quiet_NaN());
    std::fill(cBits.begin(), cBits.end(),
              narrowToValueType(std::numeric_limits<float>::quiet_NaN(), type));
    if (device != SPRT_DEVICE_GPU)
      return SPRT_OK;
    return sprt_memcpy_htod(dc.get(), hostC(), cBytes());
  }
  /// Brings C back to the host (GPU; waits for the default stream) and
  /// widens 16-bit C into c->data.
  sprt_status fetch() {
    if (device == SPRT_DEVICE_GPU)
      if (sprt_status s = sprt_memcpy_dtoh(hostC(), dc.get(), cBytes());
          s != SPRT_OK)
        return s;
    widenArray(cBits.data(), cBits.size(), type, c->data.data());
    return SPRT_OK;
  }
};

/// ||got - want|| / ||want|| (Frobenius; absolute when want is 0); NaN
/// anywhere gives NaN.
double relativeDifference(const std::vector<float> &got,
                          const std::vector<float> &want) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double d = double(got[i]) - double(want[i]);
    diff += d * d;
    norm += double(want[i]) * double(want[i]);
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

/// One timed variant.
struct Timing {
  std::string variant;
  std::vector<float> timesMs;
  double medianMs = 0, minMs = 0;
  /// Relative difference of its C from the package's C (baselines).
  double diff = 0;
  /// Why it did not run, when it did not.
  std::string skipped;
};

/// `s` as a JSON string literal.
std::string jsonString(const std::string &s) {
  // Text that is not UTF-8 (a package path's bytes) as U+FFFD: the record
  // stays valid JSON.
  return nlohmann::json(s).dump(-1, ' ', false,
                                nlohmann::json::error_handler_t::replace);
}

/// A finite double as JSON (NaN and infinities become null).
std::string jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

/// readNpy, with an exhausted memory blamed on B's file rather than the
/// package (then named again).
StatusOr<DenseMatrix> readB(const std::string &bPath,
                            const std::string &packagePath) {
  ::spperm::setOutOfMemoryFile(bPath);
  StatusOr<DenseMatrix> b = readNpy(bPath);
  ::spperm::setOutOfMemoryFile(packagePath);
  return b;
}

} // namespace

int main(int argc, char **argv) {
  // Before any thread starts: an interrupted run removes its temporaries
  // and kills its children (spperm/Sparse/Interrupt.h).
  ::spperm::installInterruptCleanup();
  ::spperm::installOutOfMemoryExit(kTool);
  std::string packagePath, layerName, deviceName, bPath, outPath;
  std::string baselineName, jsonPath, warmupText = "5", runsText = "30";
  bool layerSeen = false, deviceSeen = false, bSeen = false, outSeen = false;
  bool bench = false, baselineSeen = false, jsonSeen = false,
       warmupSeen = false, runsSeen = false;
  std::string ranksText, rankText, algorithm = "1d", chunkText = "0",
                                    kText, commId, checkRowsText = "4096";
  bool ranksSeen = false, rankSeen = false, algorithmSeen = false,
       chunkSeen = false, kSeen = false, commIdSeen = false;

  ArgParser args(
      kTool,
      "PKG [--layer NAME] --device cpu|gpu --b B.npy --out C.npy "
      "[--bench [--baseline cusparse] [--json FILE]]",
      "Loads the package PKG (written by spperm-compile), verifies it, and "
      "computes C = A * B for one of its layers, with C's rows in the "
      "original order of the matrix. B is a float32 .npy array of shape "
      "(N, K) for a layer of shape M x N; C is written as a float32 .npy "
      "array of shape (M, K); for a layer of f16 or bf16 operands "
      "(--dtype), B is rounded to that type and C widened back exactly. "
      "An f16 layer also takes a float16 ('<f2') B, and then writes a "
      "float16 C. Nothing is written on error.");
  args.addPositional("PKG", "Package directory", &packagePath);
  args.addOption("layer", "NAME",
                 "The layer to run (needed when the package has several)",
                 &layerName, &layerSeen);
  args.addOption("device", "cpu|gpu",
                 "Where to run: the host executor or the GPU kernels",
                 &deviceName, &deviceSeen);
  args.addOption("b", "B.npy", "The dense operand B, shape (N, K)", &bPath,
                 &bSeen);
  args.addOption("out", "C.npy",
                 "Where to write C, shape (M, K) (optional with --bench)",
                 &outPath, &outSeen);
  args.addFlag("bench",
               "Time the layer (warm-up runs, then timed runs; CUDA events "
               "on the GPU) and print a table with the median",
               &bench);
  args.addOption("baseline", "cusparse",
                 "With --bench on the GPU: also time cuSPARSE (SpMM default, "
                 "CSR_ALG2, CSR_ALG3; SpMV too for K = 1) on the same matrix",
                 &baselineName, &baselineSeen);
  args.addOption("json", "FILE",
                 "With --bench: write a JSON record of the run to FILE",
                 &jsonPath, &jsonSeen);
  args.addOption("warmup", "N",
                 "With --bench or --ranks: untimed runs first (default 5)",
                 &warmupText, &warmupSeen);
  args.addOption("runs", "N",
                 "With --bench or --ranks: timed runs (default 30)", &runsText,
                 &runsSeen);
  args.addOption("ranks", "N",
                 "Run on N ranks, one process per GPU (GPU r for rank r): "
                 "each loads its shard of a package compiled with --shards "
                 "N (layers compiled whole run whole on every rank), checks "
                 "its rows of C against float64 and times its runs; prints "
                 "each rank and the slowest rank's time per run "
                 "(docs/Distributed.md). B is --b B.npy or --b random:SEED "
                 "with --k K",
                 &ranksText, &ranksSeen);
  args.addOption("algorithm", "1d|1.5d",
                 "With --ranks: B replicated on every rank (1d, the "
                 "default), or split by rows and all-gathered over NCCL in "
                 "chunks of --chunk columns (1.5d)",
                 &algorithm, &algorithmSeen);
  args.addOption("chunk", "C",
                 "With --algorithm 1.5d: columns of B per all-gathered "
                 "chunk (0, the default: all at once)",
                 &chunkText, &chunkSeen);
  args.addOption("k", "K", "With --b random:SEED: B's columns", &kText,
                 &kSeen);
  args.addOption("check-rows", "N",
                 "With --ranks: rows of C each rank checks against a "
                 "float64 product: N random rows and the 64 longest "
                 "(default 4096; 0 checks none)",
                 &checkRowsText);
  args.addOption("rank", "R", "Internal: run as rank R of --ranks (the "
                              "driver starts the ranks)",
                 &rankText, &rankSeen);
  args.addOption("comm-id", "HEX", "Internal: the ranks' communicator",
                 &commId, &commIdSeen);
  if (std::optional<int> exitCode = args.parse(argc, argv))
    return *exitCode;
  ::spperm::setOutOfMemoryFile(packagePath);
  // No output may be empty, replace an input or a file of a package:
  // checked before any work.
  if (outSeen && outPath.empty())
    return fail("--out needs a file name, got ''");
  if (jsonSeen && jsonPath.empty())
    return fail("--json needs a file name, got ''");
  for (const std::string *output : {&outPath, &jsonPath})
    if (!output->empty()) {
      if (Status s = checkOutputSparesInputs(*output, {bPath}); !s)
        return fail(s.message());
      if (Status s = checkWritableFile(*output); !s)
        return fail(s.message());
    }
  if (!outPath.empty() && !jsonPath.empty() && samePath(outPath, jsonPath))
    return fail(jsonPath + ": --json and --out name the same file");

  if (rankSeen && !ranksSeen)
    return fail("--rank needs --ranks");
  if (ranksSeen || rankSeen) {
    RanksOptions r;
    r.package = packagePath;
    r.layer = layerName;
    r.device = deviceName;
    r.b = bPath;
    r.algorithm = algorithm;
    r.commId = commId;
    r.outPath = outPath;
    r.jsonPath = jsonPath;
    r.self = "/proc/self/exe";
    int64_t ranks = 0, rank = -1, chunk = 0, k = 0, warmupN = 0, runsN = 0,
            check = 0;
    if (!deviceSeen || (deviceName != "cpu" && deviceName != "gpu"))
      return fail("--ranks needs --device cpu|gpu");
    if (!bSeen)
      return fail("missing --b B.npy or --b random:SEED (see --help)");
    if (!parseIntegerOption(kTool, "ranks", ranksText, 1, 1024, ranks) ||
        (rankSeen &&
         !parseIntegerOption(kTool, "rank", rankText, 0, ranks - 1, rank)) ||
        !parseIntegerOption(kTool, "chunk", chunkText, 0, INT32_MAX, chunk) ||
        !parseIntegerOption(kTool, "check-rows", checkRowsText, 0, INT32_MAX,
                            check) ||
        !parseIntegerOption(kTool, "warmup", warmupText, 0, 100000,
                            warmupN) ||
        !parseIntegerOption(kTool, "runs", runsText, 1, 100000, runsN))
      return 1;
    if (algorithm != "1d" && algorithm != "1.5d")
      return fail("unknown algorithm '" + algorithm +
                  "' (expected 1d or 1.5d)");
    if (algorithm == "1.5d" && deviceName != "gpu")
      return fail("--algorithm 1.5d needs --device gpu (NCCL)");
    if (chunkSeen && algorithm != "1.5d" && !rankSeen)
      return fail("--chunk applies to --algorithm 1.5d");
    if (baselineSeen)
      return fail("--baseline applies to one device, not --ranks");
    if (bench)
      return fail("--bench applies to one device: --ranks times its runs "
                  "itself (--warmup, --runs)");
    const bool random = bPath.rfind("random:", 0) == 0;
    if (random && !kSeen)
      return fail("--b random:SEED needs --k K");
    if (kSeen &&
        !parseIntegerOption(kTool, "k", kText, 1, INT32_MAX, k))
      return 1;
    if (!random) {
      // Its header only: each rank reads the rows it needs.
      StatusOr<NpyShape> b = readNpyShape(bPath);
      if (!b)
        return fail(b.message());
      if (b->float16)
        return fail(bPath + ": B is float16 ('<f2'); --ranks runs float32 "
                            "layers: give B as float32 ('<f4')");
      if (kSeen && b->cols != k)
        return fail(bPath + ": B has " + std::to_string(b->cols) +
                    " columns, --k says " + std::to_string(k));
      k = b->cols;
      r.bRows = b->rows;
    }
    r.ranks = static_cast<int32_t>(ranks);
    r.rank = static_cast<int32_t>(rank);
    r.chunk = chunk;
    r.k = k;
    r.warmup = warmupN;
    r.runs = runsN;
    r.checkRows = check;
    return rankSeen ? runRank(r) : runDriver(r);
  }
  if (algorithmSeen || chunkSeen || kSeen || commIdSeen)
    return fail("--algorithm, --chunk, --k and --comm-id apply to --ranks");

  if (!deviceSeen)
    return fail("missing --device cpu|gpu (see --help)");
  sprt_device device;
  if (deviceName == "cpu")
    device = SPRT_DEVICE_CPU;
  else if (deviceName == "gpu")
    device = SPRT_DEVICE_GPU;
  else
    return fail("unknown device '" + deviceName + "' (expected cpu or gpu)" +
                didYouMean(deviceName, {"cpu", "gpu"}));
  if (!bSeen)
    return fail("missing --b B.npy (see --help)");
  if (!outSeen && !bench)
    return fail("missing --out C.npy (see --help)");
  if (baselineSeen && baselineName != "cusparse")
    return fail("unknown baseline '" + baselineName + "' (expected cusparse)");
  if (!bench)
    for (auto [seen, flag] : {std::pair{baselineSeen, "--baseline"},
                              {jsonSeen, "--json"},
                              {warmupSeen, "--warmup"},
                              {runsSeen, "--runs"}})
      if (seen)
        return fail(std::string(flag) + " needs --bench");
  if (baselineSeen && device != SPRT_DEVICE_GPU)
    return fail("--baseline cusparse needs --device gpu");
  int64_t warmup = 0, runs = 0;
  if (!parseIntegerOption(kTool, "warmup", warmupText, 0, 100000, warmup) ||
      !parseIntegerOption(kTool, "runs", runsText, 1, 100000, runs))
    return 1;

  rt::Result<rt::Package> loaded = rt::Package::load(packagePath, device);
  if (!loaded)
    return fail(loaded.message());
  rt::Package package = std::move(loaded.value());

  int64_t layer = 0;
  if (layerSeen) {
    rt::Result<int64_t> found = package.findLayer(layerName);
    if (!found)
      return fail(packagePath + ": " + found.message());
    layer = *found;
  } else if (package.layerCount() != 1) {
    std::string names;
    for (int64_t i = 0; i < package.layerCount(); ++i)
      if (rt::Result<sprt_layer_desc> info = package.layerInfo(i))
        names += (i ? ", " : "") + std::string(info->name);
    return fail(packagePath + ": the package has " +
                std::to_string(package.layerCount()) +
                " layers; choose one with --layer NAME (" + names + ")");
  }
  rt::Result<sprt_layer_desc> info = package.layerInfo(layer);
  if (!info)
    return fail(info.message());

  StatusOr<DenseMatrix> b = readB(bPath, packagePath);
  if (!b)
    return fail(b.message());
  const int64_t k = b->cols;
  if (b->rows != info->cols || k < 1)
    return fail(bPath + ": B has shape " + shape(b->rows, b->cols) +
                ", but layer '" + info->name + "' is " +
                std::to_string(info->rows) + " x " +
                std::to_string(info->cols) + ": B must have shape (" +
                std::to_string(info->cols) + ", K) with K >= 1");
  if (info->k != 0 && k != info->k)
    return fail(bPath + ": B has K = " + std::to_string(k) +
                " columns, but "
                "layer '" +
                info->name +
                "' was compiled for K = " + std::to_string(info->k));

  DenseMatrix c;
  c.rows = info->rows;
  c.cols = k;
  int64_t count;
  if (__builtin_mul_overflow(c.rows, c.cols, &count))
    return fail("C of shape " + shape(c.rows, c.cols) + " is too large");
  c.data.resize(static_cast<size_t>(count));

  Operands ops;
  ops.device = device;
  sprt_dtype layerType = SPRT_DTYPE_F32;
  if (sprt_status s = sprt_layer_dtype(package.get(), layer, &layerType);
      s != SPRT_OK)
    return fail(runtimeError(s));
  ops.type = layerType == SPRT_DTYPE_F16    ? ValueType::F16
             : layerType == SPRT_DTYPE_BF16 ? ValueType::BF16
                                            : ValueType::F32;
  // A float16 B (`<f2`) is a float16 layer's own type, and its C is
  // written so too; other layers take `<f4` (NumPy has no bfloat16).
  if (b->float16 && ops.type != ValueType::F16)
    return fail(bPath + ": B is float16 ('<f2'), but layer '" + info->name +
                "' takes " +
                (ops.type == ValueType::BF16 ? "bfloat16" : "float32") +
                " operands: give B as float32 ('<f4', "
                "B.astype(numpy.float32))");
  c.float16 = b->float16;
  ops.b = &*b;
  ops.c = &c;
  if (sprt_status s = ops.prepare(); s != SPRT_OK)
    return fail(runtimeError(s));
  if (sprt_status s = ops.poison(); s != SPRT_OK)
    return fail(runtimeError(s));
  if (sprt_status s = sprt_spmm_typed(package.get(), layer, ops.bPtr(),
                                      ops.dtype(), k, ops.cPtr(), ops.dtype(),
                                      nullptr);
      s != SPRT_OK)
    return fail(runtimeError(s));
  if (sprt_status s = ops.fetch(); s != SPRT_OK)
    return fail(runtimeError(s));
  if (!bench) {
    if (Status s = writeNpy(outPath, c); !s)
      return fail(s.message());
    return 0;
  }

  // --bench: the package's path, then the baselines, each on its own.
  const std::vector<float> packageC = c.data;
  std::vector<std::string> variants = {"spperm"};
  if (baselineSeen) {
    for (const char *v : {"cusparse-spmm-default", "cusparse-spmm-csr-alg2",
                          "cusparse-spmm-csr-alg3"})
      variants.push_back(v);
    if (k == 1)
      for (const char *v : {"cusparse-spmv-default", "cusparse-spmv-csr-alg1",
                            "cusparse-spmv-csr-alg2"})
        variants.push_back(v);
    variants.push_back(ops.narrow() ? "cublaslt-gemm" : "cublas-sgemm");
  }
  std::vector<Timing> timings;
  for (const std::string &variant : variants) {
    Timing t;
    t.variant = variant;
    t.timesMs.resize(static_cast<size_t>(runs));
    if (sprt_status s = ops.poison(); s != SPRT_OK)
      return fail(runtimeError(s));
    sprt_status s = sprt_spmm_time_typed(
        package.get(), layer, variant.c_str(), ops.bPtr(), ops.dtype(), k,
        ops.cPtr(), ops.dtype(), nullptr, int32_t(warmup), int32_t(runs),
        t.timesMs.data());
    // A baseline cuSPARSE refuses for this shape is reported, not fatal
    // (the table and the record show why).
    if (s != SPRT_OK && s != SPRT_ERROR_OUT_OF_MEMORY && variant != "spperm") {
      t.skipped = sprt_last_error();
      t.timesMs.clear();
      timings.push_back(std::move(t));
      continue;
    }
    if (s != SPRT_OK)
      return fail(variant + ": " + runtimeError(s));
    if (sprt_status f = ops.fetch(); f != SPRT_OK)
      return fail(runtimeError(f));
    t.diff = relativeDifference(c.data, packageC);
    std::vector<float> sorted = t.timesMs;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    t.medianMs = n % 2 ? sorted[n / 2]
                       : 0.5 * (double(sorted[n / 2 - 1]) + sorted[n / 2]);
    t.minMs = sorted.front();
    timings.push_back(std::move(t));
  }
  // Every baseline must agree with the package (fp32 paths: 1e-5 relative;
  // 16-bit ones: 4 units of the type's roundoff, the baselines' A being
  // rounded to it too; NaN never passes).
  const double agreement = ops.type == ValueType::F16    ? std::ldexp(4.0, -11)
                           : ops.type == ValueType::BF16 ? std::ldexp(4.0, -8)
                                                         : 1e-5;
  std::string disagreements;
  for (const Timing &t : timings)
    if (t.skipped.empty() && !(t.diff <= agreement))
      disagreements += (disagreements.empty() ? "" : ", ") + t.variant;

  const Timing *best = nullptr;
  for (const Timing &t : timings)
    if (t.variant != "spperm" && t.skipped.empty() &&
        (!best || t.medianMs < best->medianMs))
      best = &t;
  const Timing &own = timings.front();

  // Compulsory traffic and flops (docs/BENCHMARK.md), B and C at their
  // type's width.
  const double width = double(valueTypeBytes(ops.type));
  const double bytes = 8.0 * info->nnz + 4.0 * (info->rows + 1) +
                       width * info->cols * k + width * info->rows * k;
  const double flops = 2.0 * info->nnz * k;
  sprt_device_props props{};
  bool haveProps = device == SPRT_DEVICE_GPU &&
                   sprt_device_properties(&props) == SPRT_OK;
  // A working set smaller than the GPU's L2 (50 MB on the H100, when the
  // properties cannot be read) stays in cache between the timed runs: the
  // times are in-cache numbers.
  const double l2Bytes =
      haveProps && props.l2_cache_bytes > 0 ? double(props.l2_cache_bytes)
                                            : 50e6;
  const bool inL2 = device == SPRT_DEVICE_GPU && bytes < l2Bytes;

  std::printf("%s layer '%s': %lld x %lld, nnz %lld, format %s, strategy "
              "%s, K = %lld, device %s%s%s%s\n",
              packagePath.c_str(), info->name, (long long)info->rows,
              (long long)info->cols, (long long)info->nnz, info->format,
              info->strategy, (long long)k, deviceName.c_str(),
              haveProps ? " (" : "", haveProps ? props.name : "",
              haveProps ? ")" : "");
  std::printf("%d warm-up + %lld timed runs; working set %.1f MB%s\n",
              int(warmup), (long long)runs, bytes / 1e6,
              inL2 ? " (fits in L2: in-cache numbers)" : "");
  std::printf("%-26s %12s %12s %10s %10s %10s\n", "variant", "median_ms",
              "min_ms", "GFLOP/s", "GB/s", "vs_best");
  for (const Timing &t : timings) {
    if (!t.skipped.empty()) {
      std::printf("%-26s %12s  (%s)\n", t.variant.c_str(), "n/a",
                  t.skipped.c_str());
      continue;
    }
    const double seconds = t.medianMs / 1e3;
    std::printf("%-26s %12.5f %12.5f %10.2f %10.2f", t.variant.c_str(),
                t.medianMs, t.minMs, flops / seconds / 1e9,
                bytes / seconds / 1e9);
    if (best)
      std::printf(" %9.3fx", best->medianMs / t.medianMs);
    std::printf("\n");
  }
  if (best)
    std::printf("best cuSPARSE: %s; speedup of spperm: %.3fx\n",
                best->variant.c_str(), best->medianMs / own.medianMs);

  if (jsonSeen) {
    std::ostringstream j;
    j << "{\n  \"tool\": \"spperm-run\",\n";
    if (const char *commit = std::getenv("SPPERM_COMMIT"))
      j << "  \"commit\": " << jsonString(commit) << ",\n";
    j << "  \"package\": " << jsonString(packagePath) << ",\n"
      << "  \"layer\": " << jsonString(info->name) << ",\n"
      << "  \"device\": " << jsonString(deviceName) << ",\n";
    if (haveProps)
      j << "  \"gpu\": {\"name\": " << jsonString(props.name)
        << ", \"ordinal\": " << props.ordinal
        << ", \"driver_version\": " << props.driver_version
        << ", \"cusparse_version\": " << props.cusparse_version
        << ", \"compute_capability\": \"" << props.compute_major << "."
        << props.compute_minor << "\""
        << ", \"multiprocessors\": " << props.multiprocessors
        << ", \"clock_khz\": " << props.clock_khz
        << ", \"memory_clock_khz\": " << props.memory_clock_khz
        << ", \"memory_bus_width\": " << props.memory_bus_width
        << ", \"l2_cache_bytes\": " << props.l2_cache_bytes
        << ", \"total_memory_bytes\": " << props.total_memory_bytes
        << "},\n";
    j << "  \"matrix\": {\"rows\": " << info->rows
      << ", \"cols\": " << info->cols << ", \"nnz\": " << info->nnz
      << ", \"format\": " << jsonString(info->format)
      << ", \"strategy\": " << jsonString(info->strategy) << "},\n"
      << "  \"k\": " << k << ",\n"
      << "  \"warmup\": " << warmup << ",\n"
      << "  \"runs\": " << runs << ",\n"
      << "  \"compulsory_bytes\": " << jsonNumber(bytes) << ",\n"
      << "  \"in_l2\": " << (inL2 ? "true" : "false") << ",\n"
      << "  \"variants\": [";
    for (size_t i = 0; i < timings.size(); ++i) {
      const Timing &t = timings[i];
      j << (i ? ",\n" : "\n") << "    {\"variant\": " << jsonString(t.variant);
      if (!t.skipped.empty()) {
        j << ", \"skipped\": " << jsonString(t.skipped) << "}";
        continue;
      }
      j << ", \"median_ms\": " << jsonNumber(t.medianMs)
        << ", \"min_ms\": " << jsonNumber(t.minMs)
        << ", \"rel_diff_vs_spperm\": " << jsonNumber(t.diff)
        << ", \"times_ms\": [";
      for (size_t r = 0; r < t.timesMs.size(); ++r)
        j << (r ? ", " : "") << jsonNumber(t.timesMs[r]);
      j << "]}";
    }
    j << "\n  ]";
    if (best)
      j << ",\n  \"best_cusparse\": " << jsonString(best->variant)
        << ",\n  \"speedup_vs_best_cusparse\": "
        << jsonNumber(best->medianMs / own.medianMs);
    j << "\n}\n";
    if (Status s = writeFileAtomically(jsonPath, j.str()); !s)
      return fail(s.message());
  }
  if (outSeen) {
    // The package's C, not the last baseline's.
    c.data = packageC;
    if (Status s = writeNpy(outPath, c); !s)
      return fail(s.message());
  }
  if (!disagreements.empty())
    return fail("C of " + disagreements +
                " differs from the package's C by more than " +
                std::to_string(agreement));
  return 0;
}
