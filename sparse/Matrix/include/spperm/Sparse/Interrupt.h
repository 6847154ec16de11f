//===- Interrupt.h - Cleaning up after an interrupted tool ------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// What a tool leaves behind when a signal stops it: SIGINT, SIGTERM, SIGHUP
// and every other signal that ends a process by default and that another
// process may send (SIGQUIT, SIGUSR1/2, SIGALRM, SIGXCPU, SIGXFSZ,
// SIGVTALRM, SIGPROF). The code that creates a temporary file or
// directory, or starts a child process, registers it here for as long as
// it exists; a tool that calls installInterruptCleanup() at the start of
// main removes the registered paths and kills the registered children
// (SIGKILL) when one of those signals arrives, then dies of the signal
// (docs/Compile.md, "Errors"). Without installInterruptCleanup() the
// registry is inert. A file-size limit's SIGXFSZ goes to the writing
// thread, which has it blocked: its write fails with EFBIG instead, an
// ordinary error.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_INTERRUPT_H
#define SPPERM_SPARSE_INTERRUPT_H

#include "spperm/Sparse/Status.h"

#include <string>
#include <utility>

namespace spperm {

/// Registers a temporary file or directory (removed recursively on an
/// interruption) until unregisterTemporary.
void registerTemporary(const std::string &path);
void unregisterTemporary(const std::string &path);

/// registerTemporary for the lifetime of the object.
class ScopedTemporary {
public:
  explicit ScopedTemporary(std::string path) : path(std::move(path)) {
    registerTemporary(this->path);
  }
  ~ScopedTemporary() { unregisterTemporary(path); }
  ScopedTemporary(const ScopedTemporary &) = delete;
  ScopedTemporary &operator=(const ScopedTemporary &) = delete;

private:
  std::string path;
};

/// Registers a child process (killed on an interruption) until
/// unregisterChild.
void registerChild(int pid);
void unregisterChild(int pid);

/// Blocks those signals (the file comment lists them) in the calling thread
/// (and so in every thread it starts later) and starts a thread that waits
/// for them: on one sent to the process, it kills the registered children,
/// removes the registered paths, and re-raises the signal with its default
/// action. Call it first thing in main, before any other thread exists.
void installInterruptCleanup();

/// Makes a failed allocation (operator new) end the tool with one line,
/// `TOOL: error: [FILE: ]out of memory` (setOutOfMemoryFile), exit status 1,
/// after the same cleanup as an interruption (registered children killed,
/// registered paths removed), instead of an uncaught std::bad_alloc's abort.
/// Sets 1 MiB aside, given back to make room for that cleanup. `tool` must
/// outlive the process (a string literal).
void installOutOfMemoryExit(const char *tool);

/// Runs `hook` when installOutOfMemoryExit's handler, exitOutOfMemory or
/// exitFatalError end the tool, before the cleanup, and when the tool
/// crashes under its memory cap: for a library's own cleanup that is safe
/// in a signal handler (LLVM's removal of its tools' output files,
/// llvm::sys::RunInterruptHandlers).
void setExitHook(void (*hook)());

/// Caps the process's data size (RLIMIT_DATA, which counts the heap and
/// private mappings) at what it uses now plus the memory available to it
/// now: the machine's MemAvailable and free swap, or its cgroup's limit less
/// the cgroup's use where that is less; or at `$SPPERM_MEMORY_LIMIT` (a size
/// such as 2048M or 8G) where that is set. Linux commits memory lazily, so
/// without a cap a matrix too large for the machine is killed by the
/// kernel's out-of-memory killer half way through; with it the allocation
/// fails and installOutOfMemoryExit's line ends the tool. A library that
/// does not check malloc's result faults instead: a SIGSEGV or SIGBUS near
/// the limit (within an eighth of it, at least 16 MiB) ends the tool with
/// the same line; any other is left to its previous action, after the
/// registered children are killed. Never raises a
/// lower limit. For the tools that run no GPU code (a CUDA driver reserves
/// large mappings); an error only for a malformed `$SPPERM_MEMORY_LIMIT`.
Status limitMemoryToAvailable();

/// Gives RLIMIT_DATA back the value it had before limitMemoryToAvailable
/// (nothing if that set no cap). For a forked child before it executes
/// another program (ptxas): the cap is this process's, and a program that
/// fails its allocations may not end cleanly (ptxas was seen to hang); one
/// that outgrows the machine is killed, which the tool reports. A single
/// system call, safe between fork and exec.
void restoreStartMemoryLimit();

/// Ends the process as the handler of installOutOfMemoryExit does: the one
/// line, the cleanup, exit status 1. For allocators that report exhaustion
/// another way (LLVM's bad-alloc handler); allocates nothing.
[[noreturn]] void exitOutOfMemory();

/// Ends the process as exitOutOfMemory does, with `reason` (its first line)
/// in place of "out of memory": `TOOL: error: [FILE: ]REASON`. For LLVM's
/// fatal-error handler (a thread that cannot be started, ...), so that the
/// tool still cleans up and prints one line; allocates nothing.
[[noreturn]] void exitFatalError(const char *reason);

/// Names the file the tool is working on in the out-of-memory line:
/// `TOOL: error: FILE: out of memory` (docs/Compile.md, "Errors"). The
/// handler cannot allocate to escape the name as other messages do
/// (spperm::quoted): control characters are shown as '?', and a name longer
/// than 200 bytes is cut at a character's start and marked with "...". An
/// empty `file` removes the name. The handler reads the name unlocked (the
/// buffer always ends in a NUL): call this from the thread doing the work
/// the name describes.
void setOutOfMemoryFile(const std::string &file);

} // namespace spperm

#endif // SPPERM_SPARSE_INTERRUPT_H
