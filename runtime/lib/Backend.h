//===- Backend.h - What a device does with a loaded package -----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the runtime library (not installed): the interface between the
// C API (SpPermRuntime.cpp) and the device backends (the CPU executor there,
// the CUDA backend in CudaBackend.cpp and the other Cuda*.cpp), and the
// host-side helpers they share.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_RUNTIME_LIB_BACKEND_H
#define SPPERM_RUNTIME_LIB_BACKEND_H

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Sparse/Package.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace spperm::runtime_detail {

struct CommState;

/// Records `message` as the calling thread's last error (sprt_last_error)
/// and returns `status`.
sprt_status failWith(sprt_status status, std::string message);

/// N of a variant name "spperm:N" (N of one to four digits: the layer's
/// variant N, 0 its own and 1.. its alternatives), else nullopt.
inline std::optional<size_t> parseVariantIndex(std::string_view variant) {
  constexpr std::string_view prefix = "spperm:";
  if (variant.size() <= prefix.size() || variant.size() > prefix.size() + 4 ||
      variant.substr(0, prefix.size()) != prefix)
    return std::nullopt;
  size_t n = 0;
  for (char ch : variant.substr(prefix.size())) {
    if (ch < '0' || ch > '9')
      return std::nullopt;
    n = 10 * n + static_cast<size_t>(ch - '0');
  }
  return n;
}

/// What a device does with the layers of a loaded package. A backend is
/// created per package and owns what it derives from the layers. The C API
/// has checked every argument before it calls a backend.
class Backend {
public:
  virtual ~Backend() = default;

  /// C = A * B for layer number `index` (`layer` is that layer).
  virtual sprt_status spmm(int64_t index, const PackageLayer &layer,
                           const void *b, int64_t k, void *c,
                           void *stream) = 0;

  /// C = A * B for layer `index` with B column-major (B(i, j) at
  /// b[i + j * cols]; sprt_spmm_ordered). `workspace` is the caller's
  /// (cols * k elements, 16-byte aligned) or null.
  virtual sprt_status spmmColumnMajor(int64_t index, const PackageLayer &layer,
                                      const void *b, int64_t k, void *c,
                                      void *workspace, void *stream) = 0;

  /// Whether spmmColumnMajor runs layer `index`.
  virtual bool acceptsColumnMajor(int64_t /*index*/,
                                  const PackageLayer & /*layer*/) {
    return true;
  }

  /// Runs `variant` of layer `index` `warmup` times untimed, then `runs`
  /// times, each timed on its own, and stores the times in milliseconds in
  /// timesMs[0 .. runs). C holds the result of the last run. `variant` is
  /// "spperm" (what spmm runs), "spperm:N" (parseVariantIndex) or a
  /// baseline the backend knows; `what` names the entry point in errors.
  virtual sprt_status time(const char *what, int64_t index,
                           const PackageLayer &layer,
                           const std::string &variant, const void *b, int64_t k,
                           void *c, void *stream, int32_t warmup, int32_t runs,
                           float *timesMs) = 0;

  /// SPRT_OK when layer `index` can run K, else the error spmm would
  /// return, before anything is enqueued (sprt_spmm checks every shard of
  /// a sharded layer first, so that none runs when one cannot).
  virtual sprt_status accepts(int64_t /*index*/,
                              const PackageLayer & /*layer*/, int64_t /*k*/) {
    return SPRT_OK;
  }

  /// sprt_spmm_allgather (docs/Distributed.md, "1.5-D"): C = A * B for
  /// layer `index` where this rank holds rows [rank * P, rank * P + P) of B
  /// (P = ceil(cols / ranks); the last rank's past cols are not read) as
  /// `bLocal` (P x k, row-major), all-gathered over `comm` in chunks of
  /// `chunk` columns of K, each multiplied as it arrives. Only the GPU
  /// backend has communicators.
  virtual sprt_status spmmAllgather(int64_t /*index*/,
                                    const PackageLayer & /*layer*/,
                                    CommState & /*comm*/,
                                    const void * /*bLocal*/, int64_t /*k*/,
                                    int64_t /*chunk*/, void * /*c*/,
                                    void * /*stream*/) {
    return failWith(SPRT_ERROR_UNSUPPORTED,
                    "sprt_spmm_allgather: needs a package loaded for the GPU "
                    "(NCCL communicators are GPU-only)");
  }
};

} // namespace spperm::runtime_detail

#endif // SPPERM_RUNTIME_LIB_BACKEND_H
