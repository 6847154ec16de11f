//===- spperm-run.cpp - Run a compiled package ------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Loads a package through the runtime's C API (which verifies it), reads the
// dense operand B from a .npy file, computes C = A * B for one layer in the
// original row order, and writes C as a .npy file, atomically: on any error
// nothing is written.
//
//===----------------------------------------------------------------------===//

#include "spperm/Runtime/SpPermRuntime.hpp"
#include "spperm/Sparse/Npy.h"
#include "spperm/Tools/CommandLine.h"

#include <cstdint>
#include <string>
#include <utility>

using namespace spperm;
namespace rt = spperm::runtime;

static const char *const kTool = "spperm-run";

namespace {

/// Reports `message` and returns the tool's failure exit code.
int fail(const std::string &message) {
  reportError(kTool, message);
  return 1;
}

std::string shape(int64_t rows, int64_t cols) {
  return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

} // namespace

int main(int argc, char **argv) {
  std::string packagePath, layerName, deviceName, bPath, outPath;
  bool layerSeen = false, deviceSeen = false, bSeen = false, outSeen = false;

  ArgParser args(
      kTool, "PKG [--layer NAME] --device cpu|gpu --b B.npy --out C.npy",
      "Loads the package PKG (written by spperm-compile), verifies it, and "
      "computes C = A * B for one of its layers, with C's rows in the "
      "original order of the matrix. B is a float32 .npy array of shape "
      "(N, K) for a layer of shape M x N; C is written as a float32 .npy "
      "array of shape (M, K). Nothing is written on error.");
  args.addPositional("PKG", "Package directory", &packagePath);
  args.addOption("layer", "NAME",
                 "The layer to run (needed when the package has several)",
                 &layerName, &layerSeen);
  args.addOption("device", "cpu|gpu",
                 "Where to run: the host executor or the GPU kernels",
                 &deviceName, &deviceSeen);
  args.addOption("b", "B.npy", "The dense operand B, shape (N, K)", &bPath,
                 &bSeen);
  args.addOption("out", "C.npy", "Where to write C, shape (M, K)", &outPath,
                 &outSeen);
  if (std::optional<int> exitCode = args.parse(argc, argv))
    return *exitCode;

  if (!deviceSeen)
    return fail("missing --device cpu|gpu (see --help)");
  sprt_device device;
  if (deviceName == "cpu")
    device = SPRT_DEVICE_CPU;
  else if (deviceName == "gpu")
    device = SPRT_DEVICE_GPU;
  else
    return fail("unknown device '" + deviceName + "' (expected cpu or gpu)");
  if (!bSeen)
    return fail("missing --b B.npy (see --help)");
  if (!outSeen)
    return fail("missing --out C.npy (see --help)");

  rt::Result<rt::Package> loaded = rt::Package::load(packagePath, device);
  if (!loaded)
    return fail(loaded.message());
  rt::Package package = std::move(loaded.value());

  int64_t layer = 0;
  if (layerSeen) {
    rt::Result<int64_t> found = package.findLayer(layerName);
    if (!found)
      return fail(packagePath + ": " + found.message());
    layer = *found;
  } else if (package.layerCount() != 1) {
    std::string names;
    for (int64_t i = 0; i < package.layerCount(); ++i)
      if (rt::Result<sprt_layer_desc> info = package.layerInfo(i))
        names += (i ? ", " : "") + std::string(info->name);
    return fail(packagePath + ": the package has " +
                std::to_string(package.layerCount()) +
                " layers; choose one with --layer NAME (" + names + ")");
  }
  rt::Result<sprt_layer_desc> info = package.layerInfo(layer);
  if (!info)
    return fail(info.message());

  StatusOr<DenseMatrix> b = readNpy(bPath);
  if (!b)
    return fail(b.message());
  const int64_t k = b->cols;
  if (b->rows != info->cols || k < 1)
    return fail(bPath + ": B has shape " + shape(b->rows, b->cols) +
                ", but layer '" + info->name + "' is " +
                std::to_string(info->rows) + " x " +
                std::to_string(info->cols) + ": B must have shape (" +
                std::to_string(info->cols) + ", K) with K >= 1");
  if (info->k != 0 && k != info->k)
    return fail(bPath + ": B has K = " + std::to_string(k) +
                " columns, but "
                "layer '" +
                info->name +
                "' was compiled for K = " + std::to_string(info->k));

  DenseMatrix c;
  c.rows = info->rows;
  c.cols = k;
  int64_t count;
  if (__builtin_mul_overflow(c.rows, c.cols, &count))
    return fail("C of shape " + shape(c.rows, c.cols) + " is too large");
  c.data.resize(static_cast<size_t>(count));
  if (rt::Status s = package.spmm(layer, b->data.data(), k, c.data.data()); !s)
    return fail(s.message());
  if (Status s = writeNpy(outPath, c); !s)
    return fail(s.message());
  return 0;
}
