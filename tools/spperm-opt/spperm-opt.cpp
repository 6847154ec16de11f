//===- spperm-opt.cpp - spperm optimizer driver -----------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// An mlir-opt-style driver: the spperm dialect and passes, plus the upstream
// dialects and passes the spperm pipeline lowers through (func, arith,
// tensor, memref, scf, vector, gpu, nvgpu, nvvm, llvm, ...).
//
//===----------------------------------------------------------------------===//

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"
#include "spperm/Conversion/Passes.h"
#include "spperm/Conversion/SpPermToGPU.h"
#include "spperm/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::spperm::registerSpPermPasses();
  mlir::spperm::registerSpPermConversionPasses();
  mlir::spperm::registerSpPermPipeline();

  mlir::DialectRegistry registry;
  registry.insert<mlir::spperm::SpPermDialect>();
  // The upstream dialects the lowering produces and consumes, with their
  // interface extensions (e.g. NVVM's target attribute for
  // gpu-module-to-binary).
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates the kernels to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "spperm optimizer driver\n", registry));
}
