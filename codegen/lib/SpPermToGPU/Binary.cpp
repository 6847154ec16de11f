//===- Binary.cpp - From gpu.module to PTX and cubin ----------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Conversion/Passes.h"
#include "spperm/Conversion/SpPermToGPU.h"

#include "spperm/Sparse/Interrupt.h"
#include "spperm/Sparse/Names.h"

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

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <string_view>
#include <utility>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
#ifdef __linux__
#include <sys/prctl.h>
#endif

using namespace mlir;
using namespace mlir::spperm;

/// XY of `sm_XY`, `sm_XYa` or `sm_XYf`; 0 for anything else.
static unsigned smVersion(StringRef chip) {
  return ::spperm::architectureVersion(chip);
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

bool mlir::spperm::isSupportedTarget(StringRef chip) {
  return isKnownTarget(chip) && smVersion(chip) >= kMinimumTargetVersion;
}

bool mlir::spperm::targetHasVectorReductions(StringRef chip) {
  return smVersion(chip) >= 90;
}

bool mlir::spperm::targetHasGridDependencies(StringRef chip) {
  return smVersion(chip) >= 90;
}

void mlir::spperm::buildGpuToBinaryPipeline(OpPassManager &pm, StringRef chip,
                                            StringRef format) {
  // PTX is made in parallel: the kernel module cut into parts, lowered
  // (nested pass managers run sibling modules on the context's threads)
  // and serialized part by part, then joined (docs/Passes.md).
  const bool parallel = format == "isa";
  if (parallel)
    pm.addPass(createSpPermSplitKernelModule());
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
  if (parallel)
    pm.addPass(createSpPermSerializeKernels());
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

/// The directory for ptxas's files, `TMPDIR/spperm-ptxas-PID-XXXXXX`, and
/// an open descriptor on it holding an exclusive flock for as long as it is
/// in use. Directories of compiles that died without removing theirs
/// (SIGKILL) are removed first: those whose PID no longer runs and whose
/// lock is free (the lock keeps a live compile's directory in another PID
/// namespace sharing TMPDIR).
static ::spperm::StatusOr<std::pair<std::string, int>> makePtxasDirectory() {
  const char *env = std::getenv("TMPDIR");
  const std::string tmp = env && *env ? env : "/tmp";
  constexpr std::string_view kPrefix = "spperm-ptxas-";
  std::error_code ec;
  std::filesystem::directory_iterator it(tmp, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, kPrefix.size(), kPrefix) != 0)
      continue;
    const long pid = std::strtol(name.c_str() + kPrefix.size(), nullptr, 10);
    if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
      continue;
    const int fd = ::open(it->path().c_str(), O_RDONLY | O_DIRECTORY |
                                                  O_CLOEXEC);
    if (fd < 0)
      continue;
    std::error_code removed;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0)
      std::filesystem::remove_all(it->path(), removed);
    ::close(fd);
  }
  std::string dir = tmp + "/" + std::string(kPrefix) +
                    std::to_string(::getpid()) + "-XXXXXX";
  if (!::mkdtemp(dir.data()))
    return ::spperm::Status::error("cannot create a temporary directory for "
                                   "ptxas in " + tmp + ": " +
                                   std::strerror(errno));
  const int lock = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock < 0 || ::flock(lock, LOCK_EX) != 0) {
    const std::string why = std::strerror(errno);
    if (lock >= 0)
      ::close(lock);
    std::filesystem::remove_all(dir, ec);
    return ::spperm::Status::error("cannot lock " + dir + ": " + why);
  }
  return std::make_pair(dir, lock);
}

/// Runs `args` (args[0] the program) with its stdout and stderr in
/// `logPath` and returns its exit status, or -1 with `message` set. The
/// child is killed by the kernel if this process dies first (a compile
/// killed outright leaves no ptxas behind), and by an interrupted compile
/// (Interrupt.h).
static int runChild(const std::vector<std::string> &args,
                    const std::string &logPath, std::string &message) {
  std::vector<char *> argv;
  for (const std::string &a : args)
    argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  const int log = ::open(logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC |
                                              O_CLOEXEC, 0600);
  if (log < 0) {
    message = "cannot open " + logPath + ": " + std::strerror(errno);
    return -1;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    message = std::string("cannot start ptxas: ") + std::strerror(errno);
    ::close(log);
    return -1;
  }
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
#ifdef __linux__
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      ::_exit(127);
#endif
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::spperm::restoreStartMemoryLimit();
    ::dup2(log, STDOUT_FILENO);
    ::dup2(log, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(log);
  ::spperm::registerChild(pid);
  int status = 0;
  pid_t waited;
  while ((waited = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  const int waitErrno = errno;
  ::spperm::unregisterChild(pid);
  if (waited < 0) {
    message = std::string("cannot wait for ptxas: ") +
              std::strerror(waitErrno);
    return -1;
  }
  if (WIFSIGNALED(status)) {
    message = "killed by signal " + std::to_string(WTERMSIG(status));
    return -1;
  }
  const int code = WEXITSTATUS(status);
  if (code == 127)
    message = "exit 127: " + args[0] + " could not be run";
  return code;
}

::spperm::StatusOr<std::string>
mlir::spperm::assembleCubin(const std::string &ptx, StringRef chip) {
  std::string ptxas = findPtxas();
  if (ptxas.empty())
    return std::string();
  ::spperm::StatusOr<std::pair<std::string, int>> made = makePtxasDirectory();
  if (!made)
    return made.status();
  const std::string dir = made->first;
  const int lock = made->second;
  // An interrupted compile removes it and kills ptxas (Interrupt.h).
  ::spperm::registerTemporary(dir);
  const std::string in = dir + "/kernels.ptx", out = dir + "/kernels.cubin",
                    err = dir + "/ptxas.log";
  auto removeDirectory = [&] {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    ::spperm::unregisterTemporary(dir);
    ::close(lock);
  };
  std::error_code written;
  {
    llvm::raw_fd_ostream os(in, written);
    if (!written) {
      os << ptx;
      os.close();
      if (os.has_error()) {
        written = os.error();
        os.clear_error();
      }
    }
  }
  if (written) {
    removeDirectory();
    return ::spperm::Status::error(in + ": cannot write the PTX for ptxas: " +
                                   written.message());
  }
  std::string message;
  // Four threads, whatever the machine: the cubin depends on the thread
  // count, and a package is made the same everywhere (docs/Compile.md). A
  // ptxas without the option (before CUDA 12) assembles in one.
  auto readLog = [&] {
    std::string text;
    if (auto buf = llvm::MemoryBuffer::getFile(err))
      text = (*buf)->getBuffer().trim().str();
    return text;
  };
  int rc = runChild({ptxas, "-arch=" + chip.str(), "-O3", "--split-compile",
                     "4", in, "-o", out},
                    err, message);
  std::string cubin, log = readLog();
  if (rc != 0 && message.empty() &&
      StringRef(log).contains("split-compile")) {
    rc = runChild({ptxas, "-arch=" + chip.str(), "-O3", in, "-o", out}, err,
                  message);
    log = readLog();
  }
  if (rc == 0)
    if (auto buf = llvm::MemoryBuffer::getFile(out, /*IsText=*/false))
      cubin = (*buf)->getBuffer().str();
  removeDirectory();
  if (rc != 0 || cubin.empty()) {
    size_t eol = log.find('\n');
    return ::spperm::Status::error(
        "ptxas failed (" + (message.empty() ? "exit " + std::to_string(rc)
                                            : message) +
        "): " + (eol == std::string::npos ? log : log.substr(0, eol)));
  }
  return cubin;
}
