//===- KernelLaunch.cpp - Choosing and binding generated kernels ----------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "KernelLaunch.h"

#include "Backend.h"

#include "spperm/Sparse/Names.h"

#include <algorithm>

using namespace spperm;
using namespace spperm::runtime_detail;

bool spperm::runtime_detail::mayRunLibrary(const PackageLayer &layer) {
  const bool cusparse = cusparseComputes(layer.operandType, layer.valueType);
  if (layer.libraryCheck &&
      (cusparse || denseComputes(layer.operandType, layer.valueType)))
    return true;
  if (!cusparse)
    return false;
  if (layer.kernels.empty())
    return true;
  for (const KernelInfo &kernel : layer.kernels)
    if (!isGenerated(kernel))
      return true;
  return false;
}

namespace {

/// The K condition of `kernel` in words, e.g. "4 <= K <= 64, K % 4 == 0".
std::string describeK(const KernelInfo &kernel) {
  std::string text = std::to_string(kernel.kMin) + " <= K";
  if (kernel.kMax != 0)
    text += " <= " + std::to_string(kernel.kMax);
  if (kernel.kAlign > 1)
    text += ", K % " + std::to_string(kernel.kAlign) + " == 0";
  const int64_t reach = kernel.gridReachK();
  if (reach != INT64_MAX && (kernel.kMax == 0 || reach < kernel.kMax))
    text += ", K <= " + std::to_string(reach) + " (its grid's reach)";
  return text;
}

/// `choice` (a cuSPARSE call) for `layer`, which cuSPARSE must compute
/// (cusparseComputes).
sprt_status libraryChoice(const PackageLayer &layer, LaunchChoice choice,
                          LaunchChoice &out) {
  if (!cusparseComputes(layer.operandType, layer.valueType))
    return failWith(SPRT_ERROR_UNSUPPORTED,
                    "layer '" + layer.name + "' takes " +
                        std::string(valueTypeName(layer.operandType)) +
                        " B and C with " +
                        std::string(valueTypeName(layer.valueType)) +
                        " values and runs cuSPARSE for this K, which "
                        "multiplies A and B of one type (compile it with "
                        "spperm-compile --dtype: generated kernels for every "
                        "K)");
  out = std::move(choice);
  return SPRT_OK;
}

} // namespace

sprt_status spperm::runtime_detail::chooseLaunch(const PackageLayer &layer,
                                                 int64_t k, LaunchChoice &out) {
  LaunchChoice choice;
  if (layer.kernels.empty()) {
    choice.cusparse = true;
    return libraryChoice(layer, std::move(choice), out);
  }
  // A variant launched at a K one of its kernels refuses (a grid that
  // cannot reach it, another producer's K conditions) would leave C partly
  // unwritten: firstKernelForK takes only variants all of whose kernels
  // accept K.
  const KernelInfo *first = firstKernelForK(layer.kernels, k);
  if (!first) {
    std::string variants;
    for (const KernelInfo &kernel : layer.kernels)
      variants += (variants.empty() ? "" : "; ") + kernel.variant + " (" +
                  kernel.name + ": " + describeK(kernel) + ")";
    return failWith(SPRT_ERROR_UNSUPPORTED,
                    "layer '" + layer.name +
                        "': no generated kernel accepts K = " +
                        std::to_string(k) + " (the kernels: " + variants + ")");
  }
  choice.variant = first->variant;
  choice.cusparse = !isGenerated(*first);
  if (choice.cusparse)
    return libraryChoice(layer, std::move(choice), out);
  if (!choice.cusparse)
    for (size_t i = 0; i < layer.kernels.size(); ++i)
      if (layer.kernels[i].variant == choice.variant) {
        choice.kernels.push_back(i);
        const KernelInfo &kernel = layer.kernels[i];
        // zero_output clears what the kernel writes.
        (writesAccumulator(kernel) ? choice.zeroAccumulator
                                   : choice.zeroOutput) |= kernel.zeroOutput;
      }
  out = std::move(choice);
  return SPRT_OK;
}

void KernelParams::addMemref(DeviceSpan span) {
  Slot allocated, aligned;
  allocated.pointer = span.data;
  aligned.pointer = span.data;
  slots.push_back(allocated);
  slots.push_back(aligned);
  addInt64(0);
  addInt64(span.count);
  addInt64(1);
}

void KernelParams::addInt64(int64_t value) {
  Slot slot;
  slot.integer = value;
  slots.push_back(slot);
}

int64_t KernelParams::value(size_t i) const { return slots[i].integer; }

void **KernelParams::pointers() {
  pointerArray.resize(slots.size());
  for (size_t i = 0; i < slots.size(); ++i)
    pointerArray[i] = &slots[i];
  return pointerArray.data();
}

size_t
spperm::runtime_detail::paramCount(const std::vector<std::string> &args) {
  size_t count = 0;
  for (const std::string &arg : args)
    count += arg == call_arg::kK ? 1 : 5;
  return count;
}

sprt_status spperm::runtime_detail::bindKernelParams(
    const std::string &layerName, const KernelInfo &kernel,
    const std::map<std::string, DeviceSpan, std::less<>> &arrays,
    const LaunchOperands &operands, KernelParams &out) {
  KernelParams params;
  for (const std::string &arg : kernel.args) {
    if (arg == call_arg::kK) {
      params.addInt64(operands.k);
    } else if (arg == call_arg::kB || arg == call_arg::kBColumnMajor) {
      // An in-place kernel's B_col is the call's B, column-major.
      params.addMemref(operands.b);
    } else if (arg == call_arg::kC) {
      params.addMemref(operands.c);
    } else if (arg == call_arg::kTickets) {
      params.addMemref(operands.tickets);
    } else if (arg == call_arg::kAccumulator) {
      params.addMemref(operands.accumulator);
    } else if (auto it = arrays.find(arg); it != arrays.end()) {
      params.addMemref(it->second);
    } else {
      return failWith(SPRT_ERROR_CORRUPT_PACKAGE,
                      "layer '" + layerName + "': kernel '" + kernel.name +
                          "' takes '" + arg +
                          "', which is not an array of the layer");
    }
  }
  out = std::move(params);
  return SPRT_OK;
}

bool spperm::runtime_detail::takesTickets(const KernelInfo &kernel) {
  return std::find(kernel.args.begin(), kernel.args.end(),
                   call_arg::kTickets) !=
         kernel.args.end();
}

bool spperm::runtime_detail::takesAccumulator(const KernelInfo &kernel) {
  return std::find(kernel.args.begin(), kernel.args.end(),
                   call_arg::kAccumulator) != kernel.args.end();
}

bool spperm::runtime_detail::writesAccumulator(const KernelInfo &kernel) {
  return takesAccumulator(kernel) &&
         std::find(kernel.args.begin(), kernel.args.end(), call_arg::kC) ==
             kernel.args.end();
}

bool spperm::runtime_detail::targetMatches(std::string_view target, int major,
                                           int minor) {
  unsigned version = architectureVersion(target);
  return version != 0 && major >= 0 && minor >= 0 && minor <= 9 &&
         version == static_cast<unsigned>(10 * major + minor);
}
