//===- KernelLaunch.h - Choosing and binding generated kernels --*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the runtime library. The host-side half of launching a layer's
// generated kernels, kept free of CUDA so that it is tested everywhere:
//
//  * chooseLaunch: which kernels run a layer for a K (the first variant in
//    manifest order all of whose kernels accept K, firstKernelForK;
//    cuSPARSE when the layer has no kernels or that variant is
//    "cusparse").
//  * KernelParams / bindKernelParams: a kernel's parameters as
//    cuLaunchKernel takes them, in the ABI of MLIR's default memref lowering
//    (each array a 1-D memref descriptor of five values; docs/RuntimeABI.md,
//    "Generated kernels").
//  * targetMatches: whether a package's target ("sm_90") names the device's
//    compute capability, i.e. whether its cubin can be loaded as is.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_RUNTIME_LIB_KERNELLAUNCH_H
#define SPPERM_RUNTIME_LIB_KERNELLAUNCH_H

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Sparse/Package.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace spperm::runtime_detail {

/// The variant name of the layers (or K ranges) that run through cuSPARSE.
inline constexpr std::string_view kCusparseVariant = kCusparse;

/// Whether `kernel` is a launch of a generated kernel (not the cuSPARSE
/// marker).
inline bool isGenerated(const KernelInfo &kernel) {
  return isGeneratedKernel(kernel);
}

/// The alignment in bytes that B and C need on the GPU for K, with elements
/// of `elementBytes`: the generated kernels move 4 elements at a time when
/// K is a multiple of 4 (16-byte fp32 vectors, 8-byte 16-bit ones) and 8
/// 16-bit elements (16 bytes) when it is a multiple of 8; one otherwise.
/// sprt_spmm and sprt_spmm_typed refuse less aligned operands, and the
/// library plans are chosen for no more than this.
inline int64_t gpuOperandAlignment(int64_t elementBytes, int64_t k) {
  const int64_t vector = elementBytes == 2 && k % 8 == 0 ? 8
                         : k % 4 == 0                    ? 4
                                                         : 1;
  return vector * elementBytes;
}

/// Whether cuSPARSE computes the product of a layer whose B and C are of
/// `operandType` and whose values are of `valueType` as the package
/// defines it, with some algorithm (cusparseRoundsOnce): when the values
/// are of B's type (cuSPARSE takes A and B of one type). A 16-bit layer of
/// fp32 values would be multiplied with its values rounded: a baseline
/// only.
inline bool cusparseComputes(ValueType operandType, ValueType valueType) {
  return operandType == valueType;
}

/// Whether cuSPARSE algorithm `variant` (a name sprt_spmm_time knows)
/// rounds each element of a C of `operandType` once from its fp32 sum, as
/// the generated kernels do, so that it may run a layer of that type: every
/// fp32 call; of f16 and bf16, SpMV and CSR_ALG3 but not the default SpMM
/// or CSR_ALG2. In bf16 those returned exact integer sums that bf16 holds 1
/// to 5 off, a different set in each run, on the H100 and H200 (cuSPARSE
/// 12.6; GpuTypedTest.CusparseRoundsOnce); in f16 the default SpMM left
/// 106,000 elements of a SuiteSparse matrix at K = 512 outside the bound of
/// one rounding, a different count in each run (docs/RuntimeABI.md,
/// "Element types"). The others stay baselines.
inline bool cusparseRoundsOnce(std::string_view variant,
                               ValueType operandType) {
  if (operandType == ValueType::F32)
    return true;
  return variant.substr(0, 13) == "cusparse-spmv" ||
         variant == "cusparse-spmm-csr-alg3";
}

/// Whether the dense candidate (DensePlan.h) computes the product of a
/// layer with B and C of `operandType` and values of `valueType`: when the
/// values are of B's type (fp32 SGEMM; for 16-bit layers cuBLASLt with its
/// partial sums in fp32, C rounded once). A 16-bit layer of fp32 values
/// would be multiplied with its values rounded: a baseline only.
inline bool denseComputes(ValueType operandType, ValueType valueType) {
  return operandType == valueType;
}

/// Whether some K may run `layer` through a library call, which reads the
/// layer's CSR on the device: cuSPARSE for a layer it computes
/// (cusparseComputes) that has no kernels or one of whose kernels is
/// of the "cusparse" variant; cuSPARSE or the dense candidate for a layer
/// that asks for the library check and that one of them computes.
bool mayRunLibrary(const PackageLayer &layer);

/// How a layer runs for one K.
struct LaunchChoice {
  /// Through cuSPARSE (no kernels, or the variant chosen is "cusparse").
  bool cusparse = false;
  /// The variant chosen ("" when the layer has no kernels).
  std::string variant;
  /// The kernels of that variant, as indices into the layer's kernels, in
  /// manifest order: the launches, in the order they are enqueued.
  std::vector<size_t> kernels;
  /// Whether C is cleared before the first launch (some kernel of the
  /// variant that writes C has zeroOutput).
  bool zeroOutput = false;
  /// Whether the fp32 accumulator is cleared before the first launch (some
  /// kernel of the variant that writes it has zeroOutput).
  bool zeroAccumulator = false;
};

/// Chooses how `layer` runs for `k`: the variant of the first kernel in
/// manifest order that accepts `k` and all of whose variant's kernels
/// accept it too (firstKernelForK), and every kernel of that variant. A
/// layer without kernels runs through cuSPARSE. When the layer has kernels
/// but no variant accepts `k`, records the reason and returns
/// SPRT_ERROR_UNSUPPORTED.
sprt_status chooseLaunch(const PackageLayer &layer, int64_t k,
                         LaunchChoice &out);

/// A device array as a kernel parameter sees it.
struct DeviceSpan {
  /// The device address (NULL for an empty array; kernels never read it).
  const void *data = nullptr;
  /// The number of elements.
  int64_t count = 0;
};

/// The parameters of one kernel launch: values of 8 bytes each (pointers and
/// 64-bit integers), and the array of pointers to them that cuLaunchKernel
/// takes as `kernelParams`.
class KernelParams {
public:
  /// Appends a 1-D memref descriptor over `span`: five parameters, the
  /// allocated pointer, the aligned pointer (both span.data), the offset (0),
  /// the size (span.count) and the stride (1).
  void addMemref(DeviceSpan span);
  /// Appends one 64-bit integer parameter.
  void addInt64(int64_t value);

  /// The number of parameters.
  size_t size() const { return slots.size(); }
  /// Parameter `i` as an integer (a pointer as its address), for tests.
  int64_t value(size_t i) const;
  /// One pointer per parameter, to its value: cuLaunchKernel's
  /// `kernelParams`. Valid until this object is changed, moved or destroyed.
  void **pointers();

private:
  union Slot {
    const void *pointer;
    int64_t integer;
  };
  std::vector<Slot> slots;
  std::vector<void *> pointerArray;
};

/// The number of parameters a kernel taking `args` has (5 per array, 1 for
/// "K").
size_t paramCount(const std::vector<std::string> &args);

/// What a launch binds besides the layer's arrays.
struct LaunchOperands {
  DeviceSpan b;
  DeviceSpan c;
  int64_t k = 0;
  /// The call's stream's ticket counters (call_arg::kTickets): two 32-bit
  /// integers, for the kernels that take them.
  DeviceSpan tickets;
  /// The call's stream's fp32 accumulator (call_arg::kAccumulator): rows x K
  /// floats, for the kernels of 16-bit layers that take it.
  DeviceSpan accumulator;
};

/// Whether `kernel` takes the runtime's ticket counters (call_arg::kTickets).
bool takesTickets(const KernelInfo &kernel);

/// Whether `kernel` takes the runtime's fp32 accumulator
/// (call_arg::kAccumulator).
bool takesAccumulator(const KernelInfo &kernel);

/// Whether `kernel` writes the accumulator rather than C: it takes the
/// accumulator and not C. Its zero_output clears the accumulator, not C,
/// before the variant runs.
bool writesAccumulator(const KernelInfo &kernel);

/// Sets `out` to the parameters of `kernel` of layer `layerName`, in the
/// order of its args: a layer array from `arrays` (by name), "B" (or an
/// in-place kernel's "B_col", the same operand read column-major), "C",
/// call_arg::kTickets or call_arg::kAccumulator from `operands` (each a
/// memref descriptor), "K" as a 64-bit integer. An array that `arrays`
/// lacks is SPRT_ERROR_CORRUPT_PACKAGE naming it.
sprt_status
bindKernelParams(const std::string &layerName, const KernelInfo &kernel,
                 const std::map<std::string, DeviceSpan, std::less<>> &arrays,
                 const LaunchOperands &operands, KernelParams &out);

/// Whether `target` (an architecture name such as "sm_90" or "sm_90a")
/// names compute capability major.minor: "sm_", the major digits, one minor
/// digit, and optionally one lowercase letter.
bool targetMatches(std::string_view target, int major, int minor);

} // namespace spperm::runtime_detail

#endif // SPPERM_RUNTIME_LIB_KERNELLAUNCH_H
