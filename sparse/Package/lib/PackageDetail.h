//===- PackageDetail.h - What the package's files share ---------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Private to SpPermPackage: the names, limits and small helpers that the
// writer (PackageWriter.cpp), the manifest schema (ManifestSchema.cpp) and
// the reader (PackageReader.cpp) share, and the one list of a layer's
// buffers (forEachBuffer) that all three walk.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_LIB_SPARSE_PACKAGEDETAIL_H
#define SPPERM_LIB_SPARSE_PACKAGEDETAIL_H

#include "spperm/Sparse/Package.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

// data.bin holds the arrays in host order; the format says little-endian.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "data.bin is little-endian; big-endian hosts are not supported"
#endif

namespace spperm {
namespace detail {

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
/// The optional key of a layer or an alternative with in-place kernels
/// (PackageLayer::inPlaceB); an alternative does not inherit its layer's.
constexpr const char *kInPlaceKey = "in_place_b";
/// The optional key of an alternative whose arrays are rebuilt at load.
constexpr const char *kRebuiltKey = "rebuilt";
/// Manifests larger than this are refused before they are read.
constexpr uint64_t kMaxManifestBytes = uint64_t(64) << 20;
/// kernels.ptx / kernels.<target>.cubin larger than this are refused.
constexpr uint64_t kMaxCodeBytes = uint64_t(1) << 30;
/// Layer names and kernel names longer than this are refused.
constexpr size_t kMaxNameBytes = 1024;
/// Read/write granularity when streaming data.bin.
constexpr size_t kChunkBytes = size_t(1) << 20;

/// strerror(errno), for messages.
std::string errnoText();

/// `s` in single quotes, for messages.
std::string inQuotes(std::string_view s);

/// A read-only descriptor of a regular file, closed with the object.
struct RegularFile {
  int fd = -1;
  /// Its size when opened.
  uint64_t size = 0;
  RegularFile() = default;
  RegularFile(const RegularFile &) = delete;
  RegularFile &operator=(const RegularFile &) = delete;
  ~RegularFile();
};

/// Opens `path` into `file` for reading: without blocking (a FIFO must not
/// block the open), and only a regular file ("PATH: not a regular file").
Status openRegularFile(const std::string &path, RegularFile &file);

/// True for valid UTF-8 without control characters (what names and paths in
/// the manifest may contain; nlohmann::json refuses invalid UTF-8 on dump).
bool isCleanUtf8(std::string_view s);

/// True for exactly 64 lowercase hex digits (a sha256 in the manifest).
bool isLowerHex64(std::string_view s);

/// Architecture names become part of a file name (kernels.<target>.cubin).
bool isValidTarget(std::string_view t);

/// Layer and kernel names: 1 to kMaxNameBytes bytes of isCleanUtf8 text.
bool isValidName(std::string_view s);

/// `dir` without trailing slashes (but "/" stays "/").
std::string trimSlashes(std::string dir);

/// The directory containing `dir` (already trimmed) and its last component.
std::pair<std::string, std::string> splitPath(const std::string &dir);

/// Where the reader finds a layer's source file: `path` itself when
/// absolute, else `path` inside `parent` (the package's parent directory).
std::string resolveSource(const std::string &parent, const std::string &path);

/// Element type names of the buffers.
template <typename T> struct DType;
template <> struct DType<int32_t> {
  static constexpr const char *name = "i32";
};
template <> struct DType<int64_t> {
  static constexpr const char *name = "i64";
};
template <> struct DType<float> { static constexpr const char *name = "f32"; };

/// The dtype data.bin stores an array of T in, for a layer whose values are
/// `values`: a float array (values) in that type, the rest as they are.
template <typename T> std::string_view storedDtype(ValueType values) {
  if constexpr (std::is_same_v<T, float>)
    return valueTypeName(values);
  else
    return DType<T>::name;
}

/// The SHA-256 of `v` stored as `dtype` (LayerBuffer::dtype): a float array
/// stored as "f16" or "bf16" hashes its 16-bit bit patterns.
template <typename T>
std::string storedSha256(const std::vector<T> &v, std::string_view dtype) {
  if constexpr (std::is_same_v<T, float>) {
    if (std::optional<ValueType> type = parseValueType(dtype);
        type && *type != ValueType::F32) {
      std::vector<uint16_t> bits = narrowArray(v, *type);
      return sha256Hex(bits.data(), bits.size() * sizeof(uint16_t));
    }
  }
  return sha256Hex(v.data(), v.size() * sizeof(T));
}

/// Why the values of buffer `name` cannot be stored as `type`, the layer's
/// values_dtype: "holds a value that bf16 (the layer's values_dtype) cannot
/// hold exactly"; empty when each is exact in it (a NaN counts as exact: it
/// is stored as the type's quiet NaN of the same sign).
std::string inexactValuesProblem(std::string_view name,
                                 const std::vector<float> &values,
                                 ValueType type);

/// True when a non-CSR format also carries the permuted CSR (then written as
/// the csr.* buffers too).
bool carriesCsr(const FormattedMatrix &f);

/// Whether two storages of one matrix have the same shape, format and
/// format scalars (bell block, width, delta, dense entries, tiles; hbp
/// blocks and hash): a rebuilt storage must match the recorded one.
bool sameStorageParameters(const FormattedMatrix &a, const FormattedMatrix &b);

/// Calls `fn(name, vector)` for every array of `f` that the package stores,
/// in the order they are laid out in data.bin. `Matrix` is FormattedMatrix or
/// const FormattedMatrix. The one list of buffer names and types.
template <typename Matrix, typename Fn>
void forEachBuffer(Matrix &f, bool withCsr, Fn &&fn) {
  fn(buffer::kOrder, f.order);
  if (withCsr || f.kind == FormatKind::Csr) {
    fn(buffer::kCsrRowPtr, f.csr.rowPtr);
    fn(buffer::kCsrColIdx, f.csr.colIdx);
    fn(buffer::kCsrValues, f.csr.values);
  }
  switch (f.kind) {
  case FormatKind::Csr:
    break;
  case FormatKind::Bell:
    fn(buffer::kBellBlockCol, f.bell.blockCol);
    fn(buffer::kBellBlockValues, f.bell.blockValues);
    if (f.bell.condensed)
      fn(buffer::kBellTileCol, f.bell.tileCol);
    fn(buffer::kBellResidualRowPtr, f.bell.residual.rowPtr);
    fn(buffer::kBellResidualColIdx, f.bell.residual.colIdx);
    fn(buffer::kBellResidualValues, f.bell.residual.values);
    break;
  case FormatKind::Hbp:
    fn(buffer::kHbpBlocks, f.hbp.blocks);
    fn(buffer::kHbpCol, f.hbp.col);
    fn(buffer::kHbpData, f.hbp.data);
    fn(buffer::kHbpAddSign, f.hbp.addSign);
    fn(buffer::kHbpZeroRow, f.hbp.zeroRow);
    fn(buffer::kHbpBeginNnz, f.hbp.beginNnz);
    fn(buffer::kHbpOutputHash, f.hbp.outputHash);
    fn(buffer::kHbpFixedBlocks, f.hbp.fixedBlocks);
    fn(buffer::kHbpFixedBlockPtr, f.hbp.fixedBlockPtr);
    fn(buffer::kHbpCompetitiveBlocks, f.hbp.competitiveBlocks);
    break;
  }
}

} // namespace detail
} // namespace spperm

#endif // SPPERM_LIB_SPARSE_PACKAGEDETAIL_H
