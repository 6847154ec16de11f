//===- CudaComm.h - NCCL and the runtime's communicators --------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the runtime's GPU backend. NCCL is loaded like cuSPARSE: with
// dlopen at the first communicator ($SPRT_NCCL_LIBRARY, else libnccl.so.2),
// its entry points looked up into a table; nothing is linked, and nccl.h is
// not needed at build time (the few types spperm passes are declared here as
// NCCL 2 declares them). A communicator (sprt_comm) holds NCCL's, its rank,
// and the stream, events and buffers sprt_spmm_allgather pipelines through
// (docs/Distributed.md).
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_RUNTIME_LIB_CUDACOMM_H
#define SPPERM_RUNTIME_LIB_CUDACOMM_H

#include "CudaLibraries.h"
#include "CudaResources.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace spperm::runtime_detail {

/// NCCL's types as nccl.h (NCCL 2) declares them: enums are C ints, the
/// communicator an opaque pointer, the unique id 128 bytes passed by value.
using NcclResult = int;
using NcclCommHandle = struct NcclCommOpaque *;
struct NcclUniqueId {
  char internal[128];
};
constexpr NcclResult kNcclSuccess = 0;
constexpr int kNcclFloat32 = 7; // ncclFloat32
constexpr int kNcclSum = 0;     // ncclSum

/// The NCCL entry points the runtime calls.
struct NcclApi {
  NcclResult (*ncclGetVersion)(int *) = nullptr;
  NcclResult (*ncclGetUniqueId)(NcclUniqueId *) = nullptr;
  NcclResult (*ncclCommInitRank)(NcclCommHandle *, int, NcclUniqueId,
                                 int) = nullptr;
  NcclResult (*ncclCommDestroy)(NcclCommHandle) = nullptr;
  NcclResult (*ncclAllGather)(const void *, void *, size_t, int,
                              NcclCommHandle, CUstream) = nullptr;
  NcclResult (*ncclAllReduce)(const void *, void *, size_t, int, int,
                              NcclCommHandle, CUstream) = nullptr;
  const char *(*ncclGetErrorString)(NcclResult) = nullptr;
};

/// The loaded NCCL. Created once per process, at the first use.
struct Nccl {
  NcclApi api;
  /// NCCL_VERSION_CODE of the library (e.g. 22703 for 2.27.3).
  int version = 0;
  std::string path;
  sprt_status status = SPRT_OK;
  std::string error;
};

/// Sets `out` to the usable NCCL, or records why there is none.
sprt_status requireNccl(const Nccl *&out);

/// A communicator of the runtime: NCCL's, and what sprt_spmm_allgather
/// keeps between calls (its communication stream, the events that order it
/// with the caller's stream, the send and gather buffers and the C chunk).
struct CommState {
  const Driver *d = nullptr;
  const Nccl *nccl = nullptr;
  NcclCommHandle comm = nullptr;
  int32_t rank = 0, ranks = 1;
  CUstream stream = nullptr;
  /// Per gather buffer: gathered (recorded on `stream` after the
  /// all-gather) and consumed (recorded on the caller's stream after the
  /// multiplication that read it).
  CUevent gathered[2] = {nullptr, nullptr};
  CUevent consumed[2] = {nullptr, nullptr};
  /// The end of the last call on its stream (`used`: there was one), which
  /// the next call's stream waits for: calls on different streams reuse
  /// the buffers one after the other.
  CUevent done = nullptr;
  bool used = false;
  /// One call at a time per communicator.
  std::mutex mutex;
  DeviceBuffer send, gather[2], chunkC;
  size_t sendBytes = 0, gatherBytes[2] = {0, 0}, chunkCBytes = 0;

  ~CommState();
};

/// NCCL's unique id for a new communicator (SPRT_COMM_ID_BYTES bytes).
sprt_status gpuCommUniqueId(unsigned char *id);

/// Joins the communicator `id` as rank `rank` of `ranks` (every rank calls
/// it, each in its own process, on its own GPU).
sprt_status gpuCommCreate(const unsigned char *id, int32_t rank,
                          int32_t ranks, std::unique_ptr<CommState> &out);

/// Enqueues a barrier over the communicator's ranks on `stream` (an
/// all-reduce of one float) and waits for it.
sprt_status gpuCommBarrier(CommState &comm, void *stream);

/// "NCCL: MESSAGE in WHAT" for a failed NCCL call, recorded as the last
/// error (SPRT_ERROR_DEVICE).
sprt_status ncclFailure(const Nccl &nccl, NcclResult result, const char *what);

} // namespace spperm::runtime_detail

/// Returns from the enclosing function when the NCCL call `expr` fails.
#define SPRT_NCCL_RETURN_IF_ERROR(nccl, expr)                                  \
  do {                                                                         \
    if (NcclResult result_ = (expr); result_ != kNcclSuccess)                  \
      return ncclFailure(nccl, result_, #expr);                                \
  } while (0)

#endif // SPPERM_RUNTIME_LIB_CUDACOMM_H
