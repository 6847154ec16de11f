//===- PackageInfo.cpp - spperm-inspect PKG ---------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "PackageInfo.h"

#include "spperm/Sparse/Package.h"
#include "spperm/Sparse/Strategy.h"
#include "spperm/Tools/CommandLine.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>

using namespace spperm;

namespace {

/// The regular files directly in `dir` and their sizes.
std::vector<std::pair<std::string, uint64_t>> packageFiles(
    const std::string &dir) {
  std::vector<std::pair<std::string, uint64_t>> files;
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    return files;
  while (dirent *e = ::readdir(d)) {
    std::string name = e->d_name;
    struct stat st;
    if (name == "." || name == ".." ||
        ::stat((dir + "/" + name).c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    files.emplace_back(name, static_cast<uint64_t>(st.st_size));
  }
  ::closedir(d);
  std::sort(files.begin(), files.end());
  return files;
}

std::string describeFormat(const PackageLayer &v) {
  const FormattedMatrix &f = v.matrix;
  std::string text(runFormatName(v));
  if (f.kind == FormatKind::Bell)
    text += "<block " + std::to_string(f.bell.block) + ", width " +
            std::to_string(f.bell.width) + ", " +
            std::to_string(f.bell.denseNnz) + " entries in blocks>";
  if (f.kind == FormatKind::Hbp)
    text += "<" + std::to_string(f.hbp.rowBlock) + " x " +
            std::to_string(f.hbp.colBlock) + ">";
  return text;
}

std::string mib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f MiB", bytes / 1048576.0);
  return text;
}

} // namespace

int spperm::inspectPackage(const char *tool, const std::string &dir,
                           bool json) {
  StatusOr<Package> package = readPackage(dir);
  if (!package) {
    reportError(tool, package.message());
    return 1;
  }
  uint64_t total = 0;
  nlohmann::json files = nlohmann::json::object();
  for (const auto &[name, size] : packageFiles(dir)) {
    files[name] = size;
    total += size;
  }
  nlohmann::json layers = nlohmann::json::array();
  for (const PackageLayer &layer : package->layers) {
    nlohmann::json variants = nlohmann::json::array();
    for (size_t i = 0; i <= layer.alternatives.size(); ++i) {
      const PackageLayer &v = layer.variant(i);
      const uint64_t bytes = arrayBytes(v);
      const uint64_t gpuBytes = uploadedArrayBytes(v);
      variants.push_back(
          {{"variant", i},
           {"strategy", std::string(strategyCliName(v.permutation.strategy))},
           {"format", describeFormat(v)},
           {"array_bytes", bytes},
           {"gpu_bytes", gpuBytes},
           // Generated kernels (not the cuSPARSE entry).
           {"kernels", std::count_if(v.kernels.begin(), v.kernels.end(),
                                     isGeneratedKernel)},
           {"tensor_cores", std::string(tensorCoreFamily(v))}});
    }
    nlohmann::json entry = {{"name", layer.name},
                            {"rows", layer.matrix.rows},
                            {"cols", layer.matrix.cols},
                            {"nnz", layer.matrix.nnz},
                            {"k", layer.k},
                            {"library_check", layer.libraryCheck},
                            {"csr_bytes", csrBytes(layer.matrix)},
                            // Arrays several variants take alike are
                            // uploaded once (docs/Package.md).
                            {"gpu_array_bytes", layerUploadedBytes(layer)},
                            {"variants", variants}};
    // A shard of a sharded layer (docs/Package.md, "Shards").
    if (layer.isShard())
      entry["shard"] = {{"index", layer.shard.index},
                        {"count", layer.shard.count},
                        {"row_begin", layer.shard.rowBegin},
                        {"row_end", layer.shard.rowEnd},
                        {"rows", layer.shard.rows}};
    layers.push_back(std::move(entry));
  }
  nlohmann::json out = {{"package", dir},
                        {"target", package->target},
                        {"external_data", package->externalData},
                        {"bytes", total},
                        {"files", files},
                        {"layers", layers}};
  if (json) {
    std::printf("%s\n", out.dump(2, ' ', false,
                                 nlohmann::json::error_handler_t::replace)
                            .c_str());
    return 0;
  }
  std::printf("package %s: %s in %zu files (target %s%s)\n", dir.c_str(),
              mib(total).c_str(), files.size(), package->target.c_str(),
              package->externalData ? ", external data" : "");
  for (auto it = files.begin(); it != files.end(); ++it)
    std::printf("  %-28s %12llu bytes\n", it.key().c_str(),
                static_cast<unsigned long long>(it.value().get<uint64_t>()));
  for (size_t layerIndex = 0; layerIndex < layers.size(); ++layerIndex) {
    const nlohmann::json &l = layers[layerIndex];
    const uint64_t csr = l["csr_bytes"].get<uint64_t>();
    const uint64_t gpu = l["gpu_array_bytes"].get<uint64_t>();
    const int64_t k = l["k"].get<int64_t>();
    const std::string kText = k ? "K = " + std::to_string(k) : "any K";
    std::string shard;
    if (l.contains("shard")) {
      const nlohmann::json &s = l["shard"];
      shard = " shard " + std::to_string(s["index"].get<int64_t>()) + " of " +
              std::to_string(s["count"].get<int64_t>()) + " (rows [" +
              std::to_string(s["row_begin"].get<int64_t>()) + ", " +
              std::to_string(s["row_end"].get<int64_t>()) + ") of " +
              std::to_string(s["rows"].get<int64_t>()) + ")";
    }
    std::printf("layer %s%s: %lld x %lld, %lld entries, %s; as CSR %s; GPU "
                "arrays %s (%.1fx the CSR) in %zu variant%s\n",
                l["name"].get<std::string>().c_str(), shard.c_str(),
                static_cast<long long>(l["rows"].get<int64_t>()),
                static_cast<long long>(l["cols"].get<int64_t>()),
                static_cast<long long>(l["nnz"].get<int64_t>()), kText.c_str(),
                mib(csr).c_str(), mib(gpu).c_str(),
                csr ? static_cast<double>(gpu) / csr : 0.0,
                l["variants"].size(), l["variants"].size() == 1 ? "" : "s");
    for (const nlohmann::json &v : l["variants"]) {
      const size_t index = v["variant"].get<size_t>();
      const std::string what =
          index == 0 ? "own" : "alternative " + std::to_string(index);
      const std::string tensorCores = v["tensor_cores"].get<std::string>();
      const size_t kernels = v["kernels"].get<size_t>();
      // A variant without generated kernels runs through cuSPARSE, which
      // takes its CSR on the GPU at the first call.
      const std::string run = kernels == 0
                                  ? std::string("cuSPARSE")
                                  : std::to_string(kernels) +
                                        (kernels == 1 ? " kernel" : " kernels");
      std::string format = v["format"].get<std::string>();
      // Every entry in the residual: the csr computation (docs/Package.md,
      // "Variants").
      const FormattedMatrix &m =
          package->layers[layerIndex].variant(index).matrix;
      if (m.kind == FormatKind::Bell && m.bell.width == 0)
        format += " (no dense block: csr)";
      std::printf(
          "  %-13s %-10s %-44s %12llu bytes (%llu on the GPU), "
          "%s%s%s\n",
          what.c_str(), v["strategy"].get<std::string>().c_str(),
          format.c_str(),
          static_cast<unsigned long long>(v["array_bytes"].get<uint64_t>()),
          static_cast<unsigned long long>(v["gpu_bytes"].get<uint64_t>()),
          run.c_str(),
          tensorCores.empty() ? "" : ", tensor cores: ", tensorCores.c_str());
    }
  }
  return 0;
}
