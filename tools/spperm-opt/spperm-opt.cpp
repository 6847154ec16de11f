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

#include "spperm/Conversion/Passes.h"
#include "spperm/Conversion/Pipeline.h"
#include "spperm/Conversion/SpPermToGPU.h"
#include "spperm/Dialect/SpPerm/IR/SpPerm.h"
#include "spperm/Sparse/Interrupt.h"
#include "spperm/Tools/MlirNesting.h"
#include "spperm/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

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

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "spperm optimizer driver\n", registry);
  // An exhausted memory (a matrix file that declares billions of rows, an
  // endless input such as /dev/zero) ends the tool with one line, as the
  // other tools do, instead of LLVM's crash report
  // (spperm/Sparse/Interrupt.h). MLIR's driver, and the input's reading
  // below, route a failed allocation to LLVM's bad-alloc handler.
  ::spperm::installOutOfMemoryExit("spperm-opt");
  // Capped at the memory available, so that a module too large for the
  // machine ends in that one line, not in the kernel's out-of-memory killer.
  if (::spperm::Status s = ::spperm::limitMemoryToAvailable(); !s) {
    llvm::errs() << "spperm-opt: error: " << s.message() << "\n";
    return 1;
  }
  ::spperm::setOutOfMemoryFile(inputFilename);
  llvm::install_bad_alloc_error_handler(
      [](void *, const char *, bool) { ::spperm::exitOutOfMemory(); });
  // So are LLVM's other fatal errors (a thread that cannot be started).
  llvm::install_fatal_error_handler([](void *, const char *reason, bool) {
    ::spperm::exitFatalError(reason);
  });
  // Those ends, and a crash under the memory cap, remove the output files
  // LLVM was told of (a partial -o) as its own signal handlers do.
  ::spperm::setExitHook(llvm::sys::RunInterruptHandlers);
  // MLIR's parser has no depth limit: text nested thousands of levels deep
  // (or long affine operator chains) would overflow the stack. The input (a
  // file or standard input) is read once, here, measured, and handed to
  // MLIR's driver. --show-dialects and --list-passes read no input.
  if (mlir::MlirOptMainConfig config =
          mlir::MlirOptMainConfig::createFromCLOptions();
      !config.shouldShowDialects() && !config.shouldListPasses()) {
    std::string error;
    std::unique_ptr<llvm::MemoryBuffer> input =
        mlir::openInputFile(inputFilename, &error);
    if (!input) {
      llvm::errs() << "spperm-opt: error: " << error << "\n";
      return 1;
    }
    if (std::string nesting = spperm::checkMlirNesting(
            input->getBuffer(),
            inputFilename == "-" ? std::string("<stdin>") : inputFilename);
        !nesting.empty()) {
      llvm::errs() << "spperm-opt: error: " << nesting << "\n";
      return 1;
    }
    std::unique_ptr<llvm::ToolOutputFile> output =
        mlir::openOutputFile(outputFilename, &error);
    if (!output) {
      llvm::errs() << "spperm-opt: error: " << error << "\n";
      return 1;
    }
    if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry,
                                       config)))
      return 1;
    output->keep();
    return 0;
  }
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, inputFilename, outputFilename, registry));
}
