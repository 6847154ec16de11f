//===- CudaDevice.cpp - The C API's device helpers on the GPU ---*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// sprt_device_properties, sprt_device_malloc and the other device helpers of
// the C API, through the driver with the runtime's primary context current
// (CudaBackend.h); the arguments are checked by the C API.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "CudaResources.h"

#include <cstring>
#include <vector>

using namespace spperm;
using namespace spperm::runtime_detail;

sprt_status spperm::runtime_detail::gpuProperties(sprt_device_props &props) {
  const Driver *d = nullptr;
  SPRT_RETURN_IF_ERROR(requireDriver(d));
  const DriverApi &api = d->api;
  sprt_device_props p;
  std::memset(&p, 0, sizeof p);
  p.ordinal = d->ordinal;
  SPRT_CU_RETURN_IF_ERROR(
      api, api.cuDeviceGetName(p.name, sizeof p.name - 1, d->device));
  int version = 0;
  SPRT_CU_RETURN_IF_ERROR(api, api.cuDriverGetVersion(&version));
  p.driver_version = version;
  size_t total = 0;
  SPRT_CU_RETURN_IF_ERROR(api, api.cuDeviceTotalMem(&total, d->device));
  p.total_memory_bytes = static_cast<int64_t>(total);
  // Attributes a driver may not report (clocks in recent ones) stay 0.
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    if (api.cuDeviceGetAttribute(&value, which, d->device) != CUDA_SUCCESS)
      return 0;
    return value;
  };
  p.compute_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  p.compute_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  p.multiprocessors = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  p.clock_khz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  p.memory_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  p.memory_bus_width = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  p.l2_cache_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  const Cusparse &sp = cusparseInstance();
  p.cusparse_version = sp.status == SPRT_OK ? sp.version : 0;
  props = p;
  return SPRT_OK;
}

sprt_status spperm::runtime_detail::gpuMalloc(int64_t bytes, void **ptr) {
  const Driver *d = nullptr;
  SPRT_RETURN_IF_ERROR(requireDriver(d));
  if (bytes == 0) {
    *ptr = nullptr;
    return SPRT_OK;
  }
  SPRT_SCOPED_CONTEXT(*d);
  CUdeviceptr p = 0;
  SPRT_CU_RETURN_IF_ERROR(d->api,
                          d->api.cuMemAlloc(&p, static_cast<size_t>(bytes)));
  *ptr = reinterpret_cast<void *>(p);
  return SPRT_OK;
}

namespace {

/// Runs the driver call `call` (given the API table, returning a CUresult)
/// with the runtime's primary context current; a failure names `what`.
/// Fails like sprt_package_load where there is no usable driver.
template <typename Call>
sprt_status driverCall(const char *what, Call &&call) {
  const Driver *d = nullptr;
  SPRT_RETURN_IF_ERROR(requireDriver(d));
  SPRT_SCOPED_CONTEXT(*d);
  if (CUresult r = call(d->api); r != CUDA_SUCCESS)
    return cuFailure(d->api, r, what, __FILE__, __LINE__);
  return SPRT_OK;
}

CUdeviceptr devicePtr(const void *ptr) {
  return reinterpret_cast<CUdeviceptr>(ptr);
}

} // namespace

sprt_status spperm::runtime_detail::gpuFree(void *ptr) {
  if (!ptr)
    return SPRT_OK;
  return driverCall("cuMemFree", [&](const DriverApi &api) {
    return api.cuMemFree(devicePtr(ptr));
  });
}

// Copies of 0 bytes call nothing, but still need a usable driver.
sprt_status spperm::runtime_detail::gpuCopyToDevice(void *dst, const void *src,
                                                    int64_t bytes) {
  return driverCall("cuMemcpyHtoD", [&](const DriverApi &api) {
    return bytes == 0 ? CUDA_SUCCESS
                      : api.cuMemcpyHtoD(devicePtr(dst), src,
                                         static_cast<size_t>(bytes));
  });
}

sprt_status spperm::runtime_detail::gpuCopyToHost(void *dst, const void *src,
                                                  int64_t bytes) {
  return driverCall("cuMemcpyDtoH", [&](const DriverApi &api) {
    return bytes == 0 ? CUDA_SUCCESS
                      : api.cuMemcpyDtoH(dst, devicePtr(src),
                                         static_cast<size_t>(bytes));
  });
}

sprt_status spperm::runtime_detail::gpuCopyToDeviceAsync(void *dst,
                                                         const void *src,
                                                         int64_t bytes,
                                                         void *stream) {
  return driverCall("cuMemcpyHtoDAsync", [&](const DriverApi &api) {
    return bytes == 0 ? CUDA_SUCCESS
                      : api.cuMemcpyHtoDAsync(devicePtr(dst), src,
                                              static_cast<size_t>(bytes),
                                              static_cast<CUstream>(stream));
  });
}

sprt_status spperm::runtime_detail::gpuCopyToHostAsync(void *dst,
                                                       const void *src,
                                                       int64_t bytes,
                                                       void *stream) {
  return driverCall("cuMemcpyDtoHAsync", [&](const DriverApi &api) {
    return bytes == 0 ? CUDA_SUCCESS
                      : api.cuMemcpyDtoHAsync(dst, devicePtr(src),
                                              static_cast<size_t>(bytes),
                                              static_cast<CUstream>(stream));
  });
}

sprt_status spperm::runtime_detail::gpuStreamCreate(void **stream) {
  return driverCall("cuStreamCreate", [&](const DriverApi &api) {
    CUstream created = nullptr;
    CUresult r = api.cuStreamCreate(&created, CU_STREAM_NON_BLOCKING);
    if (r == CUDA_SUCCESS)
      *stream = created;
    return r;
  });
}

sprt_status spperm::runtime_detail::gpuStreamDestroy(void *stream) {
  return driverCall("cuStreamDestroy", [&](const DriverApi &api) {
    return api.cuStreamDestroy(static_cast<CUstream>(stream));
  });
}

sprt_status spperm::runtime_detail::gpuStreamSynchronize(void *stream) {
  return driverCall("cuStreamSynchronize", [&](const DriverApi &api) {
    return api.cuStreamSynchronize(static_cast<CUstream>(stream));
  });
}

namespace {

/// Fails where the driver lacks the stream-capture entry points.
CUresult requireGraphs(const DriverApi &api) {
  return api.cuStreamBeginCapture && api.cuStreamEndCapture &&
                 api.cuGraphInstantiateWithFlags && api.cuGraphLaunch &&
                 api.cuGraphExecDestroy && api.cuGraphDestroy
             ? CUDA_SUCCESS
             : CUDA_ERROR_NOT_SUPPORTED;
}

} // namespace

sprt_status spperm::runtime_detail::gpuBeginGlobalCapture(void *stream) {
  return driverCall("cuStreamBeginCapture", [&](const DriverApi &api) {
    if (CUresult r = requireGraphs(api); r != CUDA_SUCCESS)
      return r;
    return api.cuStreamBeginCapture(static_cast<CUstream>(stream),
                                    CU_STREAM_CAPTURE_MODE_GLOBAL);
  });
}

sprt_status spperm::runtime_detail::gpuEndCapture(void *stream, void **graph,
                                                  int64_t *memoryNodes) {
  return driverCall("cuStreamEndCapture", [&](const DriverApi &api) {
    if (CUresult r = requireGraphs(api); r != CUDA_SUCCESS)
      return r;
    CUgraph captured = nullptr;
    if (CUresult r =
            api.cuStreamEndCapture(static_cast<CUstream>(stream), &captured);
        r != CUDA_SUCCESS)
      return r;
    if (memoryNodes) {
      size_t count = 0;
      std::vector<CUgraphNode> nodes;
      CUresult r = api.cuGraphGetNodes && api.cuGraphNodeGetType
                       ? api.cuGraphGetNodes(captured, nullptr, &count)
                       : CUDA_ERROR_NOT_SUPPORTED;
      if (r == CUDA_SUCCESS) {
        nodes.resize(count);
        r = api.cuGraphGetNodes(captured, nodes.data(), &count);
      }
      *memoryNodes = 0;
      for (size_t i = 0; r == CUDA_SUCCESS && i < count; ++i) {
        CUgraphNodeType type;
        r = api.cuGraphNodeGetType(nodes[i], &type);
        *memoryNodes +=
            r == CUDA_SUCCESS && (type == CU_GRAPH_NODE_TYPE_MEM_ALLOC ||
                                  type == CU_GRAPH_NODE_TYPE_MEM_FREE);
      }
      if (r != CUDA_SUCCESS) {
        api.cuGraphDestroy(captured);
        return r;
      }
    }
    CUgraphExec exec = nullptr;
    const CUresult r = api.cuGraphInstantiateWithFlags(&exec, captured, 0);
    api.cuGraphDestroy(captured);
    if (r == CUDA_SUCCESS)
      *graph = exec;
    return r;
  });
}

sprt_status spperm::runtime_detail::gpuGraphLaunch(void *graph, void *stream) {
  return driverCall("cuGraphLaunch", [&](const DriverApi &api) {
    if (CUresult r = requireGraphs(api); r != CUDA_SUCCESS)
      return r;
    return api.cuGraphLaunch(static_cast<CUgraphExec>(graph),
                             static_cast<CUstream>(stream));
  });
}

void spperm::runtime_detail::gpuGraphDestroy(void *graph) {
  if (graph)
    driverCall("cuGraphExecDestroy", [&](const DriverApi &api) {
      return api.cuGraphExecDestroy(static_cast<CUgraphExec>(graph));
    });
}
