//===- PackageWriter.cpp - Writing a package atomically ---------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// writePackage (docs/Package.md, "Writing"): every check happens first (the
// layers verify, the names are unique, the destination is free or is a
// package), then the files go into a fresh temporary directory beside the
// destination, each is fsync'ed, and the directory is renamed into place; an
// old package there is renamed aside first and removed last.
//
//===----------------------------------------------------------------------===//

#include "PackageDetail.h"
#include "Sha256.h"

#include "spperm/Sparse/Interrupt.h"
#include "spperm/Sparse/OutputPath.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <sys/file.h>
#include <sys/stat.h>
#include <type_traits>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::detail;
using json = nlohmann::ordered_json;

namespace {

uint64_t alignUp(uint64_t x) {
  return (x + kAlignment - 1) / kAlignment * kAlignment;
}

/// Removes a directory tree, ignoring errors (used on paths we created).
void removeTree(const std::string &path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

/// Removes the temporary and set-aside directories of earlier writes of
/// package `base` in `parent` (`.BASE.tmp-PID-XXXXXX`, `.BASE.old-PID-XXXXXX`)
/// whose writer PID no longer runs: a compile killed by SIGKILL leaves them.
/// Those of running writers (a concurrent compile) are left alone.
void sweepStaleTemporaries(const std::string &parent, const std::string &base) {
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(parent, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    for (const char *kind : {".tmp-", ".old-"}) {
      const std::string prefix = "." + base + kind;
      if (name.compare(0, prefix.size(), prefix) != 0)
        continue;
      const size_t dash = name.find('-', prefix.size());
      const std::string digits = name.substr(prefix.size(), dash - prefix.size());
      if (dash == std::string::npos || digits.empty() || digits.size() > 9 ||
          digits.find_first_not_of("0123456789") != std::string::npos)
        continue;
      const pid_t pid = static_cast<pid_t>(std::stol(digits));
      if (pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH)
        continue;
      // A writer in another PID namespace may have a PID that does not run
      // here: its temporary directory holds its flock while it writes.
      const std::string path = it->path().string();
      const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);
        continue;
      }
      removeTree(path);
      if (fd >= 0)
        ::close(fd);
    }
  }
}

/// fsync of a directory, so that renames and new entries are durable.
bool syncDirectory(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0)
    return false;
  bool ok = ::fsync(fd) == 0;
  return ::close(fd) == 0 && ok;
}

/// Whether `name` may be a kernel parameter of `layer`: one of its buffers,
/// a column-index buffer narrowed to 16 bits (whose layer must have few
/// enough columns, checked apart), or a call argument (Names.h).
bool isKernelArgName(const PackageLayer &layer, const std::string &name) {
  if (isCallArg(name))
    return true;
  std::string_view wanted = name;
  if (std::string_view base = narrowedBuffer(name); !base.empty())
    wanted = base;
  bool found = false;
  forEachBuffer(layer.matrix, carriesCsr(layer.matrix),
                [&](std::string_view buffer, const auto &) {
                  found = found || buffer == wanted;
                });
  return found;
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
    // Consecutive blocks are the default; only condensed tiles say so.
    if (f.bell.condensed)
      p["columns"] = bell_columns::kCondensed;
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

/// Copies the regular file `from` to the new file `to`, synced.
Status copyFileSynced(const std::string &from, const std::string &to) {
  RegularFile in;
  if (Status s = openRegularFile(from, in); !s)
    return s;
  FileWriter out(to);
  std::unique_ptr<char[]> chunk(new char[kChunkBytes]);
  while (out.ok()) {
    const ssize_t n = ::read(in.fd, chunk.get(), kChunkBytes);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return Status::error(from + ": cannot read: " + errnoText());
    if (n == 0)
      break;
    out.write(chunk.get(), static_cast<size_t>(n));
  }
  return out.finish();
}

/// Checks a layer before anything is written.
/// Checks one kernel launch of `layer` (names, launch dimensions, K
/// condition, and the arguments of a variant's kernel); `where` starts the
/// messages.
Status validateKernel(const PackageLayer &layer, const KernelInfo &k,
                      const std::string &where, bool variantKernel = true) {
  if (!isValidName(k.name) || !isCleanUtf8(k.family))
    return Status::error(where + "kernel name " + inQuotes(k.name) +
                         " or family is not valid text");
  for (int64_t d : {k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ})
    if (d < 1 || d > kMaxIndex)
      return Status::error(where + "kernel " + inQuotes(k.name) +
                           " has a launch dimension out of range");
  if (std::string why = blockProblem(k.blockX, k.blockY, k.blockZ);
      !why.empty())
    return Status::error(where + "kernel " + inQuotes(k.name) + ": " + why);
  if (k.sharedBytes < 0 || k.sharedBytes > kMaxIndex)
    return Status::error(where + "kernel " + inQuotes(k.name) +
                         " has a shared-memory size out of range");
  if (std::string why = k.gridKProblem(); !why.empty())
    return Status::error(where + "kernel " + inQuotes(k.name) + ": " + why);
  if (!variantKernel && k.gridCtas > 0)
    return Status::error(where + "kernel " + inQuotes(k.name) +
                         " cannot have grid_k");
  if (!isValidName(k.variant))
    return Status::error(where + "kernel " + inQuotes(k.name) +
                         " needs a variant name");
  if (k.kMin < 1 || k.kMax < 0 || (k.kMax != 0 && k.kMax < k.kMin) ||
      k.kAlign < 1 || k.kMin > kMaxIndex || k.kMax > kMaxIndex ||
      k.kAlign > kMaxIndex)
    return Status::error(where + "kernel " + inQuotes(k.name) +
                         " has an invalid K condition");
  for (const std::string &arg : k.args) {
    if (!variantKernel)
      break;
    if (std::string why = narrowIndexProblem(arg, layer.matrix.cols);
        !why.empty())
      return Status::error(where + "kernel " + inQuotes(k.name) +
                           " takes " + inQuotes(arg) + ", which " + why);
    if (!isKernelArgName(layer, arg))
      return Status::error(where + "kernel " + inQuotes(k.name) +
                           " takes " + inQuotes(arg) +
                           ", which is not a buffer of the layer, B, C, K, " +
                           std::string(call_arg::kTickets) + " or " +
                           std::string(call_arg::kAccumulator));
  }
  return Status::ok();
}

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
  if (Status s = checkSourceRows(layer); !s)
    return Status::error(where + s.message());
  // 16-bit values are stored in their type: they must be exact in it (a
  // NaN is stored as the type's NaN of the same sign, quiet).
  if (layer.valueType != ValueType::F32) {
    std::string inexact;
    forEachBuffer(f, carriesCsr(f), [&](std::string_view name, const auto &v) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      if constexpr (std::is_same_v<T, float>)
        if (inexact.empty())
          inexact = inexactValuesProblem(name, v, layer.valueType);
    });
    if (!inexact.empty())
      return Status::error(where + inexact);
  }
  for (const KernelInfo &k : layer.kernels)
    if (Status s = validateKernel(layer, k, where); !s)
      return s;
  if (layer.transposeB) {
    if (Status s = validateKernel(layer, *layer.transposeB, where,
                                  /*variantKernel=*/false);
        !s)
      return s;
    if (!isTransposeArgs(layer.transposeB->args))
      return Status::error(where + "the transposing kernel must take " +
                           kTransposeArgsRule);
    const KernelInfo &t = *layer.transposeB;
    if (t.blockX != kTransposeThreads || t.blockY != 1 || t.blockZ != 1)
      return Status::error(where + "the transposing kernel's block must be " +
                           std::to_string(kTransposeThreads) + " x 1 x 1");
  }
  for (const KernelInfo &k : layer.inPlaceB) {
    if (!isInPlaceCallArgs(k.args))
      return Status::error(where + "in-place kernel " + inQuotes(k.name) +
                           " must take " + kInPlaceArgsRule);
    // It runs alone: nothing clears C before it or overlaps it.
    if (k.zeroOutput || k.dependentLaunch)
      return Status::error(where + "in-place kernel " + inQuotes(k.name) +
                           " cannot have zero_output or dependent_launch");
    if (k.gridCtas > 0)
      return Status::error(where + "in-place kernel " + inQuotes(k.name) +
                           " cannot have grid_k");
    // The rest are the variant's arrays, checked as a kernel's.
    KernelInfo arrays = k;
    arrays.args.erase(std::remove(arrays.args.begin(), arrays.args.end(),
                                  std::string(call_arg::kBColumnMajor)),
                      arrays.args.end());
    if (Status s = validateKernel(layer, arrays, where); !s)
      return s;
  }
  return Status::ok();
}


/// The alternatives of `layer` as the manifest can hold them: only on a
/// checked layer with generated kernels; each the same matrix (shape, K,
/// source, values) with generated kernels of its own and no alternatives.
Status checkAlternativesForWriting(const PackageLayer &layer,
                                   bool externalData) {
  if (layer.alternatives.empty())
    return Status::ok();
  std::string where = "layer " + inQuotes(layer.name) + ": ";
  if (!layer.libraryCheck || !hasGeneratedKernels(layer))
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
        alt.sourceRows != layer.sourceRows ||
        formatValuesSpec(alt.values) != formatValuesSpec(layer.values) ||
        !alt.libraryCheck)
      return Status::error(at + "not the layer's matrix (name, shape, nnz, "
                                "K, source and library check must match)");
    if (!hasGeneratedKernels(alt) || !alt.alternatives.empty())
      return Status::error(at + "needs generated kernels and no "
                                "alternatives of its own");
    if (alt.transposeB)
      return Status::error(at + "has a transposing kernel (an alternative "
                                "uses its layer's)");
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
  if (k.gridCtas > 0)
    j["grid_k"] = {{"base", k.gridBase},
                   {"ctas", k.gridCtas},
                   {"columns", k.gridColumns}};
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

/// Whether rebuilding `alternative` from `original` (rebuildAlternative)
/// gives exactly its arrays, so that the package need not store them.
bool reproducible(const CsrMatrix &original, const PackageLayer &alternative) {
  PackageLayer rebuilt;
  if (!rebuildAlternative(original, alternative, rebuilt.matrix))
    return false;
  if (!sameStorageParameters(rebuilt.matrix, alternative.matrix) ||
      carriesCsr(rebuilt.matrix) != carriesCsr(alternative.matrix))
    return false;
  const std::vector<LayerBuffer> x = layerBuffers(rebuilt),
                                 y = layerBuffers(alternative);
  if (x.size() != y.size())
    return false;
  for (size_t i = 0; i < x.size(); ++i) {
    const uint64_t bytes = x[i].hostBytes();
    // (An empty array's data may be null, which memcmp must not get.)
    if (x[i].name != y[i].name || x[i].count != y[i].count ||
        (bytes != 0 && std::memcmp(x[i].data, y[i].data, bytes) != 0))
      return false;
  }
  return true;
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
  // The manifest entry of one layer, its arrays appended to data.bin
  // unless they are rebuilt at load.
  auto layerJson = [&](const PackageLayer &layer, bool rebuilt) {
    const FormattedMatrix &f = layer.matrix;
    json l;
    l["name"] = layer.name;
    l["rows"] = f.rows;
    l["cols"] = f.cols;
    l["nnz"] = f.nnz;
    l["k"] = layer.k;
    if (layer.operandType != ValueType::F32)
      l["dtype"] = std::string(valueTypeName(layer.operandType));
    if (layer.valueType != ValueType::F32)
      l["values_dtype"] = std::string(valueTypeName(layer.valueType));
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
    if (layer.sourceRows) {
      source["row_begin"] = layer.sourceRows->first;
      source["row_end"] = layer.sourceRows->second;
    }
    l["source"] = source;
    json kernels = json::array();
    for (const KernelInfo &k : layer.kernels)
      kernels.push_back(kernelJson(k));
    l["kernels"] = kernels;
    if (layer.transposeB)
      l["transpose_b"] = kernelJson(*layer.transposeB);
    if (!layer.inPlaceB.empty()) {
      json inPlace = json::array();
      for (const KernelInfo &k : layer.inPlaceB)
        inPlace.push_back(kernelJson(k));
      l[kInPlaceKey] = inPlace;
    }
    if (layer.libraryCheck)
      l["library_check"] = true;
    if (layer.isShard()) {
      json shard;
      shard["index"] = layer.shard.index;
      shard["count"] = layer.shard.count;
      shard["row_begin"] = layer.shard.rowBegin;
      shard["row_end"] = layer.shard.rowEnd;
      shard["rows"] = layer.shard.rows;
      l["shard"] = shard;
    }

    json buffers = json::array();
    forEachBuffer(f, carriesCsr(f), [&](std::string_view name, const auto &vec) {
      using T = typename std::decay_t<decltype(vec)>::value_type;
      // 16-bit values are written as their bit patterns.
      const std::string_view dtype = storedDtype<T>(layer.valueType);
      std::vector<uint16_t> bits;
      const void *stored = vec.data();
      uint64_t bytes = vec.size() * sizeof(T);
      if constexpr (std::is_same_v<T, float>) {
        if (layer.valueType != ValueType::F32) {
          bits = narrowArray(vec, layer.valueType);
          stored = bits.data();
          bytes = bits.size() * sizeof(uint16_t);
        }
      }
      json b;
      b["name"] = name;
      b["dtype"] = dtype;
      b["count"] = vec.size();
      if (data && !rebuilt) {
        const uint64_t offset = alignUp(end);
        data->writeZeros(offset - end);
        static const char kZeros[kAlignment] = {};
        wholeData.update(kZeros, offset - end);
        data->write(stored, bytes);
        wholeData.update(stored, bytes);
        end = offset + bytes;
        b["offset"] = offset;
      }
      b["size"] = bytes;
      b["sha256"] = sha256Hex(stored, bytes);
      buffers.push_back(b);
    });
    l["buffers"] = buffers;
    return l;
  };
  for (const PackageLayer &layer : layers) {
    json l = layerJson(layer, /*rebuilt=*/false);
    if (!layer.alternatives.empty()) {
      // What differs: the rest is the layer's.
      std::optional<CsrMatrix> original;
      json alternatives = json::array();
      for (const PackageLayer &alt : layer.alternatives) {
        bool rebuilt = false;
        if (data && options.rebuildAlternatives) {
          if (!original)
            original = toOriginalCsr(layer.matrix);
          rebuilt = reproducible(*original, alt);
        }
        json full = layerJson(alt, rebuilt);
        json a;
        for (const char *key : kAlternativeKeys)
          a[key] = full[key];
        if (full.contains(kInPlaceKey))
          a[kInPlaceKey] = full[kInPlaceKey];
        if (rebuilt)
          a[kRebuiltKey] = true;
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

/// Replaces package `dir` by the finished directory `tmp` where the file
/// system cannot exchange them atomically: the old package is renamed
/// aside, `tmp` into place, and the old one removed. Removes `tmp` on
/// failure.
Status replaceThroughAside(const std::string &dir, const std::string &tmp,
                           const std::string &parent, const std::string &base) {
  auto fail = [&](const std::string &what) {
    return Status::error(dir + ": " + what);
  };
  std::string aside = parent + "/." + base + ".old-" +
                      std::to_string(::getpid()) + "-XXXXXX";
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
  if (::rename(tmp.c_str(), dir.c_str()) != 0) {
    Status s = fail("cannot rename the temporary directory into place: " +
                    errnoText());
    ::rename(aside.c_str(), dir.c_str());
    removeTree(tmp);
    return s;
  }
  removeTree(aside);
  return Status::ok();
}

/// Writes the package directory `dir` atomically: `fill` writes its files
/// into a new temporary directory beside it (`.BASE.tmp-PID-XXXXXX`), which
/// is then renamed onto the free name or exchanged with the package there
/// (docs/Package.md, "Writing"). `dir` has no trailing slash.
Status
writeThroughTemporary(const std::string &dir,
                      const std::function<Status(const std::string &tmp)> &fill,
                      const std::function<bool()> &interrupted = {}) {
  auto fail = [&](const std::string &what) {
    return Status::error(dir + ": " + what);
  };
  auto [parent, base] = splitPath(dir);
  // The destination must be free, or a package we may replace (checked
  // again when it is replaced).
  if (Status s = checkPackageDestination(dir); !s)
    return s;

  // The writer's pid in the name: a later compile of the same output
  // removes the directories of writers that no longer run
  // (sweepStaleTemporaries).
  sweepStaleTemporaries(parent, base);
  std::string tmp =
      parent + "/." + base + ".tmp-" + std::to_string(::getpid()) + "-XXXXXX";
  if (!::mkdtemp(tmp.data())) {
    // A missing or unwritable directory in the tools' words.
    if (Status s = checkWritableDirectoryOf(dir); !s)
      return s;
    return fail("cannot create a temporary directory beside it: " +
                errnoText());
  }
  // Locked while it is written, so that no sweep removes it
  // (sweepStaleTemporaries); the lock goes with the descriptor.
  struct Lock {
    int fd;
    ~Lock() {
      if (fd >= 0)
        ::close(fd);
    }
  } lock{::open(tmp.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (lock.fd >= 0)
    ::flock(lock.fd, LOCK_EX);
  // Removed if the tool is interrupted (Interrupt.h); whatever happens
  // below, it is gone or in place (renamed) when this returns.
  const ScopedTemporary removedOnSignal(tmp);
  if (Status s = fill(tmp); !s) {
    removeTree(tmp);
    // A file is named as it would be in the package, not in the temporary
    // directory the user never sees.
    const std::string &message = s.message();
    if (message.compare(0, tmp.size(), tmp) == 0)
      return Status::error(dir + message.substr(tmp.size()));
    return s;
  }
  // mkdtemp makes the directory 0700; give it the mode mkdir would.
  if (::chmod(tmp.c_str(), 0777 & ~currentUmask()) != 0 ||
      !syncDirectory(tmp)) {
    Status s = fail("cannot finish the temporary directory: " + errnoText());
    removeTree(tmp);
    return s;
  }
  if (interrupted && interrupted()) {
    removeTree(tmp);
    return fail("interrupted");
  }

  // Into place: renamed onto a free name, or exchanged atomically with the
  // package there, which is then removed. Another compile to the same
  // output may put a package there or take it away meanwhile: the last
  // writer wins, and a reader never finds the name missing or half written.
  struct stat st;
  for (int attempt = 0; attempt < 16; ++attempt) {
    if (::lstat(dir.c_str(), &st) != 0 && errno == ENOENT) {
      if (::rename(tmp.c_str(), dir.c_str()) == 0)
        break;
      if (errno == EEXIST || errno == ENOTEMPTY)
        continue; // created meanwhile: exchange with it
      Status s = fail("cannot rename the temporary directory into place: " +
                      errnoText());
      removeTree(tmp);
      return s;
    }
    if (Status s = checkPackageDestination(dir); !s) {
      removeTree(tmp);
      return s;
    }
    if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, dir.c_str(),
                    RENAME_EXCHANGE) == 0) {
      removeTree(tmp); // now the old package
      break;
    }
    if (errno == ENOENT)
      continue; // removed meanwhile: rename onto the free name
    if (errno != EINVAL && errno != ENOSYS) {
      Status s = fail("cannot exchange the new package with the old one: " +
                      errnoText());
      removeTree(tmp);
      return s;
    }
    // A file system without atomic exchange: move the old package aside
    // (a reader may find the name missing for a moment).
    if (Status s = replaceThroughAside(dir, tmp, parent, base); !s)
      return s;
    break;
  }
  if (::lstat(tmp.c_str(), &st) == 0) {
    removeTree(tmp);
    return fail("another compile kept replacing it; gave up after 16 tries");
  }
  if (!syncDirectory(parent))
    return fail("cannot sync the parent directory: " + errnoText());
  return Status::ok();
}

} // namespace

Status spperm::checkPackageDestination(const std::string &dirArg) {
  const std::string dir = trimSlashes(dirArg);
  struct stat st, manifest;
  // A package inside another would be lost when that one is replaced, as
  // any output written into a package would damage it.
  const std::string parent = splitPath(dir).first;
  if (::stat((parent + "/" + kManifestFile).c_str(), &manifest) == 0 &&
      S_ISREG(manifest.st_mode))
    return Status::error(dir + ": is inside the package " + parent +
                         " (writing there would damage it; write "
                         "elsewhere)");
  if (::lstat(dir.c_str(), &st) != 0)
    return errno == ENOENT
               ? Status::ok()
               : Status::error(dir + ": cannot access: " + errnoText());
  if (!S_ISDIR(st.st_mode) ||
      ::stat((dir + "/" + kManifestFile).c_str(), &manifest) != 0 ||
      !S_ISREG(manifest.st_mode))
    return Status::error(dir + ": exists and is not a spperm package (no "
                               "manifest.json); refusing to replace it");
  return Status::ok();
}

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
    for (const PackageLayer &alternative : layers[i].alternatives)
      if (alternative.shard.count != layers[i].shard.count ||
          alternative.shard.index != layers[i].shard.index ||
          alternative.shard.rowBegin != layers[i].shard.rowBegin ||
          alternative.shard.rowEnd != layers[i].shard.rowEnd)
        return fail("layer " + inQuotes(layers[i].name) +
                    ": an alternative is another shard than its layer");
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

  if (Status s = checkShards(layers); !s)
    return fail(s.message());

  return writeThroughTemporary(
      dir,
      [&](const std::string &tmp) {
        return writePackageFiles(tmp, layers, options);
      },
      options.interrupted);
}

Status spperm::copyPackageDirectory(const std::string &sourceArg,
                                    const std::string &dirArg) {
  const std::string source = trimSlashes(sourceArg);
  const std::string dir = trimSlashes(dirArg);
  if (dir.empty())
    return Status::error("the package directory name is empty");
  auto [parent, base] = splitPath(dir);
  if (base.empty() || base == "." || base == "..")
    return Status::error(dir + ": not a usable package directory name");
  struct stat st;
  if (::stat((source + "/" + kManifestFile).c_str(), &st) != 0 ||
      !S_ISREG(st.st_mode))
    return Status::error(source + ": not a spperm package (no " +
                         std::string(kManifestFile) + ")");
  return writeThroughTemporary(dir, [&](const std::string &tmp) -> Status {
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator(source, ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (Status s = copyFileSynced(source + "/" + name, tmp + "/" + name); !s)
        return s;
    }
    if (ec)
      return Status::error(source + ": cannot list: " + ec.message());
    return Status::ok();
  });
}
