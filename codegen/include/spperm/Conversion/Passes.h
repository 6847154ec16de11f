//===- Passes.h - spperm conversion passes ----------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_CONVERSION_PASSES_H
#define SPPERM_CONVERSION_PASSES_H

#include "spperm/Conversion/SpPermToGPU.h"
#include "spperm/Dialect/SpPerm/IR/SpPerm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace spperm {

#define GEN_PASS_DECL
#include "spperm/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "spperm/Conversion/Passes.h.inc"

} // namespace spperm
} // namespace mlir

#endif // SPPERM_CONVERSION_PASSES_H
