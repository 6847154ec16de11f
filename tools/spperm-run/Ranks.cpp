//===- Ranks.cpp - spperm-run on several ranks ----------------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The driver and the rank processes of `spperm-run --ranks N` (Ranks.h,
// docs/Distributed.md). A rank's timed run is host-timed between barriers
// (sprt_comm_barrier) so that every rank times the same iteration; the
// driver reports, per iteration, the slowest rank (the multiplication ends
// when its last shard does) and the median of that over the iterations.
//
//===----------------------------------------------------------------------===//

#include "Ranks.h"

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Sparse/Accuracy.h"
#include "spperm/Sparse/Escape.h"
#include "spperm/Sparse/Formats.h"
#include "spperm/Sparse/Interrupt.h"
#include "spperm/Sparse/Npy.h"
#include "spperm/Sparse/Package.h"
#include "spperm/Tools/CommandLine.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char **environ;

using namespace spperm;
using json = nlohmann::json;

namespace {

const char *const kTool = "spperm-run";

int fail(const std::string &message) {
  reportError(kTool, message);
  return 1;
}

std::string runtimeError(sprt_status status) {
  return std::string(sprt_last_error()) + " (" + sprt_status_name(status) +
         ")";
}

/// Element `index` of a random B: uniform in [-1, 1), from the seed alone
/// (splitmix64), so that every rank draws the same B.
float randomElement(uint64_t seed, uint64_t index) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

/// The seed of a "random:SEED" spec (decimal), or an error naming it.
StatusOr<unsigned long long> randomSeed(const std::string &spec) {
  char *tail = nullptr;
  const char *text = spec.c_str() + 7;
  errno = 0;
  unsigned long long seed = std::strtoull(text, &tail, 10);
  if (!*text || *tail || errno || *text == '-' || *text == '+')
    return Status::error("--b random:SEED needs a decimal seed, got '" + spec +
                         "'");
  return seed;
}

/// Rows [begin, end) of B (cols x k): from `spec` ("random:SEED" or a .npy
/// file of shape (cols, k)).
StatusOr<std::vector<float>> readB(const std::string &spec, int64_t cols,
                                   int64_t k, int64_t begin, int64_t end) {
  std::vector<float> out(static_cast<size_t>((end - begin) * k));
  if (spec.rfind("random:", 0) == 0) {
    StatusOr<unsigned long long> parsed = randomSeed(spec);
    if (!parsed)
      return parsed.status();
    const unsigned long long seed = *parsed;
    // Drawn by up to 16 threads (B of a large graph is GBs).
    const int64_t rows = end - begin;
    const int64_t threads = std::max<int64_t>(
        1, std::min<int64_t>({16, rows / 4096 + 1,
                              std::thread::hardware_concurrency()}));
    std::vector<std::thread> pool;
    for (int64_t t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (int64_t r = begin + rows * t / threads;
             r < begin + rows * (t + 1) / threads; ++r)
          for (int64_t j = 0; j < k; ++j)
            out[(r - begin) * k + j] =
                randomElement(seed, static_cast<uint64_t>(r * k + j));
      });
    for (std::thread &t : pool)
      t.join();
    return out;
  }
  StatusOr<DenseMatrix> b = readNpy(spec);
  if (!b)
    return b.status();
  if (b->float16)
    return Status::error(spec + ": B is float16 ('<f2'); --ranks runs "
                                "float32 layers: give B as float32 ('<f4')");
  if (b->rows != cols || b->cols != k)
    return Status::error(spec + ": B has shape (" + std::to_string(b->rows) +
                         ", " + std::to_string(b->cols) +
                         "), the layer needs (" + std::to_string(cols) + ", " +
                         std::to_string(k) + ")");
  std::copy(b->data.begin() + begin * k, b->data.begin() + end * k,
            out.begin());
  return out;
}

/// "ab01..." <-> bytes.
std::string toHex(const unsigned char *bytes, size_t n) {
  static const char *digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += digits[bytes[i] >> 4];
    s += digits[bytes[i] & 15];
  }
  return s;
}
bool fromHex(const std::string &s, unsigned char *bytes, size_t n) {
  if (s.size() != 2 * n)
    return false;
  auto value = [](char c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    return -1;
  };
  for (size_t i = 0; i < n; ++i) {
    int hi = value(s[2 * i]), lo = value(s[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return false;
    bytes[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  return true;
}

/// Owning handles of the C API.
struct PackageDeleter {
  void operator()(sprt_package *p) const { sprt_package_release(p); }
};
struct CommDeleter {
  void operator()(sprt_comm *c) const { sprt_comm_release(c); }
};
struct DeviceDeleter {
  void operator()(void *p) const { (void)sprt_device_free(p); }
};
using DevicePtr = std::unique_ptr<void, DeviceDeleter>;

/// The normwise error of sampled rows of C (this rank's rows, c: rows x k)
/// against a float64 product with the shard's matrix: `sample` random rows
/// and the longest rows. Elements the product makes NaN or infinite (B may
/// hold them) must be non-finite in C too and are left out of the norm; a
/// non-finite element the product lacks is allowed where `denseTiles` (a
/// bell layer's tiles multiply their zeros too: docs/Formats.md,
/// "Non-finite B"). The first element against these rules is described in
/// `mismatch`.
double checkRows(const CsrMatrix &a, const std::vector<float> &b,
                 const std::vector<float> &c, int64_t k, int64_t sample,
                 bool denseTiles, int64_t &checked, std::string &mismatch) {
  std::vector<int32_t> rows;
  if (sample >= a.rows) {
    for (int32_t r = 0; r < a.rows; ++r)
      rows.push_back(r);
  } else {
    std::mt19937_64 rng(12345);
    for (int64_t i = 0; i < sample; ++i)
      rows.push_back(static_cast<int32_t>(rng() % a.rows));
    std::vector<int32_t> byLength(a.rows);
    for (int32_t r = 0; r < a.rows; ++r)
      byLength[r] = r;
    const int64_t longest = std::min<int64_t>(64, a.rows);
    std::partial_sort(byLength.begin(), byLength.begin() + longest,
                      byLength.end(), [&](int32_t x, int32_t y) {
                        return a.rowLength(x) > a.rowLength(y);
                      });
    rows.insert(rows.end(), byLength.begin(), byLength.begin() + longest);
  }
  double diff = 0, norm = 0;
  std::vector<double> want(static_cast<size_t>(k));
  for (int32_t r : rows) {
    std::fill(want.begin(), want.end(), 0.0);
    for (int32_t e = a.rowPtr[r]; e < a.rowPtr[r + 1]; ++e) {
      const double v = a.values[e];
      const float *brow = b.data() + a.colIdx[e] * k;
      for (int64_t j = 0; j < k; ++j)
        want[j] += v * brow[j];
    }
    // As spperm-verify counts it (docs/Testing.md).
    const double slack = underflowSlack(a.rowLength(r));
    for (int64_t j = 0; j < k; ++j) {
      const double got = c[static_cast<size_t>(r) * k + j];
      if (!std::isfinite(want[j]) || !std::isfinite(got)) {
        const bool lost = std::isfinite(got);
        const bool extra = std::isfinite(want[j]) && !denseTiles;
        if (mismatch.empty() && (lost || extra))
          mismatch = "row " + std::to_string(r) + ", column " +
                     std::to_string(j) + " of C is " + exactNumber(got) +
                     " where the float64 product is " + exactNumber(want[j]);
        continue;
      }
      const double d = beyondAllowance(got - want[j], slack);
      diff += d * d;
      norm += want[j] * want[j];
    }
  }
  checked = static_cast<int64_t>(rows.size());
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

int spperm::runRank(const RanksOptions &o) {
  const sprt_device device =
      o.device == "gpu" ? SPRT_DEVICE_GPU : SPRT_DEVICE_CPU;
  const std::string where = "rank " + std::to_string(o.rank) + ": ";
  // The check's own read of the package (the sparse core's, for the
  // shard's matrix), alongside the runtime's load.
  std::optional<StatusOr<Package>> coreRead;
  std::thread reader;
  if (o.checkRows > 0)
    reader = std::thread([&] {
      StatusOr<Package> p = readPackage(o.package);
      if (p)
        if (Status s = selectShard(*p, o.rank, o.ranks); !s)
          p = s;
      coreRead = std::move(p);
    });
  struct Joiner {
    std::thread &t;
    ~Joiner() {
      if (t.joinable())
        t.join();
    }
  } joiner{reader};
  sprt_package *raw = nullptr;
  if (sprt_status s = sprt_package_load_shard(o.package.c_str(), device,
                                              o.rank, o.ranks, &raw);
      s != SPRT_OK)
    return fail(where + runtimeError(s));
  std::unique_ptr<sprt_package, PackageDeleter> package(raw);
  int64_t layer = 0, count = 0;
  sprt_layer_count(package.get(), &count);
  if (!o.layer.empty()) {
    if (sprt_status s = sprt_layer_find(package.get(), o.layer.c_str(), &layer);
        s != SPRT_OK)
      return fail(where + o.package + ": " + runtimeError(s));
  } else if (count != 1) {
    return fail(where + o.package + ": the package has " +
                std::to_string(count) + " layers; choose one with --layer");
  }
  sprt_layer_desc info;
  sprt_shard_desc shard;
  sprt_layer_info(package.get(), layer, &info);
  sprt_layer_shard(package.get(), layer, 0, &shard);
  const bool split = o.algorithm == "1.5d";

  // The communicator, where the driver made one.
  std::unique_ptr<sprt_comm, CommDeleter> comm;
  if (!o.commId.empty()) {
    unsigned char id[SPRT_COMM_ID_BYTES];
    if (!fromHex(o.commId, id, sizeof id))
      return fail(where + "--comm-id must be " +
                  std::to_string(2 * SPRT_COMM_ID_BYTES) + " hex digits");
    sprt_comm *c = nullptr;
    if (sprt_status s = sprt_comm_create(id, o.rank, o.ranks, &c);
        s != SPRT_OK)
      return fail(where + runtimeError(s));
    comm.reset(c);
  }
  if (split && !comm)
    return fail(where + "--algorithm 1.5d needs the GPU and NCCL (the driver "
                        "makes the communicator)");

  // B: all of it (1-D) or this rank's rows (1.5-D).
  int64_t bBegin = 0, bEnd = info.cols;
  if (split)
    sprt_comm_b_rows(info.cols, o.rank, o.ranks, &bBegin, &bEnd);
  StatusOr<std::vector<float>> b = readB(o.b, info.cols, o.k, bBegin, bEnd);
  if (!b)
    return fail(where + b.message());
  std::vector<float> c(static_cast<size_t>(info.rows * o.k));
  const int64_t bBytes = static_cast<int64_t>(b->size() * sizeof(float));
  const int64_t cBytes = static_cast<int64_t>(c.size() * sizeof(float));
  DevicePtr db, dc;
  const float *bArg = b->data();
  float *cArg = c.data();
  if (device == SPRT_DEVICE_GPU) {
    void *p = nullptr;
    if (sprt_status s = sprt_device_malloc(bBytes, &p); s != SPRT_OK)
      return fail(where + runtimeError(s));
    db.reset(p);
    if (sprt_status s = sprt_device_malloc(cBytes, &p); s != SPRT_OK)
      return fail(where + runtimeError(s));
    dc.reset(p);
    if (sprt_status s = sprt_memcpy_htod(db.get(), b->data(), bBytes);
        s != SPRT_OK)
      return fail(where + runtimeError(s));
    bArg = static_cast<const float *>(db.get());
    cArg = static_cast<float *>(dc.get());
  }
  auto multiply = [&]() -> sprt_status {
    if (split)
      return sprt_spmm_allgather(package.get(), layer, comm.get(), bArg, o.k,
                                 o.chunk, cArg, nullptr);
    return sprt_spmm(package.get(), layer, bArg, o.k, cArg, nullptr);
  };
  auto finish = [&]() -> sprt_status {
    return device == SPRT_DEVICE_GPU ? sprt_stream_synchronize(nullptr)
                                     : SPRT_OK;
  };

  // The first call (it decides what runs each shard), then the check.
  if (sprt_status s = multiply(); s != SPRT_OK)
    return fail(where + runtimeError(s));
  if (sprt_status s = finish(); s != SPRT_OK)
    return fail(where + runtimeError(s));
  if (device == SPRT_DEVICE_GPU)
    if (sprt_status s = sprt_memcpy_dtoh(c.data(), dc.get(), cBytes);
        s != SPRT_OK)
      return fail(where + runtimeError(s));
  double error = 0;
  int64_t checked = 0;
  std::string mismatch;
  if (o.checkRows > 0) {
    // The shard's matrix as the sparse core reads it, in its original row
    // order, against B in float64 (1.5-D: the whole B, drawn again).
    reader.join();
    StatusOr<Package> &whole = *coreRead;
    if (!whole)
      return fail(where + whole.message());
    const PackageLayer *mine = nullptr;
    for (const PackageLayer &l : whole->layers)
      if (l.name == info.name)
        mine = &l;
    if (!mine)
      return fail(where + "layer '" + std::string(info.name) +
                  "' is not in the package as the core reads it");
    // 1-D holds all of B already; 1.5-D draws it again for the check.
    StatusOr<std::vector<float>> fullB = std::vector<float>();
    if (split) {
      fullB = readB(o.b, info.cols, o.k, 0, info.cols);
      if (!fullB)
        return fail(where + fullB.message());
    }
    const bool denseTiles =
        mine->matrix.kind == FormatKind::Bell && mine->matrix.bell.width > 0;
    error = checkRows(toOriginalCsr(mine->matrix), split ? *fullB : *b, c, o.k,
                      o.checkRows, denseTiles, checked, mismatch);
  }

  // Timed runs: each between barriers, host-timed to the stream's end.
  std::vector<double> times;
  for (int64_t i = 0; i < o.warmup + o.runs; ++i) {
    if (comm)
      if (sprt_status s = sprt_comm_barrier(comm.get(), nullptr); s != SPRT_OK)
        return fail(where + runtimeError(s));
    auto start = std::chrono::steady_clock::now();
    if (sprt_status s = multiply(); s != SPRT_OK)
      return fail(where + runtimeError(s));
    if (sprt_status s = finish(); s != SPRT_OK)
      return fail(where + runtimeError(s));
    std::chrono::duration<double, std::milli> ms =
        std::chrono::steady_clock::now() - start;
    if (i >= o.warmup)
      times.push_back(ms.count());
  }

  if (!o.outPath.empty()) {
    DenseMatrix out;
    out.rows = info.rows;
    out.cols = o.k;
    out.data = std::move(c);
    if (Status s = writeNpy(o.outPath, out); !s)
      return fail(where + s.message());
  }
  json record = {{"rank", o.rank},
                 {"ranks", o.ranks},
                 {"algorithm", o.algorithm},
                 {"layer", info.name},
                 {"rows", info.rows},
                 {"cols", info.cols},
                 {"nnz", info.nnz},
                 {"row_begin", shard.row_begin},
                 {"row_end", shard.row_end},
                 {"layer_rows", shard.rows},
                 {"format", info.format},
                 {"strategy", info.strategy},
                 {"k", o.k},
                 {"chunk", o.chunk},
                 {"checked_rows", checked},
                 {"check_error", error},
                 {"times_ms", times},
                 {"median_ms", median(times)}};
  if (!o.jsonPath.empty())
    if (Status s = writeFileAtomically(
            o.jsonPath, record.dump(1, ' ', false,
                                    nlohmann::json::error_handler_t::replace) +
                            "\n");
        !s)
      return fail(where + s.message());
  if (!mismatch.empty())
    return fail(where + mismatch +
                " (NaN and infinity in B carry through: "
                "docs/Formats.md, \"Non-finite B\")");
  if (checked > 0 && !(error <= 1e-5))
    return fail(where + "C differs from the float64 product on " +
                std::to_string(checked) + " sampled rows by " +
                std::to_string(error) + " (normwise; at most 1e-5 expected)");
  return 0;
}

namespace {

/// Starts `argv` with `env` (the signal mask and handlers the tool's
/// interrupt cleanup changed back to the defaults); -1 on failure.
pid_t spawn(const std::vector<std::string> &argv,
            const std::vector<std::string> &env) {
  std::vector<char *> a, e;
  for (const std::string &s : argv)
    a.push_back(const_cast<char *>(s.c_str()));
  a.push_back(nullptr);
  for (const std::string &s : env)
    e.push_back(const_cast<char *>(s.c_str()));
  e.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, a[0], nullptr, &attr, a.data(), e.data());
  posix_spawnattr_destroy(&attr);
  return rc == 0 ? pid : -1;
}

} // namespace

int spperm::runDriver(const RanksOptions &o) {
  // A package every rank would refuse is refused once, here (its shards
  // against --ranks; a manifest the ranks could not read).
  StatusOr<Package> manifest = readPackageManifest(o.package);
  if (!manifest)
    return fail(manifest.message());
  if (Status s = selectShard(*manifest, 0, o.ranks); !s)
    return fail(o.package + ": " + s.message());
  // The layer and a random B's seed, which every rank would refuse alike:
  // one line here rather than one per rank.
  std::vector<std::string> names;
  for (const LayerGroup &g : groupShards(manifest->layers))
    names.push_back(manifest->layers[g.first].name);
  if (o.layer.empty()
          ? names.size() != 1
          : std::find(names.begin(), names.end(), o.layer) == names.end()) {
    std::string list;
    for (const std::string &n : names)
      list += (list.empty() ? "" : ", ") + n;
    return fail(o.layer.empty()
                    ? o.package + ": the package has " +
                          std::to_string(names.size()) +
                          " layers; choose one with --layer NAME (" + list + ")"
                    : o.package + ": no layer named '" + o.layer +
                          "' (the package has: " + list + ")");
  }
  const std::string &name = o.layer.empty() ? names.front() : o.layer;
  auto layer =
      std::find_if(manifest->layers.begin(), manifest->layers.end(),
                   [&](const PackageLayer &l) { return l.name == name; });
  const bool random = o.b.rfind("random:", 0) == 0;
  if (layer->k != 0 && o.k != layer->k)
    return fail(
        (random ? "--k " + std::to_string(o.k)
                : o.b + ": B has K = " + std::to_string(o.k) + " columns") +
        ", but layer '" + name +
        "' was compiled for K = " + std::to_string(layer->k));
  if (random) {
    if (StatusOr<unsigned long long> seed = randomSeed(o.b); !seed)
      return fail(seed.message());
  } else {
    // B's shape against the layer's (B's header was read by the caller).
    if (o.bRows != layer->matrix.cols)
      return fail(o.b + ": B has shape (" + std::to_string(o.bRows) + ", " +
                  std::to_string(o.k) + "), the layer needs (" +
                  std::to_string(layer->matrix.cols) + ", " +
                  std::to_string(o.k) + ")");
  }
  // The communicator's id (GPU; 1-D runs without NCCL, unsynchronized).
  std::string commId;
  if (o.device == "gpu") {
    unsigned char id[SPRT_COMM_ID_BYTES];
    if (sprt_status s = sprt_comm_unique_id(id); s == SPRT_OK)
      commId = toHex(id, sizeof id);
    else if (o.algorithm == "1.5d")
      return fail(runtimeError(s));
    else
      std::fprintf(stderr,
                   "%s: warning: no NCCL (%s); the ranks run without "
                   "barriers between timed runs\n",
                   kTool, sprt_last_error());
  }
  const char *tmpRoot = std::getenv("TMPDIR");
  std::string dir = std::string(tmpRoot && *tmpRoot ? tmpRoot : "/tmp") +
                    "/spperm-ranks-XXXXXX";
  if (!::mkdtemp(dir.data()))
    return fail("cannot create a temporary directory: " +
                std::string(std::strerror(errno)));
  ScopedTemporary cleanup(dir);
  struct Removal {
    std::string dir;
    ~Removal() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  } removal{dir};
  // Stops and reaps the ranks still running.
  std::vector<pid_t> pids;
  auto stopAll = [&pids] {
    for (pid_t p : pids)
      if (p > 0) {
        ::kill(p, SIGKILL);
        ::waitpid(p, nullptr, 0);
        unregisterChild(p);
      }
  };

  for (int32_t r = 0; r < o.ranks; ++r) {
    std::vector<std::string> argv = {
        o.self, o.package, "--device", o.device, "--b", o.b, "--k",
        std::to_string(o.k), "--algorithm", o.algorithm, "--chunk",
        std::to_string(o.chunk), "--rank", std::to_string(r), "--ranks",
        std::to_string(o.ranks), "--warmup", std::to_string(o.warmup),
        "--runs", std::to_string(o.runs), "--check-rows",
        std::to_string(o.checkRows), "--json",
        dir + "/rank" + std::to_string(r) + ".json"};
    if (!o.layer.empty())
      argv.insert(argv.end(), {"--layer", o.layer});
    if (!commId.empty())
      argv.insert(argv.end(), {"--comm-id", commId});
    if (!o.outPath.empty())
      argv.insert(argv.end(),
                  {"--out", dir + "/rank" + std::to_string(r) + ".npy"});
    // Each rank on its own GPU: device r (the environment's others kept,
    // NCCL_NVLS_ENABLE among them).
    std::vector<std::string> env;
    for (char **e = environ; *e; ++e)
      if (std::strncmp(*e, "SPPERM_CUDA_DEVICE=", 19) != 0)
        env.push_back(*e);
    env.push_back("SPPERM_CUDA_DEVICE=" + std::to_string(r));
    pid_t pid = spawn(argv, env);
    if (pid < 0) {
      stopAll();
      return fail("cannot start rank " + std::to_string(r) + " (" + o.self +
                  ")");
    }
    registerChild(pid);
    pids.push_back(pid);
  }
  // The ranks in the order they end: the first that fails stops the
  // others (they may wait for it in a collective).
  std::string failed;
  for (int32_t left = o.ranks; left > 0; --left) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    auto it = std::find(pids.begin(), pids.end(), pid);
    if (pid < 0 || it == pids.end())
      break;
    unregisterChild(pid);
    *it = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      failed = std::to_string(it - pids.begin());
      stopAll();
      break;
    }
  }
  if (!failed.empty())
    return fail("rank " + failed +
                " failed (its message is above); the other ranks were "
                "stopped");

  // The ranks' records: per timed run, the slowest rank.
  std::vector<json> records;
  for (int32_t r = 0; r < o.ranks; ++r) {
    std::ifstream in(dir + "/rank" + std::to_string(r) + ".json");
    json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded())
      return fail("rank " + std::to_string(r) + " left no readable record");
    records.push_back(std::move(j));
  }
  std::vector<double> slowest(static_cast<size_t>(o.runs), 0.0);
  for (const json &j : records) {
    std::vector<double> t = j["times_ms"].get<std::vector<double>>();
    for (size_t i = 0; i < t.size() && i < slowest.size(); ++i)
      slowest[i] = std::max(slowest[i], t[i]);
  }
  const double total = median(slowest);
  std::printf("%s layer '%s' on %d ranks (%s, %s, K = %lld%s): the slowest "
              "rank's time per run, median of %lld runs: %.4f ms\n",
              o.package.c_str(), records[0]["layer"].get<std::string>().c_str(),
              o.ranks, o.device.c_str(), o.algorithm.c_str(),
              static_cast<long long>(o.k),
              o.algorithm == "1.5d" && o.chunk > 0
                  ? (", chunks of " + std::to_string(o.chunk)).c_str()
                  : "",
              static_cast<long long>(o.runs), total);
  std::printf("%-5s %20s %12s %12s %8s %10s %12s\n", "rank", "rows", "nnz",
              "median_ms", "format", "checked", "error");
  for (const json &j : records) {
    const std::string rows =
        "[" + std::to_string(j["row_begin"].get<int64_t>()) + ", " +
        std::to_string(j["row_end"].get<int64_t>()) + ")";
    std::printf("%-5d %20s %12lld %12.4f %8s %10lld %12.2e\n",
                j["rank"].get<int>(), rows.c_str(),
                static_cast<long long>(j["nnz"].get<int64_t>()),
                j["median_ms"].get<double>(),
                j["format"].get<std::string>().c_str(),
                static_cast<long long>(j["checked_rows"].get<int64_t>()),
                j["check_error"].get<double>());
  }

  if (!o.outPath.empty()) {
    DenseMatrix c;
    c.rows = records[0]["layer_rows"].get<int64_t>();
    c.cols = o.k;
    c.data.assign(static_cast<size_t>(c.rows * c.cols), 0.0f);
    for (int32_t r = 0; r < o.ranks; ++r) {
      StatusOr<DenseMatrix> part =
          readNpy(dir + "/rank" + std::to_string(r) + ".npy");
      if (!part)
        return fail(part.message());
      const int64_t begin = records[r]["row_begin"].get<int64_t>();
      std::copy(part->data.begin(), part->data.end(),
                c.data.begin() + begin * o.k);
    }
    if (Status s = writeNpy(o.outPath, c); !s)
      return fail(s.message());
  }
  if (!o.jsonPath.empty()) {
    json out = {{"tool", "spperm-run"},
                {"package", o.package},
                {"device", o.device},
                {"algorithm", o.algorithm},
                {"ranks", o.ranks},
                {"k", o.k},
                {"chunk", o.chunk},
                {"slowest_rank_ms", slowest},
                {"median_ms", total},
                {"rank_records", records}};
    if (Status s = writeFileAtomically(
            o.jsonPath,
            out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) +
                "\n");
        !s)
      return fail(s.message());
  }
  return 0;
}
