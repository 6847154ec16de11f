//===- NamesTest.cpp - Tests of the shared vocabulary -----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Names.h"

#include "gtest/gtest.h"

using namespace spperm;

namespace {

TEST(NamesTest, ArchitectureVersionReadsComputeCapabilities) {
  EXPECT_EQ(architectureVersion("sm_80"), 80u);
  EXPECT_EQ(architectureVersion("sm_86"), 86u);
  EXPECT_EQ(architectureVersion("sm_90"), 90u);
  EXPECT_EQ(architectureVersion("sm_90a"), 90u);
  EXPECT_EQ(architectureVersion("sm_100"), 100u);
  EXPECT_EQ(architectureVersion("sm_100a"), 100u);
  EXPECT_EQ(architectureVersion("sm_120f"), 120u);
}

TEST(NamesTest, ArchitectureVersionRefusesOtherSpellings) {
  for (const char *name :
       {"", "sm_", "sm_9", "sm_090", "sm_9x0", "sm_90b", "sm_90aa", "sm_a",
        "sm_12345", "compute_90", "SM_90", "sm90", " sm_90", "sm_90 ",
        "sm_-90"})
    EXPECT_EQ(architectureVersion(name), 0u) << '"' << name << '"';
}

TEST(NamesTest, FormatChoices) {
  EXPECT_TRUE(isFormatChoice("csr"));
  EXPECT_TRUE(isFormatChoice("bell"));
  EXPECT_TRUE(isFormatChoice("hbp"));
  EXPECT_TRUE(isFormatChoice("cusparse"));
  EXPECT_FALSE(isFormatChoice("auto"));
  EXPECT_FALSE(isFormatChoice("CSR"));
}

} // namespace
