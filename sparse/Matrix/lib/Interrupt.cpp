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

static void outOfMemory() {
  // Nothing here may allocate: the message goes out by write(2).
  const char *tool = outOfMemoryTool;
  const char rest[] = ": error: out of memory\n";
  ssize_t ignored = ::write(STDERR_FILENO, tool, std::strlen(tool));
  ignored = ::write(STDERR_FILENO, rest, sizeof rest - 1);
  (void)ignored;
  // The cleanup only where no other thread holds the registry (this one
  // may have been allocating inside it); it allocates little, and a second
  // failure ends the process here anyway.
  std::set_new_handler(nullptr);
  Registry &r = registry();
  if (r.lock.try_lock())
    cleanUpRegistered(r);
  ::_exit(1);
}

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
