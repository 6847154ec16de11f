//===- OutputPathTest.cpp - Checks on the paths a tool writes -------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "SparseTestUtil.h"

#include "spperm/Sparse/Npy.h"
#include "spperm/Sparse/OutputPath.h"

#include "gtest/gtest.h"

#include <climits>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace spperm;
using namespace spperm::test;

namespace {

/// `path` fully resolved (the scratch directory may lie behind a link).
std::string real(const std::string &path) {
  char buffer[PATH_MAX];
  return ::realpath(path.c_str(), buffer) ? std::string(buffer) : path;
}

TEST(OutputPath, ParentDirectory) {
  EXPECT_EQ(parentDirectory("c.npy"), ".");
  EXPECT_EQ(parentDirectory("/c.npy"), "/");
  EXPECT_EQ(parentDirectory("a/b/c.npy"), "a/b");
  EXPECT_EQ(parentDirectory("/a/c.npy"), "/a");
}

TEST(OutputPath, ResolvedPathFollowsTheDirectoryNotTheEntry) {
  ScratchDir dir;
  const std::string root = real(dir.root());
  ASSERT_EQ(::mkdir(dir.path("sub").c_str(), 0755), 0);
  ASSERT_EQ(::symlink(dir.path("sub").c_str(), dir.path("via").c_str()), 0);
  // The directory through a link and through "..": one spelling.
  EXPECT_EQ(resolvedPath(dir.path("via/c.npy")), root + "/sub/c.npy");
  EXPECT_EQ(resolvedPath(dir.path("sub/../sub/c.npy")), root + "/sub/c.npy");
  EXPECT_TRUE(samePath(dir.path("via/c.npy"), dir.path("sub/c.npy")));
  EXPECT_FALSE(samePath(dir.path("sub/c.npy"), dir.path("sub/d.npy")));
  // The last component is kept: a link there is written through, not
  // resolved away.
  EXPECT_EQ(resolvedPath(dir.path("via")), root + "/via");
  // A missing directory leaves the path as given.
  EXPECT_EQ(resolvedPath(dir.path("none/c.npy")), dir.path("none/c.npy"));
  EXPECT_EQ(resolvedPath("/c.npy"), "/c.npy");
}

TEST(OutputPath, IsInside) {
  ScratchDir dir;
  ASSERT_EQ(::mkdir(dir.path("p").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(dir.path("p2").c_str(), 0755), 0);
  writePlainFile(dir.path("p/a.mtx"), "m");
  writePlainFile(dir.path("p2/a.mtx"), "m");
  ASSERT_EQ(::symlink(dir.path("p").c_str(), dir.path("link").c_str()), 0);
  EXPECT_TRUE(isInside(dir.path("p/a.mtx"), dir.path("p")));
  EXPECT_TRUE(isInside(dir.path("link/a.mtx"), dir.path("p")));
  EXPECT_TRUE(isInside(dir.path("p/a.mtx"), dir.path("link")));
  // A sibling sharing the name's prefix, the directory itself, a missing
  // entry: not inside.
  EXPECT_FALSE(isInside(dir.path("p2/a.mtx"), dir.path("p")));
  EXPECT_FALSE(isInside(dir.path("p"), dir.path("p")));
  EXPECT_FALSE(isInside(dir.path("p/none"), dir.path("p")));
  EXPECT_TRUE(isInside(dir.path("p/a.mtx"), "/"));
}

TEST(OutputPath, CheckWritableFileSaysWhy) {
  ScratchDir dir;
  EXPECT_TRUE(checkWritableFile(dir.path("c.npy")).isOk());
  Status s = checkWritableFile(dir.path("none/c.npy"));
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), dir.path("none/c.npy") +
                             ": cannot write: the directory " +
                             dir.path("none") + " does not exist");
  writePlainFile(dir.path("f"), "x");
  s = checkWritableFile(dir.path("f/c.npy"));
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), dir.path("f/c.npy") + ": cannot write: " +
                             dir.path("f") + " is not a directory");
  s = checkWritableFile(dir.root());
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), dir.root() + ": is a directory");
  // A directory may be the entry checkWritableDirectoryOf names.
  EXPECT_TRUE(checkWritableDirectoryOf(dir.path("f")).isOk());
  if (::geteuid() != 0) { // root writes anywhere
    ASSERT_EQ(::mkdir(dir.path("ro").c_str(), 0555), 0);
    s = checkWritableFile(dir.path("ro/c.npy"));
    ASSERT_FALSE(s.isOk());
    EXPECT_EQ(s.message(), dir.path("ro/c.npy") + ": cannot write in " +
                               dir.path("ro") + ": Permission denied");
    ::chmod(dir.path("ro").c_str(), 0755);
  }
}

TEST(CheckOutputSparesInputs, RefusesInputsAndPackageFiles) {
  ScratchDir dir;
  std::string input = dir.path("a.mtx");
  writePlainFile(input, "m");
  EXPECT_TRUE(checkOutputSparesInputs(dir.path("c.npy"), {input}).isOk());
  // The input itself, by another name (a hard link) too.
  Status s = checkOutputSparesInputs(input, {"", input});
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), input + ": is the input " + input +
                             " (writing the output would replace it)");
  std::string other = dir.path("b.mtx");
  ASSERT_EQ(::link(input.c_str(), other.c_str()), 0);
  EXPECT_FALSE(checkOutputSparesInputs(other, {input}).isOk());
  // Any file inside a package directory, and writeFileAtomically there.
  std::string package = dir.path("p.spp");
  ASSERT_EQ(::mkdir(package.c_str(), 0755), 0);
  writePlainFile(package + "/manifest.json", "{}");
  s = writeFileAtomically(package + "/report.html", "x");
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), package + "/report.html: is inside the package " +
                             package +
                             " (writing there would damage it; write "
                             "elsewhere)");
  EXPECT_EQ(readWholeFile(package + "/manifest.json"), "{}");
}

} // namespace
