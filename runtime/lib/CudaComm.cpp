//===- CudaComm.cpp - NCCL and the runtime's communicators ----------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Loads NCCL (CudaComm.h) and makes the communicators of sprt_comm_create:
// NCCL's communicator on the runtime's device, with the stream and events
// sprt_spmm_allgather pipelines through.
//
//===----------------------------------------------------------------------===//

#include "CudaComm.h"
#include "CudaStatus.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>

using namespace spperm;
using namespace spperm::runtime_detail;

namespace {

/// Opens NCCL: $SPRT_NCCL_LIBRARY when set, else libnccl.so.2 through the
/// loader's search path.
void initNccl(Nccl &n) {
  const char *env = std::getenv("SPRT_NCCL_LIBRARY");
  n.path = env && *env ? env : "libnccl.so.2";
  auto fail = [&n](std::string message) {
    n.status = SPRT_ERROR_DEVICE;
    n.error = std::move(message);
  };
  ::dlerror();
  void *library = ::dlopen(n.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *e = ::dlerror();
    return fail("cannot load NCCL (" + n.path + "): " + (e ? e : "") +
                "; install it (pip install nvidia-nccl-cu13, as the README's "
                "set-up does) and set SPRT_NCCL_LIBRARY to its libnccl.so.2 "
                "or add its directory to LD_LIBRARY_PATH");
  }
  auto resolve = [&](auto &slot, const char *name) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(
        ::dlsym(library, name));
    return slot != nullptr;
  };
  NcclApi &a = n.api;
  if (!resolve(a.ncclGetVersion, "ncclGetVersion") ||
      !resolve(a.ncclGetUniqueId, "ncclGetUniqueId") ||
      !resolve(a.ncclCommInitRank, "ncclCommInitRank") ||
      !resolve(a.ncclCommDestroy, "ncclCommDestroy") ||
      !resolve(a.ncclAllGather, "ncclAllGather") ||
      !resolve(a.ncclAllReduce, "ncclAllReduce") ||
      !resolve(a.ncclGetErrorString, "ncclGetErrorString")) {
    ::dlclose(library);
    return fail(n.path + " lacks an entry point of NCCL 2 (ncclGetVersion, "
                         "ncclGetUniqueId, ncclCommInitRank, "
                         "ncclCommDestroy, ncclAllGather, ncclAllReduce, "
                         "ncclGetErrorString)");
  }
  a.ncclGetVersion(&n.version);
  // 2.x reports major * 1000 + minor * 100 + patch before 2.9 and
  // major * 10000 + minor * 100 + patch since.
  if (n.version < 2000)
    return fail(n.path + " is NCCL " + std::to_string(n.version) +
                "; spperm needs NCCL 2");
}

} // namespace

sprt_status spperm::runtime_detail::requireNccl(const Nccl *&out) {
  static const Nccl *instance = [] {
    auto *n = new Nccl;
    initNccl(*n);
    return n;
  }();
  if (instance->status != SPRT_OK)
    return failWith(instance->status, instance->error);
  out = instance;
  return SPRT_OK;
}

sprt_status spperm::runtime_detail::ncclFailure(const Nccl &nccl,
                                                NcclResult result,
                                                const char *what) {
  const char *text = nccl.api.ncclGetErrorString(result);
  return failWith(SPRT_ERROR_DEVICE, std::string("NCCL: ") +
                                         (text ? text : "error") + " (" +
                                         std::to_string(result) + ") in " +
                                         what);
}

CommState::~CommState() {
  if (!d)
    return;
  ScopedContext scope(*d);
  RelaxedCaptureMode relaxed(d->api);
  // The buffers are freed once the last call's work is done.
  if (stream)
    d->api.cuStreamSynchronize(stream);
  if (done) {
    d->api.cuEventSynchronize(done);
    d->api.cuEventDestroy(done);
  }
  for (int i = 0; i < 2; ++i) {
    if (gathered[i])
      d->api.cuEventDestroy(gathered[i]);
    if (consumed[i])
      d->api.cuEventDestroy(consumed[i]);
  }
  send.reset();
  gather[0].reset();
  gather[1].reset();
  chunkC.reset();
  if (comm && nccl)
    nccl->api.ncclCommDestroy(comm);
  if (stream)
    d->api.cuStreamDestroy(stream);
}

sprt_status spperm::runtime_detail::gpuCommUniqueId(unsigned char *id) {
  const Nccl *nccl = nullptr;
  SPRT_RETURN_IF_ERROR(requireNccl(nccl));
  NcclUniqueId unique;
  SPRT_NCCL_RETURN_IF_ERROR(*nccl, nccl->api.ncclGetUniqueId(&unique));
  std::memcpy(id, unique.internal, sizeof(unique.internal));
  return SPRT_OK;
}

sprt_status
spperm::runtime_detail::gpuCommCreate(const unsigned char *id, int32_t rank,
                                      int32_t ranks,
                                      std::unique_ptr<CommState> &out) {
  const Driver *d = nullptr;
  SPRT_RETURN_IF_ERROR(requireDriver(d));
  const Nccl *nccl = nullptr;
  SPRT_RETURN_IF_ERROR(requireNccl(nccl));
  SPRT_SCOPED_CONTEXT(*d);
  RelaxedCaptureMode relaxed(d->api);
  auto state = std::make_unique<CommState>();
  state->d = d;
  state->nccl = nccl;
  state->rank = rank;
  state->ranks = ranks;
  NcclUniqueId unique;
  std::memcpy(unique.internal, id, sizeof(unique.internal));
  // NCCL joins on the current context's device: the runtime's.
  SPRT_NCCL_RETURN_IF_ERROR(
      *nccl, nccl->api.ncclCommInitRank(&state->comm, ranks, unique, rank));
  SPRT_CU_RETURN_IF_ERROR(
      d->api, d->api.cuStreamCreate(&state->stream, CU_STREAM_NON_BLOCKING));
  SPRT_CU_RETURN_IF_ERROR(
      d->api, d->api.cuEventCreate(&state->done, CU_EVENT_DISABLE_TIMING));
  for (int i = 0; i < 2; ++i) {
    SPRT_CU_RETURN_IF_ERROR(
        d->api, d->api.cuEventCreate(&state->gathered[i],
                                     CU_EVENT_DISABLE_TIMING));
    SPRT_CU_RETURN_IF_ERROR(
        d->api, d->api.cuEventCreate(&state->consumed[i],
                                     CU_EVENT_DISABLE_TIMING));
  }
  out = std::move(state);
  return SPRT_OK;
}

sprt_status spperm::runtime_detail::gpuCommBarrier(CommState &comm,
                                                   void *streamArg) {
  // One collective at a time on the communicator, as its calls
  // (spmmAllgather) take it.
  std::lock_guard<std::mutex> commLock(comm.mutex);
  const Driver &d = *comm.d;
  SPRT_SCOPED_CONTEXT(d);
  RelaxedCaptureMode relaxed(d.api);
  auto stream = static_cast<CUstream>(streamArg);
  DeviceBuffer one;
  SPRT_RETURN_IF_ERROR(one.allocate(d, sizeof(float)));
  SPRT_NCCL_RETURN_IF_ERROR(
      *comm.nccl, comm.nccl->api.ncclAllReduce(one.get(), one.get(), 1,
                                               kNcclFloat32, kNcclSum,
                                               comm.comm, stream));
  SPRT_CU_RETURN_IF_ERROR(d.api, d.api.cuStreamSynchronize(stream));
  return SPRT_OK;
}
