//===- check_bias.cpp - The library check's timing of a library call ------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// At a layer's first call the runtime times its generated kernels against
// the library call it would run instead (docs/RuntimeABI.md, `sprt_spmm`
// under "Functions"). In spperm-verify runs on bf16 DLMC layers the
// check's time of the dense cuBLASLt GEMM came out ~0.2 us above the same
// GEMM's steady-state time, while its times of the generated kernels and
// of cuSPARSE matched theirs. This program times the GEMM through the C
// API in the situations the check puts it in, per package and K:
//   fresh5   a fresh plan, 5 warm-ups (the benchmark's baseline);
//   fresh1   a fresh plan, 1 warm-up (the check's count);
//   afterG   1 warm-up, right after 1 + 15 runs of the layer's own kernels
//            (the check runs the library between two such blocks);
//   decided  5 warm-ups, after the first sprt_spmm_typed call (which makes
//            the decision; with SPPERM_LOG_CHOICES=1 it logs the check's
//            own times on stderr);
//   spperm   the package's choice, 5 warm-ups.
// The first call comes after the first four timings, or before them all
// with CHECK_BIAS_FIRST=1 (spperm-verify --bench's order). In a plain
// process the check's time equals fresh5
// (docs/results/bf16-choices-2026-12-06-s68/).
// Each a median of 15 queued runs (sprt_spmm_time_typed), in µs; B random.
//
// Build and run on the GPU machine, after gpu_suite.sh's build:
//   g++ -O2 -std=c++17 -Iruntime/include tools/lab/check_bias.cpp
//     -Lbuild-gpu/lib -lspperm_runtime -Wl,-rpath,$PWD/build-gpu/lib
//     -o check_bias
//   SPPERM_LOG_CHOICES=1 ./check_bias K PACKAGE.spp...
// Prints one `bias` line per package (its first layer) and K.
//
//===----------------------------------------------------------------------===//

#include "spperm/Runtime/SpPermRuntime.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int32_t kRuns = 15;

/// The median of `runs` queued runs of `variant` after `warmup`, in µs;
/// -1 when the runtime refuses it.
double timed(sprt_package *p, const char *variant, const void *b, int64_t k,
             void *c, sprt_dtype t, int32_t warmup) {
  std::vector<float> ms(kRuns);
  if (sprt_spmm_time_typed(p, 0, variant, b, t, k, c, t, nullptr, warmup, kRuns,
                           ms.data()) != SPRT_OK)
    return -1.0;
  std::sort(ms.begin(), ms.end());
  return 1e3 * ms[kRuns / 2];
}

/// B's values: uniform in [-1, 1), fp32 or (bf16) the top half of each.
void fillRandom(std::vector<uint16_t> &half, std::vector<float> &full,
                sprt_dtype t, size_t n) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  full.resize(n);
  for (float &x : full)
    x = u(gen);
  if (t != SPRT_DTYPE_BF16)
    return;
  half.resize(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &full[i], sizeof(bits));
    half[i] = static_cast<uint16_t>(bits >> 16);
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: check_bias K PACKAGE.spp...\n");
    return 2;
  }
  const int64_t k = std::atoll(argv[1]);
  for (int a = 2; a < argc; ++a) {
    sprt_package *p = nullptr;
    if (sprt_package_load(argv[a], SPRT_DEVICE_GPU, &p) != SPRT_OK) {
      std::fprintf(stderr, "%s: %s\n", argv[a], sprt_last_error());
      continue;
    }
    sprt_layer_desc desc{};
    sprt_dtype t = SPRT_DTYPE_F32;
    sprt_layer_info(p, 0, &desc);
    sprt_layer_dtype(p, 0, &t);
    if (t == SPRT_DTYPE_F16) {
      std::fprintf(stderr, "%s: fp32 and bf16 packages only\n", argv[a]);
      sprt_package_release(p);
      continue;
    }
    const int64_t bytes = t == SPRT_DTYPE_F32 ? 4 : 2;
    const char *dense = t == SPRT_DTYPE_F32 ? "cublas-sgemm" : "cublaslt-gemm";
    std::vector<uint16_t> half;
    std::vector<float> full;
    fillRandom(half, full, t, static_cast<size_t>(desc.cols * k));
    void *b = nullptr, *c = nullptr;
    sprt_device_malloc(desc.cols * k * bytes, &b);
    sprt_device_malloc(desc.rows * k * bytes, &c);
    sprt_memcpy_htod(b,
                     t == SPRT_DTYPE_F32
                         ? static_cast<const void *>(full.data())
                         : half.data(),
                     desc.cols * k * bytes);
    sprt_status first = SPRT_OK;
    auto firstCall = [&] {
      std::fprintf(stderr, "first call of %s, k = %lld:\n", argv[a],
                   static_cast<long long>(k));
      first = sprt_spmm_typed(p, 0, b, t, k, c, t, nullptr);
      sprt_stream_synchronize(nullptr);
    };
    const char *env = std::getenv("CHECK_BIAS_FIRST");
    const bool firstFirst = env && std::string(env) == "1";
    if (firstFirst)
      firstCall();
    const double fresh5 = timed(p, dense, b, k, c, t, 5);
    const double fresh1 = timed(p, dense, b, k, c, t, 1);
    const double own = timed(p, "spperm:0", b, k, c, t, 1);
    const double afterG = timed(p, dense, b, k, c, t, 1);
    if (!firstFirst)
      firstCall();
    const double decided = timed(p, dense, b, k, c, t, 5);
    const double chosen = timed(p, "spperm", b, k, c, t, 5);
    std::printf("bias package=%s k=%lld rows=%lld cols=%lld first=%s "
                "fresh5=%.3f fresh1=%.3f own=%.3f afterG=%.3f decided=%.3f "
                "spperm=%.3f\n",
                argv[a], static_cast<long long>(k),
                static_cast<long long>(desc.rows),
                static_cast<long long>(desc.cols), sprt_status_name(first),
                fresh5, fresh1, own, afterG, decided, chosen);
    std::fflush(stdout);
    sprt_device_free(b);
    sprt_device_free(c);
    sprt_package_release(p);
  }
  return 0;
}
