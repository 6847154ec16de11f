//===- CorruptionTests.cpp - Corrupt packages are refused -------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The corruption suite: every byte of a small package's manifest and data
// flipped, truncations, deletions, and crafted manifests whose checksums are
// recomputed so that only the structural checks can catch them. Each must be
// refused with one line, never crash.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtil.h"

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/Package.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

using namespace spperm;
using namespace spperm::test;

namespace {

//===----------------------------------------------------------------------===//
// Corruption
//===----------------------------------------------------------------------===//

/// A small package with two layers and both kernel files.
std::string writeSmallPackage(const ScratchDir &dir) {
  CsrMatrix a = generateUniform(12, 10, 0.25, 11);
  CsrMatrix b = generateBlockSparse(16, 12, 4, 0.4, 12);
  std::vector<PackageLayer> layers = {
      makeLayer("a", a, Strategy::Lpt, FormatKind::Csr),
      makeLayer("b", b, Strategy::Identity, FormatKind::Bell, 2)};
  KernelInfo kernel;
  kernel.name = "k0";
  kernel.family = "csr";
  kernel.variant = "any";
  kernel.args = {"csr.row_ptr", "B", "C", "K"};
  kernel.blockX = 32;
  layers[0].kernels.push_back(kernel);
  PackageOptions options;
  options.ptx = ".version 8.0\n";
  options.cubin = "cubin";
  std::string path = dir.path("small.spp");
  EXPECT_TRUE(writePackage(path, layers, options));
  return path;
}

TEST(CorruptionTest, EveryManifestByteFlipped) {
  ScratchDir dir;
  const std::string good = writeSmallPackage(dir);
  const std::string bad = dir.path("bad.spp");
  copyPackage(good, bad);
  const std::string text = readWholeFile(good + "/manifest.json");
  ASSERT_GT(text.size(), 1000u);
  for (unsigned char mask : {0x01, 0x20, 0x80}) {
    for (size_t i = 0; i < text.size(); ++i) {
      patchByte(bad + "/manifest.json", i, static_cast<char>(text[i] ^ mask));
      expectRefused(bad,
                    "byte " + std::to_string(i) + " ^ " + std::to_string(mask));
      patchByte(bad + "/manifest.json", i, text[i]);
      if (HasFailure())
        return;
    }
  }
}

TEST(CorruptionTest, EveryDataByteFlipped) {
  ScratchDir dir;
  const std::string good = writeSmallPackage(dir);
  const std::string bad = dir.path("bad.spp");
  copyPackage(good, bad);
  const std::string data = readWholeFile(good + "/data.bin");
  ASSERT_GT(data.size(), 256u);
  for (size_t i = 0; i < data.size(); ++i) {
    patchByte(bad + "/data.bin", i, static_cast<char>(data[i] ^ 0x10));
    std::string message;
    EXPECT_EQ(tryLoad(bad, message), SPRT_ERROR_CORRUPT_PACKAGE) << i;
    EXPECT_EQ(message.rfind(bad + "/data.bin: ", 0), 0u) << message;
    patchByte(bad + "/data.bin", i, data[i]);
    if (HasFailure())
      return;
  }
}

TEST(CorruptionTest, TruncatedExtendedAndDeletedFiles) {
  ScratchDir dir;
  const std::string good = writeSmallPackage(dir);
  const std::string bad = dir.path("bad.spp");
  for (const char *file :
       {"manifest.json", "data.bin", "kernels.ptx", "kernels.sm_90.cubin"}) {
    const std::string bytes = readWholeFile(good + "/" + file);
    for (size_t keep :
         {size_t(0), size_t(1), bytes.size() / 2, bytes.size() - 1}) {
      copyPackage(good, bad);
      writeBytes(bad + "/" + file, bytes.substr(0, keep));
      expectRefused(bad, std::string(file) + " cut to " + std::to_string(keep));
    }
    copyPackage(good, bad);
    writeBytes(bad + "/" + file, bytes + "x");
    expectRefused(bad, std::string(file) + " extended");
    copyPackage(good, bad);
    std::filesystem::remove(bad + "/" + file);
    expectRefused(bad, std::string(file) + " deleted");
    copyPackage(good, bad);
    std::filesystem::remove(bad + "/" + file);
    std::filesystem::create_directory(bad + "/" + file);
    expectRefused(bad, std::string(file) + " replaced by a directory");
  }
  std::string message;
  std::filesystem::remove_all(bad);
  EXPECT_EQ(tryLoad(bad, message), SPRT_ERROR_IO);
  writeBytes(bad, "not a directory");
  EXPECT_EQ(tryLoad(bad, message), SPRT_ERROR_IO);
}

/// Manifests edited consistently (their checksum recomputed), so that only
/// the structural checks can refuse them.
TEST(CorruptionTest, CraftedManifests) {
  ScratchDir dir;
  const std::string good = writeSmallPackage(dir);
  const std::string bad = dir.path("bad.spp");
  struct Case {
    const char *expect;
    std::function<void(json &)> edit;
  };
  auto buf = [](json &m, int layer, int index) -> json & {
    return m["layers"][layer]["buffers"][index];
  };
  const std::vector<Case> cases = {
      {"unsupported package version 2", [](json &m) { m["version"] = 2; }},
      {"schema 'other'", [](json &m) { m["schema"] = "other"; }},
      {"version is -1", [](json &m) { m["version"] = -1; }},
      {"unexpected key 'extra'", [](json &m) { m["extra"] = 1; }},
      // Found by spperm-fuzz-package: a key is escaped in the message, which
      // stays one line.
      {"unexpected key 'a\\x0ab'", [](json &m) { m["a\nb"] = 1; }},
      {"missing key 'layers'", [](json &m) { m.erase("layers"); }},
      {"layers is empty", [](json &m) { m["layers"] = json::array(); }},
      {"target '../x'", [](json &m) { m["target"] = "../x"; }},
      {"data.file must be 'data.bin'",
       [](json &m) { m["data"]["file"] = "../data.bin"; }},
      {"code.ptx.file must be 'kernels.ptx'",
       [](json &m) { m["code"]["ptx"]["file"] = "/etc/passwd"; }},
      {"code.cubin.size is 9223372036854775807",
       [](json &m) { m["code"]["cubin"]["size"] = INT64_MAX; }},
      {"layers[0] ('a').rows is -12",
       [](json &m) { m["layers"][0]["rows"] = -12; }},
      {"layers[0] ('a').library_check must be true or false",
       [](json &m) { m["layers"][0]["library_check"] = 3; }},
      {"rows is 4294967296",
       [](json &m) { m["layers"][0]["rows"] = int64_t(1) << 32; }},
      {"rows must be an integer",
       [](json &m) { m["layers"][0]["rows"] = 12.5; }},
      {"rows must be an integer",
       [](json &m) { m["layers"][0]["rows"] = "12"; }},
      {"rows must be an integer",
       [](json &m) { m["layers"][0]["rows"] = 1e300; }},
      {"nnz 1000 is larger than rows x cols",
       [](json &m) { m["layers"][0]["nnz"] = 1000; }},
      {"strategy 'fastest' is not a strategy name",
       [](json &m) { m["layers"][0]["strategy"] = "fastest"; }},
      {"strategy 'hybrid_2_1' is not a strategy name",
       [](json &m) { m["layers"][0]["strategy"] = "hybrid_2_1"; }},
      {"format 'coo'", [](json &m) { m["layers"][0]["format"] = "coo"; }},
      {"alpha must be a number in [0, 1]",
       [](json &m) { m["layers"][0]["strategy_params"]["alpha"] = 2.0; }},
      {"warps must be in [1, 1024]",
       [](json &m) { m["layers"][0]["strategy_params"]["warps"] = 4096; }},
      {"delta must be in (0, 1]",
       [](json &m) { m["layers"][1]["format_params"]["delta"] = 0.0; }},
      {"block must be 1, 2, 4, 8, 16 or 32",
       [](json &m) { m["layers"][1]["format_params"]["block"] = 3; }},
      {"columns must be \"blocks\" or \"condensed\", got 'diagonal'",
       [](json &m) { m["layers"][1]["format_params"]["columns"] = "diagonal"; }},
      {"columns must be a string",
       [](json &m) { m["layers"][1]["format_params"]["columns"] = 1; }},
      // Consecutive blocks declared condensed: the tile columns are missing.
      {"the bell format needs a buffer 'bell.tile_col'",
       [](json &m) { m["layers"][1]["format_params"]["columns"] = "condensed"; }},
      {"source.values",
       [](json &m) { m["layers"][0]["source"]["values"] = "random:x"; }},
      {"source.sha256 must be 64 lowercase hex digits",
       [](json &m) { m["layers"][0]["source"]["sha256"] = "ABC"; }},
      // 16-bit column indices only of the csr or residual column indices,
      // and only where every column fits.
      {"'csr.values.u16' is not a buffer of the layer",
       [](json &m) {
         m["layers"][0]["kernels"][0]["args"][0] = "csr.values.u16";
       }},
      {"'csr.col_idx.u16' narrows column indices to 16 bits, but the layer "
       "has 70000 columns (at most 65536)",
       [](json &m) {
         m["layers"][0]["cols"] = 70000;
         m["layers"][0]["kernels"][0]["args"][0] = "csr.col_idx.u16";
       }},
      {"grid must have 3 elements",
       [](json &m) {
         m["layers"][0]["kernels"][0]["grid"] = json::array({1, 1});
       }},
      {"block[0] is 2048",
       [](json &m) { m["layers"][0]["kernels"][0]["block"][0] = 2048; }},
      {"kernels[0].block must have at most 1024 threads in all and 64 in z, "
       "got 64 x 32 x 1",
       [](json &m) {
         m["layers"][0]["kernels"][0]["block"] = json::array({64, 32, 1});
       }},
      {"kernels[0].block must have at most 1024 threads in all and 64 in z, "
       "got 1 x 1 x 128",
       [](json &m) {
         m["layers"][0]["kernels"][0]["block"] = json::array({1, 1, 128});
       }},
      // A grid that grows with K: whole, positive, consistent with grid,
      // on a kernel that takes K.
      {"unexpected key 'layers[0] ('a').kernels[0].grid_k.slices'",
       [](json &m) {
         m["layers"][0]["kernels"][0]["grid_k"] = {
             {"base", 0}, {"ctas", 1}, {"columns", 32}, {"slices", 2}};
       }},
      {"missing key 'layers[0] ('a').kernels[0].grid_k.columns'",
       [](json &m) {
         m["layers"][0]["kernels"][0]["grid_k"] = {{"base", 0}, {"ctas", 1}};
       }},
      {"kernels[0].grid_k.ctas is 0",
       [](json &m) {
         m["layers"][0]["kernels"][0]["grid_k"] = {
             {"base", 0}, {"ctas", 0}, {"columns", 32}};
       }},
      {"kernels[0]: grid_k needs a grid of base + a multiple of ctas",
       [](json &m) {
         m["layers"][0]["kernels"][0]["grid"] = json::array({5, 1, 1});
         m["layers"][0]["kernels"][0]["grid_k"] = {
             {"base", 0}, {"ctas", 2}, {"columns", 32}};
       }},
      {"transpose_b cannot have grid_k",
       [](json &m) {
         json t = m["layers"][0]["kernels"][0];
         t["args"] = json::array({"B_col", "B", "K"});
         t["grid_k"] = {{"base", 0}, {"ctas", 1}, {"columns", 32}};
         m["layers"][0]["transpose_b"] = t;
       }},
      {"in_place_b[0] cannot have grid_k",
       [](json &m) {
         json t = m["layers"][0]["kernels"][0];
         t["args"] = json::array({"csr.row_ptr", "B_col", "C", "K"});
         t["zero_output"] = false;
         t["grid_k"] = {{"base", 0}, {"ctas", 1}, {"columns", 32}};
         m["layers"][0]["in_place_b"] = json::array({t});
       }},
      {"kernels[0]: grid_k needs the kernel to take K",
       [](json &m) {
         m["layers"][0]["kernels"][0]["args"] =
             json::array({"csr.row_ptr", "B", "C"});
         m["layers"][0]["kernels"][0]["grid_k"] = {
             {"base", 0}, {"ctas", 1}, {"columns", 32}};
       }},
      {"kernels[0].dependent_launch must be true or false",
       [](json &m) {
         m["layers"][0]["kernels"][0]["dependent_launch"] = "yes";
       }},
      {"offset 8 is not a multiple of 256",
       [&](json &m) { buf(m, 0, 1)["offset"] = 8; }},
      {"lie outside data.bin",
       [&](json &m) { buf(m, 0, 1)["offset"] = 1 << 20; }},
      {"lie outside data.bin",
       [&](json &m) {
         buf(m, 0, 1)["count"] = int64_t(1) << 40;
         buf(m, 0, 1)["size"] = int64_t(4) << 40;
       }},
      {"size 4 does not match count 5",
       [&](json &m) {
         buf(m, 0, 1)["count"] = 5;
         buf(m, 0, 1)["size"] = 4;
       }},
      {"size 9223372036854775804 does not match",
       [&](json &m) {
         buf(m, 0, 1)["count"] = INT64_MAX / 2;
         buf(m, 0, 1)["size"] = INT64_MAX - 3;
       }},
      {"overlap",
       [&](json &m) { buf(m, 0, 2)["offset"] = buf(m, 0, 1)["offset"]; }},
      {"overlap",
       [&](json &m) { buf(m, 1, 0)["offset"] = buf(m, 0, 0)["offset"]; }},
      {"'csr.values' must have dtype f32",
       [&](json &m) { buf(m, 0, 3)["dtype"] = "i32"; }},
      {"dtype 'f64' is not one of",
       [&](json &m) { buf(m, 0, 3)["dtype"] = "f64"; }},
      {"needs a buffer 'csr.values'",
       [&](json &m) { buf(m, 0, 3)["name"] = "csr.valuez"; }},
      {"a second buffer with this name",
       [&](json &m) { buf(m, 0, 3)["name"] = "csr.col_idx"; }},
      {"'hbp.col' is not an array of the csr format",
       [&](json &m) {
         json extra = buf(m, 0, 3);
         extra["name"] = "hbp.col";
         extra["dtype"] = "i32";
         m["layers"][0]["buffers"].push_back(extra);
       }},
      {"'order' has 11 elements, expected 12",
       [&](json &m) {
         buf(m, 0, 0)["count"] = 11;
         buf(m, 0, 0)["size"] = 44;
       }},
      {"two layers are named 'a'",
       [](json &m) { m["layers"][1]["name"] = "a"; }},
      {"name must be 1 to 1024 bytes",
       [](json &m) { m["layers"][1]["name"] = ""; }},
      {"contains control characters",
       [](json &m) { m["layers"][1]["name"] = "a\tb"; }},
      {"buffer 'csr.row_ptr'",
       [&](json &m) { buf(m, 0, 1)["sha256"] = std::string(64, '0'); }},
      {"data.bin: the file does not match its sha256",
       [](json &m) { m["data"]["sha256"] = std::string(64, 'f'); }},
      {"data.bin: the file is",
       [](json &m) {
         m["data"]["size"] = m["data"]["size"].get<int64_t>() + 256;
       }},
      {"lie outside data.bin (1 bytes)",
       [](json &m) { m["data"]["size"] = 1; }},
      {"kernels.ptx: the file does not match its sha256",
       [](json &m) { m["code"]["ptx"]["sha256"] = std::string(64, 'e'); }},
  };
  for (const Case &c : cases) {
    copyPackage(good, bad);
    rewriteManifest(bad, c.edit);
    std::string message;
    sprt_status s = tryLoad(bad, message);
    EXPECT_EQ(s, SPRT_ERROR_CORRUPT_PACKAGE) << c.expect;
    EXPECT_NE(message.find(c.expect), std::string::npos)
        << "expected '" << c.expect << "' in: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }

  // The checksum line must be where the writer puts it.
  copyPackage(good, bad);
  json m = json::parse(readWholeFile(bad + "/manifest.json"));
  writeBytes(bad + "/manifest.json", m.dump(2));
  expectRefused(bad, "manifest without its checksum line");
  writeBytes(bad + "/manifest.json", "[1, 2]");
  expectRefused(bad, "not an object");
  writeBytes(bad + "/manifest.json", std::string(100000, '['));
  expectRefused(bad, "deep nesting");
}

/// data.bin edited with every checksum recomputed: the structural checks
/// (verifyFormat) must refuse it.
/// Manifests of a package with alternatives, edited (checksum recomputed):
/// each refused with a line that names the alternative.
TEST(CorruptionTest, CraftedAlternatives) {
  ScratchDir dir;
  CsrMatrix m = generateBlockSparse(64, 48, 4, 0.3, 3);
  // Alternatives stored in data.bin (not rebuilt at load).
  PackageOptions stored;
  stored.rebuildAlternatives = false;
  ASSERT_TRUE(
      writePackage(dir.path("a.spp"), layersWithAlternatives(m), stored));
  struct Case {
    const char *expect;
    std::function<void(json &)> edit;
  };
  const std::vector<Case> cases = {
      {"layers[0] ('fc').alternatives must be a non-empty array",
       [](json &j) { j["layers"][0]["alternatives"] = json::array(); }},
      {"layers[0] ('fc').alternatives must be a non-empty array",
       [](json &j) { j["layers"][0]["alternatives"] = 3; }},
      {"has alternatives but not the library check",
       [](json &j) { j["layers"][0].erase("library_check"); }},
      {"alternatives[0].name'",
       [](json &j) { j["layers"][0]["alternatives"][0]["name"] = "x"; }},
      {"alternatives[1] lacks 'kernels'",
       [](json &j) { j["layers"][0]["alternatives"][1].erase("kernels"); }},
      {"alternatives[1] needs generated kernels",
       [](json &j) {
         j["layers"][0]["alternatives"][1]["kernels"] = json::array();
       }},
      {"alternatives[0] must be an object",
       [](json &j) { j["layers"][0]["alternatives"][0] = "bell"; }},
      {"layers[1] ('plain') has alternatives but not the library check",
       [](json &j) {
         j["layers"][1]["alternatives"] = j["layers"][0]["alternatives"];
       }},
      {"overlap",
       [](json &j) {
         j["layers"][0]["alternatives"][1]["buffers"][0]["offset"] =
             j["layers"][0]["buffers"][0]["offset"];
       }},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.expect);
    copyPackage(dir.path("a.spp"), dir.path("bad.spp"));
    rewriteManifest(dir.path("bad.spp"), c.edit);
    expectRefused(dir.path("bad.spp"), c.expect);
    std::string message;
    tryLoad(dir.path("bad.spp"), message);
    EXPECT_NE(message.find(c.expect), std::string::npos) << message;
  }

  // Alternatives rebuilt at load from the layer's matrix: each edit that
  // makes the rebuild differ from what the manifest records is refused.
  ASSERT_TRUE(writePackage(dir.path("r.spp"), layersWithAlternatives(m),
                           PackageOptions()));
  const std::vector<Case> rebuilt = {
      {"alternatives[0].rebuilt must be a boolean",
       [](json &j) { j["layers"][0]["alternatives"][0]["rebuilt"] = 1; }},
      {"unexpected key 'layers[0] ('fc').alternatives[0] ('fc').buffers[0]."
       "offset'",
       [](json &j) {
         j["layers"][0]["alternatives"][0]["buffers"][0]["offset"] = 0;
       }},
      {"alternative 1: the rebuilt buffer",
       [](json &j) {
         j["layers"][0]["alternatives"][0]["buffers"][0]["sha256"] =
             std::string(64, '0');
       }},
      {"alternative 2: the rebuilt",
       [](json &j) {
         j["layers"][0]["alternatives"][1]["strategy"] = "flipped";
       }},
  };
  for (const Case &c : rebuilt) {
    SCOPED_TRACE(c.expect);
    copyPackage(dir.path("r.spp"), dir.path("bad.spp"));
    rewriteManifest(dir.path("bad.spp"), c.edit);
    expectRefused(dir.path("bad.spp"), c.expect);
  }
}

TEST(CorruptionTest, ConsistentlyChecksummedBadArrays) {
  ScratchDir dir;
  const std::string good = writeSmallPackage(dir);
  const std::string bad = dir.path("bad.spp");
  // (layer, buffer, element, new int32 value)
  struct Edit {
    int layer, buffer;
    size_t element;
    int32_t value;
  };
  for (const Edit &e :
       {Edit{0, 0, 0, 99}, Edit{0, 0, 1, -1}, Edit{0, 1, 3, 1000},
        Edit{0, 2, 0, 10}, Edit{0, 2, 0, -5}, Edit{1, 1, 0, 77},
        Edit{1, 3, 16, -9}}) {
    copyPackage(good, bad);
    std::string data = readWholeFile(bad + "/data.bin");
    json m = json::parse(readWholeFile(bad + "/manifest.json"));
    m.erase("manifest_sha256");
    json &b = m["layers"][e.layer]["buffers"][e.buffer];
    ASSERT_LT(e.element, b["count"].get<size_t>());
    size_t at = b["offset"].get<size_t>() + 4 * e.element;
    std::memcpy(&data[at], &e.value, 4);
    b["sha256"] = sha256Hex(data.data() + b["offset"].get<size_t>(),
                            b["size"].get<size_t>());
    m["data"]["sha256"] = sha256Hex(data.data(), data.size());
    writeBytes(bad + "/data.bin", data);
    writeBytes(bad + "/manifest.json", withChecksum(m));
    std::string message;
    EXPECT_EQ(tryLoad(bad, message), SPRT_ERROR_CORRUPT_PACKAGE)
        << b["name"] << "[" << e.element << "] = " << e.value;
    EXPECT_NE(message.find("do not form a valid"), std::string::npos)
        << message;
  }
}

} // namespace
