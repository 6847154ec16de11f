//===- CudaLoading.cpp - Loading a package onto the GPU ---------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// What the GPU backend does at load: the package's module (its cubin when
// the package's target is the device's compute capability, else kernels.ptx
// compiled by the driver's JIT), every generated kernel looked up and checked
// against the parameters its manifest entry lists, the layer arrays the
// kernels take uploaded as stored, and the CSR in the original row order for
// the layers that may run through cuSPARSE.
//
//===----------------------------------------------------------------------===//

#include "CudaBackendImpl.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::runtime_detail;

namespace {

/// `text` on one line: its lines joined with "; ", trailing space dropped.
std::string oneLine(std::string_view text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
      line.remove_suffix(1);
    if (!line.empty())
      out += (out.empty() ? "" : "; ") + std::string(line);
    start = end + 1;
  }
  return out;
}

/// The dynamic shared memory a kernel gets without opting in.
constexpr int64_t kDefaultSharedBytes = 48 * 1024;
/// The size of the JIT's error log buffer.
constexpr size_t kJitLogBytes = 16 * 1024;

} // namespace

sprt_status CudaBackend::uploadCsr(const PackageLayer &layer,
                                   DeviceLayer &device) {
  const CsrMatrix csr = toOriginalCsr(layer.matrix);
  device.csrNnz = csr.nnz();
  SPRT_RETURN_IF_ERROR(device.rowPtr.upload(
      d, csr.rowPtr.data(), csr.rowPtr.size() * sizeof(int32_t)));
  SPRT_RETURN_IF_ERROR(device.colIdx.upload(
      d, csr.colIdx.data(), csr.colIdx.size() * sizeof(int32_t)));
  if (layer.operandType == ValueType::F32) {
    SPRT_RETURN_IF_ERROR(device.values.upload(
        d, csr.values.data(), csr.values.size() * sizeof(float)));
  } else {
    // The library calls take A of B's type: the values in it (already
    // when the layer's values are of its type; rounded for the baselines
    // of a layer of fp32 values, sprt_spmm_time_typed).
    const std::vector<uint16_t> bits =
        narrowArray(csr.values, layer.operandType);
    SPRT_RETURN_IF_ERROR(device.values.upload(
        d, bits.data(), bits.size() * sizeof(uint16_t)));
  }
  device.hasCsr = true;
  return SPRT_OK;
}

sprt_status CudaBackend::loadModule(const Package &package) {
  bool generated = false, transposing = false;
  for (const PackageLayer &layer : package.layers) {
    generated = generated || hasGeneratedKernels(layer);
    transposing = transposing || layer.transposeB.has_value();
  }
  if (!generated && !transposing)
    return SPRT_OK;
  const sprt_status status = loadModuleCode(package);
  // A package of library layers needs its code only for a column-major B:
  // where the code cannot load (a target this GPU cannot run), it runs
  // without it, and a column-major B is refused (acceptsColumnMajor).
  if (status != SPRT_OK && !generated) {
    module = nullptr;
    return SPRT_OK;
  }
  return status;
}

sprt_status CudaBackend::loadModuleCode(const Package &package) {
  // The layer a missing file is reported for.
  const PackageLayer *user = &package.layers.front();
  for (const PackageLayer &layer : package.layers)
    if (hasGeneratedKernels(layer) || layer.transposeB) {
      user = &layer;
      break;
    }
  int major = 0, minor = 0;
  SPRT_CU_RETURN_IF_ERROR(
      d.api,
      d.api.cuDeviceGetAttribute(
          &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d.device));
  SPRT_CU_RETURN_IF_ERROR(
      d.api,
      d.api.cuDeviceGetAttribute(
          &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d.device));
  const std::string deviceArch =
      "sm_" + std::to_string(major) + std::to_string(minor);
  const std::string cubinFile = "kernels." + package.target + ".cubin";
  if (!package.cubin.empty() && targetMatches(package.target, major, minor)) {
    moduleFile = cubinFile;
    if (CUresult r = d.api.cuModuleLoadData(&module, package.cubin.data());
        r != CUDA_SUCCESS)
      return cuFailureIn(d.api, r, "cuModuleLoadData of " + moduleFile,
                         __FILE__, __LINE__);
    return SPRT_OK;
  }
  if (!package.ptx.empty()) {
    moduleFile = "kernels.ptx";
    std::vector<char> log(kJitLogBytes, '\0');
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log.data(), reinterpret_cast<void *>(
                                      static_cast<uintptr_t>(log.size()))};
    if (CUresult r = d.api.cuModuleLoadDataEx(&module, package.ptx.c_str(), 2,
                                              options, values);
        r != CUDA_SUCCESS) {
      log.back() = '\0';
      return cuFailureIn(d.api, r,
                         "cuModuleLoadDataEx (the JIT of kernels.ptx for " +
                             deviceArch + ")",
                         __FILE__, __LINE__, oneLine(log.data()));
    }
    return SPRT_OK;
  }
  if (!package.cubin.empty())
    return failWith(SPRT_ERROR_UNSUPPORTED,
                    "the package's kernels are compiled for " + package.target +
                        " only (" + cubinFile +
                        ", no kernels.ptx), but the GPU is " + deviceArch);
  return failWith(SPRT_ERROR_CORRUPT_PACKAGE,
                  "layer '" + user->name +
                      "' has generated kernels, but the package has no "
                      "kernels.ptx or " +
                      cubinFile);
}

namespace {
/// gpuResidentArrayBytes's count.
std::atomic<uint64_t> residentBytes{0};
} // namespace

uint64_t spperm::runtime_detail::gpuResidentArrayBytes() {
  return residentBytes.load();
}

ResidentArray::~ResidentArray() { residentBytes -= counted; }

sprt_status ResidentArray::upload(const Driver &d, const UploadedArray &from,
                                  ValueType valueType) {
  assert(counted == 0 && "a resident array is uploaded once");
  source = from;
  const LayerBuffer &stored = from.buffer;
  if (!from.twoBytes) {
    SPRT_RETURN_IF_ERROR(buffer.upload(d, stored.data, stored.hostBytes()));
  } else {
    // 16-bit values uploaded in their type, which holds them exactly;
    // column indices narrowed to 16 bits where a kernel takes them so
    // (docs/Package.md, "Narrow column indices": the reader checked that
    // the layer's columns fit, and the format's verifier that every index
    // is below them).
    std::vector<uint16_t> narrow(stored.count);
    if (stored.isHalf()) {
      narrowArray(static_cast<const float *>(stored.data), narrow.size(),
                  valueType, narrow.data());
    } else {
      const auto *indices = static_cast<const int32_t *>(stored.data);
      for (size_t i = 0; i < narrow.size(); ++i)
        narrow[i] = static_cast<uint16_t>(indices[i]);
    }
    SPRT_RETURN_IF_ERROR(
        buffer.upload(d, narrow.data(), narrow.size() * sizeof(uint16_t)));
  }
  counted = from.bytes();
  residentBytes += counted;
  return SPRT_OK;
}

sprt_status CudaBackend::uploadArrays(const PackageLayer &layer,
                                      DeviceLayer &device,
                                      const DeviceLayer &family) {
  if (device.resident)
    return SPRT_OK;
  // Built aside, so that a failed upload leaves the variant holding nothing.
  std::vector<std::shared_ptr<const ResidentArray>> arrays;
  std::map<std::string, DeviceSpan, std::less<>> spans;
  // An array that this variant takes twice, or that a resident variant of
  // the layer holds already, is shared (docs/RuntimeABI.md, "Device
  // memory").
  auto heldAlready = [&](const UploadedArray &wanted) {
    auto same = [&](const std::shared_ptr<const ResidentArray> &array) {
      return sameUpload(array->source, wanted);
    };
    if (auto it = std::find_if(arrays.begin(), arrays.end(), same);
        it != arrays.end())
      return *it;
    for (size_t v = 0; v <= family.alternatives.size(); ++v) {
      const DeviceLayer &sibling = family.variant(v);
      if (&sibling == &device || !sibling.resident)
        continue;
      if (auto it =
              std::find_if(sibling.arrays.begin(), sibling.arrays.end(), same);
          it != sibling.arrays.end())
        return *it;
    }
    return std::shared_ptr<const ResidentArray>();
  };
  for (const UploadedArray &wanted : uploadedArrays(layer)) {
    std::shared_ptr<const ResidentArray> array = heldAlready(wanted);
    if (!array) {
      auto uploaded = std::make_shared<ResidentArray>();
      SPRT_RETURN_IF_ERROR(uploaded->upload(d, wanted, layer.valueType));
      array = std::move(uploaded);
    }
    spans[wanted.name] = {array->buffer.get(),
                          static_cast<int64_t>(wanted.buffer.count)};
    arrays.push_back(std::move(array));
  }
  device.arrays = std::move(arrays);
  device.spans = std::move(spans);
  device.resident = true;
  return SPRT_OK;
}

sprt_status CudaBackend::ensureResident(int64_t index,
                                        const PackageLayer &layer,
                                        size_t which) {
  DeviceLayer &family = layers[index];
  DeviceLayer &device = which == 0 ? family : family.alternatives[which - 1];
  return uploadArrays(layer.variant(which), device, family);
}

void CudaBackend::releaseUnchosen(int64_t index, const PackageLayer &layer) {
  if (keepVariants || layer.alternatives.empty())
    return;
  std::vector<bool> chosen(1 + layer.alternatives.size(), false);
  // The layer's own kernels once a decided bucket fell back on them.
  chosen[0] = layers[index].fallenBackTo;
  for (const auto &[key, decision] : decisions)
    if (std::get<0>(key) == index && decision.library.empty())
      chosen[decision.variant] = true;
  for (const auto &[key, decision] : inPlaceDecisions)
    if (key.first == index && decision.kernel >= 0)
      chosen[decision.variant] = true;
  for (size_t v = 0; v < chosen.size(); ++v) {
    DeviceLayer &device =
        v == 0 ? layers[index] : layers[index].alternatives[v - 1];
    if (chosen[v] || !device.resident)
      continue;
    // The arrays go unless a chosen variant shares them (cuMemFree waits
    // for the device's work that may still read them); the kernels and
    // the CSR for cuSPARSE stay.
    device.arrays.clear();
    device.spans.clear();
    device.resident = false;
  }
}

sprt_status CudaBackend::prepareKernels(const PackageLayer &layer,
                                        DeviceLayer &device,
                                        const DeviceLayer &family) {
  SPRT_RETURN_IF_ERROR(uploadArrays(layer, device, family));
  device.functions.assign(layer.kernels.size(), nullptr);
  for (size_t i = 0; i < layer.kernels.size(); ++i) {
    const KernelInfo &kernel = layer.kernels[i];
    if (!isGenerated(kernel))
      continue;
    // Every argument names an array that is now on the device.
    KernelParams params;
    SPRT_RETURN_IF_ERROR(
        bindKernelParams(layer.name, kernel, device.spans, {}, params));
    SPRT_RETURN_IF_ERROR(lookUpKernel(layer, kernel, device.functions[i]));
  }
  // hbp kernels with competitive blocks that do not take "tickets" keep
  // their counters in the module (packages made before the parameter):
  // their launches are ordered across streams instead.
  bool moduleTickets = false;
  if (layer.matrix.kind == FormatKind::Hbp &&
      !layer.matrix.hbp.competitiveBlocks.empty())
    for (const KernelInfo &kernel : layer.kernels)
      moduleTickets =
          moduleTickets || (isGenerated(kernel) && !takesTickets(kernel));
  if (moduleTickets) {
    device.crossStreamOrder = std::make_unique<CrossStreamOrder>();
    device.crossStreamOrder->d = &d;
    SPRT_CU_RETURN_IF_ERROR(d.api,
                            d.api.cuEventCreate(&device.crossStreamOrder->event,
                                                CU_EVENT_DISABLE_TIMING));
  }
  return SPRT_OK;
}

sprt_status CudaBackend::lookUpInPlaceKernels(const PackageLayer &layer,
                                              DeviceLayer &device) {
  device.inPlace.assign(layer.inPlaceB.size(), nullptr);
  if (layer.inPlaceB.empty())
    return SPRT_OK;
  int optIn = 0;
  SPRT_CU_RETURN_IF_ERROR(
      d.api, d.api.cuDeviceGetAttribute(
                 &optIn, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                 d.device));
  for (size_t i = 0; i < layer.inPlaceB.size(); ++i) {
    const KernelInfo &kernel = layer.inPlaceB[i];
    if (kernel.sharedBytes > std::max<int64_t>(optIn, kDefaultSharedBytes))
      continue;
    SPRT_RETURN_IF_ERROR(lookUpKernel(layer, kernel, device.inPlace[i]));
  }
  return SPRT_OK;
}

sprt_status CudaBackend::lookUpKernel(const PackageLayer &layer,
                                      const KernelInfo &kernel,
                                      CUfunction &out) {
  const std::string where =
      "layer '" + layer.name + "': kernel '" + kernel.name + "'";
  CUfunction function = nullptr;
  CUresult r =
      d.api.cuModuleGetFunction(&function, module, kernel.name.c_str());
  if (r == CUDA_ERROR_NOT_FOUND)
    return failWith(SPRT_ERROR_CORRUPT_PACKAGE,
                    where + " (variant '" + kernel.variant + "') is not in " +
                        moduleFile);
  if (r != CUDA_SUCCESS)
    return cuFailureIn(d.api, r, "cuModuleGetFunction for " + where, __FILE__,
                       __LINE__);
  SPRT_RETURN_IF_ERROR(checkParams(function, kernel, where));
  if (kernel.sharedBytes > kDefaultSharedBytes) {
    int optIn = 0;
    SPRT_CU_RETURN_IF_ERROR(
        d.api,
        d.api.cuDeviceGetAttribute(
            &optIn, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            d.device));
    if (kernel.sharedBytes > optIn)
      return failWith(SPRT_ERROR_UNSUPPORTED,
                      where + " needs " + std::to_string(kernel.sharedBytes) +
                          " bytes of shared memory; this GPU allows " +
                          std::to_string(optIn) + " per block");
    SPRT_CU_RETURN_IF_ERROR(
        d.api, d.api.cuFuncSetAttribute(
                   function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                   static_cast<int>(kernel.sharedBytes)));
  }
  out = function;
  return SPRT_OK;
}

sprt_status CudaBackend::checkParams(CUfunction function,
                                     const KernelInfo &kernel,
                                     const std::string &where) {
  if (!d.api.cuFuncGetParamInfo)
    return SPRT_OK;
  const size_t want = paramCount(kernel.args);
  size_t count = 0;
  std::string wrongSize;
  // Only parameters 0 .. want-1 are asked about: a probe past the last one
  // is an API error that tools such as compute-sanitizer report. (A kernel
  // with more parameters than its args make is therefore not caught.)
  for (; count < want; ++count) {
    size_t offset = 0, size = 0;
    CUresult r = d.api.cuFuncGetParamInfo(function, count, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE)
      break;
    if (r != CUDA_SUCCESS)
      return SPRT_OK; // The driver cannot tell for this function.
    if ((size != 8 || offset != 8 * count) && wrongSize.empty())
      wrongSize = "parameter " + std::to_string(count) + " has " +
                  std::to_string(size) + " bytes at offset " +
                  std::to_string(offset);
  }
  // No parameter at all is what a driver that cannot tell may answer too;
  // every kernel takes at least C.
  if ((count == want && wrongSize.empty()) || count == 0)
    return SPRT_OK;
  std::string found = wrongSize;
  if (count != want)
    found = "it takes " + std::to_string(count) + " parameters";
  return failWith(SPRT_ERROR_CORRUPT_PACKAGE,
                  where + " does not take the parameters its args make (" +
                      std::to_string(want) +
                      " of 8 bytes: 5 per array, 1 for K): " + found);
}
