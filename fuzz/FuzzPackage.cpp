//===- FuzzPackage.cpp - libFuzzer target: the package loader -------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The input is a package: `[raw:]MANIFEST[\n--data.bin--\nDATA]`, written
// as manifest.json and data.bin into a scratch package directory and loaded
// by spperm::readPackage. Beside the package lies `src.mtx`
// (kSourceMatrix), the source of layers with external data.
//
// Every byte of a manifest is covered by its manifest_sha256 and every
// buffer by its sha256, so random mutations would almost never get past the
// checksums. Unless the input starts with `raw:`, the harness therefore
// first parses the manifest (when it is JSON) and rewrites it the way the
// writer would: data.size and data.sha256 from DATA, each buffer's sha256
// from the bytes its offset and size select, the sha256 of a layer whose
// source path is `src.mtx` from that file, and the manifest_sha256 line.
// That takes the fuzzer to the structural checks, the bounds of the arrays
// (verifyFormat) and, with external data, the rebuild from the source with
// fuzzed strategy and format parameters. `raw:` inputs reach the JSON
// parser and the checksum checks byte for byte.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "spperm/Sparse/Package.h"

#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

using json = nlohmann::json;
using namespace spperm;

namespace {

/// The scratch directory: PARENT/src.mtx and PARENT/p.spp/.
struct PackageDir {
  PackageDir() {
    parent = fuzz::tempRoot() + "/spperm-fuzz-XXXXXX";
    if (!::mkdtemp(parent.data())) {
      std::perror("spperm-fuzz: harness error: mkdtemp");
      std::abort();
    }
    dir = parent + "/p.spp";
    if (::mkdir(dir.c_str(), 0700) != 0) {
      std::perror("spperm-fuzz: harness error: mkdir");
      std::abort();
    }
    fuzz::writeFileOrDie(parent + "/src.mtx", fuzz::kSourceMatrix);
    sourceSha =
        sha256Hex(fuzz::kSourceMatrix.data(), fuzz::kSourceMatrix.size());
  }
  ~PackageDir() {
    ::unlink((dir + "/manifest.json").c_str());
    ::unlink((dir + "/data.bin").c_str());
    ::rmdir(dir.c_str());
    ::unlink((parent + "/src.mtx").c_str());
    ::rmdir(parent.c_str());
  }
  std::string parent, dir, sourceSha;
};

bool isSize(const json &v) { return v.is_number_unsigned(); }

/// Makes the checksums of `manifest` agree with `data` (see the file
/// comment); returns the manifest unchanged when it is not a JSON object.
std::string fixChecksums(std::string_view manifest, std::string_view data,
                         const std::string &sourceSha) {
  json root = json::parse(manifest, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object() || root.empty())
    return std::string(manifest);
  root.erase("manifest_sha256");
  auto it = root.find("data");
  if (it != root.end() && it->is_object()) {
    (*it)["size"] = data.size();
    (*it)["sha256"] = sha256Hex(data.data(), data.size());
  }
  it = root.find("layers");
  if (it != root.end() && it->is_array()) {
    for (json &layer : *it) {
      if (!layer.is_object())
        continue;
      auto source = layer.find("source");
      if (source != layer.end() && source->is_object()) {
        auto path = source->find("path");
        if (path != source->end() && *path == "src.mtx")
          (*source)["sha256"] = sourceSha;
      }
      auto buffers = layer.find("buffers");
      if (buffers == layer.end() || !buffers->is_array())
        continue;
      for (json &b : *buffers) {
        if (!b.is_object())
          continue;
        auto offset = b.find("offset"), size = b.find("size");
        if (offset == b.end() || size == b.end() || !isSize(*offset) ||
            !isSize(*size))
          continue;
        uint64_t o = offset->get<uint64_t>(), n = size->get<uint64_t>();
        if (o <= data.size() && n <= data.size() - o)
          b["sha256"] = sha256Hex(data.data() + o, n);
      }
    }
  }
  // The writer's layout: the pretty-printed object without its closing
  // "\n}", then the checksum of everything before the key.
  std::string text = root.dump(2, ' ', false, json::error_handler_t::replace);
  text.resize(text.size() - 2);
  text += ",\n  ";
  std::string sha = sha256Hex(text.data(), text.size());
  text += "\"manifest_sha256\": \"" + sha + "\"\n}\n";
  return text;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size) {
  static PackageDir pkg;
  std::string_view input(reinterpret_cast<const char *>(bytes), size);
  bool raw = input.substr(0, fuzz::kRawPrefix.size()) == fuzz::kRawPrefix;
  if (raw)
    input.remove_prefix(fuzz::kRawPrefix.size());
  std::string_view manifest = input, data;
  size_t marker = input.find(fuzz::kDataMarker);
  bool hasData = marker != std::string_view::npos;
  if (hasData) {
    manifest = input.substr(0, marker);
    data = input.substr(marker + fuzz::kDataMarker.size());
  }
  std::string text =
      raw ? std::string(manifest) : fixChecksums(manifest, data, pkg.sourceSha);
  fuzz::writeFileOrDie(pkg.dir + "/manifest.json", text);
  if (hasData)
    fuzz::writeFileOrDie(pkg.dir + "/data.bin", data);
  else
    ::unlink((pkg.dir + "/data.bin").c_str());

  StatusOr<Package> p = readPackage(pkg.dir);
  fuzz::checkError(p.status());
  if (!p)
    return 0;
  for (const PackageLayer &layer : p->layers) {
    if (Status s = verifyFormat(layer.matrix); !s) {
      std::fprintf(stderr,
                   "spperm-fuzz: finding: a loaded layer does not "
                   "verify: %s\n",
                   s.message().c_str());
      std::abort();
    }
  }
  return 0;
}
