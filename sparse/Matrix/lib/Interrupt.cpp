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
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <new>
#include <pthread.h>
#include <set>
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
  static Registry *r = new Registry(); // never destroyed: used until _exit
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

/// The file setOutOfMemoryFile named, NUL-terminated (empty: none). A
/// fixed buffer: the handler must not allocate to read it.
static char outOfMemoryFile[208];

/// Appends `text` to the line at `end`, up to `last` (exclusive).
static char *append(char *end, const char *last, const char *text) {
  while (*text && end < last)
    *end++ = *text++;
  return end;
}

[[noreturn]] static void outOfMemory() {
  // Nothing here may allocate: the line is assembled on the stack and goes
  // out in one write(2), so that other threads' output cannot split it.
  char line[512];
  const char *last = line + sizeof line - 1;
  char *end = append(line, last, outOfMemoryTool);
  end = append(end, last, ": error: ");
  if (outOfMemoryFile[0]) {
    end = append(end, last, outOfMemoryFile);
    end = append(end, last, ": ");
  }
  end = append(end, last, "out of memory");
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

void spperm::exitOutOfMemory() { outOfMemory(); }

void spperm::installOutOfMemoryExit(const char *tool) {
  outOfMemoryTool = tool;
  std::set_new_handler(outOfMemory);
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
