//===- InterruptTest.cpp - Cleaning up after an interrupted tool ----------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// installInterruptCleanup changes the process's signal mask and starts a
// thread, so every test runs it in a child process (a death test that must
// die of the signal it sends itself) and checks, in the parent, what the
// child left on disk.
//
//===----------------------------------------------------------------------===//

#include "SparseTestUtil.h"

#include "spperm/Sparse/Interrupt.h"
#include "spperm/Sparse/Npy.h"

#include "gtest/gtest.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace spperm;
using namespace spperm::test;

namespace {

bool exists(const std::string &path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

void writeText(const std::string &path, const std::string &text) {
  std::ofstream(path) << text;
}

std::string readText(const std::string &path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// The entries of `dir` other than "." and "..".
long entries(const std::string &dir) {
  return std::distance(std::filesystem::directory_iterator(dir),
                       std::filesystem::directory_iterator());
}

/// Whether process `pid` has ended (gone, or a zombie nobody reaped yet).
bool ended(pid_t pid) {
  const std::string stat = readText("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty())
    return ::kill(pid, 0) != 0 && errno == ESRCH;
  // "PID (COMM) STATE ...": the state follows the last ')'.
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() &&
         (stat[close + 2] == 'Z' || stat[close + 2] == 'X');
}

/// Sends `sig` to this process, as another process would, and waits for it
/// to end of it; exit status 9 if it does not within 10 s.
[[noreturn]] void interruptSelf(int sig) {
  ::kill(::getpid(), sig);
  for (int i = 0; i < 1000; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::_Exit(9);
}

class Interrupt : public ::testing::Test {
protected:
  void SetUp() override {
    // The child forks from this process: the paths made here are its.
    GTEST_FLAG_SET(death_test_style, "fast");
  }
};

TEST_F(Interrupt, RegisteredPathsGoAndTheToolDiesOfTheSignal) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGALRM}) {
    ScratchDir dir;
    const std::string file = dir.path("p.tmp"), tree = dir.path("pkg.tmp");
    const std::string kept = dir.path("kept"), unregistered = dir.path("done");
    writeText(file, "x");
    ASSERT_EQ(::mkdir(tree.c_str(), 0755), 0);
    ASSERT_EQ(::mkdir((tree + "/sub").c_str(), 0755), 0);
    writeText(tree + "/sub/data.bin", "y");
    writeText(kept, "z");
    writeText(unregistered, "w");
    EXPECT_EXIT(
        {
          installInterruptCleanup();
          registerTemporary(file);
          registerTemporary(tree);
          registerTemporary(unregistered);
          unregisterTemporary(unregistered);
          interruptSelf(sig);
        },
        ::testing::KilledBySignal(sig), "")
        << strsignal(sig);
    EXPECT_FALSE(exists(file)) << strsignal(sig);
    EXPECT_FALSE(exists(tree)) << strsignal(sig);
    EXPECT_FALSE(exists(tree + ".removing")) << strsignal(sig);
    EXPECT_TRUE(exists(kept)) << strsignal(sig);
    EXPECT_TRUE(exists(unregistered)) << strsignal(sig);
  }
}

TEST_F(Interrupt, ScopedTemporaryIsRegisteredForItsLifetime) {
  ScratchDir dir;
  const std::string before = dir.path("before"), during = dir.path("during");
  writeText(before, "x");
  writeText(during, "y");
  EXPECT_EXIT(
      {
        installInterruptCleanup();
        { const ScopedTemporary gone(before); }
        const ScopedTemporary held(during);
        interruptSelf(SIGTERM);
      },
      ::testing::KilledBySignal(SIGTERM), "");
  EXPECT_TRUE(exists(before));
  EXPECT_FALSE(exists(during));
}

TEST_F(Interrupt, RegisteredChildrenAreKilled) {
  ScratchDir dir;
  const std::string pidFile = dir.path("child.pid");
  EXPECT_EXIT(
      {
        installInterruptCleanup();
        const pid_t child = ::fork();
        if (child == 0) {
          for (;;)
            ::pause();
        }
        if (child < 0)
          std::_Exit(2);
        registerChild(child);
        writeText(pidFile, std::to_string(child));
        interruptSelf(SIGINT);
      },
      ::testing::KilledBySignal(SIGINT), "");
  const std::string text = readText(pidFile);
  ASSERT_FALSE(text.empty());
  const pid_t child = static_cast<pid_t>(std::stol(text));
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    gone = ended(child);
    if (!gone)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone) << "the registered child " << child << " still runs";
  if (!gone)
    ::kill(child, SIGKILL);
}

TEST_F(Interrupt, WithoutInstallingTheRegistryIsInert) {
  ScratchDir dir;
  const std::string file = dir.path("p.tmp");
  writeText(file, "x");
  EXPECT_EXIT(
      {
        registerTemporary(file);
        ::kill(::getpid(), SIGUSR1);
        std::_Exit(2);
      },
      ::testing::KilledBySignal(SIGUSR1), "");
  EXPECT_TRUE(exists(file));
}

// A file written atomically (writeFileAtomically: spperm-inspect's
// --emit-permutation, spperm-gen's matrices, spperm-run's --out) and
// interrupted while its temporary is being written: the temporary goes,
// and the file it would have replaced stays as it was. The signal is sent
// the moment the temporary appears (inotify); writing 64 MiB takes far
// longer than the cleanup.
/// The signal comes when the temporary appears, from another thread; on a
/// loaded machine the write may still finish first (then the new file is
/// whole, which is atomic too, and the attempt is repeated), so that at
/// least one attempt interrupts the write.
TEST_F(Interrupt, AnInterruptedAtomicWriteLeavesTheOldFile) {
  ScratchDir dir;
  const std::string out = dir.path("out.bin");
  constexpr size_t kBytes = size_t(64) << 20;
  for (int attempt = 0; attempt < 20; ++attempt) {
    writeText(out, "old");
    EXPECT_EXIT(
        {
          installInterruptCleanup();
          const int watch = ::inotify_init1(IN_CLOEXEC);
          if (watch < 0 ||
              ::inotify_add_watch(watch, dir.root().c_str(), IN_CREATE) < 0)
            std::_Exit(2);
          std::thread([watch] {
            alignas(struct inotify_event) char buffer[4096];
            for (;;) {
              const ssize_t n = ::read(watch, buffer, sizeof buffer);
              if (n <= 0)
                std::_Exit(3);
              for (ssize_t at = 0; at < n;) {
                const auto *event =
                    reinterpret_cast<const struct inotify_event *>(buffer + at);
                if (event->len &&
                    std::string(event->name).find(".tmp.") != std::string::npos)
                  interruptSelf(SIGTERM);
                at += static_cast<ssize_t>(sizeof(struct inotify_event) +
                                           event->len);
              }
            }
          }).detach();
          const std::string bytes(kBytes, 'n');
          (void)writeFileAtomically(out, bytes);
          // Finished before the signal: the attempt is repeated.
          interruptSelf(SIGTERM);
        },
        ::testing::KilledBySignal(SIGTERM), "");
    ASSERT_EQ(entries(dir.root()), 1) << "a temporary was left beside out.bin";
    if (readText(out) == "old")
      return;
    // Not interrupted: the new file, whole.
    ASSERT_EQ(std::filesystem::file_size(out), kBytes);
  }
  ADD_FAILURE() << "20 writes of 64 MiB all finished before the signal";
}

} // namespace
