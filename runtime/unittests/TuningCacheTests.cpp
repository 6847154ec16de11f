//===- TuningCacheTests.cpp - The tuning cache's file -----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The GPU backend's tuning cache (runtime/lib/TuningCache.h), without a GPU:
// where the file is by the environment, round trips, keys that differ in
// any field, corrupt files and malformed or inapplicable entries (ignored
// with a warning, then rewritten correctly), bytes mutated at random (never
// a crash, never an entry the layer does not allow), concurrent writers
// from threads and from processes, the size bound, and locations that
// cannot be written.
//
//===----------------------------------------------------------------------===//

#include "TuningCache.h"

#include "RuntimeTestUtil.h"

#include "gtest/gtest.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace spperm;
using namespace spperm::runtime_detail;
using ::spperm::test::readWholeFile;
using ::spperm::test::ScopedEnv;
using ::spperm::test::ScratchDir;

namespace {

using json = nlohmann::json;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The prefix of every warning the cache prints.
constexpr const char *kWarning = "spperm runtime: warning: tuning cache ";

/// A key as the GPU backend makes it, for layer `layer` and K bucket `k`.
TuningKey key(const std::string &layer = "fc1", int64_t k = 32) {
  TuningKey key;
  key.package = std::string(64, 'a');
  key.layer = layer;
  key.variant = "vec4";
  key.k = k;
  key.gpu = "NVIDIA H100 80GB HBM3";
  key.computeCapability = 90;
  key.driverVersion = 13000;
  key.cusparseVersion = 12600;
  key.abiVersion = 1;
  key.denseCandidate = true;
  return key;
}

/// A layer with three variants and the library calls the runtime knows.
TuningLayer layer() {
  TuningLayer l;
  l.rows = 100;
  l.cols = 80;
  l.nnz = 900;
  l.variants = {"csr/lpt", "bell/bsa", "csr/identity"};
  l.libraries = {"cusparse-spmm-default", "cusparse-spmm-csr-alg2",
                 "cublas-sgemm"};
  l.inPlaceKernels = {{"l0_in_place_0", "l0_in_place_1"}, {}, {"l2_in_place_0"}};
  return l;
}

/// key(), for a column-major B's choice.
TuningKey columnMajorKey(const std::string &layer = "fc1", int64_t k = 32) {
  TuningKey k_ = key(layer, k);
  k_.columnMajorB = true;
  return k_;
}

/// A column-major B's choice: in-place kernel `kernel` of `variant`, or the
/// transposing path ("").
TuningChoice inPlaceChoice(size_t variant, const std::string &kernel) {
  TuningChoice c;
  c.variant = variant;
  c.inPlace = kernel;
  return c;
}

TuningChoice choice(size_t variant, const std::string &library = "") {
  TuningChoice c;
  c.variant = variant;
  c.library = library;
  return c;
}

/// Writes `bytes` to `path`, replacing the file.
void writeFile(const std::string &path, const std::string &bytes) {
  ::spperm::test::writeBytes(path, bytes);
}

/// Runs `body` with stderr captured; returns the warning lines it printed
/// (and fails on any other output).
std::vector<std::string> warningsOf(const std::function<void()> &body) {
  testing::internal::CaptureStderr();
  body();
  const std::string text = testing::internal::GetCapturedStderr();
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    const std::string line = text.substr(start, end - start);
    EXPECT_EQ(line.rfind(kWarning, 0), 0u) << "not a warning: " << line;
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

/// The cache file's entries (after checking its top level).
json entriesOf(const std::string &path) {
  const json root = json::parse(readWholeFile(path), nullptr, false);
  EXPECT_FALSE(root.is_discarded()) << path;
  if (root.is_discarded() || !root.is_object())
    return json::array();
  EXPECT_EQ(root.value("schema", ""), "spperm-tuning-cache");
  EXPECT_EQ(root.value("version", 0), kTuningCacheVersion);
  if (!root.contains("entries") || !root["entries"].is_array()) {
    ADD_FAILURE() << "no entries array in " << path;
    return json::array();
  }
  return root["entries"];
}

/// The names in directory `dir`.
std::vector<std::string> listDir(const std::string &dir) {
  std::vector<std::string> names;
  for (const auto &entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

//===----------------------------------------------------------------------===//
// Location
//===----------------------------------------------------------------------===//

TEST(TuningCacheTest, PathFromTheEnvironment) {
  {
    ScopedEnv cache("SPRT_TUNING_CACHE", "/tmp/x/t.json");
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(tuningCachePathFromEnvironment(), "/tmp/x/t.json");
  }
  for (const char *off : {"off", "0", ""}) {
    ScopedEnv cache("SPRT_TUNING_CACHE", off);
    EXPECT_EQ(tuningCachePathFromEnvironment(), "") << "'" << off << "'";
  }
  ScopedEnv cache("SPRT_TUNING_CACHE", nullptr);
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    ScopedEnv home("HOME", "/home/u");
    EXPECT_EQ(tuningCachePathFromEnvironment(), "/xdg/spperm/tuning.json");
  }
  {
    // A relative XDG_CACHE_HOME is invalid (the XDG specification).
    ScopedEnv xdg("XDG_CACHE_HOME", "rel");
    ScopedEnv home("HOME", "/home/u");
    EXPECT_EQ(tuningCachePathFromEnvironment(),
              "/home/u/.cache/spperm/tuning.json");
  }
  ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
  ScopedEnv home("HOME", nullptr);
  EXPECT_EQ(tuningCachePathFromEnvironment(), "");
}

TEST(TuningCacheTest, DisabledCacheKeepsNothing) {
  ScratchDir dir;
  ScopedEnv cache("SPRT_TUNING_CACHE", "off");
  TuningCache off(tuningCachePathFromEnvironment());
  EXPECT_FALSE(off.enabled());
  std::vector<std::string> warnings = warningsOf([&] {
    off.store(key(), layer(), choice(1));
    EXPECT_FALSE(off.lookup(key(), layer()));
  });
  EXPECT_TRUE(warnings.empty());
  EXPECT_TRUE(listDir(dir.path("")).empty());
}

//===----------------------------------------------------------------------===//
// Round trips and keys
//===----------------------------------------------------------------------===//

TEST(TuningCacheTest, RoundTripThroughTheFile) {
  ScratchDir dir;
  // Missing parent directories are created.
  const std::string path = dir.path("a/b/tuning.json");
  std::vector<std::string> warnings = warningsOf([&] {
    TuningCache writer(path);
    EXPECT_FALSE(writer.lookup(key(), layer()));
    writer.store(key("fc1", 32), layer(), choice(2));
    writer.store(key("fc1", 64), layer(), choice(0, "cusparse-spmm-csr-alg2"));
    writer.store(key("fc2", 32), layer(), choice(1));
    // Replaced, not duplicated.
    writer.store(key("fc2", 32), layer(), choice(0, "cublas-sgemm"));
  });
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  EXPECT_EQ(entriesOf(path).size(), 3u);
  EXPECT_EQ(listDir(dir.path("a/b")),
            (std::vector<std::string>{"tuning.json", "tuning.json.lock"}));

  TuningCache reader(path);
  warnings = warningsOf([&] {
    std::optional<TuningChoice> c = reader.lookup(key("fc1", 32), layer());
    ASSERT_TRUE(c);
    EXPECT_EQ(c->variant, 2u);
    EXPECT_EQ(c->library, "");
    c = reader.lookup(key("fc1", 64), layer());
    ASSERT_TRUE(c);
    EXPECT_EQ(c->variant, 0u);
    EXPECT_EQ(c->library, "cusparse-spmm-csr-alg2");
    c = reader.lookup(key("fc2", 32), layer());
    ASSERT_TRUE(c);
    EXPECT_EQ(c->library, "cublas-sgemm");
    EXPECT_FALSE(reader.lookup(key("fc3", 32), layer()));
  });
  EXPECT_TRUE(warnings.empty());
}

TEST(TuningCacheTest, ColumnMajorChoicesRoundTripBesideRowMajorOnes) {
  ScratchDir dir;
  const std::string path = dir.path("tuning.json");
  {
    TuningCache writer(path);
    // The same layer and K: row-major and column-major entries apart.
    writer.store(key("fc1", 32), layer(), choice(1));
    writer.store(columnMajorKey("fc1", 32), layer(),
                 inPlaceChoice(0, "l0_in_place_1"));
    writer.store(columnMajorKey("fc1", 36), layer(), inPlaceChoice(0, ""));
  }
  EXPECT_EQ(entriesOf(path).size(), 3u);
  TuningCache reader(path);
  std::vector<std::string> warnings = warningsOf([&] {
    std::optional<TuningChoice> c = reader.lookup(key("fc1", 32), layer());
    ASSERT_TRUE(c);
    EXPECT_EQ(c->variant, 1u);
    EXPECT_EQ(c->inPlace, "");
    c = reader.lookup(columnMajorKey("fc1", 32), layer());
    ASSERT_TRUE(c);
    EXPECT_EQ(c->variant, 0u);
    EXPECT_EQ(c->inPlace, "l0_in_place_1");
    c = reader.lookup(columnMajorKey("fc1", 36), layer());
    ASSERT_TRUE(c);
    EXPECT_EQ(c->inPlace, "");
    EXPECT_FALSE(reader.lookup(columnMajorKey("fc1", 64), layer()));
  });
  EXPECT_TRUE(warnings.empty());
}

TEST(TuningCacheTest, ColumnMajorEntryTheLayerDoesNotAllowIsRejected) {
  struct Case {
    const char *what;
    TuningKey key;
    TuningChoice choice;
    const char *says;
  };
  const std::vector<Case> cases = {
      {"a kernel the variant lacks", columnMajorKey(),
       inPlaceChoice(1, "l0_in_place_0"),
       "'l0_in_place_0', which variant 1 lacks"},
      {"a kernel of a variant the layer lacks", columnMajorKey(),
       inPlaceChoice(3, "l0_in_place_0"), "variant 3, the layer has 3"},
      {"an in-place kernel for a row-major B", key(),
       inPlaceChoice(0, "l0_in_place_0"),
       "an in-place kernel for a row-major B"},
      {"a library call for a column-major B", columnMajorKey(),
       choice(0, "cusparse-spmm-default"),
       "a library call for a column-major B"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    ScratchDir dir;
    const std::string path = dir.path("tuning.json");
    TuningCache(path).store(c.key, layer(), c.choice);
    TuningCache cache(path);
    std::vector<std::string> warnings = warningsOf(
        [&] { EXPECT_FALSE(cache.lookup(c.key, layer()).has_value()); });
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find(c.says), std::string::npos) << warnings[0];
  }
}

TEST(TuningCacheTest, KeyThatDiffersInAnyFieldIsNotUsed) {
  ScratchDir dir;
  const std::string path = dir.path("tuning.json");
  TuningCache(path).store(key(), layer(), choice(1));
  std::vector<std::function<void(TuningKey &)>> edits = {
      [](TuningKey &k) { k.package[0] = 'b'; },
      [](TuningKey &k) { k.layer = "fc1 "; },
      [](TuningKey &k) { k.variant = "rows"; },
      [](TuningKey &k) { k.k = 64; },
      [](TuningKey &k) { k.gpu = "NVIDIA H200"; },
      [](TuningKey &k) { k.computeCapability = 100; },
      [](TuningKey &k) { k.driverVersion = 13010; },
      [](TuningKey &k) { k.cusparseVersion = 12601; },
      [](TuningKey &k) { k.abiVersion = 2; },
      [](TuningKey &k) { k.denseCandidate = false; },
      [](TuningKey &k) { k.columnMajorB = true; },
  };
  TuningCache reader(path);
  std::vector<std::string> warnings = warningsOf([&] {
    for (size_t i = 0; i < edits.size(); ++i) {
      TuningKey other = key();
      edits[i](other);
      EXPECT_FALSE(reader.lookup(other, layer())) << "edit " << i;
    }
    EXPECT_TRUE(reader.lookup(key(), layer()));
  });
  // Entries of other packages, GPUs or drivers are not errors.
  EXPECT_TRUE(warnings.empty());
}

//===----------------------------------------------------------------------===//
// Untrusted content
//===----------------------------------------------------------------------===//

TEST(TuningCacheTest, CorruptFileIsIgnoredWithAWarningThenRewritten) {
  const std::vector<std::string> corrupt = {
      "",
      "not json",
      "{\"schema\": \"spperm-tuning-cache\", \"version\": 1, \"entries\": [",
      "[]",
      "null",
      "{}",
      "{\"schema\": \"other\", \"version\": 1, \"entries\": []}",
      // Another version (an older runtime's file: its choices were made
      // among other candidates).
      "{\"schema\": \"spperm-tuning-cache\", \"version\": " +
          std::to_string(kTuningCacheVersion - 1) + ", \"entries\": []}",
      "{\"schema\": \"spperm-tuning-cache\", \"version\": " +
          std::to_string(kTuningCacheVersion + 1) + ", \"entries\": []}",
      "{\"schema\": \"spperm-tuning-cache\", \"version\": \"1\", "
      "\"entries\": []}",
      "{\"schema\": \"spperm-tuning-cache\", \"version\": 1, \"entries\": {}}",
      "{\"schema\": \"spperm-tuning-cache\", \"version\": "
      "99999999999999999999999, \"entries\": []}",
      std::string("\xff\xfe\x00\x01", 4),
      "{\"schema\": \"spperm-tuning-cache\xff\", \"version\": 1}",
      std::string(200000, '[') + std::string(200000, ']'),
  };
  for (size_t i = 0; i < corrupt.size(); ++i) {
    SCOPED_TRACE("corrupt file " + std::to_string(i));
    ScratchDir dir;
    const std::string path = dir.path("tuning.json");
    writeFile(path, corrupt[i]);
    TuningCache cache(path);
    std::vector<std::string> warnings = warningsOf([&] {
      EXPECT_FALSE(cache.lookup(key(), layer()));
      EXPECT_FALSE(cache.lookup(key("fc2"), layer()));
    });
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find(path), std::string::npos) << warnings[0];
    // The next store replaces it with a valid file holding the entry.
    warnings = warningsOf([&] { cache.store(key(), layer(), choice(2)); });
    EXPECT_LE(warnings.size(), 1u);
    ASSERT_EQ(entriesOf(path).size(), 1u);
    std::optional<TuningChoice> c = TuningCache(path).lookup(key(), layer());
    ASSERT_TRUE(c);
    EXPECT_EQ(c->variant, 2u);
  }
}

TEST(TuningCacheTest, MalformedEntriesAreDroppedAndTheRestKept) {
  ScratchDir dir;
  const std::string path = dir.path("tuning.json");
  TuningCache(path).store(key(), layer(), choice(1));
  json root = json::parse(readWholeFile(path));
  const json good = root["entries"][0];
  std::vector<json> bad;
  for (const char *member : {"key", "layer", "choice", "stored"}) {
    json e = good;
    e.erase(member);
    bad.push_back(e);
  }
  json e = good;
  e["key"]["k"] = 0;
  bad.push_back(e);
  e = good;
  e["key"]["driver"] = "13000";
  bad.push_back(e);
  e = good;
  e["key"]["dense"] = 1;
  bad.push_back(e);
  e = good;
  e["key"].erase("column_major_b");
  bad.push_back(e);
  e = good;
  e["choice"].erase("in_place");
  bad.push_back(e);
  e = good;
  e["choice"]["in_place"] = 0;
  bad.push_back(e);
  e = good;
  e["choice"]["variant"] = -1;
  bad.push_back(e);
  e = good;
  e["choice"]["variant"] = 1.5;
  bad.push_back(e);
  e = good;
  e["choice"]["variant"] = uint64_t{1} << 63;
  bad.push_back(e);
  e = good;
  e["layer"]["rows"] = nullptr;
  bad.push_back(e);
  e = good;
  e["key"]["compute_capability"] = int64_t{1} << 40;
  bad.push_back(e);
  bad.push_back(json("entry"));
  bad.push_back(json::array());
  for (json &b : bad) {
    // Another layer, so that a malformed entry cannot shadow the good one.
    if (b.is_object() && b.contains("key") && b["key"].is_object())
      b["key"]["layer"] = "fc9";
    root["entries"].push_back(b);
  }
  writeFile(path, root.dump());
  TuningCache cache(path);
  std::vector<std::string> warnings = warningsOf([&] {
    std::optional<TuningChoice> c = cache.lookup(key(), layer());
    ASSERT_TRUE(c);
    EXPECT_EQ(c->variant, 1u);
    EXPECT_FALSE(cache.lookup(key("fc9"), layer()));
  });
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(std::to_string(bad.size()) + " of its " +
                             std::to_string(bad.size() + 1) + " entries"),
            std::string::npos)
      << warnings[0];
  // The next store drops them.
  cache.store(key("fc2"), layer(), choice(0));
  EXPECT_EQ(entriesOf(path).size(), 2u);
}

TEST(TuningCacheTest, EntryTheLayerDoesNotAllowIsRejected) {
  // fc1 runs variant 2 ("csr/identity"), fc2 cuSPARSE's CSR_ALG2.
  struct Case {
    const char *what;
    std::function<void(TuningLayer &)> edit;
    bool fc1Rejected, fc2Rejected;
    const char *says;
  };
  const std::vector<Case> cases = {
      {"a variant the package lacks",
       [](TuningLayer &l) { l.variants.pop_back(); }, true, false,
       "variant 2, the layer has 2"},
      {"a variant that is another format/strategy",
       [](TuningLayer &l) { l.variants[2] = "hbp/lpt"; }, true, false,
       "'csr/identity', the layer's is 'hbp/lpt'"},
      {"an unknown library call",
       [](TuningLayer &l) { l.libraries = {"cusparse-spmm-default"}; }, false,
       true, "'cusparse-spmm-csr-alg2', which is not a candidate for this layer here"},
      {"another shape", [](TuningLayer &l) { l.nnz = 901; }, true, true,
       "with 901"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    ScratchDir dir;
    const std::string path = dir.path("tuning.json");
    {
      TuningCache writer(path);
      writer.store(key("fc1"), layer(), choice(2));
      writer.store(key("fc2"), layer(), choice(0, "cusparse-spmm-csr-alg2"));
    }
    TuningLayer loaded = layer();
    c.edit(loaded);
    TuningCache cache(path);
    std::vector<std::string> warnings = warningsOf([&] {
      EXPECT_EQ(cache.lookup(key("fc1"), loaded).has_value(), !c.fc1Rejected);
      EXPECT_EQ(cache.lookup(key("fc2"), loaded).has_value(), !c.fc2Rejected);
    });
    // Each entry that does not fit is named, once, and dropped.
    ASSERT_EQ(warnings.size(), size_t{c.fc1Rejected} + c.fc2Rejected);
    EXPECT_NE(warnings[0].find(c.says), std::string::npos) << warnings[0];
    for (const std::string &warning : warnings)
      EXPECT_NE(warning.find("timing again"), std::string::npos) << warning;
    warnings = warningsOf([&] {
      EXPECT_EQ(cache.lookup(key("fc1"), loaded).has_value(), !c.fc1Rejected);
      EXPECT_EQ(cache.lookup(key("fc2"), loaded).has_value(), !c.fc2Rejected);
    });
    EXPECT_TRUE(warnings.empty());
  }
  // What the backend finds inapplicable (reject) is dropped with a warning
  // too, and the new timing's store replaces it.
  ScratchDir dir;
  const std::string path = dir.path("tuning.json");
  TuningCache(path).store(key(), layer(), choice(1));
  TuningCache cache(path);
  ASSERT_TRUE(cache.lookup(key(), layer()));
  std::vector<std::string> warnings = warningsOf([&] {
    cache.reject(key(), "variant 1 has no generated kernels for k = 32");
    EXPECT_FALSE(cache.lookup(key(), layer()));
  });
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("no generated kernels"), std::string::npos);
  cache.store(key(), layer(), choice(2));
  std::optional<TuningChoice> c = TuningCache(path).lookup(key(), layer());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->variant, 2u);
}

// Bytes of a valid file flipped, deleted or cut at random: a lookup never
// crashes and never returns a choice the layer does not allow, and a store
// always leaves a valid file.
TEST(TuningCacheTest, RandomlyMutatedFilesAreSafe) {
  ScratchDir dir;
  const std::string path = dir.path("tuning.json");
  {
    TuningCache writer(path);
    for (int64_t k : {1, 2, 4, 8})
      writer.store(key("fc1", k), layer(), choice(static_cast<size_t>(k % 3)));
    writer.store(key("fc2", 32), layer(), choice(0, "cublas-sgemm"));
  }
  const std::string valid = readWholeFile(path);
  std::mt19937 rng(11);
  for (int round = 0; round < 400; ++round) {
    std::string bytes = valid;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !bytes.empty(); ++e) {
      const size_t at = rng() % bytes.size();
      switch (rng() % 4) {
      case 0:
        bytes[at] = static_cast<char>(rng());
        break;
      case 1:
        bytes.erase(at, 1 + rng() % 8);
        break;
      case 2:
        bytes.resize(at);
        break;
      default:
        bytes.insert(at, 1, "0123456789\"{}[],:-e."[rng() % 20]);
        break;
      }
    }
    writeFile(path, bytes);
    TuningCache cache(path);
    std::vector<std::string> warnings = warningsOf([&] {
      for (const std::string name : {"fc1", "fc2"})
        for (int64_t k : {1, 2, 4, 8, 32})
          if (std::optional<TuningChoice> c =
                  cache.lookup(key(name, k), layer())) {
            EXPECT_LT(c->variant, layer().variants.size());
            if (!c->library.empty()) {
              EXPECT_NE(std::find(layer().libraries.begin(),
                                  layer().libraries.end(), c->library),
                        layer().libraries.end());
            }
          }
    });
    // At most one warning about the file, plus one per rejected entry.
    EXPECT_LE(warnings.size(), 11u);
    if (round % 20 == 0) {
      cache.store(key("fc3"), layer(), choice(1));
      EXPECT_TRUE(TuningCache(path).lookup(key("fc3"), layer()));
    }
    if (HasFailure())
      break;
  }
}

//===----------------------------------------------------------------------===//
// Concurrency, size, unwritable locations
//===----------------------------------------------------------------------===//

TEST(TuningCacheTest, ConcurrentWritersFromThreadsKeepEveryEntry) {
  ScratchDir dir;
  const std::string path = dir.path("tuning.json");
  constexpr int kThreads = 8, kEach = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      // One cache object per thread, as one per loaded package.
      TuningCache cache(path);
      for (int i = 0; i < kEach; ++i)
        cache.store(key("t" + std::to_string(t), int64_t{1} << (i % 12)),
                    layer(), choice(static_cast<size_t>(i % 3)));
    });
  for (std::thread &t : threads)
    t.join();
  // Keys repeat within a thread past 12 K buckets: 12 distinct per thread.
  EXPECT_EQ(entriesOf(path).size(), size_t{kThreads} * 12);
  TuningCache reader(path);
  for (int t = 0; t < kThreads; ++t)
    for (int i = 12; i < kEach; ++i) {
      // The last store of each key wins.
      std::optional<TuningChoice> c = reader.lookup(
          key("t" + std::to_string(t), int64_t{1} << (i % 12)), layer());
      ASSERT_TRUE(c) << t << " " << i;
      EXPECT_EQ(c->variant, static_cast<size_t>(i % 3));
    }
}

TEST(TuningCacheTest, ConcurrentWritersFromProcessesKeepEveryEntry) {
  ScratchDir dir;
  const std::string path = dir.path("tuning.json");
  constexpr int kProcesses = 6, kEach = 20;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      TuningCache cache(path);
      for (int i = 0; i < kEach; ++i)
        cache.store(key("p" + std::to_string(p), i + 1), layer(),
                    choice(static_cast<size_t>(p % 3)));
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(entriesOf(path).size(), size_t{kProcesses} * kEach);
  TuningCache reader(path);
  for (int p = 0; p < kProcesses; ++p)
    for (int i = 0; i < kEach; ++i) {
      std::optional<TuningChoice> c =
          reader.lookup(key("p" + std::to_string(p), i + 1), layer());
      ASSERT_TRUE(c) << p << " " << i;
      EXPECT_EQ(c->variant, static_cast<size_t>(p % 3));
    }
  // Nothing but the file and its lock file is left (no temporary files).
  EXPECT_EQ(listDir(dir.path("")),
            (std::vector<std::string>{"tuning.json", "tuning.json.lock"}));
}

/// Fills the cache file at `path` to the bound: layers l0, l1, ... of
/// `stored(i)`.
void writeFullCache(const std::string &path,
                    const std::function<int64_t(size_t)> &stored) {
  TuningCache(path).store(key("seed"), layer(), choice(0));
  json root = json::parse(readWholeFile(path));
  const json seed = root["entries"][0];
  root["entries"] = json::array();
  for (size_t i = 0; i < kTuningCacheMaxEntries; ++i) {
    json e = seed;
    e["key"]["layer"] = "l" + std::to_string(i);
    e["stored"] = stored(i);
    root["entries"].push_back(e);
  }
  writeFile(path, root.dump());
}

TEST(TuningCacheTest, OldestEntriesGoPastTheBound) {
  ScratchDir dir;
  const std::string path = dir.path("tuning.json");
  // l0 is the oldest.
  writeFullCache(path, [](size_t i) { return static_cast<int64_t>(1000 + i); });
  TuningCache cache(path);
  cache.store(key("new"), layer(), choice(1));
  EXPECT_EQ(entriesOf(path).size(), kTuningCacheMaxEntries);
  TuningCache reader(path);
  EXPECT_FALSE(reader.lookup(key("l0"), layer()));
  EXPECT_TRUE(reader.lookup(key("l1"), layer()));
  EXPECT_TRUE(reader.lookup(key("new"), layer()));
}

TEST(TuningCacheTest, FutureTimesDoNotCrowdOutNewEntries) {
  // A full file whose entries were all stored "in the future" (a skewed
  // clock, a foreign or edited file): the entry stored now is kept, and
  // the others count as the oldest.
  ScratchDir dir;
  const std::string path = dir.path("tuning.json");
  writeFullCache(path,
                 [](size_t) { return int64_t{9'000'000'000'000'000'000}; });
  TuningCache cache(path);
  cache.store(key("new"), layer(), choice(1));
  EXPECT_EQ(entriesOf(path).size(), kTuningCacheMaxEntries);
  EXPECT_TRUE(TuningCache(path).lookup(key("new"), layer()));
  // Past the bound again, the new entry outlives them.
  TuningCache(path).store(key("newer"), layer(), choice(1));
  TuningCache reader(path);
  EXPECT_TRUE(reader.lookup(key("new"), layer()));
  EXPECT_TRUE(reader.lookup(key("newer"), layer()));
}

TEST(TuningCacheTest, UnwritableLocationIsTolerated) {
  ScratchDir dir;
  writeFile(dir.path("file"), "x");
  // A path under a regular file (cannot be created, even by root), and a
  // directory where the file should be.
  ASSERT_TRUE(std::filesystem::create_directory(dir.path("dir.json")));
  for (const std::string &path :
       {dir.path("file/spperm/tuning.json"), dir.path("dir.json")}) {
    SCOPED_TRACE(path);
    TuningCache cache(path);
    std::vector<std::string> warnings = warningsOf([&] {
      EXPECT_FALSE(cache.lookup(key(), layer()));
      cache.store(key(), layer(), choice(1));
      cache.store(key("fc2"), layer(), choice(2));
    });
    // One line about the location, whatever went wrong how often.
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find(path), std::string::npos) << warnings[0];
    // This object still remembers what it was told.
    std::optional<TuningChoice> c = cache.lookup(key(), layer());
    ASSERT_TRUE(c);
    EXPECT_EQ(c->variant, 1u);
  }
  // The lock file beside the directory is all that was made.
  EXPECT_EQ(listDir(dir.path("")),
            (std::vector<std::string>{"dir.json", "dir.json.lock", "file"}));
}

} // namespace
