//===- Binary.cpp - From gpu.module to PTX and cubin ----------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Conversion/SpPermToGPU.h"

#include "spperm/Sparse/Interrupt.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::spperm;

/// XY of `sm_XY` or `sm_XYa`; 0 for anything else.
static unsigned smVersion(StringRef chip) {
  unsigned version = 0;
  if (!chip.consume_front("sm_"))
    return 0;
  chip.consume_back("a");
  return chip.getAsInteger(10, version) ? 0 : version;
}

bool mlir::spperm::isKnownTarget(StringRef chip) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTargetMC();
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target || !chip.starts_with("sm_"))
    return false;
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(triple, /*CPU=*/"", /*Features=*/""));
  return info && info->isCPUStringValid(chip);
}

bool mlir::spperm::targetHasVectorReductions(StringRef chip) {
  return smVersion(chip) >= 90;
}

bool mlir::spperm::targetHasGridDependencies(StringRef chip) {
  return smVersion(chip) >= 90;
}

void mlir::spperm::buildGpuToBinaryPipeline(OpPassManager &pm, StringRef chip,
                                            StringRef format) {
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createConvertNVGPUToNVVMPass());
  kernels.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions toNvvm;
  toNvvm.indexBitwidth = 64;
  kernels.addPass(createConvertGpuOpsToNVVMOps(toNvvm));
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = chip.str();
  target.optLevel = 3;
  // The vector reductions (KernelGenOptions::vectorReductions) need PTX ISA
  // 8.1; LLVM's minimum for sm_90 is 7.8 (later targets' minimum is above
  // 8.1 already).
  if (smVersion(chip) == 90)
    target.features = "+ptx81";
  pm.addPass(createGpuNVVMAttachTarget(target));
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = format.str();
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

FailureOr<std::string> mlir::spperm::extractPtx(ModuleOp module) {
  std::string ptx;
  for (auto binary : module.getOps<gpu::BinaryOp>()) {
    if (binary.getName() != kKernelModuleName)
      continue;
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (object && object.getFormat() == gpu::CompilationTarget::Assembly)
        ptx = object.getObject().getValue().str();
    }
  }
  if (ptx.empty())
    return module.emitError("no PTX for gpu.module @")
           << kKernelModuleName << " (did gpu-module-to-binary run?)";
  return ptx;
}

/// The ptxas to use, or "" when there is none.
static std::string findPtxas() {
  if (const char *env = std::getenv("SPPERM_PTXAS"))
    return llvm::sys::fs::can_execute(env) ? env : "";
  if (llvm::ErrorOr<std::string> p = llvm::sys::findProgramByName("ptxas"))
    return *p;
  std::vector<std::string> dirs;
  if (const char *home = std::getenv("CUDA_HOME"))
    dirs.push_back(std::string(home) + "/bin/ptxas");
  dirs.push_back("/usr/local/cuda/bin/ptxas");
  for (const std::string &d : dirs)
    if (llvm::sys::fs::can_execute(d))
      return d;
  return "";
}

::spperm::StatusOr<std::string>
mlir::spperm::assembleCubin(const std::string &ptx, StringRef chip) {
  std::string ptxas = findPtxas();
  if (ptxas.empty())
    return std::string();
  SmallString<128> in, out, err;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("spperm", "ptx", fd, in))
    return ::spperm::Status::error("cannot create a temporary file for ptxas");
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  if (llvm::sys::fs::createTemporaryFile("spperm", "cubin", out) ||
      llvm::sys::fs::createTemporaryFile("spperm", "log", err)) {
    llvm::sys::fs::remove(in);
    llvm::sys::fs::remove(out);
    return ::spperm::Status::error("cannot create a temporary file for ptxas");
  }
  // An interrupted compile removes these and kills ptxas (Interrupt.h).
  for (const SmallString<128> &path : {in, out, err})
    ::spperm::registerTemporary(std::string(path));
  std::string arch = "-arch=" + chip.str();
  std::string outPath = std::string(out);
  SmallVector<StringRef> argv = {ptxas, arch, "-O3", in, "-o", outPath};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(err),
                                          StringRef(err)};
  std::string message;
  int rc = -1;
  llvm::sys::ProcessInfo child = llvm::sys::ExecuteNoWait(
      ptxas, argv, std::nullopt, redirects, 0, &message);
  if (child.Pid != llvm::sys::ProcessInfo::InvalidPid) {
    ::spperm::registerChild(child.Pid);
    llvm::sys::ProcessInfo done =
        llvm::sys::Wait(child, std::nullopt, &message);
    ::spperm::unregisterChild(child.Pid);
    rc = done.ReturnCode;
  }
  std::string cubin, log;
  if (auto buf = llvm::MemoryBuffer::getFile(err))
    log = (*buf)->getBuffer().trim().str();
  if (rc == 0)
    if (auto buf = llvm::MemoryBuffer::getFile(out, /*IsText=*/false))
      cubin = (*buf)->getBuffer().str();
  for (const SmallString<128> &path : {in, out, err}) {
    llvm::sys::fs::remove(path);
    ::spperm::unregisterTemporary(std::string(path));
  }
  if (rc != 0 || cubin.empty()) {
    size_t eol = log.find('\n');
    return ::spperm::Status::error(
        "ptxas failed (" + (message.empty() ? "exit " + std::to_string(rc)
                                            : message) +
        "): " + (eol == std::string::npos ? log : log.substr(0, eol)));
  }
  return cubin;
}
