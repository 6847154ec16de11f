//===- PackageReader.cpp - Reading and verifying a package ------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// readPackage (docs/Package.md, "Reading and verification"): manifest.json
// is size-capped and validated whole (ManifestSchema.cpp) before anything
// else is read; data.bin is streamed once, hashing each buffer and the whole
// file; only then is each FormattedMatrix reconstructed and handed to
// verifyFormat. With external data each layer is rebuilt from its source
// matrix instead and checked against the recorded checksums. Every failure
// is one line that starts with the file it is about.
//
//===----------------------------------------------------------------------===//

#include "ManifestSchema.h"
#include "PackageDetail.h"
#include "Sha256.h"

#include "spperm/Sparse/OutputPath.h"
#include "spperm/Sparse/Shards.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <type_traits>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::detail;

namespace {

/// Reads a whole small file (manifest, kernels) of at most `maxSize` bytes.
Status readSmallFile(const std::string &path, uint64_t maxSize,
                     std::string &out) {
  RegularFile file;
  if (Status s = openRegularFile(path, file); !s)
    return s;
  if (file.size > maxSize)
    return Status::error(path + ": the file is " + std::to_string(file.size) +
                         " bytes, more than the limit of " +
                         std::to_string(maxSize));
  out.assign(static_cast<size_t>(file.size), '\0');
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(file.fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return Status::error(path + ": cannot read: " +
                           (n < 0 ? errnoText()
                                  : std::string("the file shrank while "
                                                "reading")));
    got += static_cast<size_t>(n);
  }
  // A file that grew while being read is not the file that was measured.
  char extra;
  if (::read(file.fd, &extra, 1) != 0)
    return Status::error(path + ": the file changed while reading");
  return Status::ok();
}

/// Streams data.bin once: fills every buffer and checks every checksum.
Status readData(const std::string &path, const ManifestDesc &m,
                std::vector<BufferDesc *> buffers) {
  RegularFile file;
  if (Status s = openRegularFile(path, file); !s)
    return s;
  const int fd = file.fd;
  if (file.size != m.data.size)
    return Status::error(path + ": the file is " + std::to_string(file.size) +
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
    b.finish();
    // f32 values of a 16-bit layer (an older package) must be exact in its
    // type, or the GPU (which uploads them in it) and the CPU would differ.
    if (b.exactIn != ValueType::F32)
      if (std::string why = inexactValuesProblem(b.name, *b.f32, b.exactIn);
          !why.empty())
        return Status::error(path + ": " + why);
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

Status checkRebuilt(const std::string &where, const LayerDesc &desc,
                    const FormattedMatrix &f, const CsrMatrix &m);

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
  // A layer of some of the source's rows: those.
  if (layer.sourceRows) {
    const auto [begin, end] = *layer.sourceRows;
    if (m->rows < end)
      return Status::error(
          where + "the source matrix has " + std::to_string(m->rows) +
          " rows, the manifest "
          "says the layer is its rows [" +
          std::to_string(begin) + ", " + std::to_string(end) + ")");
    *m = sliceRows(*m, begin, end);
  }
  // A shard is its rows of the source (of the range above).
  if (layer.isShard()) {
    const ShardInfo &shard = layer.shard;
    if (m->rows != shard.rows)
      return Status::error(where + "the source matrix has " +
                           std::to_string(m->rows) + " rows, the manifest "
                           "says the sharded layer has " +
                           std::to_string(shard.rows));
    *m = sliceRows(*m, shard.rowBegin, shard.rowEnd);
  }
  // 16-bit values: the source's rounded to the type, as the compiler did.
  if (layer.valueType != ValueType::F32)
    for (float &v : m->values)
      v = roundToValueType(v, layer.valueType);
  const FormattedMatrix &want = layer.matrix;
  if (m->rows != want.rows || m->cols != want.cols || m->nnz() != want.nnz)
    return Status::error(
        where + "the source matrix is " + std::to_string(m->rows) + " x " +
        std::to_string(m->cols) + " with " + std::to_string(m->nnz()) +
        " entries, the manifest "
        "says " +
        std::to_string(want.rows) + " x " + std::to_string(want.cols) +
        " with " + std::to_string(want.nnz));
  FormattedMatrix f;
  if (Status s = rebuildAlternative(*m, layer, f); !s)
    return Status::error(where + s.message());
  if (Status s = checkRebuilt(where, desc, f, *m); !s)
    return s;
  layer.matrix = std::move(f);
  return Status::ok();
}

/// Checks a layer's arrays rebuilt into `f` from `m` against what the
/// manifest recorded for it (`desc`): the format's scalars and every
/// buffer's sha256.
Status checkRebuilt(const std::string &where, const LayerDesc &desc,
                    const FormattedMatrix &f, const CsrMatrix &m) {
  // The recorded scalars of the storage must come out the same.
  if (!sameStorageParameters(f, desc.layer.matrix))
    return Status::error(where + "the rebuilt format's parameters differ "
                                 "from the recorded ones");
  if (carriesCsr(f) != desc.withCsr && f.kind != FormatKind::Csr)
    return Status::error(where + "the rebuilt format's buffers differ from "
                                 "the recorded ones");
  std::string mismatch;
  forEachBuffer(f, desc.withCsr, [&](std::string_view name, const auto &vec) {
    if (!mismatch.empty())
      return;
    for (const BufferDesc &b : desc.buffers)
      if (b.name == name && (b.count != vec.size() ||
                             storedSha256(vec, b.dtype) != b.sha256))
        mismatch = name;
  });
  if (!mismatch.empty())
    return Status::error(where + "the rebuilt buffer " + inQuotes(mismatch) +
                         " does not match its recorded sha256 (the source or "
                         "the sparse core changed since the package was "
                         "written)");
  if (Status s = verifyFormat(f, &m); !s)
    return Status::error(where +
                         "the rebuilt format does not verify: " + s.message());
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

/// Steps 1 to 5 of docs/Package.md, "Reading and verification": reads
/// DIR/manifest.json whole into `text` and validates it into `m`.
Status readManifest(const std::string &dir, std::string &text,
                    ManifestDesc &m) {
  // A matrix (or any other file) where a package was expected.
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    return Status::error(dir + ": cannot open: " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) {
    // A file of a package (its manifest, say): the package is the folder.
    const std::string parent = parentDirectory(dir);
    struct stat manifest;
    if (::stat((parent + "/" + kManifestFile).c_str(), &manifest) == 0 &&
        S_ISREG(manifest.st_mode))
      return Status::error(dir + ": is a file of the package " + parent +
                           "; pass the package directory itself");
    if (!S_ISREG(st.st_mode))
      return Status::error(dir + ": is not a directory, not a spperm package "
                                 "(a package is the directory "
                                 "spperm-compile writes)");
    return Status::error(
        dir + ": is a file, not a spperm package (a package is the "
              "directory spperm-compile writes; make one with "
              "`spperm-compile " + dir + " -o NAME.spp`)");
  }
  const std::string manifestPath = dir + "/" + kManifestFile;
  // No manifest at all (a link to nowhere is named as the file below).
  if (::lstat(manifestPath.c_str(), &st) != 0 && errno == ENOENT)
    return Status::error(dir + ": is a directory, not a spperm package (no " +
                         kManifestFile + "; spperm-compile writes packages)");
  if (Status s = readSmallFile(manifestPath, kMaxManifestBytes, text); !s)
    return s;
  return parseManifestText(manifestPath, text, m);
}

/// The package of the parsed manifest `m` (of text `text`): its layers moved
/// out of `m`, each alternative after its layer; no code read.
Package assemblePackage(const std::string &text, ManifestDesc &m) {
  Package package;
  package.manifestSha256 = sha256Hex(text.data(), text.size());
  package.target = m.target;
  package.externalData = m.externalData;
  // Alternatives follow their layer in m.layers.
  for (LayerDesc &l : m.layers) {
    if (l.parent < 0)
      package.layers.push_back(std::move(l.layer));
    else
      package.layers.back().alternatives.push_back(std::move(l.layer));
  }
  return package;
}

} // namespace

StatusOr<Package> spperm::readPackageManifest(const std::string &dirArg) {
  std::string text;
  ManifestDesc m;
  if (Status s = readManifest(trimSlashes(dirArg), text, m); !s)
    return s;
  return assemblePackage(text, m);
}

StatusOr<Package> spperm::readPackage(const std::string &dirArg) {
  const std::string dir = trimSlashes(dirArg);
  const std::string manifestPath = dir + "/" + kManifestFile;
  std::string text;
  ManifestDesc m;
  if (Status s = readManifest(dir, text, m); !s)
    return s;

  if (m.externalData) {
    const std::string parent = splitPath(dir).first;
    for (LayerDesc &l : m.layers)
      if (Status s = rebuildLayer(manifestPath, parent, l); !s)
        return s;
  } else {
    std::vector<BufferDesc *> buffers;
    for (LayerDesc &l : m.layers)
      if (!l.rebuilt)
        for (BufferDesc &b : l.buffers)
          buffers.push_back(&b);
    const std::string dataPath = dir + "/" + kDataFile;
    if (Status s = readData(dataPath, m, std::move(buffers)); !s)
      return s;
    for (LayerDesc &l : m.layers) {
      if (l.rebuilt)
        continue;
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
    // Rebuilt alternatives, from their layer's matrix (now verified).
    std::optional<CsrMatrix> original;
    int64_t originalOf = -1;
    for (size_t i = 0; i < m.layers.size(); ++i) {
      LayerDesc &l = m.layers[i];
      if (!l.rebuilt)
        continue;
      if (originalOf != l.parent) {
        original = toOriginalCsr(m.layers[l.parent].layer.matrix);
        originalOf = l.parent;
      }
      const std::string where = manifestPath + ": layer " +
                                inQuotes(l.layer.name) + ": alternative " +
                                std::to_string(i - l.parent) + ": ";
      FormattedMatrix f;
      if (Status s = rebuildAlternative(*original, l.layer, f); !s)
        return Status::error(where + s.message());
      if (Status s = checkRebuilt(where, l, f, *original); !s)
        return s;
      l.layer.matrix = std::move(f);
    }
  }

  Package package = assemblePackage(text, m);
  if (m.hasPtx)
    if (Status s = readCodeFile(dir, m.ptx, package.ptx); !s)
      return s;
  if (m.hasCubin)
    if (Status s = readCodeFile(dir, m.cubin, package.cubin); !s)
      return s;
  return package;
}

Status spperm::rebuildAlternative(const CsrMatrix &original,
                                  const PackageLayer &alternative,
                                  FormattedMatrix &out) {
  StatusOr<Permutation> perm =
      computePermutation(original, alternative.permutation);
  if (!perm)
    return Status::error("cannot rebuild the permutation: " + perm.message());
  StatusOr<FormattedMatrix> built =
      buildFormat(original, perm->order, alternative.format);
  if (!built)
    return Status::error("cannot rebuild the format: " + built.message());
  out = std::move(*built);
  return Status::ok();
}
