//===- Concurrency.cpp - Calls from several threads and streams at once --===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// spperm-verify --threads: the threading contract of docs/RuntimeABI.md
// ("Ownership and threading") checked on a package, every call's C against
// the float64 reference, then timed (docs/Testing.md, "Concurrency").
//
//===----------------------------------------------------------------------===//

#include "Verify.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <thread>

using namespace spperm;
using namespace spperm::verify;

namespace {

/// One layer at one K, with its B (on the device too, for the GPU) and
/// float64 reference, shared read-only by the threads.
struct ConcurrentCase {
  /// The runtime's layer index, K and the layer's rows.
  int64_t layer = 0, k = 0, rows = 0;
  std::string name;
  /// The layer's element type; B rounded to it, its bit patterns in bBits
  /// (16-bit types), and |A| |B| for compareRounded.
  ValueType type = ValueType::F32;
  std::vector<float> b;
  std::vector<uint16_t> bBits;
  std::vector<double> r, rAbs;
  /// underflowSlack of the layer's matrix.
  std::vector<double> slack;
  void *deviceB = nullptr;

  sprt_dtype dtype() const { return toDtype(type); }
  int64_t elementBytes() const { return valueTypeBytes(type); }
  const void *hostB() const {
    return type == ValueType::F32 ? static_cast<const void *>(b.data())
                                  : static_cast<const void *>(bBits.data());
  }
};

/// What a thread of the concurrency check owns: its stream (GPU) and
/// kDepth C buffers.
struct ConcurrentThread {
  void *stream = nullptr;
  std::vector<void *> deviceC;
  std::vector<std::vector<float>> hostC;
  /// The same C as 16-bit patterns, for 16-bit layers.
  std::vector<std::vector<uint16_t>> hostBits;
};

} // namespace

bool spperm::verify::checkConcurrency(const std::string &path,
                                      sprt_device device, const KList &ks,
                                      double tolerance,
                                      const ConcurrencyOptions &opt,
                                      Totals &totals) {
  const bool gpu = device == SPRT_DEVICE_GPU;
  const size_t depth = ConcurrencyOptions::kDepth;
  auto say = [&](bool ok, const std::string &line) {
    std::lock_guard<std::mutex> lock(totals.mutex);
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", line.c_str());
    std::fflush(stdout);
  };
  StatusOr<Package> read = readPackageManifest(path);
  sprt_package *rt = nullptr;
  if (!read || sprt_package_load(path.c_str(), device, &rt) != SPRT_OK) {
    say(false, path + " concurrent: load: " +
                   (!read ? read.message() : std::string(sprt_last_error())));
    std::lock_guard<std::mutex> lock(totals.mutex);
    ++totals.checks;
    ++totals.failures;
    return false;
  }
  const Package &pkg = *read;
  std::string error;
  std::vector<ConcurrentCase> cases;
  int64_t largestC = 0;
  for (const CheckedLayer &checked : checkedLayers(pkg)) {
    const PackageLayer &layer = *checked.layer;
    CsrMatrix a;
    std::string from;
    if (!referenceMatrix(path, checked, a, from, error))
      break;
    for (int64_t k : ks.forLayer(layer.k)) {
      ConcurrentCase c;
      c.layer = checked.index;
      c.name = layer.name;
      c.k = k;
      c.rows = checked.rows;
      c.type = layer.operandType;
      c.b = makeB(checked.cols, k);
      roundOperand(c.b, c.type, c.bBits);
      c.r = reference(a, c.b, k);
      c.slack = underflowSlack(a);
      if (c.type != ValueType::F32) {
        CsrMatrix absA = a;
        for (float &v : absA.values)
          v = std::fabs(v);
        std::vector<float> absB = c.b;
        for (float &v : absB)
          v = std::fabs(v);
        c.rAbs = reference(absA, absB, k);
      }
      largestC = std::max(largestC, c.rows * k);
      cases.push_back(std::move(c));
    }
  }
  // Set-up: B per case and each thread's stream and C on the device.
  if (error.empty() && cases.empty()) {
    // Nothing to call: said, not counted as a check.
    sprt_package_release(rt);
    say(true, path + " concurrent: skipped, no layer accepts a K of --k");
    return true;
  }
  bool setUp = error.empty();
  std::vector<ConcurrentThread> threads(static_cast<size_t>(opt.threads));
  for (ConcurrentThread &t : threads) {
    t.deviceC.assign(depth, nullptr);
    t.hostC.resize(depth);
    t.hostBits.resize(depth);
  }
  if (gpu) {
    for (ConcurrentCase &c : cases) {
      const int64_t bytes =
          static_cast<int64_t>(c.b.size()) * c.elementBytes();
      setUp = setUp && sprt_device_malloc(bytes, &c.deviceB) == SPRT_OK &&
              sprt_memcpy_htod(c.deviceB, c.hostB(), bytes) == SPRT_OK;
    }
    for (ConcurrentThread &t : threads) {
      setUp = setUp && sprt_stream_create(&t.stream) == SPRT_OK;
      for (void *&c : t.deviceC)
        setUp = setUp && sprt_device_malloc(largestC * 4, &c) == SPRT_OK;
    }
  }
  if (!setUp && error.empty())
    error = sprt_last_error();
  auto caseOf = [&](int64_t t, int64_t call) -> const ConcurrentCase & {
    return cases[static_cast<size_t>((t * 7 + call) % int64_t(cases.size()))];
  };

  std::atomic<int64_t> calls{0}, wrong{0}, reported{0};
  std::mutex errorMutex;
  double maxError = 0.0;
  auto fail = [&](int64_t t, const std::string &what) {
    ++wrong;
    if (reported++ < 10)
      say(false, path + " concurrent thread=" + std::to_string(t) + ": " +
                     what);
  };
  auto checked = [&](int64_t t) {
    ConcurrentThread &me = threads[static_cast<size_t>(t)];
    for (int64_t first = 0; first < opt.calls; first += int64_t(depth)) {
      const size_t n =
          static_cast<size_t>(std::min<int64_t>(depth, opt.calls - first));
      std::vector<const ConcurrentCase *> batch;
      // Enqueue n calls, each into its own poisoned C.
      for (size_t i = 0; i < n; ++i) {
        const ConcurrentCase &c = caseOf(t, first + int64_t(i));
        batch.push_back(&c);
        std::vector<float> &host = me.hostC[i];
        std::vector<uint16_t> &bits = me.hostBits[i];
        const size_t count = static_cast<size_t>(c.rows * c.k);
        host.assign(count, std::numeric_limits<float>::quiet_NaN());
        bits.assign(c.type == ValueType::F32 ? 0 : count, nanBits(c.type));
        void *hostC = c.type == ValueType::F32
                          ? static_cast<void *>(host.data())
                          : static_cast<void *>(bits.data());
        sprt_status st = SPRT_OK;
        if (gpu) {
          // On the stream: a synchronous copy from pageable memory may
          // land after the call's kernels on a non-blocking stream.
          st = sprt_memcpy_htod_async(
              me.deviceC[i], hostC,
              static_cast<int64_t>(count) * c.elementBytes(), me.stream);
          if (st == SPRT_OK)
            st = sprt_spmm_typed(rt, c.layer, c.deviceB, c.dtype(), c.k,
                                 me.deviceC[i], c.dtype(), me.stream);
        } else {
          st = sprt_spmm_typed(rt, c.layer, c.hostB(), c.dtype(), c.k, hostC,
                               c.dtype(), nullptr);
        }
        if (st != SPRT_OK) {
          fail(t, c.name + " K=" + std::to_string(c.k) + ": " +
                      sprt_status_name(st) + ": " + sprt_last_error());
          batch.back() = nullptr;
        }
      }
      if (gpu && sprt_stream_synchronize(me.stream) != SPRT_OK) {
        fail(t, std::string("sprt_stream_synchronize: ") + sprt_last_error());
        return;
      }
      for (size_t i = 0; i < n; ++i) {
        ++calls;
        const ConcurrentCase *c = batch[i];
        if (!c)
          continue;
        std::vector<float> &host = me.hostC[i];
        std::vector<uint16_t> &bits = me.hostBits[i];
        void *hostC = c->type == ValueType::F32
                          ? static_cast<void *>(host.data())
                          : static_cast<void *>(bits.data());
        if (gpu && (sprt_memcpy_dtoh_async(
                        hostC, me.deviceC[i],
                        static_cast<int64_t>(host.size()) * c->elementBytes(),
                        me.stream) != SPRT_OK ||
                    sprt_stream_synchronize(me.stream) != SPRT_OK)) {
          fail(t, std::string("sprt_memcpy_dtoh_async: ") + sprt_last_error());
          continue;
        }
        if (c->type != ValueType::F32)
          widenArray(bits.data(), host.size(), c->type, host.data());
        const Comparison cmp =
            c->type == ValueType::F32
                ? compare(host, c->r, c->slack)
                : compareRounded(host, c->r, c->rAbs, c->type, tolerance,
                                 c->slack);
        {
          std::lock_guard<std::mutex> lock(errorMutex);
          if (std::isfinite(cmp.error))
            maxError = std::max(maxError, cmp.error);
        }
        if (!cmp.passes(tolerance)) {
          std::ostringstream what;
          what << c->name << " K=" << c->k << " call " << first + int64_t(i)
               << ": rel_err=" << cmp.error << " unwritten=" << cmp.unwritten
               << " out_of_bound=" << cmp.outOfBound;
          fail(t, what.str());
        }
      }
    }
  };
  // The unchecked calls of `count` threads from a common start: the wall
  // time per call in microseconds (negative when a call failed).
  auto timed = [&](int64_t count) {
    std::atomic<int64_t> waiting{count};
    std::atomic<bool> go{false}, failed{false};
    std::chrono::steady_clock::time_point start;
    std::vector<std::thread> pool;
    for (int64_t t = 0; t < count; ++t)
      pool.emplace_back([&, t] {
        ConcurrentThread &me = threads[static_cast<size_t>(t)];
        if (waiting.fetch_sub(1) == 1) {
          start = std::chrono::steady_clock::now();
          go = true;
        }
        while (!go.load())
          std::this_thread::yield();
        for (int64_t call = 0; call < opt.calls; ++call) {
          const ConcurrentCase &c = caseOf(t, call);
          if (sprt_spmm_typed(rt, c.layer, c.deviceB, c.dtype(), c.k,
                              me.deviceC[static_cast<size_t>(call) % depth],
                              c.dtype(), me.stream) != SPRT_OK)
            failed = true;
        }
        if (sprt_stream_synchronize(me.stream) != SPRT_OK)
          failed = true;
      });
    for (std::thread &t : pool)
      t.join();
    const double us = std::chrono::duration<double, std::micro>(
                          std::chrono::steady_clock::now() - start)
                          .count();
    return failed ? -1.0 : us / static_cast<double>(count * opt.calls);
  };

  std::ostringstream timing;
  if (setUp) {
    std::vector<std::thread> pool;
    for (int64_t t = 0; t < opt.threads; ++t)
      pool.emplace_back(checked, t);
    for (std::thread &t : pool)
      t.join();
    if (gpu && wrong == 0) {
      // A first unchecked round makes the first-call decisions (and each
      // stream's library descriptors and workspaces).
      timed(opt.threads);
      const double one = timed(1), all = timed(opt.threads);
      timing << " us_per_call_1_thread=" << one << " us_per_call_"
             << opt.threads << "_threads=" << all;
    }
  }
  for (ConcurrentThread &t : threads) {
    for (void *c : t.deviceC)
      sprt_device_free(c);
    sprt_stream_destroy(t.stream);
  }
  for (ConcurrentCase &c : cases)
    sprt_device_free(c.deviceB);
  sprt_package_release(rt);
  const bool ok = setUp && wrong == 0;
  std::ostringstream line;
  line << path << " concurrent threads=" << opt.threads
       << " calls=" << calls.load() << " wrong=" << wrong.load()
       << " cases=" << cases.size() << " max_rel_err=" << maxError
       << timing.str();
  if (!setUp)
    line << ": set-up failed: " << error;
  say(ok, line.str());
  std::lock_guard<std::mutex> lock(totals.mutex);
  totals.concurrentCalls += calls;
  totals.concurrentWrong += wrong;
  ++totals.checks;
  if (!ok)
    ++totals.failures;
  return ok;
}
