//===- main.cpp - An application that runs a compiled sparse model --------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The ahead-of-time use of spperm: transformer_block.mlir was compiled once
// (spperm-compile ... -o block.spp); this program links only the runtime
// (find_package(spperm), target spperm::runtime), loads the package and runs
// one encoder block's sparse layers on a batch of activations:
//
//   Q, K, V, O = q(X), k(X), v(X), out(X)      (512 x 512 weights)
//   Y = ffn2(ffn1(X))                          (2048 x 512, 512 x 2048)
//
// on the GPU, and checks every result against the runtime's CPU executor
// (the same package loaded for SPRT_DEVICE_CPU). Without a usable GPU it
// says so and runs the CPU executor alone.
//
// Usage: spperm-aot-example PACKAGE [TOKENS]    (TOKENS = K, default 64)
// Exit status: 0 when every GPU result matches, 1 when one does not, 2 on
// a usage or load error.
//
//===----------------------------------------------------------------------===//

#include "spperm/Runtime/SpPermRuntime.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

using spperm::runtime::Package;

namespace {

/// A dense row-major matrix on the host.
struct Dense {
  int64_t rows = 0, cols = 0;
  std::vector<float> data;
  Dense(int64_t r, int64_t c) : rows(r), cols(c), data(size_t(r * c)) {}
};

/// Device memory holding a copy of a host matrix (or room for one).
class DeviceDense {
public:
  explicit DeviceDense(const Dense &host) : bytes(host.data.size() * 4) {
    ok = sprt_device_malloc(int64_t(bytes), &ptr) == SPRT_OK &&
         sprt_memcpy_htod(ptr, host.data.data(), int64_t(bytes)) == SPRT_OK;
  }
  ~DeviceDense() { (void)sprt_device_free(ptr); }
  DeviceDense(const DeviceDense &) = delete;
  DeviceDense &operator=(const DeviceDense &) = delete;
  float *get() const { return static_cast<float *>(ptr); }
  bool valid() const { return ok; }
  bool copyTo(Dense &host) const {
    return sprt_memcpy_dtoh(host.data.data(), ptr, int64_t(bytes)) == SPRT_OK;
  }

private:
  void *ptr = nullptr;
  size_t bytes;
  bool ok = false;
};

/// ||got - want|| / ||want|| (Frobenius).
double relativeError(const Dense &got, const Dense &want) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < want.data.size(); ++i) {
    const double d = double(got.data[i]) - double(want.data[i]);
    diff += d * d;
    norm += double(want.data[i]) * double(want.data[i]);
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

[[noreturn]] void fail(const std::string &what, int code = 2) {
  std::fprintf(stderr, "spperm-aot-example: error: %s\n", what.c_str());
  std::exit(code);
}

/// The index of `layer` in `package`, and a C for it to multiply B into.
std::pair<int64_t, Dense> layerAndOutput(Package &package,
                                         const std::string &layer,
                                         const Dense &b) {
  auto index = package.findLayer(layer);
  if (!index)
    fail(index.message());
  auto info = package.layerInfo(*index);
  if (!info)
    fail(info.message());
  return {*index, Dense(info->rows, b.cols)};
}

/// C = layer(B) on the CPU executor.
Dense runCpu(Package &cpu, const std::string &layer, const Dense &b) {
  auto [index, c] = layerAndOutput(cpu, layer, b);
  if (auto s = cpu.spmm(index, b.data.data(), b.cols, c.data.data()); !s)
    fail(layer + " on the CPU: " + s.message());
  return c;
}

/// C = layer(B) on the GPU, B and C in device memory. (The first call of a
/// layer for a K also runs the runtime's library check, docs/RuntimeABI.md;
/// `spperm-run --bench` is the way to time a layer.)
Dense runGpu(Package &gpu, const std::string &layer, const Dense &b) {
  auto [index, c] = layerAndOutput(gpu, layer, b);
  DeviceDense db(b), dc(c);
  if (!db.valid() || !dc.valid())
    fail(std::string("device memory: ") + sprt_last_error());
  if (auto s = gpu.spmm(index, db.get(), b.cols, dc.get()); !s)
    fail(layer + " on the GPU: " + s.message());
  // Copying C back waits for the work on the default stream.
  if (!dc.copyTo(c))
    fail(std::string("copying C back: ") + sprt_last_error());
  return c;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3)
    fail("usage: spperm-aot-example PACKAGE [TOKENS]");
  const std::string path = argv[1];
  const int64_t tokens = argc == 3 ? std::atoll(argv[2]) : 64;
  if (tokens < 1 || tokens > 65536)
    fail("TOKENS must be an integer in [1, 65536]");

  auto cpu = Package::load(path, SPRT_DEVICE_CPU);
  if (!cpu)
    fail(cpu.message());
  auto gpu = Package::load(path, SPRT_DEVICE_GPU);
  const bool haveGpu = gpu.ok();
  if (!haveGpu && gpu.code() != SPRT_ERROR_DEVICE &&
      gpu.code() != SPRT_ERROR_UNSUPPORTED)
    fail(gpu.message());
  std::printf("%s: %lld layers; GPU: %s\n", path.c_str(),
              static_cast<long long>(cpu->layerCount()),
              haveGpu ? "yes" : ("not available (" + gpu.message() +
                                 "): CPU executor only")
                                    .c_str());

  // The activations: d_model x tokens.
  Dense x(512, tokens);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float &v : x.data)
    v = uniform(rng);

  bool allMatch = true;
  auto report = [&](const std::string &layer, const Dense &want,
                    const Dense *got) {
    auto info = cpu->layerInfo(*cpu->findLayer(layer));
    std::printf("  %-5s %5lld x %-5lld nnz %7lld  %-4s %-10s", layer.c_str(),
                static_cast<long long>(info->rows),
                static_cast<long long>(info->cols),
                static_cast<long long>(info->nnz), info->format,
                info->strategy);
    if (!got) {
      std::printf("  cpu only\n");
      return;
    }
    const double err = relativeError(*got, want);
    const bool match = err <= 1e-5;
    allMatch &= match;
    std::printf("  gpu vs cpu: rel. error %.2e  %s\n", err,
                match ? "ok" : "MISMATCH");
  };

  for (const char *layer : {"q", "k", "v", "out"}) {
    Dense want = runCpu(*cpu, layer, x);
    if (haveGpu) {
      Dense got = runGpu(*gpu, layer, x);
      report(layer, want, &got);
    } else {
      report(layer, want, nullptr);
    }
  }
  // The feed-forward pair, chained: the GPU's hidden state feeds ffn2 on
  // the GPU, the CPU's on the CPU, so the check covers the whole chain.
  Dense hiddenCpu = runCpu(*cpu, "ffn1", x);
  Dense yCpu = runCpu(*cpu, "ffn2", hiddenCpu);
  if (haveGpu) {
    Dense hiddenGpu = runGpu(*gpu, "ffn1", x);
    report("ffn1", hiddenCpu, &hiddenGpu);
    Dense yGpu = runGpu(*gpu, "ffn2", hiddenGpu);
    report("ffn2", yCpu, &yGpu);
  } else {
    report("ffn1", hiddenCpu, nullptr);
    report("ffn2", yCpu, nullptr);
  }
  std::printf("%s\n", !haveGpu ? "ran on the CPU executor (no GPU)"
                      : allMatch ? "every GPU layer matches the CPU executor"
                                 : "MISMATCH between the GPU and the CPU");
  return allMatch ? 0 : 1;
}
