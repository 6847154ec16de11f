//===- MemoryLimitTest.cpp - The tools' cap on their memory ---------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// limitMemoryToAvailable changes the process's limits, so every test runs
// it in a child process (a death test that exits with a code saying which
// check failed).
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Interrupt.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

using namespace spperm;

namespace {

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||     \
    __has_feature(memory_sanitizer)
#define SPPERM_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SPPERM_TEST_SANITIZED 1
#endif

/// The soft RLIMIT_DATA now.
rlim_t dataLimit() {
  struct rlimit limit;
  return ::getrlimit(RLIMIT_DATA, &limit) == 0 ? limit.rlim_cur : 0;
}

class MemoryLimit : public ::testing::Test {
protected:
  void SetUp() override {
#ifdef SPPERM_TEST_SANITIZED
    GTEST_SKIP() << "the cap is off under sanitizers (their shadow memory)";
#endif
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

TEST_F(MemoryLimit, AGivenLimitMakesLargerAllocationsFail) {
  EXPECT_EXIT(
      {
        ::setenv("SPPERM_MEMORY_LIMIT", "1G", 1);
        if (!limitMemoryToAvailable())
          std::_Exit(2);
        if (dataLimit() > (rlim_t(1) << 30))
          std::_Exit(3);
        // Beyond the cap: refused at once, not killed later.
        void *big = std::malloc(size_t(2) << 30);
        if (big)
          std::_Exit(4);
        // Within it: still served.
        void *small = std::malloc(size_t(64) << 20);
        std::_Exit(small ? 0 : 5);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(MemoryLimit, ALowerLimitIsKept) {
  EXPECT_EXIT(
      {
        struct rlimit limit;
        ::getrlimit(RLIMIT_DATA, &limit);
        limit.rlim_cur = rlim_t(512) << 20;
        if (::setrlimit(RLIMIT_DATA, &limit) != 0)
          std::_Exit(2);
        ::setenv("SPPERM_MEMORY_LIMIT", "4G", 1);
        if (!limitMemoryToAvailable())
          std::_Exit(3);
        std::_Exit(dataLimit() == (rlim_t(512) << 20) ? 0 : 4);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(MemoryLimit, TheDefaultIsTheMemoryAvailable) {
  if (::access("/proc/meminfo", R_OK) != 0)
    GTEST_SKIP() << "no /proc/meminfo: the cap is off";
  EXPECT_EXIT(
      {
        ::unsetenv("SPPERM_MEMORY_LIMIT");
        if (!limitMemoryToAvailable())
          std::_Exit(2);
        // Finite, and more than this small process uses.
        const rlim_t cap = dataLimit();
        if (cap == RLIM_INFINITY)
          std::_Exit(3);
        void *some = std::malloc(size_t(64) << 20);
        std::_Exit(some ? 0 : 4);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(MemoryLimit, AMalformedLimitIsAnError) {
  for (const char *bad : {"12X", "0", "-5", "G", "1GB", "99999999999T"}) {
    ::setenv("SPPERM_MEMORY_LIMIT", bad, 1);
    // Refused before any limit is set: safe in this process.
    Status s = limitMemoryToAvailable();
    ASSERT_FALSE(s.isOk()) << bad;
    EXPECT_EQ(s.message(),
              "SPPERM_MEMORY_LIMIT must be a size such as 512M or 8G (bytes, "
              "or a number with K, M, G or T), got '" +
                  std::string(bad) + "'");
  }
  ::unsetenv("SPPERM_MEMORY_LIMIT");
}

} // namespace
