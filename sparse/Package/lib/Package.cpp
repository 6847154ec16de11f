//===- Package.cpp - The compiled-model package -----------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Writing and reading the package directory (docs/Package.md has the layout).
//
// Writing: every check happens first (the layers verify, the names are
// unique, the destination is free or is a package), then the files go into a
// fresh temporary directory beside the destination, each is fsync'ed, and the
// directory is renamed into place; an old package there is renamed aside
// first and removed last.
//
// Reading trusts nothing: manifest.json is size-capped, parsed without
// exceptions and checked against its own trailing checksum; every key is
// type- and range-checked; buffers must be aligned, in bounds, disjoint and
// of the size their count implies before anything is allocated (so no
// allocation is larger than data.bin itself); data.bin is streamed once,
// hashing each buffer and the whole file; only then is the FormattedMatrix
// reconstructed and handed to verifyFormat. Every failure is one line that
// starts with the file it is about.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Package.h"

#include "spperm/Sparse/Escape.h"
#include "Sha256.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <type_traits>
#include <unistd.h>
#include <utility>
#include <vector>

// data.bin holds the arrays in host order; the format says little-endian.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "data.bin is little-endian; big-endian hosts are not supported"
#endif

using namespace spperm;
using json = nlohmann::ordered_json;
using spperm::detail::Sha256;

namespace {

constexpr const char *kSchema = "spperm-package";
constexpr const char *kManifestFile = "manifest.json";
constexpr const char *kDataFile = "data.bin";
constexpr const char *kPtxFile = "kernels.ptx";
constexpr const char *kChecksumKey = "manifest_sha256";
/// Alignment of every buffer in data.bin (enough for any vector load and for
/// cudaMemcpy-friendly offsets).
constexpr uint64_t kAlignment = 256;
/// The keys of an alternative in the manifest: what differs from its layer.
constexpr const char *kAlternativeKeys[] = {
    "strategy", "strategy_params", "format", "format_params", "kernels",
    "buffers"};
/// Manifests larger than this are refused before they are read.
constexpr uint64_t kMaxManifestBytes = uint64_t(64) << 20;
/// kernels.ptx / kernels.<target>.cubin larger than this are refused.
constexpr uint64_t kMaxCodeBytes = uint64_t(1) << 30;
/// Layer names and kernel names longer than this are refused.
constexpr size_t kMaxNameBytes = 1024;
/// Read/write granularity when streaming data.bin.
constexpr size_t kChunkBytes = size_t(1) << 20;

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

std::string errnoText() { return std::strerror(errno); }

std::string inQuotes(std::string_view s) { return "'" + std::string(s) + "'"; }

/// True for valid UTF-8 without control characters (what names and paths in
/// the manifest may contain; nlohmann::json refuses invalid UTF-8 on dump).
bool isCleanUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f)
      return false;
    if (c < 0x80) {
      ++i;
      continue;
    }
    int extra;
    uint32_t cp;
    if ((c & 0xe0) == 0xc0) {
      extra = 1;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      extra = 2;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (s.size() - i <= static_cast<size_t>(extra))
      return false;
    for (int k = 1; k <= extra; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80)
        return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    // Overlong forms, surrogates and values past U+10FFFF.
    static const uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[extra] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    i += extra + 1;
  }
  return true;
}

bool isLowerHex64(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

/// Architecture names become part of a file name (kernels.<target>.cubin).
bool isValidTarget(std::string_view t) {
  return !t.empty() && t.size() <= 64 &&
         std::all_of(t.begin(), t.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                  (c >= 'A' && c <= 'Z') || c == '_';
         });
}

bool isValidName(std::string_view s) {
  return !s.empty() && s.size() <= kMaxNameBytes && isCleanUtf8(s);
}

/// A double in the shortest %g form (for messages).
std::string shortNumber(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", x);
  return text;
}

uint64_t alignUp(uint64_t x) {
  return (x + kAlignment - 1) / kAlignment * kAlignment;
}

/// `dir` without trailing slashes (but "/" stays "/").
std::string trimSlashes(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  return dir;
}

/// The directory containing `dir` (already trimmed) and its last component.
std::pair<std::string, std::string> splitPath(const std::string &dir) {
  size_t slash = dir.rfind('/');
  if (slash == std::string::npos)
    return {".", dir};
  return {slash == 0 ? "/" : dir.substr(0, slash), dir.substr(slash + 1)};
}

/// Where the reader finds a layer's source file: `path` itself when
/// absolute, else `path` inside `parent` (the package's parent directory).
std::string resolveSource(const std::string &parent, const std::string &path) {
  return !path.empty() && path.front() == '/' ? path : parent + "/" + path;
}

/// Removes a directory tree, ignoring errors (used on paths we created).
void removeTree(const std::string &path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

/// fsync of a directory, so that renames and new entries are durable.
bool syncDirectory(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0)
    return false;
  bool ok = ::fsync(fd) == 0;
  return ::close(fd) == 0 && ok;
}

/// Element type names of the buffers.
template <typename T> struct DType;
template <> struct DType<int32_t> {
  static constexpr const char *name = "i32";
};
template <> struct DType<int64_t> {
  static constexpr const char *name = "i64";
};
template <> struct DType<float> { static constexpr const char *name = "f32"; };

uint64_t dtypeSize(std::string_view dtype) {
  if (dtype == "i32" || dtype == "f32")
    return 4;
  if (dtype == "i64")
    return 8;
  return 0;
}

/// True when a non-CSR format also carries the permuted CSR (then written as
/// the csr.* buffers too).
bool carriesCsr(const FormattedMatrix &f) {
  return f.kind == FormatKind::Csr ||
         (f.rows > 0 && f.csr.rowPtr.size() == static_cast<size_t>(f.rows) + 1);
}

/// Calls `fn(name, vector)` for every array of `f` that the package stores,
/// in the order they are laid out in data.bin. `Matrix` is FormattedMatrix or
/// const FormattedMatrix. The one list of buffer names and types.
template <typename Matrix, typename Fn>
void forEachBuffer(Matrix &f, bool withCsr, Fn &&fn) {
  fn("order", f.order);
  if (withCsr || f.kind == FormatKind::Csr) {
    fn("csr.row_ptr", f.csr.rowPtr);
    fn("csr.col_idx", f.csr.colIdx);
    fn("csr.values", f.csr.values);
  }
  switch (f.kind) {
  case FormatKind::Csr:
    break;
  case FormatKind::Bell:
    fn("bell.block_col", f.bell.blockCol);
    fn("bell.block_values", f.bell.blockValues);
    fn("bell.residual.row_ptr", f.bell.residual.rowPtr);
    fn("bell.residual.col_idx", f.bell.residual.colIdx);
    fn("bell.residual.values", f.bell.residual.values);
    break;
  case FormatKind::Hbp:
    fn("hbp.blocks", f.hbp.blocks);
    fn("hbp.col", f.hbp.col);
    fn("hbp.data", f.hbp.data);
    fn("hbp.add_sign", f.hbp.addSign);
    fn("hbp.zero_row", f.hbp.zeroRow);
    fn("hbp.begin_nnz", f.hbp.beginNnz);
    fn("hbp.output_hash", f.hbp.outputHash);
    fn("hbp.fixed_blocks", f.hbp.fixedBlocks);
    fn("hbp.fixed_block_ptr", f.hbp.fixedBlockPtr);
    fn("hbp.competitive_blocks", f.hbp.competitiveBlocks);
    break;
  }
}

} // namespace

std::vector<LayerBuffer> spperm::layerBuffers(const PackageLayer &layer) {
  std::vector<LayerBuffer> buffers;
  forEachBuffer(layer.matrix, carriesCsr(layer.matrix),
                [&](const char *name, const auto &v) {
                  using T = typename std::decay_t<decltype(v)>::value_type;
                  buffers.push_back({name, DType<T>::name, v.data(), v.size()});
                });
  return buffers;
}

namespace {

/// Whether `name` may be a kernel parameter of `layer`: one of its buffers,
/// or B, C, K, kTicketsArg.
bool isKernelArgName(const PackageLayer &layer, const std::string &name) {
  if (isCallArg(name))
    return true;
  bool found = false;
  forEachBuffer(layer.matrix, carriesCsr(layer.matrix),
                [&](std::string_view buffer, const auto &) {
                  found = found || buffer == name;
                });
  return found;
}

bool isCsrGroupName(std::string_view name) {
  return name == "csr.row_ptr" || name == "csr.col_idx" || name == "csr.values";
}

std::optional<FormatKind> parseFormatKind(std::string_view name) {
  for (FormatKind k : {FormatKind::Csr, FormatKind::Bell, FormatKind::Hbp})
    if (formatName(k) == name)
      return k;
  return std::nullopt;
}

/// The scalars of a format's storage that the manifest records
/// (format_params); the arrays are buffers.
json formatParams(const PackageLayer &layer) {
  json p = json::object();
  const FormattedMatrix &f = layer.matrix;
  if (f.kind == FormatKind::Bell) {
    p["block"] = f.bell.block;
    p["width"] = f.bell.width;
    p["delta"] = f.bell.delta;
    p["dense_nnz"] = f.bell.denseNnz;
    p["max_width"] = layer.format.bellMaxWidth;
  } else if (f.kind == FormatKind::Hbp) {
    p["row_block"] = f.hbp.rowBlock;
    p["col_block"] = f.hbp.colBlock;
    p["fixed_fraction"] = layer.format.hbpFixedFraction;
    p["warps"] = layer.format.hbpWarps;
    json hash = json::object();
    hash["a"] = f.hbp.hashA;
    hash["b"] = f.hbp.hashB;
    hash["c"] = f.hbp.hashC;
    hash["d"] = f.hbp.hashD;
    p["hash"] = hash;
  }
  return p;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// A file created with O_EXCL and written sequentially; the first failure is
/// kept as a one-line message naming the file.
class FileWriter {
public:
  explicit FileWriter(std::string path) : path(std::move(path)) {
    fd = ::open(this->path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                0666);
    if (fd < 0)
      fail("cannot create");
  }
  ~FileWriter() {
    if (fd >= 0)
      ::close(fd);
  }
  FileWriter(const FileWriter &) = delete;
  FileWriter &operator=(const FileWriter &) = delete;

  void write(const void *data, size_t size) {
    const char *p = static_cast<const char *>(data);
    while (ok() && size > 0) {
      ssize_t n = ::write(fd, p, std::min(size, kChunkBytes));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        fail("cannot write");
        return;
      }
      p += n;
      size -= static_cast<size_t>(n);
      written += static_cast<uint64_t>(n);
    }
  }
  void writeZeros(uint64_t count) {
    static const char kZeros[kAlignment] = {};
    while (ok() && count > 0) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(count, kAlignment));
      write(kZeros, n);
      count -= n;
    }
  }
  /// fsync and close.
  Status finish() {
    if (ok() && ::fsync(fd) != 0)
      fail("cannot write");
    if (fd >= 0) {
      int closed = ::close(fd);
      fd = -1;
      if (ok() && closed != 0)
        fail("cannot write");
    }
    return ok() ? Status::ok() : Status::error(error);
  }
  bool ok() const { return error.empty(); }
  uint64_t size() const { return written; }

private:
  void fail(const char *what) {
    if (ok())
      error = path + ": " + what + ": " + errnoText();
  }

  std::string path;
  int fd = -1;
  uint64_t written = 0;
  std::string error;
};

/// Writes a whole file into the temporary package directory.
Status writeWholeFile(const std::string &path, const std::string &bytes) {
  FileWriter w(path);
  w.write(bytes.data(), bytes.size());
  return w.finish();
}

/// Checks a layer before anything is written.
Status checkLayerForWriting(const PackageLayer &layer, bool externalData) {
  const FormattedMatrix &f = layer.matrix;
  if (!isValidName(layer.name))
    return Status::error("layer name " + inQuotes(layer.name) +
                         " must be 1 to 1024 bytes of UTF-8 text without "
                         "control characters");
  std::string where = "layer " + inQuotes(layer.name) + ": ";
  if (f.kind != layer.format.kind)
    return Status::error(where + "the matrix is in format " +
                         std::string(formatName(f.kind)) +
                         " but its format options say " +
                         std::string(formatName(layer.format.kind)));
  if (Status s = verifyFormat(f); !s)
    return Status::error(where + "the matrix does not verify: " + s.message());
  if (Status s = validatePermutationOptions(layer.permutation); !s)
    return Status::error(where + "strategy parameters: " + s.message());
  if (layer.k < 0 || layer.k > kMaxIndex)
    return Status::error(where + "k must be in [0, " +
                         std::to_string(kMaxIndex) + "], got " +
                         std::to_string(layer.k));
  if (Status s = validateFormatOptions(layer.format); !s)
    return Status::error(where + "format parameters: " + s.message());
  if (!layer.sourcePath.empty() && !isCleanUtf8(layer.sourcePath))
    return Status::error(where + "the source path is not UTF-8 text without "
                                 "control characters");
  if (!layer.sourceSha256.empty() && !isLowerHex64(layer.sourceSha256))
    return Status::error(where + "the source sha256 must be 64 lowercase hex "
                                 "digits");
  if (externalData && (layer.sourcePath.empty() || layer.sourceSha256.empty()))
    return Status::error(where + "external data needs the source path and its "
                                 "sha256");
  for (const KernelInfo &k : layer.kernels) {
    if (!isValidName(k.name) || !isCleanUtf8(k.family))
      return Status::error(where + "kernel name " + inQuotes(k.name) +
                           " or family is not valid text");
    for (int64_t d : {k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ})
      if (d < 1 || d > kMaxIndex)
        return Status::error(where + "kernel " + inQuotes(k.name) +
                             " has a launch dimension out of range");
    if (k.sharedBytes < 0 || k.sharedBytes > kMaxIndex)
      return Status::error(where + "kernel " + inQuotes(k.name) +
                           " has a shared-memory size out of range");
    if (!isValidName(k.variant))
      return Status::error(where + "kernel " + inQuotes(k.name) +
                           " needs a variant name");
    if (k.kMin < 1 || k.kMax < 0 || (k.kMax != 0 && k.kMax < k.kMin) ||
        k.kAlign < 1 || k.kMin > kMaxIndex || k.kMax > kMaxIndex ||
        k.kAlign > kMaxIndex)
      return Status::error(where + "kernel " + inQuotes(k.name) +
                           " has an invalid K condition");
    for (const std::string &arg : k.args)
      if (!isKernelArgName(layer, arg))
        return Status::error(where + "kernel " + inQuotes(k.name) +
                             " takes " + inQuotes(arg) +
                             ", which is not a buffer of the layer, B, C, K "
                             "or " + std::string(kTicketsArg));
  }
  return Status::ok();
}

/// Whether `layer` runs generated kernels (it has kernels, and not the
/// cuSPARSE entry).
bool hasGeneratedKernelsOf(const PackageLayer &layer) {
  return !layer.kernels.empty() && layer.kernels.front().variant != "cusparse";
}

/// The alternatives of `layer` as the manifest can hold them: only on a
/// checked layer with generated kernels; each the same matrix (shape, K,
/// source, values) with generated kernels of its own and no alternatives.
Status checkAlternativesForWriting(const PackageLayer &layer,
                                   bool externalData) {
  if (layer.alternatives.empty())
    return Status::ok();
  std::string where = "layer " + inQuotes(layer.name) + ": ";
  if (!layer.libraryCheck || !hasGeneratedKernelsOf(layer))
    return Status::error(where + "alternatives need the library check and "
                                 "generated kernels");
  for (size_t i = 0; i < layer.alternatives.size(); ++i) {
    const PackageLayer &alt = layer.alternatives[i];
    std::string at = where + "alternative " + std::to_string(i + 1) + ": ";
    if (Status s = checkLayerForWriting(alt, externalData); !s)
      return Status::error(at + s.message());
    if (alt.name != layer.name || alt.matrix.rows != layer.matrix.rows ||
        alt.matrix.cols != layer.matrix.cols ||
        alt.matrix.nnz != layer.matrix.nnz || alt.k != layer.k ||
        alt.sourcePath != layer.sourcePath ||
        alt.sourceSha256 != layer.sourceSha256 ||
        formatValuesSpec(alt.values) != formatValuesSpec(layer.values) ||
        !alt.libraryCheck)
      return Status::error(at + "not the layer's matrix (name, shape, nnz, "
                                "K, source and library check must match)");
    if (!hasGeneratedKernelsOf(alt) || !alt.alternatives.empty())
      return Status::error(at + "needs generated kernels and no "
                                "alternatives of its own");
  }
  return Status::ok();
}

json kernelJson(const KernelInfo &k) {
  json j;
  j["name"] = k.name;
  j["family"] = k.family;
  j["variant"] = k.variant;
  j["k_min"] = k.kMin;
  j["k_max"] = k.kMax;
  j["k_align"] = k.kAlign;
  j["zero_output"] = k.zeroOutput;
  if (k.dependentLaunch)
    j["dependent_launch"] = true;
  j["args"] = k.args;
  j["grid"] = json::array({k.gridX, k.gridY, k.gridZ});
  j["block"] = json::array({k.blockX, k.blockY, k.blockZ});
  j["shared_bytes"] = k.sharedBytes;
  return j;
}

json fileJson(const std::string &name, uint64_t size, const std::string &sha) {
  json j;
  j["file"] = name;
  j["size"] = size;
  j["sha256"] = sha;
  return j;
}

/// The manifest text: pretty JSON whose last member is the sha256 of every
/// byte before it (see docs/Package.md).
std::string manifestText(const json &manifest) {
  std::string text = manifest.dump(2);
  // dump(2) of a non-empty object ends with "\n}".
  text.resize(text.size() - 2);
  text += ",\n  ";
  std::string sha = sha256Hex(text.data(), text.size());
  text += "\"" + std::string(kChecksumKey) + "\": \"" + sha + "\"\n}\n";
  return text;
}

/// Writes the package files into `tmp` (an empty directory).
Status writePackageFiles(const std::string &tmp,
                         const std::vector<PackageLayer> &layers,
                         const PackageOptions &options) {
  json manifest;
  manifest["schema"] = kSchema;
  manifest["version"] = kPackageVersion;
  manifest["target"] = options.target;

  // data.bin (or, with external data, only the checksums of the arrays).
  std::unique_ptr<FileWriter> data;
  if (!options.externalData)
    data = std::make_unique<FileWriter>(tmp + "/" + kDataFile);
  Sha256 wholeData;
  uint64_t end = 0;
  json layerList = json::array();
  // The manifest entry of one layer, its arrays appended to data.bin.
  auto layerJson = [&](const PackageLayer &layer) {
    const FormattedMatrix &f = layer.matrix;
    json l;
    l["name"] = layer.name;
    l["rows"] = f.rows;
    l["cols"] = f.cols;
    l["nnz"] = f.nnz;
    l["k"] = layer.k;
    l["strategy"] = std::string(strategyCliName(layer.permutation.strategy));
    json sp;
    sp["warps"] = layer.permutation.warps;
    sp["line"] = layer.permutation.lineWidth;
    sp["rows_per_warp"] = layer.permutation.rowsPerWarp;
    sp["tau"] = layer.permutation.tau;
    sp["alpha"] = layer.permutation.alpha;
    sp["candidates"] = layer.permutation.candidateLimit;
    l["strategy_params"] = sp;
    l["format"] = std::string(formatName(f.kind));
    l["format_params"] = formatParams(layer);
    json source;
    source["path"] = layer.sourcePath;
    source["sha256"] = layer.sourceSha256;
    source["values"] = formatValuesSpec(layer.values);
    l["source"] = source;
    json kernels = json::array();
    for (const KernelInfo &k : layer.kernels)
      kernels.push_back(kernelJson(k));
    l["kernels"] = kernels;
    if (layer.libraryCheck)
      l["library_check"] = true;

    json buffers = json::array();
    forEachBuffer(f, carriesCsr(f), [&](const char *name, const auto &vec) {
      using T = typename std::decay_t<decltype(vec)>::value_type;
      const uint64_t bytes = vec.size() * sizeof(T);
      json b;
      b["name"] = name;
      b["dtype"] = DType<T>::name;
      b["count"] = vec.size();
      if (data) {
        const uint64_t offset = alignUp(end);
        data->writeZeros(offset - end);
        static const char kZeros[kAlignment] = {};
        wholeData.update(kZeros, offset - end);
        data->write(vec.data(), bytes);
        wholeData.update(vec.data(), bytes);
        end = offset + bytes;
        b["offset"] = offset;
      }
      b["size"] = bytes;
      b["sha256"] = sha256Hex(vec.data(), bytes);
      buffers.push_back(b);
    });
    l["buffers"] = buffers;
    return l;
  };
  for (const PackageLayer &layer : layers) {
    json l = layerJson(layer);
    if (!layer.alternatives.empty()) {
      // What differs: the rest is the layer's.
      json alternatives = json::array();
      for (const PackageLayer &alt : layer.alternatives) {
        json full = layerJson(alt);
        json a;
        for (const char *key : kAlternativeKeys)
          a[key] = full[key];
        alternatives.push_back(a);
      }
      l["alternatives"] = alternatives;
    }
    layerList.push_back(l);
  }
  if (data) {
    if (Status s = data->finish(); !s)
      return s;
    manifest["data"] = fileJson(kDataFile, end, wholeData.hexDigest());
  } else {
    manifest["data"] = "external";
  }

  json code = json::object();
  if (!options.ptx.empty()) {
    if (Status s = writeWholeFile(tmp + "/" + kPtxFile, options.ptx); !s)
      return s;
    code["ptx"] = fileJson(kPtxFile, options.ptx.size(),
                           sha256Hex(options.ptx.data(), options.ptx.size()));
  }
  if (!options.cubin.empty()) {
    std::string name = "kernels." + options.target + ".cubin";
    if (Status s = writeWholeFile(tmp + "/" + name, options.cubin); !s)
      return s;
    code["cubin"] =
        fileJson(name, options.cubin.size(),
                 sha256Hex(options.cubin.data(), options.cubin.size()));
  }
  manifest["code"] = code;
  manifest["layers"] = layerList;
  return writeWholeFile(tmp + "/" + kManifestFile, manifestText(manifest));
}

mode_t currentUmask() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

} // namespace

Status spperm::writePackage(const std::string &dirArg,
                            const std::vector<PackageLayer> &layers,
                            const PackageOptions &options) {
  const std::string dir = trimSlashes(dirArg);
  auto fail = [&](const std::string &what) {
    return Status::error(dir + ": " + what);
  };
  if (dir.empty())
    return Status::error("the package directory name is empty");
  auto [parent, base] = splitPath(dir);
  if (base.empty() || base == "." || base == "..")
    return fail("not a usable package directory name");
  if (!isValidTarget(options.target))
    return fail("target " + inQuotes(options.target) +
                " is not an architecture name such as sm_90");
  if (layers.empty())
    return fail("a package needs at least one layer");
  for (size_t i = 0; i < layers.size(); ++i) {
    if (Status s = checkLayerForWriting(layers[i], options.externalData); !s)
      return fail(s.message());
    if (Status s = checkAlternativesForWriting(layers[i], options.externalData);
        !s)
      return fail(s.message());
    for (size_t j = 0; j < i; ++j)
      if (layers[j].name == layers[i].name)
        return fail("two layers are named " + inQuotes(layers[i].name));
    // With external data the reader resolves the source path as the manifest
    // records it; make sure that finds the very file now.
    if (options.externalData) {
      const std::string source = resolveSource(parent, layers[i].sourcePath);
      StatusOr<std::string> sha = sha256File(source);
      if (!sha || *sha != layers[i].sourceSha256)
        return fail(
            "layer " + inQuotes(layers[i].name) + ": the source " +
            inQuotes(layers[i].sourcePath) + " resolves to " + source +
            " (relative paths are taken from the package's parent "
            "directory), which " +
            (sha ? "does not match the layer's sha256" : "cannot be read"));
    }
  }

  // The destination must be free, or a package we may replace.
  struct stat st;
  bool replacing = false;
  if (::lstat(dir.c_str(), &st) == 0) {
    struct stat mst;
    if (!S_ISDIR(st.st_mode) ||
        ::stat((dir + "/" + kManifestFile).c_str(), &mst) != 0 ||
        !S_ISREG(mst.st_mode))
      return fail("exists and is not a spperm package (no manifest.json); "
                  "refusing to replace it");
    replacing = true;
  } else if (errno != ENOENT) {
    return fail("cannot access: " + errnoText());
  }

  std::string tmp = parent + "/." + base + ".tmp-XXXXXX";
  if (!::mkdtemp(tmp.data()))
    return fail("cannot create a temporary directory beside it: " +
                errnoText());
  if (Status s = writePackageFiles(tmp, layers, options); !s) {
    removeTree(tmp);
    return s;
  }
  // mkdtemp makes the directory 0700; give it the mode mkdir would.
  if (::chmod(tmp.c_str(), 0777 & ~currentUmask()) != 0 ||
      !syncDirectory(tmp)) {
    Status s = fail("cannot finish the temporary directory: " + errnoText());
    removeTree(tmp);
    return s;
  }

  std::string aside;
  if (replacing) {
    aside = parent + "/." + base + ".old-XXXXXX";
    if (!::mkdtemp(aside.data())) {
      Status s = fail("cannot create a directory to move the old package to: " +
                      errnoText());
      removeTree(tmp);
      return s;
    }
    // Renaming a directory over an empty directory replaces it.
    if (::rename(dir.c_str(), aside.c_str()) != 0) {
      Status s = fail("cannot move the old package aside: " + errnoText());
      removeTree(tmp);
      ::rmdir(aside.c_str());
      return s;
    }
  }
  if (::rename(tmp.c_str(), dir.c_str()) != 0) {
    Status s = fail("cannot rename the temporary directory into place: " +
                    errnoText());
    if (replacing)
      ::rename(aside.c_str(), dir.c_str());
    removeTree(tmp);
    return s;
  }
  if (replacing)
    removeTree(aside);
  if (!syncDirectory(parent))
    return fail("cannot sync the parent directory: " + errnoText());
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {

/// A SAX handler that accepts everything and keeps the parser's error
/// message: nlohmann::json only reports where parsing failed through
/// exceptions or a SAX handler, and the core is built without exceptions.
class ErrorRecorder : public nlohmann::json_sax<json> {
public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t &) override { return true; }
  bool string(string_t &) override { return true; }
  bool binary(binary_t &) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t &) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string &,
                   const nlohmann::detail::exception &ex) override {
    message = ex.what();
    return false;
  }

  std::string message;
};

/// Turns nlohmann's "[json.exception.parse_error.101] parse error at line 3,
/// column 7: ..." into "line 3, column 7: ...", printable ASCII only.
std::string cleanParseError(std::string message) {
  const std::string marker = "parse error at ";
  if (size_t at = message.find(marker); at != std::string::npos)
    message = message.substr(at + marker.size());
  for (char &c : message)
    if (static_cast<unsigned char>(c) < 0x20 ||
        static_cast<unsigned char>(c) >= 0x7f)
      c = '?';
  return message;
}

/// A buffer as the manifest describes it.
struct BufferDesc {
  std::string name;
  std::string dtype;
  uint64_t count = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  std::string sha256;
  /// Where its elements go once validated (exactly one is set).
  std::vector<int32_t> *i32 = nullptr;
  std::vector<int64_t> *i64 = nullptr;
  std::vector<float> *f32 = nullptr;

  /// Sizes the destination vector and returns its bytes.
  char *allocate() {
    if (i32) {
      i32->assign(count, 0);
      return reinterpret_cast<char *>(i32->data());
    }
    if (i64) {
      i64->assign(count, 0);
      return reinterpret_cast<char *>(i64->data());
    }
    f32->assign(count, 0.0f);
    return reinterpret_cast<char *>(f32->data());
  }
};

/// A file of the package recorded as {file, size, sha256}.
struct FileDesc {
  std::string file;
  uint64_t size = 0;
  std::string sha256;
};

/// Type- and range-checked access to the parsed manifest. The first problem
/// is kept as `MANIFEST: message`; every accessor returns false once there
/// is one.
class ManifestReader {
public:
  explicit ManifestReader(std::string file) : file(std::move(file)) {}

  bool fail(const std::string &message) {
    if (error.empty())
      error = file + ": " + message;
    return false;
  }
  const std::string &message() const { return error; }

  static std::string join(const std::string &ctx, std::string_view key) {
    return ctx.empty() ? std::string(key) : ctx + "." + std::string(key);
  }

  /// Refuses members other than `allowed` (a misspelt key is an error, not
  /// an ignored one). The key is any JSON string: it is escaped in the
  /// message, which stays one line.
  bool onlyKeys(const json &obj, const std::string &ctx,
                std::initializer_list<std::string_view> allowed) {
    for (auto it = obj.begin(); it != obj.end(); ++it)
      if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
        return fail("unexpected key " + inQuotes(join(ctx, escaped(it.key()))));
    return true;
  }

  const json *member(const json &obj, const std::string &ctx,
                     std::string_view key) {
    auto it = obj.find(std::string(key));
    if (it == obj.end()) {
      fail("missing key " + inQuotes(join(ctx, key)));
      return nullptr;
    }
    return &*it;
  }

  const json *object(const json &obj, const std::string &ctx,
                     std::string_view key) {
    const json *v = member(obj, ctx, key);
    if (v && !v->is_object()) {
      fail(join(ctx, key) + " must be an object");
      return nullptr;
    }
    return v;
  }

  const json *array(const json &obj, const std::string &ctx,
                    std::string_view key) {
    const json *v = member(obj, ctx, key);
    if (v && !v->is_array()) {
      fail(join(ctx, key) + " must be an array");
      return nullptr;
    }
    return v;
  }

  bool integer(const json &v, const std::string &what, int64_t lo, int64_t hi,
               int64_t &out) {
    std::string range =
        "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (v.is_number_unsigned()) {
      uint64_t u = v.get<uint64_t>();
      if (hi < 0 || u > static_cast<uint64_t>(hi))
        return fail(what + " is " + std::to_string(u) + ", out of the range " +
                    range);
      out = static_cast<int64_t>(u);
    } else if (v.is_number_integer()) {
      int64_t s = v.get<int64_t>();
      if (s < lo || s > hi)
        return fail(what + " is " + std::to_string(s) + ", out of the range " +
                    range);
      out = s;
    } else {
      return fail(what + " must be an integer in " + range);
    }
    if (out < lo)
      return fail(what + " is " + std::to_string(out) + ", out of the range " +
                  range);
    return true;
  }

  bool integer(const json &obj, const std::string &ctx, std::string_view key,
               int64_t lo, int64_t hi, int64_t &out) {
    const json *v = member(obj, ctx, key);
    return v && integer(*v, join(ctx, key), lo, hi, out);
  }

  template <typename T>
  bool integerAs(const json &obj, const std::string &ctx, std::string_view key,
                 int64_t lo, int64_t hi, T &out) {
    int64_t v;
    if (!integer(obj, ctx, key, lo, hi, v))
      return false;
    out = static_cast<T>(v);
    return true;
  }

  bool number(const json &obj, const std::string &ctx, std::string_view key,
              double lo, double hi, double &out) {
    const json *v = member(obj, ctx, key);
    if (!v)
      return false;
    if (!v->is_number() || !std::isfinite(v->get<double>()) ||
        v->get<double>() < lo || v->get<double>() > hi)
      return fail(join(ctx, key) + " must be a number in [" + shortNumber(lo) +
                  ", " + shortNumber(hi) + "]");
    out = v->get<double>();
    return true;
  }

  bool string(const json &obj, const std::string &ctx, std::string_view key,
              std::string &out) {
    const json *v = member(obj, ctx, key);
    if (!v)
      return false;
    if (!v->is_string())
      return fail(join(ctx, key) + " must be a string");
    out = v->get<std::string>();
    if (!isCleanUtf8(out))
      return fail(join(ctx, key) + " contains control characters");
    return true;
  }

  bool sha256(const json &obj, const std::string &ctx, std::string_view key,
              std::string &out, bool allowEmpty = false) {
    if (!string(obj, ctx, key, out))
      return false;
    if (!(allowEmpty && out.empty()) && !isLowerHex64(out))
      return fail(join(ctx, key) + " must be 64 lowercase hex digits");
    return true;
  }

  /// {file, size, sha256} with `file` required to be `expectedName`.
  bool fileDesc(const json &obj, const std::string &ctx, std::string_view key,
                const std::string &expectedName, uint64_t maxSize,
                FileDesc &out) {
    const json *v = object(obj, ctx, key);
    std::string where = join(ctx, key);
    int64_t size;
    if (!v || !onlyKeys(*v, where, {"file", "size", "sha256"}) ||
        !string(*v, where, "file", out.file) ||
        !integer(*v, where, "size", 0,
                 static_cast<int64_t>(std::min<uint64_t>(maxSize, INT64_MAX)),
                 size) ||
        !sha256(*v, where, "sha256", out.sha256))
      return false;
    if (out.file != expectedName)
      return fail(where + ".file must be " + inQuotes(expectedName) + ", got " +
                  inQuotes(out.file));
    out.size = static_cast<uint64_t>(size);
    return true;
  }

  bool boolean(const json &obj, const std::string &ctx, std::string_view key,
               bool &out) {
    const json *v = member(obj, ctx, key);
    if (!v)
      return false;
    if (!v->is_boolean())
      return fail(join(ctx, key) + " must be true or false");
    out = v->get<bool>();
    return true;
  }

  /// An array of at most 64 strings.
  bool stringList(const json &obj, const std::string &ctx,
                  std::string_view key, std::vector<std::string> &out) {
    const json *v = array(obj, ctx, key);
    if (!v)
      return false;
    if (v->size() > 64)
      return fail(join(ctx, key) + " has more than 64 elements");
    out.clear();
    for (const json &e : *v) {
      if (!e.is_string())
        return fail(join(ctx, key) + " must hold strings");
      out.push_back(e.get<std::string>());
      if (!isCleanUtf8(out.back()))
        return fail(join(ctx, key) + " contains control characters");
    }
    return true;
  }

  /// A triple [x, y, z] of integers in [1, hi].
  bool dims(const json &obj, const std::string &ctx, std::string_view key,
            int64_t hi, int64_t &x, int64_t &y, int64_t &z) {
    const json *v = array(obj, ctx, key);
    if (!v)
      return false;
    std::string where = join(ctx, key);
    if (v->size() != 3)
      return fail(where + " must have 3 elements");
    return integer((*v)[0], where + "[0]", 1, hi, x) &&
           integer((*v)[1], where + "[1]", 1, hi, y) &&
           integer((*v)[2], where + "[2]", 1, hi, z);
  }

private:
  std::string file;
  std::string error;
};

/// Reads a whole small file (manifest, kernels) of at most `maxSize` bytes.
Status readSmallFile(const std::string &path, uint64_t maxSize,
                     std::string &out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::error(path + ": cannot open: " + errnoText());
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::error(path + ": not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > maxSize) {
    ::close(fd);
    return Status::error(path + ": the file is " + std::to_string(st.st_size) +
                         " bytes, more than the limit of " +
                         std::to_string(maxSize));
  }
  out.assign(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      std::string why = n < 0 ? errnoText() : "the file shrank while reading";
      ::close(fd);
      return Status::error(path + ": cannot read: " + why);
    }
    got += static_cast<size_t>(n);
  }
  // A file that grew while being read is not the file that was measured.
  char extra;
  ssize_t more = ::read(fd, &extra, 1);
  ::close(fd);
  if (more != 0)
    return Status::error(path + ": the file changed while reading");
  return Status::ok();
}

/// Everything parsed from one layer of the manifest.
struct LayerDesc {
  PackageLayer layer;
  /// For an alternative, the index of its layer in ManifestDesc::layers;
  /// -1 for a layer.
  int64_t parent = -1;
  std::vector<BufferDesc> buffers;
  bool withCsr = false;
};

/// The parsed and validated manifest.
struct ManifestDesc {
  std::string target;
  bool externalData = false;
  FileDesc data;
  bool hasPtx = false, hasCubin = false;
  FileDesc ptx, cubin;
  std::vector<LayerDesc> layers;
};

/// Parses the layer `l` (structure, types, ranges, the buffer list against
/// the format's arrays), which messages call `where` ("layers[3]"); the
/// arrays themselves are not touched.
bool parseLayer(ManifestReader &r, const json &l, const std::string &where,
                bool externalData, uint64_t dataSize, LayerDesc &out) {
  std::string ctx = where;
  if (!l.is_object())
    return r.fail(ctx + " must be an object");
  if (!r.onlyKeys(l, ctx,
                  {"name", "rows", "cols", "nnz", "k", "strategy",
                   "strategy_params", "format", "format_params", "source",
                   "kernels", "buffers", "library_check"}))
    return false;
  PackageLayer &layer = out.layer;
  FormattedMatrix &f = layer.matrix;
  std::string strategyName, formatText, valuesText;
  if (!r.string(l, ctx, "name", layer.name))
    return false;
  if (!isValidName(layer.name))
    return r.fail(ctx + ".name must be 1 to 1024 bytes");
  ctx += " (" + inQuotes(layer.name) + ")";
  if (!r.integerAs(l, ctx, "rows", 0, kMaxIndex, f.rows) ||
      !r.integerAs(l, ctx, "cols", 0, kMaxIndex, f.cols) ||
      !r.integerAs(l, ctx, "nnz", 0, kMaxIndex, f.nnz) ||
      !r.integerAs(l, ctx, "k", 0, kMaxIndex, layer.k) ||
      !r.string(l, ctx, "strategy", strategyName) ||
      !r.string(l, ctx, "format", formatText))
    return false;
  if (static_cast<uint64_t>(f.nnz) >
      static_cast<uint64_t>(f.rows) * static_cast<uint64_t>(f.cols))
    return r.fail(ctx + ".nnz " + std::to_string(f.nnz) +
                  " is larger than rows x cols");

  // Strategy and its parameters.
  std::optional<Strategy> strategy = parseStrategy(strategyName);
  if (!strategy || strategyCliName(*strategy) != strategyName)
    return r.fail(ctx + ".strategy " + inQuotes(strategyName) +
                  " is not a strategy name");
  PermutationOptions &p = layer.permutation;
  p.strategy = *strategy;
  const json *sp = r.object(l, ctx, "strategy_params");
  std::string spCtx = ctx + ".strategy_params";
  if (!sp ||
      !r.onlyKeys(
          *sp, spCtx,
          {"warps", "line", "rows_per_warp", "tau", "alpha", "candidates"}) ||
      !r.integerAs(*sp, spCtx, "warps", 1, INT32_MAX, p.warps) ||
      !r.integerAs(*sp, spCtx, "line", 1, INT32_MAX, p.lineWidth) ||
      !r.integerAs(*sp, spCtx, "rows_per_warp", 1, INT32_MAX, p.rowsPerWarp) ||
      !r.integerAs(*sp, spCtx, "tau", 1, INT32_MAX, p.tau) ||
      !r.number(*sp, spCtx, "alpha", 0.0, 1.0, p.alpha) ||
      !r.integerAs(*sp, spCtx, "candidates", 0, INT32_MAX, p.candidateLimit))
    return false;
  if (Status s = validatePermutationOptions(p); !s)
    return r.fail(spCtx + ": " + s.message());

  // Format and its parameters.
  std::optional<FormatKind> kind = parseFormatKind(formatText);
  if (!kind)
    return r.fail(ctx + ".format " + inQuotes(formatText) +
                  " is not one of csr, bell, hbp");
  f.kind = *kind;
  FormatOptions &fo = layer.format;
  fo.kind = *kind;
  const json *fp = r.object(l, ctx, "format_params");
  std::string fpCtx = ctx + ".format_params";
  if (!fp)
    return false;
  switch (*kind) {
  case FormatKind::Csr:
    if (!r.onlyKeys(*fp, fpCtx, {}))
      return false;
    break;
  case FormatKind::Bell: {
    BellStorage &b = f.bell;
    if (!r.onlyKeys(*fp, fpCtx,
                    {"block", "width", "delta", "dense_nnz", "max_width"}) ||
        !r.integerAs(*fp, fpCtx, "block", 1, 32, b.block) ||
        !r.integerAs(*fp, fpCtx, "width", 0, kMaxIndex, b.width) ||
        !r.number(*fp, fpCtx, "delta", 0.0, 1.0, b.delta) ||
        !r.integerAs(*fp, fpCtx, "dense_nnz", 0, f.nnz, b.denseNnz) ||
        !r.integerAs(*fp, fpCtx, "max_width", 0, kMaxIndex, fo.bellMaxWidth))
      return false;
    if (!(b.delta > 0.0))
      return r.fail(fpCtx + ".delta must be in (0, 1]");
    if ((b.block & (b.block - 1)) != 0)
      return r.fail(fpCtx + ".block must be 1, 2, 4, 8, 16 or 32, got " +
                    std::to_string(b.block));
    b.blockRows =
        static_cast<int32_t>((int64_t(f.rows) + b.block - 1) / b.block);
    b.residual.rows = f.rows;
    b.residual.cols = f.cols;
    fo.bellBlock = b.block;
    fo.bellDelta = b.delta;
    break;
  }
  case FormatKind::Hbp: {
    HbpStorage &h = f.hbp;
    const json *hash;
    std::string hashCtx = fpCtx + ".hash";
    if (!r.onlyKeys(
            *fp, fpCtx,
            {"row_block", "col_block", "fixed_fraction", "warps", "hash"}) ||
        !r.integerAs(*fp, fpCtx, "row_block", 32, kMaxIndex, h.rowBlock) ||
        !r.integerAs(*fp, fpCtx, "col_block", 1, kMaxIndex, h.colBlock) ||
        !r.number(*fp, fpCtx, "fixed_fraction", 0.0, 1.0,
                  fo.hbpFixedFraction) ||
        !r.integerAs(*fp, fpCtx, "warps", 1, kMaxIndex, fo.hbpWarps) ||
        !(hash = r.object(*fp, fpCtx, "hash")) ||
        !r.onlyKeys(*hash, hashCtx, {"a", "b", "c", "d"}) ||
        !r.integerAs(*hash, hashCtx, "a", INT32_MIN, INT32_MAX, h.hashA) ||
        !r.integerAs(*hash, hashCtx, "b", INT32_MIN, INT32_MAX, h.hashB) ||
        !r.integerAs(*hash, hashCtx, "c", INT32_MIN, INT32_MAX, h.hashC) ||
        !r.integerAs(*hash, hashCtx, "d", INT32_MIN, INT32_MAX, h.hashD))
      return false;
    if (h.rowBlock % 32 != 0)
      return r.fail(fpCtx + ".row_block must be a multiple of 32, got " +
                    std::to_string(h.rowBlock));
    h.blockRows =
        static_cast<int32_t>((int64_t(f.rows) + h.rowBlock - 1) / h.rowBlock);
    h.blockCols =
        static_cast<int32_t>((int64_t(f.cols) + h.colBlock - 1) / h.colBlock);
    fo.hbpRowBlock = h.rowBlock;
    fo.hbpColBlock = h.colBlock;
    break;
  }
  }

  if (Status s = validateFormatOptions(fo); !s)
    return r.fail(fpCtx + ": " + s.message());

  // Source.
  const json *source = r.object(l, ctx, "source");
  std::string srcCtx = ctx + ".source";
  if (!source || !r.onlyKeys(*source, srcCtx, {"path", "sha256", "values"}) ||
      !r.string(*source, srcCtx, "path", layer.sourcePath) ||
      !r.sha256(*source, srcCtx, "sha256", layer.sourceSha256,
                /*allowEmpty=*/!externalData) ||
      !r.string(*source, srcCtx, "values", valuesText))
    return false;
  if (externalData && layer.sourcePath.empty())
    return r.fail(srcCtx + ".path must name the matrix file (external data)");
  StatusOr<ValuesSpec> values = parseValuesSpec(valuesText);
  if (!values)
    return r.fail(srcCtx + ".values: " + values.message());
  layer.values = *values;

  if (l.contains("library_check") &&
      !r.boolean(l, ctx, "library_check", layer.libraryCheck))
    return false;

  // Kernels.
  const json *kernels = r.array(l, ctx, "kernels");
  if (!kernels)
    return false;
  for (size_t i = 0; i < kernels->size(); ++i) {
    const json &kj = (*kernels)[i];
    std::string kCtx = ctx + ".kernels[" + std::to_string(i) + "]";
    if (!kj.is_object())
      return r.fail(kCtx + " must be an object");
    KernelInfo k;
    if (!r.onlyKeys(kj, kCtx,
                    {"name", "family", "variant", "k_min", "k_max", "k_align",
                     "zero_output", "dependent_launch", "args", "grid",
                     "block", "shared_bytes"}) ||
        !r.string(kj, kCtx, "name", k.name) ||
        !r.string(kj, kCtx, "family", k.family) ||
        !r.string(kj, kCtx, "variant", k.variant) ||
        !r.integer(kj, kCtx, "k_min", 1, kMaxIndex, k.kMin) ||
        !r.integer(kj, kCtx, "k_max", 0, kMaxIndex, k.kMax) ||
        !r.integer(kj, kCtx, "k_align", 1, kMaxIndex, k.kAlign) ||
        !r.boolean(kj, kCtx, "zero_output", k.zeroOutput) ||
        !r.stringList(kj, kCtx, "args", k.args) ||
        !r.dims(kj, kCtx, "grid", kMaxIndex, k.gridX, k.gridY, k.gridZ) ||
        !r.dims(kj, kCtx, "block", 1024, k.blockX, k.blockY, k.blockZ) ||
        !r.integer(kj, kCtx, "shared_bytes", 0, kMaxIndex, k.sharedBytes) ||
        (kj.contains("dependent_launch") &&
         !r.boolean(kj, kCtx, "dependent_launch", k.dependentLaunch)))
      return false;
    if (!isValidName(k.name))
      return r.fail(kCtx + ".name must be 1 to 1024 bytes");
    layer.kernels.push_back(std::move(k));
  }

  // Buffers: the list must be exactly the format's arrays (the csr.* group
  // is optional for bell and hbp), with the right types and sizes, inside
  // data.bin and aligned.
  const json *buffers = r.array(l, ctx, "buffers");
  if (!buffers)
    return false;
  for (size_t i = 0; i < buffers->size(); ++i) {
    const json &bj = (*buffers)[i];
    std::string bCtx = ctx + ".buffers[" + std::to_string(i) + "]";
    if (!bj.is_object())
      return r.fail(bCtx + " must be an object");
    BufferDesc b;
    int64_t count, size, offset = 0;
    if (externalData ? !r.onlyKeys(bj, bCtx,
                                   {"name", "dtype", "count", "size", "sha256"})
                     : !r.onlyKeys(bj, bCtx,
                                   {"name", "dtype", "count", "offset", "size",
                                    "sha256"}))
      return false;
    if (!r.string(bj, bCtx, "name", b.name) ||
        !r.string(bj, bCtx, "dtype", b.dtype) ||
        !r.integer(bj, bCtx, "count", 0, INT64_MAX, count) ||
        (!externalData &&
         !r.integer(bj, bCtx, "offset", 0, INT64_MAX, offset)) ||
        !r.integer(bj, bCtx, "size", 0, INT64_MAX, size) ||
        !r.sha256(bj, bCtx, "sha256", b.sha256))
      return false;
    b.count = static_cast<uint64_t>(count);
    b.size = static_cast<uint64_t>(size);
    b.offset = static_cast<uint64_t>(offset);
    bCtx += " (" + inQuotes(b.name) + ")";
    const uint64_t elem = dtypeSize(b.dtype);
    if (elem == 0)
      return r.fail(bCtx + ".dtype " + inQuotes(b.dtype) +
                    " is not one of i32, i64, f32");
    if (b.count > b.size / elem || b.count * elem != b.size)
      return r.fail(bCtx + ": size " + std::to_string(b.size) +
                    " does not match count " + std::to_string(b.count) +
                    " of " + b.dtype);
    if (!externalData) {
      if (b.offset % kAlignment != 0)
        return r.fail(bCtx + ": offset " + std::to_string(b.offset) +
                      " is not a multiple of " + std::to_string(kAlignment));
      if (b.offset > dataSize || b.size > dataSize - b.offset)
        return r.fail(bCtx + ": bytes [" + std::to_string(b.offset) + ", " +
                      std::to_string(b.offset) + " + " +
                      std::to_string(b.size) + ") lie outside data.bin (" +
                      std::to_string(dataSize) + " bytes)");
    }
    for (const BufferDesc &other : out.buffers)
      if (other.name == b.name)
        return r.fail(bCtx + ": a second buffer with this name");
    out.withCsr |= isCsrGroupName(b.name);
    out.buffers.push_back(std::move(b));
  }

  // Bind each expected array to its buffer; the expected set decides.
  size_t bound = 0;
  bool ok = true;
  forEachBuffer(f, out.withCsr, [&](const char *name, auto &vec) {
    using T = typename std::decay_t<decltype(vec)>::value_type;
    if (!ok)
      return;
    auto it = std::find_if(out.buffers.begin(), out.buffers.end(),
                           [&](const BufferDesc &b) { return b.name == name; });
    if (it == out.buffers.end()) {
      ok = r.fail(ctx + ".buffers: the " + std::string(formatName(f.kind)) +
                  " format needs a buffer " + inQuotes(name));
      return;
    }
    if (it->dtype != DType<T>::name) {
      ok = r.fail(ctx + ".buffers: " + inQuotes(name) + " must have dtype " +
                  DType<T>::name + ", got " + it->dtype);
      return;
    }
    if constexpr (std::is_same_v<T, int32_t>)
      it->i32 = &vec;
    else if constexpr (std::is_same_v<T, int64_t>)
      it->i64 = &vec;
    else
      it->f32 = &vec;
    ++bound;
  });
  if (!ok)
    return false;
  if (bound != out.buffers.size()) {
    for (const BufferDesc &b : out.buffers)
      if (!b.i32 && !b.i64 && !b.f32)
        return r.fail(ctx + ".buffers: " + inQuotes(b.name) +
                      " is not an array of the " +
                      std::string(formatName(f.kind)) + " format");
  }
  for (size_t i = 0; i < out.layer.kernels.size(); ++i)
    for (const std::string &arg : out.layer.kernels[i].args) {
      bool known = isCallArg(arg);
      for (const BufferDesc &b : out.buffers)
        known = known || b.name == arg;
      if (!known)
        return r.fail(ctx + ".kernels[" + std::to_string(i) + "].args: " +
                      inQuotes(arg) + " is not a buffer of the layer, B, C, " +
                      "K or " + std::string(kTicketsArg));
    }

  // The counts that follow from the shape (verifyFormat checks the rest).
  auto expectCount = [&](const char *name, uint64_t want) {
    for (const BufferDesc &b : out.buffers)
      if (b.name == name && b.count != want)
        return r.fail(ctx + ".buffers: " + inQuotes(name) + " has " +
                      std::to_string(b.count) + " elements, expected " +
                      std::to_string(want));
    return true;
  };
  auto sameCount = [&](const char *a, const char *b) {
    uint64_t ca = 0, cb = 0;
    bool hasA = false, hasB = false;
    for (const BufferDesc &d : out.buffers) {
      if (d.name == a)
        ca = d.count, hasA = true;
      if (d.name == b)
        cb = d.count, hasB = true;
    }
    if (hasA && hasB && ca != cb)
      return r.fail(ctx + ".buffers: " + inQuotes(a) + " and " + inQuotes(b) +
                    " have different counts");
    return true;
  };
  const uint64_t rows = static_cast<uint64_t>(f.rows);
  if (!expectCount("order", rows) || !expectCount("csr.row_ptr", rows + 1) ||
      !expectCount("bell.residual.row_ptr", rows + 1) ||
      !sameCount("csr.col_idx", "csr.values") ||
      !sameCount("bell.residual.col_idx", "bell.residual.values") ||
      (f.kind == FormatKind::Csr &&
       !expectCount("csr.col_idx", static_cast<uint64_t>(f.nnz))))
    return false;
  if (out.withCsr) {
    f.csr.rows = f.rows;
    f.csr.cols = f.cols;
  }
  return true;
}

/// Parses and validates the whole manifest.
bool parseManifest(ManifestReader &r, const json &root, ManifestDesc &out) {
  if (!r.onlyKeys(root, "",
                  {"schema", "version", "target", "data", "code", "layers",
                   kChecksumKey}))
    return false;
  if (!r.string(root, "", "target", out.target))
    return false;
  if (!isValidTarget(out.target))
    return r.fail("target " + inQuotes(out.target) +
                  " is not an architecture name such as sm_90");

  const json *data = r.member(root, "", "data");
  if (!data)
    return false;
  if (data->is_string()) {
    if (data->get<std::string>() != "external")
      return r.fail("data must be \"external\" or an object");
    out.externalData = true;
  } else if (!r.fileDesc(root, "", "data", kDataFile, INT64_MAX, out.data)) {
    return false;
  }

  const json *code = r.object(root, "", "code");
  if (!code || !r.onlyKeys(*code, "code", {"ptx", "cubin"}))
    return false;
  if (code->contains("ptx")) {
    out.hasPtx = true;
    if (!r.fileDesc(*code, "code", "ptx", kPtxFile, kMaxCodeBytes, out.ptx))
      return false;
  }
  if (code->contains("cubin")) {
    out.hasCubin = true;
    if (!r.fileDesc(*code, "code", "cubin", "kernels." + out.target + ".cubin",
                    kMaxCodeBytes, out.cubin))
      return false;
  }

  const json *layers = r.array(root, "", "layers");
  if (!layers)
    return false;
  if (layers->empty())
    return r.fail("layers is empty");
  // Layers and their alternatives, flat: each alternative after its
  // layer, parsed as the layer with the alternative's keys in place of its
  // own (so it is validated like any layer).
  // Reserved in full first: a buffer's description points into its
  // layer's arrays, so the descriptions must not move.
  size_t entries = layers->size();
  for (const json &entry : *layers)
    if (entry.is_object() && entry.contains("alternatives") &&
        entry["alternatives"].is_array())
      entries += entry["alternatives"].size();
  out.layers.reserve(entries);
  for (size_t i = 0; i < layers->size(); ++i) {
    const std::string ctx = "layers[" + std::to_string(i) + "]";
    const json &entry = (*layers)[i];
    const json *alternatives = nullptr;
    json plain;
    if (entry.is_object() && entry.contains("alternatives")) {
      alternatives = &entry["alternatives"];
      plain = entry;
      plain.erase("alternatives");
    }
    const int64_t index = static_cast<int64_t>(out.layers.size());
    if (!parseLayer(r, alternatives ? plain : entry, ctx, out.externalData,
                    out.data.size, out.layers.emplace_back()))
      return false;
    const PackageLayer &layer = out.layers.back().layer;
    for (const LayerDesc &other : out.layers)
      if (&other.layer != &layer && other.parent < 0 &&
          other.layer.name == layer.name)
        return r.fail("two layers are named " + inQuotes(layer.name));
    if (!alternatives)
      continue;
    const std::string actx = ctx + " (" + inQuotes(layer.name) + ")";
    if (!alternatives->is_array() || alternatives->empty())
      return r.fail(actx + ".alternatives must be a non-empty array");
    if (!layer.libraryCheck || !hasGeneratedKernelsOf(layer))
      return r.fail(actx + " has alternatives but not the library check "
                           "and generated kernels (the runtime chooses "
                           "among them by timing)");
    for (size_t j = 0; j < alternatives->size(); ++j) {
      const std::string jctx =
          actx + ".alternatives[" + std::to_string(j) + "]";
      const json &alt = (*alternatives)[j];
      if (!alt.is_object())
        return r.fail(jctx + " must be an object");
      if (!r.onlyKeys(alt, jctx,
                      {kAlternativeKeys[0], kAlternativeKeys[1],
                       kAlternativeKeys[2], kAlternativeKeys[3],
                       kAlternativeKeys[4], kAlternativeKeys[5]}))
        return false;
      for (const char *key : kAlternativeKeys)
        if (!alt.contains(key))
          return r.fail(jctx + " lacks " + inQuotes(key));
      json merged = plain;
      for (auto it = alt.begin(); it != alt.end(); ++it)
        merged[it.key()] = it.value();
      LayerDesc &desc = out.layers.emplace_back();
      desc.parent = index;
      if (!parseLayer(r, merged, jctx, out.externalData, out.data.size, desc))
        return false;
      if (!hasGeneratedKernelsOf(desc.layer))
        return r.fail(jctx + " needs generated kernels (an alternative is a "
                             "variant the runtime times)");
    }
  }

  // No two buffers may share bytes of data.bin.
  if (!out.externalData) {
    struct Span {
      uint64_t begin, end;
      const LayerDesc *layer;
      const BufferDesc *buffer;
    };
    std::vector<Span> spans;
    for (const LayerDesc &l : out.layers)
      for (const BufferDesc &b : l.buffers)
        if (b.size > 0)
          spans.push_back({b.offset, b.offset + b.size, &l, &b});
    std::sort(spans.begin(), spans.end(),
              [](const Span &a, const Span &b) { return a.begin < b.begin; });
    for (size_t i = 1; i < spans.size(); ++i)
      if (spans[i].begin < spans[i - 1].end)
        return r.fail("buffers " + inQuotes(spans[i - 1].buffer->name) +
                      " of layer " + inQuotes(spans[i - 1].layer->layer.name) +
                      " and " + inQuotes(spans[i].buffer->name) + " of layer " +
                      inQuotes(spans[i].layer->layer.name) + " overlap");
  }
  return true;
}

/// Streams data.bin once: fills every buffer and checks every checksum.
Status readData(const std::string &path, const ManifestDesc &m,
                std::vector<BufferDesc *> buffers) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::error(path + ": cannot open: " + errnoText());
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return Status::error(path + ": not a regular file");
  if (static_cast<uint64_t>(st.st_size) != m.data.size)
    return Status::error(path + ": the file is " + std::to_string(st.st_size) +
                         " bytes, the manifest says " +
                         std::to_string(m.data.size) +
                         " (truncated or corrupt)");

  std::sort(buffers.begin(), buffers.end(),
            [](const BufferDesc *a, const BufferDesc *b) {
              return a->offset < b->offset;
            });
  Sha256 whole;
  std::unique_ptr<char[]> scratch(new char[kChunkBytes]);
  uint64_t pos = 0;
  // Reads `size` bytes into `dst` (or the scratch buffer when null), feeding
  // the whole-file hash and `hasher` when given.
  std::string why = "the file shrank while reading";
  auto readInto = [&](char *dst, uint64_t size, Sha256 *hasher) -> bool {
    while (size > 0) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(size, kChunkBytes));
      char *p = dst ? dst : scratch.get();
      size_t got = 0;
      while (got < n) {
        ssize_t k = ::read(fd, p + got, n - got);
        if (k < 0 && errno == EINTR)
          continue;
        if (k < 0)
          why = errnoText();
        if (k <= 0)
          return false;
        got += static_cast<size_t>(k);
      }
      whole.update(p, n);
      if (hasher)
        hasher->update(p, n);
      if (dst)
        dst += n;
      size -= n;
      pos += n;
    }
    return true;
  };
  std::vector<std::string> digests(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    BufferDesc &b = *buffers[i];
    char *dst = b.allocate();
    Sha256 hasher;
    if (!readInto(nullptr, b.offset - std::min(b.offset, pos), nullptr) ||
        !readInto(dst, b.size, &hasher))
      return Status::error(path + ": cannot read: " + why);
    digests[i] = hasher.hexDigest();
  }
  if (!readInto(nullptr, m.data.size - pos, nullptr))
    return Status::error(path + ": cannot read: " + why);
  char extra;
  if (::read(fd, &extra, 1) != 0)
    return Status::error(path + ": the file changed while reading");

  for (size_t i = 0; i < buffers.size(); ++i)
    if (digests[i] != buffers[i]->sha256)
      return Status::error(
          path + ": buffer " + inQuotes(buffers[i]->name) + " (bytes " +
          std::to_string(buffers[i]->offset) + " to " +
          std::to_string(buffers[i]->offset + buffers[i]->size) +
          ") does not match its sha256: the data is corrupt");
  if (whole.hexDigest() != m.data.sha256)
    return Status::error(path + ": the file does not match its sha256: the "
                                "data is corrupt");
  return Status::ok();
}

/// External data: rebuilds a layer from its source matrix file and checks
/// the arrays against the recorded checksums.
Status rebuildLayer(const std::string &manifestPath, const std::string &parent,
                    LayerDesc &desc) {
  PackageLayer &layer = desc.layer;
  std::string where = manifestPath + ": layer " + inQuotes(layer.name) + ": ";
  const std::string path = resolveSource(parent, layer.sourcePath);
  StatusOr<std::string> sha = sha256File(path);
  if (!sha)
    return Status::error(where +
                         "cannot read the source matrix: " + sha.message());
  if (*sha != layer.sourceSha256)
    return Status::error(where + "the source matrix " + path +
                         " does not match its recorded sha256 (was it "
                         "modified?)");
  ReadOptions readOptions;
  readOptions.values = layer.values;
  StatusOr<CsrMatrix> m = readMatrixFile(path, readOptions);
  if (!m)
    return Status::error(where +
                         "cannot rebuild from the source: " + m.message());
  const FormattedMatrix &want = layer.matrix;
  if (m->rows != want.rows || m->cols != want.cols || m->nnz() != want.nnz)
    return Status::error(
        where + "the source matrix is " + std::to_string(m->rows) + " x " +
        std::to_string(m->cols) + " with " + std::to_string(m->nnz()) +
        " entries, the manifest "
        "says " +
        std::to_string(want.rows) + " x " + std::to_string(want.cols) +
        " with " + std::to_string(want.nnz));
  StatusOr<Permutation> perm = computePermutation(*m, layer.permutation);
  if (!perm)
    return Status::error(where +
                         "cannot rebuild the permutation: " + perm.message());
  StatusOr<FormattedMatrix> built = buildFormat(*m, perm->order, layer.format);
  if (!built)
    return Status::error(where +
                         "cannot rebuild the format: " + built.message());
  FormattedMatrix &f = *built;
  // The recorded scalars of the storage must come out the same.
  bool same = f.rows == want.rows && f.cols == want.cols && f.nnz == want.nnz &&
              f.kind == want.kind;
  if (same && f.kind == FormatKind::Bell)
    same = f.bell.block == want.bell.block && f.bell.width == want.bell.width &&
           f.bell.delta == want.bell.delta &&
           f.bell.denseNnz == want.bell.denseNnz;
  if (same && f.kind == FormatKind::Hbp)
    same = f.hbp.rowBlock == want.hbp.rowBlock &&
           f.hbp.colBlock == want.hbp.colBlock &&
           f.hbp.hashA == want.hbp.hashA && f.hbp.hashB == want.hbp.hashB &&
           f.hbp.hashC == want.hbp.hashC && f.hbp.hashD == want.hbp.hashD;
  if (!same)
    return Status::error(where + "the rebuilt format's parameters differ "
                                 "from the recorded ones");
  if (carriesCsr(f) != desc.withCsr && f.kind != FormatKind::Csr)
    return Status::error(where + "the rebuilt format's buffers differ from "
                                 "the recorded ones");
  std::string mismatch;
  forEachBuffer(f, desc.withCsr, [&](const char *name, const auto &vec) {
    using T = typename std::decay_t<decltype(vec)>::value_type;
    if (!mismatch.empty())
      return;
    for (const BufferDesc &b : desc.buffers)
      if (b.name == name &&
          (b.count != vec.size() ||
           sha256Hex(vec.data(), vec.size() * sizeof(T)) != b.sha256))
        mismatch = name;
  });
  if (!mismatch.empty())
    return Status::error(where + "the rebuilt buffer " + inQuotes(mismatch) +
                         " does not match its recorded sha256 (the source or "
                         "the sparse core changed since the package was "
                         "written)");
  if (Status s = verifyFormat(f, &*m); !s)
    return Status::error(where +
                         "the rebuilt format does not verify: " + s.message());
  layer.matrix = std::move(f);
  return Status::ok();
}

/// Reads kernels.ptx / kernels.<target>.cubin and checks size and sha256.
Status readCodeFile(const std::string &dir, const FileDesc &desc,
                    std::string &out) {
  std::string path = dir + "/" + desc.file;
  if (Status s = readSmallFile(path, kMaxCodeBytes, out); !s)
    return s;
  if (out.size() != desc.size)
    return Status::error(path + ": the file is " + std::to_string(out.size()) +
                         " bytes, the manifest says " +
                         std::to_string(desc.size));
  if (sha256Hex(out.data(), out.size()) != desc.sha256)
    return Status::error(path + ": the file does not match its sha256: it is "
                                "corrupt");
  return Status::ok();
}

} // namespace

StatusOr<Package> spperm::readPackage(const std::string &dirArg) {
  const std::string dir = trimSlashes(dirArg);
  const std::string manifestPath = dir + "/" + kManifestFile;
  std::string text;
  if (Status s = readSmallFile(manifestPath, kMaxManifestBytes, text); !s)
    return s;

  ErrorRecorder recorder;
  if (!json::sax_parse(text, &recorder))
    return Status::error(manifestPath + ": not valid JSON: " +
                         cleanParseError(recorder.message));
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded())
    return Status::error(manifestPath + ": not valid JSON");

  ManifestReader r(manifestPath);
  if (!root.is_object())
    return Status::error(manifestPath + ": not a spperm package manifest (the "
                                        "top level is not an object)");
  std::string schema;
  int64_t version;
  if (!r.string(root, "", "schema", schema))
    return Status::error(r.message());
  if (schema != kSchema)
    return Status::error(manifestPath +
                         ": not a spperm package manifest "
                         "(schema " +
                         inQuotes(schema) + ", expected " + inQuotes(kSchema) +
                         ")");
  if (!r.integer(root, "", "version", 0, INT64_MAX, version))
    return Status::error(r.message());
  if (version != kPackageVersion)
    return Status::error(manifestPath + ": unsupported package version " +
                         std::to_string(version) + " (this build reads " +
                         std::to_string(kPackageVersion) + ")");

  // The manifest's own checksum: the writer ends the file with
  // `"manifest_sha256": "<sha256 of every byte before the key>"\n}\n`.
  const std::string key = "\"" + std::string(kChecksumKey) + "\": \"";
  const std::string tail = "\"\n}\n";
  const size_t suffix = key.size() + 64 + tail.size();
  std::string recorded;
  if (text.size() < suffix ||
      text.compare(text.size() - suffix, key.size(), key) != 0 ||
      text.compare(text.size() - tail.size(), tail.size(), tail) != 0 ||
      !r.sha256(root, "", kChecksumKey, recorded) ||
      text.compare(text.size() - suffix + key.size(), 64, recorded) != 0)
    return Status::error(manifestPath + ": the manifest_sha256 line is "
                                        "missing or not at the end of the "
                                        "file (was the manifest edited?)");
  if (sha256Hex(text.data(), text.size() - suffix) != recorded)
    return Status::error(manifestPath + ": the manifest does not match its "
                                        "manifest_sha256: it is corrupt or "
                                        "was edited");

  ManifestDesc m;
  if (!parseManifest(r, root, m))
    return Status::error(r.message());
  root = json();

  if (m.externalData) {
    const std::string parent = splitPath(dir).first;
    for (LayerDesc &l : m.layers)
      if (Status s = rebuildLayer(manifestPath, parent, l); !s)
        return s;
  } else {
    std::vector<BufferDesc *> buffers;
    for (LayerDesc &l : m.layers)
      for (BufferDesc &b : l.buffers)
        buffers.push_back(&b);
    const std::string dataPath = dir + "/" + kDataFile;
    if (Status s = readData(dataPath, m, std::move(buffers)); !s)
      return s;
    for (LayerDesc &l : m.layers) {
      const FormattedMatrix &f = l.layer.matrix;
      Status s = verifyFormat(f);
      // verifyFormat looks at the arrays of f's format; a bell or hbp layer
      // that also carries its CSR gets that checked here.
      if (s && l.withCsr && f.kind != FormatKind::Csr) {
        s = f.csr.verify();
        if (s && f.csr.nnz() != f.nnz)
          s = Status::error("its csr buffers hold " +
                            std::to_string(f.csr.nnz()) + " entries, not " +
                            std::to_string(f.nnz));
      }
      if (!s)
        return Status::error(dataPath + ": layer " + inQuotes(l.layer.name) +
                             ": the arrays do not form a valid " +
                             std::string(formatName(f.kind)) +
                             " matrix: " + s.message());
    }
  }

  Package package;
  package.target = m.target;
  package.externalData = m.externalData;
  if (m.hasPtx)
    if (Status s = readCodeFile(dir, m.ptx, package.ptx); !s)
      return s;
  if (m.hasCubin)
    if (Status s = readCodeFile(dir, m.cubin, package.cubin); !s)
      return s;
  // Alternatives follow their layer in m.layers.
  for (LayerDesc &l : m.layers) {
    if (l.parent < 0)
      package.layers.push_back(std::move(l.layer));
    else
      package.layers.back().alternatives.push_back(std::move(l.layer));
  }
  return package;
}
