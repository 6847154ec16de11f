//===- PackageDetail.cpp - What the package's files share -------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The helpers of PackageDetail.h (text checks of names and paths, where a
// package and its sources lie) and the public list of a layer's arrays,
// layerBuffers.
//
//===----------------------------------------------------------------------===//

#include "PackageDetail.h"

#include "spperm/Sparse/Names.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <string>
#include <sys/stat.h>
#include <type_traits>
#include <unistd.h>

using namespace spperm;
using namespace spperm::detail;

namespace spperm {
namespace detail {

std::string errnoText() { return std::strerror(errno); }

RegularFile::~RegularFile() {
  if (fd >= 0)
    ::close(fd);
}

Status openRegularFile(const std::string &path, RegularFile &file) {
  file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (file.fd < 0)
    return Status::error(path + ": cannot open: " + errnoText());
  struct stat st;
  if (::fstat(file.fd, &st) != 0 || !S_ISREG(st.st_mode))
    return Status::error(path + ": not a regular file");
  file.size = static_cast<uint64_t>(st.st_size);
  return Status::ok();
}

std::string inQuotes(std::string_view s) {
  // A message stays one line and short whatever the text: text with
  // control characters or invalid UTF-8 has them, its other non-ASCII bytes
  // and its backslashes escaped as \xNN, and a long text is cut (at a
  // character's start) after kMaxQuotedBytes.
  constexpr size_t kMaxQuotedBytes = 200;
  const bool clean = isCleanUtf8(s);
  size_t n = std::min(s.size(), kMaxQuotedBytes);
  while (clean && n < s.size() && n > 0 &&
         (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80)
    --n;
  std::string out = "'";
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (!clean && (c < 0x20 || c >= 0x7f || c == '\\')) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + (n < s.size() ? "'..." : "'");
}

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

std::string trimSlashes(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  return dir;
}

std::pair<std::string, std::string> splitPath(const std::string &dir) {
  size_t slash = dir.rfind('/');
  if (slash == std::string::npos)
    return {".", dir};
  return {slash == 0 ? "/" : dir.substr(0, slash), dir.substr(slash + 1)};
}

std::string resolveSource(const std::string &parent, const std::string &path) {
  return !path.empty() && path.front() == '/' ? path : parent + "/" + path;
}

bool carriesCsr(const FormattedMatrix &f) {
  return f.kind == FormatKind::Csr ||
         (f.rows > 0 && f.csr.rowPtr.size() == static_cast<size_t>(f.rows) + 1);
}

std::string inexactValuesProblem(std::string_view name,
                                 const std::vector<float> &values,
                                 ValueType type) {
  for (float x : values)
    if (x == x && roundToValueType(x, type) != x)
      return "the buffer " + inQuotes(name) + " holds a value that " +
             std::string(valueTypeName(type)) +
             " (the layer's values_dtype) cannot hold exactly";
  return {};
}

} // namespace detail
} // namespace spperm

std::string spperm::quoted(std::string_view text) { return inQuotes(text); }

bool spperm::isValidLayerName(std::string_view name) {
  return isValidName(name);
}

std::vector<LayerBuffer> spperm::layerBuffers(const PackageLayer &layer) {
  std::vector<LayerBuffer> buffers;
  forEachBuffer(layer.matrix, carriesCsr(layer.matrix),
                [&](std::string_view name, const auto &v) {
                  using T = typename std::decay_t<decltype(v)>::value_type;
                  buffers.push_back({name, storedDtype<T>(layer.valueType),
                                     v.data(), v.size()});
                });
  return buffers;
}

uint64_t spperm::arrayBytes(const PackageLayer &variant) {
  uint64_t bytes = 0;
  for (const LayerBuffer &b : layerBuffers(variant))
    bytes += b.bytes();
  return bytes;
}

std::vector<UploadedArray> spperm::uploadedArrays(const PackageLayer &variant) {
  std::set<std::string_view> wanted;
  for (const KernelInfo &kernel : variant.kernels)
    if (kernel.variant != kCusparse)
      wanted.insert(kernel.args.begin(), kernel.args.end());
  for (const KernelInfo &kernel : variant.inPlaceB)
    wanted.insert(kernel.args.begin(), kernel.args.end());
  std::vector<UploadedArray> arrays;
  for (const LayerBuffer &buffer : layerBuffers(variant)) {
    if (isNarrowableIndex(buffer.name)) {
      std::string narrow =
          std::string(buffer.name) + std::string(kNarrowIndexSuffix);
      if (wanted.count(narrow))
        arrays.push_back({std::move(narrow), buffer, /*twoBytes=*/true});
    }
    if (wanted.count(buffer.name))
      // 16-bit values go up as they are stored.
      arrays.push_back({std::string(buffer.name), buffer, buffer.isHalf()});
  }
  return arrays;
}

bool spperm::sameUpload(const UploadedArray &a, const UploadedArray &b) {
  if (a.twoBytes != b.twoBytes || a.buffer.dtype != b.buffer.dtype ||
      a.buffer.count != b.buffer.count)
    return false;
  return a.buffer.count == 0 || a.buffer.data == b.buffer.data ||
         std::memcmp(a.buffer.data, b.buffer.data, a.buffer.hostBytes()) == 0;
}

namespace {
/// The device bytes of `arrays`, those that are the same counted once.
uint64_t distinctBytes(const std::vector<UploadedArray> &arrays) {
  uint64_t bytes = 0;
  for (auto it = arrays.begin(); it != arrays.end(); ++it)
    if (std::none_of(arrays.begin(), it, [&](const UploadedArray &seen) {
          return sameUpload(seen, *it);
        }))
      bytes += it->bytes();
  return bytes;
}
} // namespace

uint64_t spperm::uploadedArrayBytes(const PackageLayer &variant) {
  return distinctBytes(uploadedArrays(variant));
}

uint64_t spperm::layerUploadedBytes(const PackageLayer &layer) {
  std::vector<UploadedArray> arrays;
  for (size_t v = 0; v <= layer.alternatives.size(); ++v)
    for (UploadedArray &array : uploadedArrays(layer.variant(v)))
      arrays.push_back(std::move(array));
  return distinctBytes(arrays);
}

bool spperm::hasGeneratedKernels(const PackageLayer &variant) {
  return std::any_of(variant.kernels.begin(), variant.kernels.end(),
                     isGeneratedKernel);
}

std::string_view spperm::runFormatName(const PackageLayer &variant) {
  // `--format cusparse`: the cuSPARSE entry is its one kernel. (A layer
  // without any kernel keeps its storage format's name.)
  return !variant.kernels.empty() && !hasGeneratedKernels(variant)
             ? kCusparse
             : formatName(variant.matrix.kind);
}

std::string_view spperm::tensorCoreFamily(const PackageLayer &variant) {
  for (const KernelInfo &k : variant.kernels)
    for (std::string_view f :
         {family::kBellTf32, family::kBellF16, family::kBell3xTf32,
          family::kBellBf16})
      if (k.family == f)
        return f;
  return {};
}

uint64_t spperm::csrBytes(const FormattedMatrix &m) {
  return 4 * (static_cast<uint64_t>(m.rows) + 1) +
         8 * static_cast<uint64_t>(m.nnz);
}

bool detail::sameStorageParameters(const FormattedMatrix &a,
                                   const FormattedMatrix &b) {
  if (a.rows != b.rows || a.cols != b.cols || a.nnz != b.nnz ||
      a.kind != b.kind)
    return false;
  if (a.kind == FormatKind::Bell)
    return a.bell.block == b.bell.block && a.bell.width == b.bell.width &&
           a.bell.delta == b.bell.delta &&
           a.bell.denseNnz == b.bell.denseNnz &&
           a.bell.condensed == b.bell.condensed;
  if (a.kind == FormatKind::Hbp)
    return a.hbp.rowBlock == b.hbp.rowBlock &&
           a.hbp.colBlock == b.hbp.colBlock && a.hbp.hashA == b.hbp.hashA &&
           a.hbp.hashB == b.hbp.hashB && a.hbp.hashC == b.hbp.hashC &&
           a.hbp.hashD == b.hbp.hashD;
  return true;
}
