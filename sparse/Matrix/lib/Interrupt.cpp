//===- Interrupt.cpp - Cleaning up after an interrupted tool --------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The signals are taken by sigwait in a thread of their own, so the cleanup
// runs as ordinary code (it may allocate and walk directories) while the
// interrupted threads stay where they were; none of them can hold the
// registry's lock for long, so the cleanup never waits on them.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Interrupt.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <mutex>
#include <new>
#include <pthread.h>
#include <set>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

using namespace spperm;

namespace {

struct Registry {
  std::mutex lock;
  std::set<std::string> paths;
  std::set<int> children;
};

Registry &registry() {
  // In static storage, not on the heap: the out-of-memory handler may be
  // the first to ask for it. Never destroyed: used until _exit.
  alignas(Registry) static unsigned char storage[sizeof(Registry)];
  static Registry *r = new (storage) Registry();
  return *r;
}

sigset_t interruptSignals() {
  sigset_t set;
  sigemptyset(&set);
  // Every signal whose default action ends the process and that another
  // process may send: the tool then ends of it too, after the cleanup.
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
                  SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF})
    sigaddset(&set, sig);
  return set;
}

/// Kills the registered children and removes the registered paths, with
/// the registry's lock held (taken for good: the process is ending).
void cleanUpRegistered(Registry &r) {
  for (int pid : r.children)
    ::kill(pid, SIGKILL);
  for (const std::string &path : r.paths) {
    // Renamed out of the way first: a thread still writing into it by name
    // then fails to create files there, so the removal finds them all
    // (removing it in place raced with such a thread, which could add a
    // file after the walk and leave the directory behind).
    const std::string doomed = path + ".removing";
    const std::string &target =
        ::rename(path.c_str(), doomed.c_str()) == 0 ? doomed : path;
    std::error_code ec;
    std::filesystem::remove_all(target, ec);
  }
}

void cleanUpAndDie(int sig) {
  // The lock is taken for good: a thread that sees its child die (killed
  // below) unregisters it next and so waits here instead of reporting the
  // child's death as its own error and exiting first with another status.
  Registry &r = registry();
  r.lock.lock();
  cleanUpRegistered(r);
  // Die of the signal itself, so that the parent sees how the tool ended.
  std::signal(sig, SIG_DFL);
  sigset_t set = interruptSignals();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);
}

} // namespace

void spperm::registerTemporary(const std::string &path) {
  Registry &r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  r.paths.insert(path);
}

void spperm::unregisterTemporary(const std::string &path) {
  Registry &r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  r.paths.erase(path);
}

void spperm::registerChild(int pid) {
  Registry &r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  r.children.insert(pid);
}

void spperm::unregisterChild(int pid) {
  Registry &r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  r.children.erase(pid);
}

/// The tool that installOutOfMemoryExit named.
static const char *outOfMemoryTool = "spperm";

/// Memory set aside by installOutOfMemoryExit and given back when the tool
/// runs out, so that the cleanup (which allocates a little: paths, a
/// directory walk) has room.
static std::atomic<void *> outOfMemoryReserve{nullptr};
constexpr size_t kOutOfMemoryReserveBytes = size_t{1} << 20;

/// Set by the first thread that ends the tool: another that fails at the
/// same time waits for it to exit.
static std::atomic<bool> exiting{false};

/// What setExitHook named: run before the cleanup (e.g. LLVM's removal of
/// the output files it was told of).
static std::atomic<void (*)()> exitHook{nullptr};

/// RLIMIT_DATA as the tool started, before limitMemoryToAvailable (valid
/// when dataLimitCapped).
static struct rlimit startDataLimit;
static bool dataLimitCapped = false;

/// The data-size limit in force after limitMemoryToAvailable, in bytes (0:
/// none), and the page size, for the crash handler.
static uint64_t dataCapBytes = 0;
static uint64_t pageBytes = 4096;

/// The file setOutOfMemoryFile named, NUL-terminated (empty: none). A
/// fixed buffer: the handler must not allocate to read it.
static char outOfMemoryFile[208];

/// Appends `text` to the line at `end`, up to `last` (exclusive).
static char *append(char *end, const char *last, const char *text) {
  while (*text && end < last)
    *end++ = *text++;
  return end;
}

/// Ends the tool with `TOOL: error: [FILE: ]what`, the cleanup of an
/// interruption, and exit status 1.
[[noreturn]] static void exitWith(const char *what) {
  if (exiting.exchange(true))
    for (;;)
      ::pause();
  ::free(outOfMemoryReserve.exchange(nullptr));
  // Nothing here may allocate: the line is assembled on the stack and goes
  // out in one write(2), so that other threads' output cannot split it.
  char line[1024];
  const char *last = line + sizeof line - 1;
  char *end = append(line, last, outOfMemoryTool);
  end = append(end, last, ": error: ");
  if (outOfMemoryFile[0]) {
    end = append(end, last, outOfMemoryFile);
    end = append(end, last, ": ");
  }
  // One line: a multi-line reason is cut at its first line break.
  const char *stop = what;
  while (*stop && *stop != '\n')
    ++stop;
  while (what < stop && end < last)
    *end++ = *what++;
  *end++ = '\n';
  for (const char *p = line; p < end;) {
    const ssize_t n = ::write(STDERR_FILENO, p, end - p);
    if (n <= 0)
      break;
    p += n;
  }
  // The cleanup only where no other thread holds the registry (this one
  // may have been allocating inside it); it allocates little, and a second
  // failure ends the process here anyway.
  std::set_new_handler(nullptr);
  if (void (*hook)() = exitHook.load())
    hook();
  Registry &r = registry();
  if (r.lock.try_lock())
    cleanUpRegistered(r);
  ::_exit(1);
}

void spperm::setOutOfMemoryFile(const std::string &file) {
  constexpr size_t kShown = 200;
  size_t n = std::min(file.size(), kShown), i = 0;
  // Cut at a character's start, not inside a UTF-8 sequence.
  while (n < file.size() && n > 0 &&
         (static_cast<unsigned char>(file[n]) & 0xc0) == 0x80)
    --n;
  for (; i < n; ++i) {
    const unsigned char c = file[i];
    outOfMemoryFile[i] = c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
  }
  if (n < file.size())
    for (const char c : {'.', '.', '.'})
      outOfMemoryFile[i++] = c;
  outOfMemoryFile[i] = '\0';
}

[[noreturn]] static void outOfMemory() { exitWith("out of memory"); }

void spperm::exitOutOfMemory() { outOfMemory(); }

void spperm::exitFatalError(const char *reason) {
  exitWith(reason && *reason ? reason : "fatal error");
}

void spperm::installOutOfMemoryExit(const char *tool) {
  outOfMemoryTool = tool;
  if (!outOfMemoryReserve.load())
    outOfMemoryReserve = ::malloc(kOutOfMemoryReserveBytes);
  std::set_new_handler(outOfMemory);
}

void spperm::setExitHook(void (*hook)()) { exitHook = hook; }

/// Whether the process's data size is within a margin of dataCapBytes (an
/// eighth of it, at least 16 MiB): a crash there is taken for an
/// allocation that failed where its result was not checked. Reads
/// /proc/self/statm with async-signal-safe calls only.
static bool nearDataCap() {
  if (dataCapBytes == 0)
    return false;
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  char text[256];
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0)
    return false;
  text[n] = '\0';
  // size resident shared text lib data dt: the sixth, data + stack, in
  // pages.
  const char *p = text;
  for (int field = 0; field < 5; ++field) {
    while (*p && *p != ' ')
      ++p;
    if (!*p)
      return false;
    ++p;
  }
  uint64_t pages = 0;
  for (; *p >= '0' && *p <= '9'; ++p)
    pages = 10 * pages + static_cast<uint64_t>(*p - '0');
  const uint64_t margin =
      std::max<uint64_t>(dataCapBytes / 8, uint64_t{16} << 20);
  return pages * pageBytes + margin >= dataCapBytes;
}

static struct sigaction previousSegv, previousBus;

/// SIGSEGV and SIGBUS while the data size is capped: near the cap, the
/// out-of-memory line, the cleanup and exit status 1 (a library that does
/// not check malloc's result, such as MLIR's operation storage, faults on
/// the null pointer); elsewhere the children killed, the exit hook run
/// (both async-signal-safe; the temporary directories stay, for the next
/// compile to sweep: removing them allocates, which a crash inside malloc
/// could deadlock), and the signal's previous action (a crash is a crash).
static void onCrash(int sig, siginfo_t *, void *) {
  if (nearDataCap())
    exitWith("out of memory (an allocation failed where its result was "
             "not checked)");
  if (!exiting.exchange(true)) {
    if (void (*hook)() = exitHook.load())
      hook();
    Registry &r = registry();
    if (r.lock.try_lock())
      for (int pid : r.children)
        ::kill(pid, SIGKILL);
  }
  // Returning re-runs the faulting instruction under the previous action.
  ::sigaction(sig, sig == SIGSEGV ? &previousSegv : &previousBus, nullptr);
}

static void installCrashHandler() {
  static bool installed = false;
  if (installed)
    return;
  installed = true;
  // The main thread's own stack for the handler: it runs there even when
  // the fault was a stack overflow.
  static char alternate[64 * 1024];
  stack_t stack = {};
  stack.ss_sp = alternate;
  stack.ss_size = sizeof alternate;
  ::sigaltstack(&stack, nullptr);
  struct sigaction action = {};
  action.sa_sigaction = onCrash;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGSEGV, &action, &previousSegv);
  ::sigaction(SIGBUS, &action, &previousBus);
}

void spperm::restoreStartMemoryLimit() {
  if (dataLimitCapped)
    ::setrlimit(RLIMIT_DATA, &startDataLimit);
}

namespace {

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||     \
    __has_feature(memory_sanitizer)
#define SPPERM_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SPPERM_SANITIZED 1
#endif
#ifdef SPPERM_SANITIZED
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

/// The first number in the file `path` after `key` (the whole file when
/// `key` is empty), or -1: a line of /proc/meminfo, a cgroup's limit. "max"
/// (no limit) reads as -1.
int64_t readNumber(const char *path, const char *key) {
  std::FILE *f = std::fopen(path, "r");
  if (!f)
    return -1;
  char line[256];
  int64_t value = -1;
  const size_t keyLength = std::strlen(key);
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, key, keyLength) != 0)
      continue;
    char *end = nullptr;
    errno = 0;
    const long long v = std::strtoll(line + keyLength, &end, 10);
    if (end != line + keyLength && errno == 0 && v >= 0)
      value = v;
    break;
  }
  std::fclose(f);
  return value;
}

/// Bytes the process may still take: the machine's available memory and
/// free swap, or less where its cgroup (v2 or v1) limits it; -1 if unknown.
int64_t availableBytes() {
  const int64_t available = readNumber("/proc/meminfo", "MemAvailable:");
  const int64_t swap = readNumber("/proc/meminfo", "SwapFree:");
  if (available < 0)
    return -1;
  int64_t bytes = (available + std::max<int64_t>(swap, 0)) * 1024;
  for (auto [limitPath, usagePath] :
       {std::pair{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
        std::pair{"/sys/fs/cgroup/memory/memory.limit_in_bytes",
                  "/sys/fs/cgroup/memory/memory.usage_in_bytes"}}) {
    const int64_t limit = readNumber(limitPath, "");
    const int64_t usage = readNumber(usagePath, "");
    if (limit > 0 && usage >= 0)
      bytes = std::min(bytes, std::max<int64_t>(limit - usage, 0));
  }
  return bytes;
}

/// The process's data size now (VmData), or 0.
int64_t dataBytes() {
  const int64_t kb = readNumber("/proc/self/status", "VmData:");
  return kb < 0 ? 0 : kb * 1024;
}

/// `text` as a size: digits with an optional K, M, G or T (powers of 1024).
bool parseSize(const char *text, uint64_t &bytes) {
  char *end = nullptr;
  errno = 0;
  if (!(*text >= '0' && *text <= '9'))
    return false;
  const unsigned long long n = std::strtoull(text, &end, 10);
  if (errno != 0)
    return false;
  int shift = 0;
  if (*end) {
    const char *units = "KMGT";
    const char *unit = std::strchr(units, *end);
    if (!unit || end[1] != '\0')
      return false;
    shift = 10 * static_cast<int>(unit - units + 1);
  }
  if (n == 0 || n > (UINT64_MAX >> shift))
    return false;
  bytes = static_cast<uint64_t>(n) << shift;
  return true;
}

} // namespace

Status spperm::limitMemoryToAvailable() {
  // A sanitizer's shadow and allocator manage the process's memory their
  // own way (and report exhaustion themselves).
  if (kSanitized)
    return Status::ok();
  uint64_t cap = 0;
  if (const char *given = std::getenv("SPPERM_MEMORY_LIMIT"); given && *given) {
    if (!parseSize(given, cap))
      return Status::error(
          "SPPERM_MEMORY_LIMIT must be a size such as 512M or 8G (bytes, or "
          "a number with K, M, G or T), got '" +
          std::string(given) + "'");
  } else {
    const int64_t available = availableBytes();
    if (available < 0)
      return Status::ok(); // not Linux's /proc: no cap
    cap = static_cast<uint64_t>(dataBytes() + available);
  }
  struct rlimit limit;
  if (::getrlimit(RLIMIT_DATA, &limit) != 0)
    return Status::ok();
  pageBytes = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  installCrashHandler();
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur <= cap) {
    dataCapBytes = static_cast<uint64_t>(limit.rlim_cur);
    return Status::ok();
  }
  startDataLimit = limit;
  dataLimitCapped = true;
  limit.rlim_cur = limit.rlim_max != RLIM_INFINITY
                       ? std::min<rlim_t>(cap, limit.rlim_max)
                       : static_cast<rlim_t>(cap);
  ::setrlimit(RLIMIT_DATA, &limit);
  dataCapBytes = static_cast<uint64_t>(limit.rlim_cur);
  return Status::ok();
}

void spperm::installInterruptCleanup() {
  sigset_t set = interruptSignals();
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0)
    return;
  std::thread([set] {
    int sig = 0;
    while (sigwait(&set, &sig) != 0) {
    }
    cleanUpAndDie(sig);
  }).detach();
}
