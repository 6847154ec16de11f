//===- ManifestSchema.h - manifest.json, parsed and validated ---*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Private to SpPermPackage: what the reader learns from manifest.json before
// it touches data.bin (docs/Package.md, "manifest.json" and "Reading and
// verification", steps 2 to 5).
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_LIB_SPARSE_MANIFESTSCHEMA_H
#define SPPERM_LIB_SPARSE_MANIFESTSCHEMA_H

#include "spperm/Sparse/Package.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spperm {
namespace detail {

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
  /// For values stored as 16-bit (dtype "f16" / "bf16"; f32 is the
  /// destination): their type. F32 otherwise.
  ValueType halfType = ValueType::F32;
  /// For values of a 16-bit layer stored as f32 (packages written before
  /// 16-bit storage): the layer's type, which each must be exact in.
  ValueType exactIn = ValueType::F32;
  /// The 16-bit bit patterns while they are read.
  std::vector<uint16_t> bits;

  /// Sizes the destination (for 16-bit values, the bit patterns) and
  /// returns where its `size` bytes go.
  char *allocate() {
    if (i32) {
      i32->assign(count, 0);
      return reinterpret_cast<char *>(i32->data());
    }
    if (i64) {
      i64->assign(count, 0);
      return reinterpret_cast<char *>(i64->data());
    }
    if (halfType != ValueType::F32) {
      bits.assign(count, 0);
      return reinterpret_cast<char *>(bits.data());
    }
    f32->assign(count, 0.0f);
    return reinterpret_cast<char *>(f32->data());
  }

  /// After the read: widens 16-bit values into the destination.
  void finish() {
    if (halfType == ValueType::F32)
      return;
    f32->resize(count);
    widenArray(bits.data(), bits.size(), halfType, f32->data());
    bits = {};
  }
};

/// A file of the package recorded as {file, size, sha256}.
struct FileDesc {
  std::string file;
  uint64_t size = 0;
  std::string sha256;
};

/// Everything parsed from one layer of the manifest.
struct LayerDesc {
  PackageLayer layer;
  /// For an alternative, the index of its layer in ManifestDesc::layers;
  /// -1 for a layer.
  int64_t parent = -1;
  std::vector<BufferDesc> buffers;
  bool withCsr = false;
  /// An alternative whose arrays are rebuilt from its layer's (no offsets).
  bool rebuilt = false;
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

/// Checks the text of manifest.json (read from `manifestPath`, which
/// messages name): valid JSON, an object with the schema and version this
/// build reads, the manifest_sha256 line in place and matching, then every
/// key (presence, type, range, no unknown ones), the layers and their
/// buffers against data.bin's recorded size. Fills `out`; its buffers point
/// into its layers' arrays, which are sized but not filled.
Status parseManifestText(const std::string &manifestPath,
                         const std::string &text, ManifestDesc &out);

} // namespace detail
} // namespace spperm

#endif // SPPERM_LIB_SPARSE_MANIFESTSCHEMA_H
