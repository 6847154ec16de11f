//===- spperm-verify.cpp - Check packages against a float64 reference -----===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The GPU suite's driver (docs/Testing.md): for every package in a
// directory (or one package), every layer and every K of --k, runs C = A * B
// on --device with C poisoned (NaN) beforehand, and compares it with a
// float64 product computed on the host from the layer's SOURCE matrix file
// (read again with the sparse core; the package's own arrays when the
// source cannot be found). A result passes when every element was written
// (no NaN left where the reference is finite) and the normwise relative
// error ||C - R||_F / ||R||_F is at most --tolerance. One line per check,
// a summary at the end, exit status 1 on any failure. With --bench, the
// packages that passed are then timed one at a time (a `bench` line per
// layer and K). With --threads N, each package that passed is then called
// from N threads at once, each with its own stream, B and C, K cycling
// through --k, every result checked the same way (docs/RuntimeABI.md,
// "Ownership and threading"). Every first-call decision is made by this
// run: the runtime's tuning cache is off unless SPRT_TUNING_CACHE is set, so
// that a choice timed under the load of the parallel checks (or of another
// run) is neither stored nor recalled by the timings.
//
//===----------------------------------------------------------------------===//

#include "Verify.h"

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Sparse/Interrupt.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Package.h"
#include "spperm/Sparse/Spelling.h"
#include "spperm/Tools/CommandLine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

using namespace spperm;
using namespace spperm::verify;

static const char *const kTool = "spperm-verify";

namespace {

bool isDirectory(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> findPackages(const std::string &path) {
  // Any entry named manifest.json makes a package, a broken or looping
  // link too: loading it then says what is wrong with it.
  struct stat st;
  if (lstat((path + "/manifest.json").c_str(), &st) == 0)
    return {path};
  std::vector<std::string> out;
  if (DIR *d = opendir(path.c_str())) {
    while (dirent *e = readdir(d)) {
      std::string name = e->d_name;
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".spp") == 0 &&
          isDirectory(path + "/" + name))
        out.push_back(path + "/" + name);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Serializes GPU work: checks and timings run one at a time while the
/// host work (package loading, references) of other packages overlaps.
std::mutex gpuLock;

struct BenchOptions {
  std::vector<int64_t> ks;
  int32_t warmup = 5, runs = 20;
  /// When positive, a variant whose single run takes longer than
  /// maxMs / runs is timed with fewer runs (at least 3, about maxMs in all):
  /// a sweep's hopeless candidates need no 20-run median.
  double maxMs = 0.0;
};

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// B and C on the device, of the layer's element type.
struct Operands {
  const void *b;
  void *c;
  sprt_dtype dtype;
};

/// Times `variant` of layer `li` for K = k; returns the median in ms, or a
/// negative value when it cannot run.
double timeVariant(sprt_package *rt, int64_t li, const char *variant,
                   const Operands &ops, int64_t k, const BenchOptions &bench) {
  int32_t warmup = bench.warmup, runs = bench.runs;
  if (bench.maxMs > 0) {
    float probe = 0.0f;
    if (sprt_spmm_time_typed(rt, li, variant, ops.b, ops.dtype, k, ops.c,
                             ops.dtype, nullptr, 1, 1, &probe) != SPRT_OK)
      return -1.0;
    if (static_cast<double>(probe) * runs > bench.maxMs) {
      runs = std::max<int32_t>(
          3, static_cast<int32_t>(bench.maxMs / std::max(probe, 1e-6f)));
      runs = std::min(runs, bench.runs);
      warmup = 0;
    }
  }
  std::vector<float> times(static_cast<size_t>(runs));
  if (sprt_spmm_time_typed(rt, li, variant, ops.b, ops.dtype, k, ops.c,
                           ops.dtype, nullptr, warmup, runs,
                           times.data()) != SPRT_OK)
    return -1.0;
  return median(times);
}

/// Times every layer for each K of `bench` (and, for csr layers in the
/// original order and layers that may run cuSPARSE, the best of the
/// cuSPARSE algorithms on the same matrix, right after); prints `bench`
/// lines.
void benchPackage(const Package &pkg, sprt_package *rt,
                  const BenchOptions &bench, Totals &totals,
                  const std::string &path) {
  for (const CheckedLayer &checked : checkedLayers(pkg)) {
    const PackageLayer &layer = *checked.layer;
    const int64_t li = checked.index;
    if (checked.sharded()) {
      // The runtime times a sharded layer's shards on their ranks only.
      std::lock_guard<std::mutex> lock(totals.mutex);
      std::printf("bench %s %s: not timed, a layer of %zu shards (time it "
                  "with spperm-run --ranks %zu)\n",
                  path.c_str(), layer.name.c_str(), checked.count,
                  checked.count);
      std::fflush(stdout);
      continue;
    }
    // The runtime runs cuSPARSE on the CSR in the original row order for
    // every layer, so the baseline is the same computation whatever the
    // package; it is timed beside the csr/identity packages (the sweep's
    // reference) and beside the packages that may run cuSPARSE themselves
    // (library-checked or cusparse layers: what spperm-compile selects),
    // so that their comparison is paired, not across separate runs.
    const bool cusparseLayer = !layer.kernels.empty() &&
                               layer.kernels.front().variant == kCusparse;
    const bool baseline =
        layer.libraryCheck || cusparseLayer ||
        (layer.matrix.kind == FormatKind::Csr &&
         layer.permutation.strategy == Strategy::Identity);
    // 16-bit layers' baselines run at their type: cuSPARSE with A rounded
    // to it, cuBLASLt GEMM on the densified matrix (fp32 compute).
    const ValueType type = layer.operandType;
    const bool withBaseline = baseline;
    const int64_t elementBytes = valueTypeBytes(type);
    for (int64_t k : bench.ks) {
      if (layer.k != 0 && k != layer.k)
        continue;
      std::vector<float> b = makeB(layer.matrix.cols, k);
      std::vector<uint16_t> bBits;
      roundOperand(b, type, bBits);
      const int64_t bBytes = static_cast<int64_t>(b.size()) * elementBytes;
      const int64_t cBytes = layer.matrix.rows * k * elementBytes;
      std::lock_guard<std::mutex> gpu(gpuLock);
      void *db = nullptr, *dc = nullptr;
      if (sprt_device_malloc(bBytes, &db) != SPRT_OK ||
          sprt_device_malloc(cBytes, &dc) != SPRT_OK ||
          sprt_memcpy_htod(db,
                           type == ValueType::F32
                               ? static_cast<const void *>(b.data())
                               : static_cast<const void *>(bBits.data()),
                           bBytes) != SPRT_OK) {
        sprt_device_free(db);
        sprt_device_free(dc);
        continue;
      }
      const Operands ops{db, dc, toDtype(type)};
      std::ostringstream line;
      line << "bench " << path << " " << layer.name << " K=" << k
           << " format=" << formatName(layer.matrix.kind)
           << " strategy=" << strategyCliName(layer.permutation.strategy)
           << " rows=" << layer.matrix.rows << " cols=" << layer.matrix.cols
           << " nnz=" << layer.matrix.nnz
           << (type == ValueType::F32
                   ? std::string()
                   : " dtype=" + std::string(valueTypeName(type)))
           << (cusparseLayer        ? " path=cusparse"
               : layer.libraryCheck ? " path=checked"
                                    : "")
           << " spperm_ms=" << timeVariant(rt, li, "spperm", ops, k, bench);
      if (!layer.alternatives.empty()) {
        // Each variant on its own (the layer's, then its alternatives; -1
        // when it has no kernels for K): what the runtime chose among.
        line << " variant_ms=";
        for (size_t which = 0; which <= layer.alternatives.size(); ++which) {
          const PackageLayer &v = layer.variant(which);
          const KernelInfo *first = firstKernelForK(v.kernels, k);
          const bool accepts = first && first->variant != kCusparse;
          const std::string name = "spperm:" + std::to_string(which);
          line << (which ? "," : "")
               << (accepts ? timeVariant(rt, li, name.c_str(), ops, k, bench)
                           : -1.0);
        }
        line << " variants=";
        for (size_t which = 0; which <= layer.alternatives.size(); ++which) {
          const PackageLayer &v = layer.variant(which);
          line << (which ? "," : "") << formatName(v.matrix.kind) << "."
               << strategyCliName(v.permutation.strategy);
          // A tensor-core twin: e.g. bell.bsa.bell-3xtf32.
          if (std::string_view tc = tensorCoreFamily(v); !tc.empty())
            line << "." << tc;
        }
      }
      if (withBaseline) {
        std::vector<const char *> algs =
            k == 1 ? std::vector<const char *>{"cusparse-spmv-default",
                                               "cusparse-spmv-csr-alg1",
                                               "cusparse-spmv-csr-alg2"}
                   : std::vector<const char *>{"cusparse-spmm-default",
                                               "cusparse-spmm-csr-alg2",
                                               "cusparse-spmm-csr-alg3"};
        double best = -1.0;
        std::string bestAlg = "none";
        for (const char *alg : algs) {
          double ms = timeVariant(rt, li, alg, ops, k, bench);
          if (ms > 0 && (best < 0 || ms < best)) {
            best = ms;
            bestAlg = alg;
          }
        }
        line << " cusparse_ms=" << best << " cusparse_alg=" << bestAlg;
        // The dense candidate (cuBLAS GEMM on the densified matrix; -1
        // when it has none): the other library a user would reach for.
        line << " dense_ms="
             << timeVariant(rt, li,
                            type == ValueType::F32 ? "cublas-sgemm"
                                                   : "cublaslt-gemm",
                            ops, k, bench);
      }
      sprt_device_free(db);
      sprt_device_free(dc);
      std::lock_guard<std::mutex> lock(totals.mutex);
      std::printf("%s\n", line.str().c_str());
      std::fflush(stdout);
    }
  }
}

/// Checks every layer of one package for every K; prints one line each.
/// Returns whether every check passed.
bool verifyPackage(const std::string &path, sprt_device device, const KList &ks,
                   double tolerance, Totals &totals) {
  bool allOk = true;
  auto report = [&](bool ok, const std::string &line) {
    allOk = allOk && ok;
    std::lock_guard<std::mutex> lock(totals.mutex);
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", line.c_str());
    std::fflush(stdout);
    ++totals.checks;
    if (!ok)
      ++totals.failures;
  };
  StatusOr<Package> pkg = readPackageManifest(path);
  if (!pkg) {
    report(false, pkg.message());
    return false;
  }
  sprt_package *rt = nullptr;
  if (sprt_package_load(path.c_str(), device, &rt) != SPRT_OK) {
    report(false, path + ": load: " + sprt_last_error());
    return false;
  }
  for (const CheckedLayer &checked : checkedLayers(*pkg)) {
    const PackageLayer &layer = *checked.layer;
    const int64_t li = checked.index;
    // The reference matrix: the source file when it can be found.
    CsrMatrix a;
    std::string refFrom, refError;
    if (!referenceMatrix(path, checked, a, refFrom, refError)) {
      report(false, path + ": " + refError);
      break;
    }
    // What sprt_spmm runs (0), then on the GPU each alternative on its
    // own ("spperm:N": the runtime may choose any of them), each against
    // the same B and float64 reference. A sharded layer runs whole: its
    // shards' alternatives are timed on their ranks (spperm-run --ranks).
    const size_t variants = device == SPRT_DEVICE_GPU && !checked.sharded()
                                ? 1 + layer.alternatives.size()
                                : 1;
    const int64_t rows = checked.rows, cols = checked.cols;
    // 16-bit layers: B rounded to the type, C as bit patterns.
    const ValueType type = layer.operandType;
    const sprt_dtype dtype = toDtype(type);
    const int64_t elementBytes = valueTypeBytes(type);
    const std::vector<int64_t> layerKs = ks.forLayer(layer.k);
    if (layerKs.empty()) {
      std::lock_guard<std::mutex> lock(totals.mutex);
      std::printf("skip %s %s: compiled for K=%lld, which --k does not "
                  "list\n",
                  path.c_str(), layer.name.c_str(),
                  static_cast<long long>(layer.k));
      ++totals.skippedLayers;
    } else if (layer.k != 0 && ks.given) {
      // The other K of --k, which this layer does not take, said once.
      std::set<int64_t> others(ks.ks.begin(), ks.ks.end());
      others.erase(layer.k);
      std::string list;
      for (int64_t k : others)
        list += (list.empty() ? "" : ",") + std::to_string(k);
      if (!list.empty()) {
        std::lock_guard<std::mutex> lock(totals.mutex);
        std::printf("skip %s %s K=%s: compiled for K=%lld, checked at that "
                    "K only\n",
                    path.c_str(), layer.name.c_str(), list.c_str(),
                    static_cast<long long>(layer.k));
      }
    }
    for (int64_t k : layerKs) {
      std::vector<float> b = makeB(cols, k);
      std::vector<uint16_t> bBits;
      roundOperand(b, type, bBits);
      const void *bHost = type == ValueType::F32
                              ? static_cast<const void *>(b.data())
                              : static_cast<const void *>(bBits.data());
      std::vector<double> r, rAbs, slack;
      for (size_t which = 0; which < variants; ++which) {
        const PackageLayer &shown = layer.variant(which);
        std::string tag = path + " " + layer.name + " K=" + std::to_string(k) +
                          (which == 0 ? "" : " alt=" + std::to_string(which));
        auto variantOf = [&](const PackageLayer &v) {
          const KernelInfo *first = firstKernelForK(v.kernels, k);
          return first ? first->variant : std::string("none");
        };
        auto formatOf = [](const PackageLayer &v) {
          return std::string(formatName(v.matrix.kind));
        };
        auto strategyOf = [](const PackageLayer &v) {
          return std::string(strategyCliName(v.permutation.strategy));
        };
        // A sharded layer's shards may differ: each shard's, where they do.
        auto described = [&](auto describe) {
          const std::string firstText = describe(shown);
          if (!checked.sharded())
            return firstText;
          std::string joined;
          bool differ = false;
          for (size_t j = 0; j < checked.count; ++j) {
            const std::string text = describe(pkg->layers[checked.first + j]);
            differ |= text != firstText;
            joined += (j ? "," : "") + text;
          }
          return differ ? joined : firstText;
        };
        const std::string variant = described(variantOf);
        const std::string format = described(formatOf);
        const std::string strategy = described(strategyOf);
        if (which > 0 && variant == "none")
          continue;
        const std::string runVariant = "spperm:" + std::to_string(which);
        std::vector<float> c(static_cast<size_t>(rows * k),
                             std::numeric_limits<float>::quiet_NaN());
        std::vector<uint16_t> cBits(type == ValueType::F32 ? 0 : c.size(),
                                    nanBits(type));
        void *cHost = type == ValueType::F32 ? static_cast<void *>(c.data())
                                             : static_cast<void *>(cBits.data());
        const int64_t bBytes = static_cast<int64_t>(b.size()) * elementBytes;
        const int64_t cBytes = static_cast<int64_t>(c.size()) * elementBytes;
        sprt_status st = SPRT_OK;
        const auto started = std::chrono::steady_clock::now();
        if (device == SPRT_DEVICE_GPU) {
          std::lock_guard<std::mutex> gpu(gpuLock);
          void *db = nullptr, *dc = nullptr;
          st = sprt_device_malloc(bBytes, &db);
          if (st == SPRT_OK)
            st = sprt_device_malloc(cBytes, &dc);
          if (st == SPRT_OK)
            st = sprt_memcpy_htod(db, bHost, bBytes);
          if (st == SPRT_OK)
            st = sprt_memcpy_htod(dc, cHost, cBytes);
          float ms = 0.0f;
          if (st == SPRT_OK)
            st = which == 0
                     ? sprt_spmm_typed(rt, li, db, dtype, k, dc, dtype, nullptr)
                     : sprt_spmm_time_typed(rt, li, runVariant.c_str(), db,
                                            dtype, k, dc, dtype, nullptr, 0, 1,
                                            &ms);
          if (st == SPRT_OK)
            st = sprt_memcpy_dtoh(cHost, dc, cBytes);
          sprt_device_free(db);
          sprt_device_free(dc);
        } else {
          st = sprt_spmm_typed(rt, li, bHost, dtype, k, cHost, dtype, nullptr);
        }
        if (type != ValueType::F32)
          widenArray(cBits.data(), cBits.size(), type, c.data());
        if (st != SPRT_OK) {
          report(false, tag + ": " + sprt_status_name(st) + ": " +
                            sprt_last_error());
          continue;
        }
        const double runMs = std::chrono::duration<double, std::milli>(
                                 std::chrono::steady_clock::now() - started)
                                 .count();
        if (r.empty()) {
          r = reference(a, b, k);
          slack = underflowSlack(a);
        }
        if (type != ValueType::F32 && rAbs.empty()) {
          CsrMatrix absA = a;
          for (float &v : absA.values)
            v = std::fabs(v);
          std::vector<float> absB = b;
          for (float &v : absB)
            v = std::fabs(v);
          rAbs = reference(absA, absB, k);
        }
        const Comparison cmp =
            type == ValueType::F32
                ? compare(c, r, slack)
                : compareRounded(c, r, rAbs, type, tolerance, slack);
        const double err = cmp.error;
        const int64_t unwritten = cmp.unwritten;
        const bool ok = cmp.passes(tolerance);
        {
          std::lock_guard<std::mutex> lock(totals.mutex);
          if (std::isfinite(err))
            totals.maxError = std::max(totals.maxError, err);
          else
            ++totals.nonFinite;
          ++totals.perVariant[format + "/" + variant];
        }
        std::ostringstream line;
        line << tag << " format=" << format << " strategy=" << strategy
             << " variant=" << variant << " rel_err=" << err
             << " unwritten=" << unwritten;
        if (checked.sharded())
          line << " shards=" << checked.count;
        if (type != ValueType::F32)
          line << " dtype=" << valueTypeName(type)
               << " out_of_bound=" << cmp.outOfBound;
        line << " ref=" << refFrom
             << " wall_ms=" << runMs;
        report(ok, line.str());
      }
    }
  }
  sprt_package_release(rt);
  return allOk;
}

/// Loads a package that passed its checks again and times it (on its own:
/// timings taken while other threads load packages and compute references
/// contend with them for the driver and run several times slower).
void timePackage(const std::string &path, const BenchOptions &bench,
                 Totals &totals) {
  StatusOr<Package> pkg = readPackageManifest(path);
  sprt_package *rt = nullptr;
  if (!pkg || sprt_package_load(path.c_str(), SPRT_DEVICE_GPU, &rt) != SPRT_OK)
    return;
  benchPackage(*pkg, rt, bench, totals, path);
  sprt_package_release(rt);
}

} // namespace

int main(int argc, char **argv) {
  // An exhausted memory ends the tool with one line (Interrupt.h).
  ::spperm::installOutOfMemoryExit(kTool);
  std::string input, device = "gpu", kList = "1,32,128,512", tol = "1e-5",
                     jobs = "4", benchList, runs = "20";
  ArgParser args(kTool, "PKG|DIR [--device gpu|cpu] [--k LIST] "
                        "[--tolerance X] [--jobs N] [--threads N [--calls N]] "
                        "[--bench LIST [--runs N]]",
                 "Runs every layer of the packages (PKG, or every *.spp in "
                 "DIR) for each K with C poisoned and checks it against a "
                 "float64 product of the layer's source matrix.");
  args.addPositional("PKG", "A package or a directory of packages", &input);
  args.addOption("device", "DEV", "gpu (default) or cpu", &device);
  bool kSeen = false;
  args.addOption("k", "LIST",
                 "Comma-separated K values (default 1,32,128,512, and a "
                 "layer compiled for one K at that K)",
                 &kList, &kSeen);
  args.addOption("tolerance", "X", "Largest normwise relative error "
                                   "(default 1e-5)",
                 &tol);
  args.addOption("jobs", "N", "Packages checked at once (default 4)", &jobs);
  args.addOption("bench", "LIST",
                 "Also time every layer for these K (GPU; CUDA events, "
                 "median of --runs after 5 warm-up runs), and the best "
                 "cuSPARSE algorithm for csr layers in the original order; "
                 "first-call decisions are made anew (the tuning cache is "
                 "off unless SPRT_TUNING_CACHE is set)",
                 &benchList);
  bool runsSeen = false, maxMsSeen = false, callsSeen = false;
  args.addOption("runs", "N", "Timed runs per measurement (default 20)",
                 &runs, &runsSeen);
  std::string maxMs = "0";
  args.addOption("max-bench-ms", "MS",
                 "Time a variant whose single run exceeds MS / runs with "
                 "fewer runs (at least 3; default 0: always --runs)",
                 &maxMs, &maxMsSeen);
  std::string threadCount = "0", callCount = "60";
  args.addOption("threads", "N",
                 "Then call each package that passed from N threads at "
                 "once, each with its own stream and C, K cycling through "
                 "--k, and check every result (default 0: no such check)",
                 &threadCount);
  args.addOption("calls", "N", "Calls per thread with --threads (default 60)",
                 &callCount, &callsSeen);
  if (std::optional<int> exitCode = args.parse(argc, argv))
    return *exitCode;
  ::spperm::setOutOfMemoryFile(input);
  if (device != "gpu" && device != "cpu") {
    reportError(kTool, "--device must be gpu or cpu, got '" + device + "'" +
                           didYouMean(device, {"gpu", "cpu"}));
    return 1;
  }
  auto parseList = [](const std::string &name, const std::string &text,
                      std::vector<int64_t> &out) {
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
      int64_t k;
      if (!parseIntegerOption(kTool, name, item, 1, 1 << 20, k))
        return false;
      out.push_back(k);
    }
    return true;
  };
  KList ks;
  ks.given = kSeen;
  BenchOptions bench;
  int64_t nRuns;
  if (!parseList("k", kList, ks.ks) ||
      !parseList("bench", benchList, bench.ks) ||
      !parseIntegerOption(kTool, "runs", runs, 1, 100000, nRuns))
    return 1;
  if (ks.ks.empty()) {
    reportError(kTool, "--k must list at least one K, got '" + kList + "'");
    return 1;
  }
  bench.runs = static_cast<int32_t>(nRuns);
  if (!parseNumberOption(kTool, "max-bench-ms", maxMs, 0.0, 1e9, bench.maxMs))
    return 1;
  double tolerance;
  int64_t nJobs;
  ConcurrencyOptions concurrency;
  if (!parseNumberOption(kTool, "tolerance", tol, 0.0, 1.0, tolerance) ||
      !parseIntegerOption(kTool, "jobs", jobs, 1, 256, nJobs) ||
      !parseIntegerOption(kTool, "threads", threadCount, 0, 256,
                          concurrency.threads) ||
      !parseIntegerOption(kTool, "calls", callCount, 1, 1000000,
                          concurrency.calls))
    return 1;
  if (bench.ks.empty() && (runsSeen || maxMsSeen)) {
    reportError(kTool, std::string(runsSeen ? "--runs" : "--max-bench-ms") +
                           " needs --bench");
    return 1;
  }
  if (!bench.ks.empty() && device != "gpu") {
    reportError(kTool, "--bench times on the GPU; it needs --device gpu");
    return 1;
  }
  if (concurrency.threads == 0 && callsSeen) {
    reportError(kTool, "--calls needs --threads");
    return 1;
  }
  std::vector<std::string> packages = findPackages(input);
  if (packages.empty()) {
    reportError(kTool, input + ": no package (a directory with manifest.json, "
                               "or one holding *.spp packages)");
    return 1;
  }
  sprt_device dev = device == "gpu" ? SPRT_DEVICE_GPU : SPRT_DEVICE_CPU;
  // Decisions timed here, not recalled (docs/Testing.md): set before any
  // thread starts and any package is loaded.
  if (!std::getenv("SPRT_TUNING_CACHE"))
    ::setenv("SPRT_TUNING_CACHE", "off", 1);
  if (dev == SPRT_DEVICE_GPU) {
    sprt_device_props props;
    if (sprt_device_properties(&props) != SPRT_OK) {
      reportError(kTool,
                  input + ": no usable GPU: " + std::string(sprt_last_error()));
      return 1;
    }
    std::printf("device: %s (sm_%d%d), driver %d, cuSPARSE %d\n", props.name,
                props.compute_major, props.compute_minor,
                props.driver_version, props.cusparse_version);
  }
  Totals totals;
  std::atomic<size_t> next{0};
  std::vector<char> passed(packages.size(), 0);
  std::vector<std::thread> threads;
  for (int64_t t = 0; t < nJobs; ++t)
    threads.emplace_back([&] {
      for (size_t i; (i = next++) < packages.size();)
        passed[i] = verifyPackage(packages[i], dev, ks, tolerance, totals);
    });
  for (std::thread &t : threads)
    t.join();
  // The concurrency checks, one package at a time (each runs its threads),
  // of the packages that passed.
  if (concurrency.threads > 0)
    for (size_t i = 0; i < packages.size(); ++i)
      if (passed[i])
        checkConcurrency(packages[i], dev, ks, tolerance, concurrency, totals);
  // Timings after all checks, one package at a time, of the packages that
  // passed.
  if (dev == SPRT_DEVICE_GPU && !bench.ks.empty())
    for (size_t i = 0; i < packages.size(); ++i)
      if (passed[i])
        timePackage(packages[i], bench, totals);
  std::printf("summary: %zu packages, %lld checks, %lld failures, max "
              "rel_err %.3e",
              packages.size(), static_cast<long long>(totals.checks),
              static_cast<long long>(totals.failures), totals.maxError);
  if (totals.nonFinite)
    std::printf(" (%lld checks with a rel_err that is not a number)",
                static_cast<long long>(totals.nonFinite));
  if (totals.skippedLayers)
    std::printf(", %lld layers skipped (compiled for a K --k does not list)",
                static_cast<long long>(totals.skippedLayers));
  std::printf("\n");
  if (concurrency.threads > 0)
    std::printf("  concurrent: %lld calls from %lld threads, %lld wrong\n",
                static_cast<long long>(totals.concurrentCalls),
                static_cast<long long>(concurrency.threads),
                static_cast<long long>(totals.concurrentWrong));
  for (const auto &[variant, n] : totals.perVariant)
    std::printf("  %-24s %lld checks\n", variant.c_str(),
                static_cast<long long>(n));
  // A run that checked nothing proves nothing: say so and fail.
  if (totals.checks == 0) {
    reportError(kTool, "no check ran: no layer of the packages accepts a K "
                       "of --k (a package compiled for one K takes only that "
                       "K; see spperm-inspect PKG)");
    return 1;
  }
  return totals.failures == 0 ? 0 : 1;
}
