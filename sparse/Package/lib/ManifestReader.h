//===- ManifestReader.h - Typed, checked reads of manifest.json -*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Private to SpPermPackage: ManifestReader, which reads the fields of
// manifest.json with their types and ranges checked and keeps the first
// problem as a one-line message naming the file and the field, and the small
// helpers of ManifestSchema.cpp's layer and manifest parsers.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_LIB_SPARSE_MANIFESTREADER_H
#define SPPERM_LIB_SPARSE_MANIFESTREADER_H

#include "PackageDetail.h"
#include "spperm/Sparse/Escape.h"
#include "spperm/Sparse/Formats.h"
#include "spperm/Sparse/Names.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace spperm {
namespace detail {

using json = nlohmann::ordered_json;

/// A double in the shortest %g form (for messages).
inline std::string shortNumber(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", x);
  return text;
}

/// Whether `name` is one of the csr.* buffers.
inline bool isCsrGroupName(std::string_view name) {
  return name == buffer::kCsrRowPtr || name == buffer::kCsrColIdx ||
         name == buffer::kCsrValues;
}

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

} // namespace detail
} // namespace spperm

#endif // SPPERM_LIB_SPARSE_MANIFESTREADER_H
