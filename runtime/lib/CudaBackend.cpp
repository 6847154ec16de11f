//===- CudaBackend.cpp - The GPU backend of the runtime ---------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The GPU backend, after IREE's CUDA driver (docs/STYLE.md section 4):
//
//  * Nothing CUDA is linked. libcuda.so.1 and libcusparse are opened with
//    dlopen at the first GPU use, and every entry point listed in
//    CudaSymbols.def is looked up with dlsym into a table of function
//    pointers typed from cuda.h / cusparse.h. A missing library, symbol or
//    device is an SPRT_ERROR_DEVICE with one line saying which, never a
//    crash; the outcome is kept, so later calls report the same.
//  * Every driver and cuSPARSE call is checked; a failure becomes a status
//    whose message names the error, the call and its file:line.
//  * One device (SPPERM_CUDA_DEVICE, default 0) and its primary context,
//    retained once for the life of the process and pushed around every
//    entry (ScopedContext) so that the caller's current context is left
//    alone.
//
// Two ways to run a layer, chosen per K (chooseLaunch, KernelLaunch.h):
//
//  * Generated kernels. At load, the package's module is loaded once (its
//    cubin when the package's target is the device's compute capability,
//    else kernels.ptx compiled by the driver's JIT), every kernel of every
//    layer is looked up and checked against the parameters its manifest
//    entry lists, and the layer arrays the kernels take are uploaded as
//    stored (permuted, in the layer's format). A call clears C when the
//    variant asks for it and enqueues the variant's kernels in manifest
//    order, each array passed as a 1-D memref descriptor (docs/RuntimeABI.md,
//    "Generated kernels"). The kernels write C in the original row order.
//  * cuSPARSE, for layers without kernels and the "cusparse" variant. The
//    layer is uploaded as the CSR of its matrix in the ORIGINAL row order
//    (toOriginalCsr), so cuSPARSE writes C in the original order and no
//    un-permutation step is needed. This is also the baseline the generated
//    kernels are compared with (sprt_spmm_time), for which a layer that
//    never runs through cuSPARSE gets its CSR uploaded at the first
//    baseline call. The first call for a (layer, K bucket), whatever its
//    stream, takes the tuning cache's choice (TuningCache.h) or builds a
//    Plan per candidate cuSPARSE algorithm (descriptors, workspace,
//    preprocessing), times each briefly, keeps the fastest and stores it in
//    the cache; every stream then runs that choice, its Plan prepared once
//    per (K, stream) without timing: later calls only rebind B and C and
//    enqueue.
//
// The backend's files, by concern: CudaLibraries (dlopen tables), CudaStatus
// (error mapping), CudaResources (contexts, device memory, layers),
// CusparsePlan (cuSPARSE plans), CudaTiming (timed runs), CudaLoading (the
// module and the layers' arrays), CudaLaunch (launching a layer),
// CudaDecisions (the choices made at a layer's first call), TuningCache (the
// file that keeps them across processes), CudaDevice (the C API's device
// helpers). This file: the Backend calls and createCudaBackend.
//
//===----------------------------------------------------------------------===//

#include "CudaBackendImpl.h"
#include "CudaTiming.h"

#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

using namespace spperm;
using namespace spperm::runtime_detail;

CudaBackend::~CudaBackend() {
  ScopedContext context(d);
  RelaxedCaptureMode relaxed(d.api);
  decisions.clear();
  libraryPlans.clear();
  tickets.clear();
  accumulators.clear();
  rowMajorBs.clear();
  layers.clear();
  if (module)
    d.api.cuModuleUnload(module);
  denseMatrices.clear();
  if (handle)
    sp.api.cusparseDestroy(handle);
}

sprt_status CudaBackend::init(const Package &package) {
  SPRT_SCOPED_CONTEXT(d);
  RelaxedCaptureMode relaxed(d.api);
  SPRT_RETURN_IF_ERROR(denseBudget(denseBudgetBytes));
  if (const char *keep = std::getenv("SPRT_KEEP_VARIANTS");
      keep && *keep && std::string_view(keep) != "0") {
    if (std::string_view(keep) != "1")
      return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                      "SPRT_KEEP_VARIANTS must be 0 or 1, got '" +
                          std::string(keep) + "'");
    keepVariants = true;
  }
  SPRT_RETURN_IF_ERROR(inPlaceModeFromEnvironment(inPlaceMode));
  SPRT_CUSPARSE_RETURN_IF_ERROR(sp.api, sp.api.cusparseCreate(&handle));
  // The tuning cache's keys name the GPU; where it cannot be told, the
  // backend times at every first call, as without a cache.
  std::string cachePath = tuningCachePathFromEnvironment();
  sprt_device_props props;
  const std::string savedError = sprt_last_error();
  if (!cachePath.empty() && gpuProperties(props) != SPRT_OK) {
    failWith(SPRT_OK, savedError);
    cachePath.clear();
  }
  tuning = std::make_unique<TuningCache>(std::move(cachePath));
  if (tuning->enabled()) {
    tuningBase.package = package.manifestSha256;
    tuningBase.gpu = props.name;
    tuningBase.computeCapability =
        10 * props.compute_major + props.compute_minor;
    tuningBase.driverVersion = props.driver_version;
    tuningBase.cusparseVersion = sp.version;
    tuningBase.abiVersion = SPRT_ABI_VERSION;
  }
  SPRT_RETURN_IF_ERROR(loadModule(package));
  layers.resize(package.layers.size());
  for (size_t i = 0; i < package.layers.size(); ++i) {
    const PackageLayer &layer = package.layers[i];
    DeviceLayer &device = layers[i];
    device.rows = layer.matrix.rows;
    device.cols = layer.matrix.cols;
    device.nnz = layer.matrix.nnz;
    device.operandType = layer.operandType;
    device.valueType = layer.valueType;
    if (mayRunLibrary(layer))
      SPRT_RETURN_IF_ERROR(uploadCsr(layer, device));
    if (hasGeneratedKernels(layer))
      SPRT_RETURN_IF_ERROR(prepareKernels(layer, device, device));
    if (layer.transposeB && module)
      SPRT_RETURN_IF_ERROR(
          lookUpKernel(layer, *layer.transposeB, device.transposeB));
    for (const PackageLayer &alternative : layer.alternatives) {
      DeviceLayer &alt = device.alternatives.emplace_back();
      alt.rows = device.rows;
      alt.cols = device.cols;
      alt.nnz = device.nnz;
      // Its B and C are the layer's (C's clear is sized by their type).
      alt.operandType = device.operandType;
      alt.valueType = device.valueType;
      SPRT_RETURN_IF_ERROR(prepareKernels(alternative, alt, device));
    }
    if (module)
      for (size_t v = 0; v <= layer.alternatives.size(); ++v)
        SPRT_RETURN_IF_ERROR(lookUpInPlaceKernels(
            layer.variant(v), v == 0 ? device : device.alternatives[v - 1]));
  }
  return SPRT_OK;
}

sprt_status CudaBackend::spmm(int64_t index, const PackageLayer &layer,
                              const void *b, int64_t k, void *c,
                              void *stream) {
  std::lock_guard<std::mutex> lock(mutex);
  SPRT_SCOPED_CONTEXT(d);
  RelaxedCaptureMode relaxed(d.api);
  std::function<sprt_status()> launch;
  SPRT_RETURN_IF_ERROR(packageLaunch(index, layer, b, k, c,
                                     static_cast<CUstream>(stream), launch));
  return launch();
}

sprt_status CudaBackend::accepts(int64_t /*index*/, const PackageLayer &layer,
                                 int64_t k) {
  LaunchChoice choice;
  return chooseLaunch(layer, k, choice);
}

sprt_status CudaBackend::time(const char *what, int64_t index,
                              const PackageLayer &layer,
                              const std::string &variant, const void *b,
                              int64_t k, void *c, void *streamArg,
                              int32_t warmup, int32_t runs, float *timesMs) {
  std::lock_guard<std::mutex> lock(mutex);
  SPRT_SCOPED_CONTEXT(d);
  RelaxedCaptureMode relaxed(d.api);
  auto stream = static_cast<CUstream>(streamArg);
  std::function<sprt_status()> launch;
  std::unique_ptr<LibraryPlan> baseline;
  if (variant == "spperm") {
    SPRT_RETURN_IF_ERROR(packageLaunch(index, layer, b, k, c, stream, launch));
  } else if (std::optional<size_t> which = parseVariantIndex(variant)) {
    // One of the layer's variants (0: the layer's own, n: its
    // alternative n), its generated kernels as they are: no check.
    if (*which > layer.alternatives.size())
      return failWith(
          SPRT_ERROR_UNSUPPORTED,
          "layer '" + layer.name + "' has no variant " + variant + " (it has " +
              std::to_string(layer.alternatives.size()) + " alternatives)");
    SPRT_RETURN_IF_ERROR(ensureResident(index, layer, *which));
    SPRT_RETURN_IF_ERROR(
        variantLaunch(index, layer, *which, b, k, c, stream, launch));
  } else {
    // A library call on its own (a cuSPARSE algorithm or the dense
    // candidate): the benchmark's baselines.
    const Algorithm *algorithm = findAlgorithm(variant);
    const char *dense = denseVariantOf(layer.operandType);
    // "cublas-gemmex", the 16-bit dense baseline's name in ABI 1's first
    // 16-bit runtime, names cublaslt-gemm.
    const std::string name =
        variant == "cublas-gemmex" && layer.operandType != ValueType::F32
            ? std::string(dense)
            : variant;
    if (!algorithm && name != dense) {
      std::string names = "spperm";
      for (const Algorithm &a : kAlgorithms)
        names += std::string(", ") + a.variant;
      names += std::string(", ") + dense;
      return failWith(SPRT_ERROR_UNSUPPORTED,
                      std::string(what) + ": unknown variant '" + variant +
                          "' (known: " + names + ", spperm:N)");
    }
    if (algorithm && algorithm->spmv && k != 1)
      return failWith(SPRT_ERROR_UNSUPPORTED,
                      name + " needs k = 1, got " + std::to_string(k));
    DeviceLayer &device = layers[index];
    if (device.rows == 0 || device.nnz == 0) {
      launch = trivialLaunch(device, k, c, stream);
    } else {
      if (!device.hasCsr)
        SPRT_RETURN_IF_ERROR(uploadCsr(layer, device));
      SPRT_RETURN_IF_ERROR(
          libraryPlan(device, name, b, k, c, stream, baseline));
      LibraryPlan *plan = baseline.get();
      launch = [plan, b, c] { return plan->run(b, c); };
    }
  }
  return timeLaunches(d, stream, warmup, runs, timesMs, launch);
}

const Algorithm *CudaBackend::findAlgorithm(const std::string &variant) {
  for (const Algorithm &a : kAlgorithms)
    if (variant == a.variant)
      return &a;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

sprt_status spperm::runtime_detail::createCudaBackend(
    const Package &package, std::unique_ptr<Backend> &out) {
  const Driver *d = nullptr;
  const Cusparse *sp = nullptr;
  SPRT_RETURN_IF_ERROR(requireDriver(d));
  SPRT_RETURN_IF_ERROR(requireCusparse(sp));
  auto backend = std::make_unique<CudaBackend>(*d, *sp);
  SPRT_RETURN_IF_ERROR(backend->init(package));
  out = std::move(backend);
  return SPRT_OK;
}
