//===- CudaTiming.h - Timing launches on the GPU ----------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the runtime's GPU backend: the timed runs of sprt_spmm_time and
// of the choices the backend makes at a layer's first call (the cuSPARSE
// algorithm, the variant, the library check).
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_RUNTIME_LIB_CUDATIMING_H
#define SPPERM_RUNTIME_LIB_CUDATIMING_H

#include "CudaLibraries.h"

#include <cstdint>
#include <functional>

namespace spperm::runtime_detail {

/// Runs `launch` `warmup` times, then `runs` times between a pair of events
/// each, on `stream`; waits for the last and reads the times.
///
/// The timed runs are queued while the stream waits on a host flag (in
/// batches of 16, well within the driver's queue), so that the GPU runs
/// them back to back and the events time its work, not the rate at which
/// the host can launch (which is ~4.6 us per launch on the H100 and would
/// be the time of every small SpMM, spperm's and cuSPARSE's alike): the
/// "blocking kernel" of NVIDIA's nvbench. Drivers without stream memory
/// operations time the runs as they are launched.
sprt_status timeLaunches(const Driver &d, CUstream stream, int32_t warmup,
                         int32_t runs, float *timesMs,
                         const std::function<sprt_status()> &launch);

} // namespace spperm::runtime_detail

#endif // SPPERM_RUNTIME_LIB_CUDATIMING_H
