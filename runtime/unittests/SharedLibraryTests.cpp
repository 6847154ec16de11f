//===- SharedLibraryTests.cpp - libspperm_runtime.so ------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The C API through the shared library (the sprt_* symbols come from
// libspperm_runtime.so; the package is written with the static sparse core).
//
//===----------------------------------------------------------------------===//

#include "CApiSmoke.h"

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/Package.h"

#include "gtest/gtest.h"

#include <filesystem>
#include <string>
#include <vector>

using namespace spperm;

namespace {

TEST(SharedLibraryTest, LoadAndRun) {
  std::string dir = ::testing::TempDir() + "spperm-shared-XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  CsrMatrix m = generateUniform(40, 30, 0.1, 3);
  PackageLayer layer;
  layer.name = "fc";
  layer.format.kind = FormatKind::Hbp;
  layer.format.hbpRowBlock = 64;
  layer.format.hbpColBlock = 16;
  layer.format.hbpWarps = 2;
  std::vector<int32_t> order(40);
  for (int32_t i = 0; i < 40; ++i)
    order[i] = 39 - i;
  StatusOr<FormattedMatrix> f = buildFormat(m, order, layer.format);
  ASSERT_TRUE(f) << f.message();
  layer.matrix = std::move(*f);
  ASSERT_TRUE(writePackage(dir + "/p.spp", {layer}, PackageOptions()));

  char error[512] = "";
  EXPECT_EQ(sprtSmoke((dir + "/p.spp").c_str(), "fc", error, sizeof error), 0)
      << error;
  sprt_package *p = nullptr;
  EXPECT_EQ(sprt_package_load((dir + "/none").c_str(), SPRT_DEVICE_CPU, &p),
            SPRT_ERROR_IO);
  EXPECT_NE(std::string(sprt_last_error()).find("cannot open"),
            std::string::npos);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

} // namespace
