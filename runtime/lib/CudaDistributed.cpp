//===- CudaDistributed.cpp - The 1.5-D algorithm on the GPU ---------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// sprt_spmm_allgather (docs/Distributed.md, "1.5-D"): each rank holds its
// shard of A's rows and an equal share of B's rows; B is all-gathered over
// NCCL in chunks of K columns on the communicator's own stream, two gather
// buffers deep, and each chunk is multiplied on the caller's stream as soon
// as it has arrived, while the next chunk is in flight. No rank ever holds
// more of B than two chunks.
//
//===----------------------------------------------------------------------===//

#include "CudaBackendImpl.h"
#include "CudaComm.h"

#include <algorithm>
#include <functional>
#include <mutex>

using namespace spperm;
using namespace spperm::runtime_detail;

namespace {

/// Grows `buffer` (of `have` bytes) to at least `bytes` (the caller has
/// made sure no work still uses it).
sprt_status reserve(const Driver &d, DeviceBuffer &buffer, size_t &have,
                    size_t bytes) {
  if (bytes <= have)
    return SPRT_OK;
  have = 0; // allocate frees the old buffer first
  SPRT_RETURN_IF_ERROR(buffer.allocate(d, bytes));
  have = bytes;
  return SPRT_OK;
}

/// Enqueues a copy of `height` rows of `widthBytes` between device
/// matrices of pitches `srcPitch` and `dstPitch` (bytes).
sprt_status copy2D(const Driver &d, const void *src, size_t srcPitch,
                   void *dst, size_t dstPitch, size_t widthBytes,
                   size_t height, CUstream stream) {
  if (height == 0 || widthBytes == 0)
    return SPRT_OK;
  CUDA_MEMCPY2D copy = {};
  copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = reinterpret_cast<CUdeviceptr>(src);
  copy.srcPitch = srcPitch;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = reinterpret_cast<CUdeviceptr>(dst);
  copy.dstPitch = dstPitch;
  copy.WidthInBytes = widthBytes;
  copy.Height = height;
  SPRT_CU_RETURN_IF_ERROR(d.api, d.api.cuMemcpy2DAsync(&copy, stream));
  return SPRT_OK;
}

} // namespace

sprt_status CudaBackend::spmmAllgather(int64_t index, const PackageLayer &layer,
                                       CommState &comm, const void *bLocalArg,
                                       int64_t k, int64_t chunk, void *cArg,
                                       void *streamArg) {
  // fp32 layers only: sprt_spmm_allgather refuses the others.
  const auto *bLocal = static_cast<const float *>(bLocalArg);
  auto *c = static_cast<float *>(cArg);
  // The communicator's buffers and events serve one call at a time; the
  // package's lock serializes the enqueueing of its calls.
  std::lock_guard<std::mutex> commLock(comm.mutex);
  std::lock_guard<std::mutex> lock(mutex);
  SPRT_SCOPED_CONTEXT(d);
  RelaxedCaptureMode relaxed(d.api);
  auto stream = static_cast<CUstream>(streamArg);
  const int64_t rows = layer.matrix.rows, cols = layer.matrix.cols;
  const int64_t per = (cols + comm.ranks - 1) / comm.ranks;
  const int64_t first = std::min<int64_t>(cols, int64_t(comm.rank) * per);
  const int64_t localRows = std::min<int64_t>(cols, first + per) - first;
  const int64_t width = chunk > 0 ? std::min(chunk, k) : k;
  const int64_t chunks = (k + width - 1) / width;
  const size_t f = sizeof(float);
  // Every chunk width must have kernels (or a library call) before the
  // first collective: a rank that failed in the middle would leave the
  // others waiting in an all-gather.
  for (int64_t w : {width, k % width})
    if (w > 0) {
      LaunchChoice probe;
      if (sprt_status s = chooseLaunch(layer, w, probe); s != SPRT_OK)
        return failWith(s, "sprt_spmm_allgather: chunks of " +
                               std::to_string(w) + " columns: " +
                               sprt_last_error());
    }
  // After an earlier call (perhaps on another stream): this one's work
  // follows it, and its buffers are free before they are grown.
  if (comm.used) {
    SPRT_CU_RETURN_IF_ERROR(d.api,
                            d.api.cuStreamWaitEvent(stream, comm.done, 0));
    if (per * width * f > comm.sendBytes ||
        comm.ranks * per * width * f > comm.gatherBytes[0] ||
        (chunks > 1 && rows * width * f > comm.chunkCBytes)) {
      SPRT_CU_RETURN_IF_ERROR(d.api, d.api.cuEventSynchronize(comm.done));
      SPRT_CU_RETURN_IF_ERROR(d.api, d.api.cuStreamSynchronize(comm.stream));
    }
  }
  SPRT_RETURN_IF_ERROR(reserve(d, comm.send, comm.sendBytes, per * width * f));
  for (int i = 0; i < std::min<int64_t>(2, chunks); ++i)
    SPRT_RETURN_IF_ERROR(reserve(d, comm.gather[i], comm.gatherBytes[i],
                                 comm.ranks * per * width * f));
  if (chunks > 1)
    SPRT_RETURN_IF_ERROR(
        reserve(d, comm.chunkC, comm.chunkCBytes, rows * width * f));
  // The communication starts after the caller's work so far (it may have
  // written bLocal): both buffers' `consumed` mark that point.
  for (CUevent e : comm.consumed)
    SPRT_CU_RETURN_IF_ERROR(d.api, d.api.cuEventRecord(e, stream));
  for (int64_t j = 0; j < chunks; ++j) {
    const int buf = static_cast<int>(j % 2);
    const int64_t w = std::min(width, k - j * width);
    // The chunk's columns of B's local rows, packed (the rows past the
    // matrix's columns, on the last ranks, as zeros), then gathered into
    // the buffer the multiplication two chunks back has finished reading.
    SPRT_CU_RETURN_IF_ERROR(
        d.api, d.api.cuStreamWaitEvent(comm.stream, comm.consumed[buf], 0));
    if (localRows < per)
      SPRT_CU_RETURN_IF_ERROR(
          d.api, d.api.cuMemsetD32Async(
                     reinterpret_cast<CUdeviceptr>(comm.send.get()), 0,
                     per * w, comm.stream));
    SPRT_RETURN_IF_ERROR(copy2D(d, bLocal + j * width, k * f,
                                comm.send.get(), w * f, w * f, localRows,
                                comm.stream));
    SPRT_NCCL_RETURN_IF_ERROR(
        *comm.nccl,
        comm.nccl->api.ncclAllGather(comm.send.get(), comm.gather[buf].get(),
                                     per * w, kNcclFloat32, comm.comm,
                                     comm.stream));
    SPRT_CU_RETURN_IF_ERROR(
        d.api, d.api.cuEventRecord(comm.gathered[buf], comm.stream));
    // The chunk's product on the caller's stream, once it has arrived.
    SPRT_CU_RETURN_IF_ERROR(
        d.api, d.api.cuStreamWaitEvent(stream, comm.gathered[buf], 0));
    float *out = chunks == 1 ? c : static_cast<float *>(comm.chunkC.get());
    std::function<sprt_status()> launch;
    SPRT_RETURN_IF_ERROR(packageLaunch(
        index, layer, static_cast<const float *>(comm.gather[buf].get()), w,
        out, stream, launch));
    SPRT_RETURN_IF_ERROR(launch());
    if (chunks > 1)
      SPRT_RETURN_IF_ERROR(copy2D(d, out, w * f, c + j * width, k * f, w * f,
                                  rows, stream));
    SPRT_CU_RETURN_IF_ERROR(
        d.api, d.api.cuEventRecord(comm.consumed[buf], stream));
  }
  SPRT_CU_RETURN_IF_ERROR(d.api, d.api.cuEventRecord(comm.done, stream));
  comm.used = true;
  return SPRT_OK;
}
