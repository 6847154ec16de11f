//===- SpPermRuntime.hpp - C++ wrapper of the runtime C API -----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// A thin, header-only RAII layer over spperm/Runtime/SpPermRuntime.h for C++
// callers: a move-only Package that releases its handle, and Status /
// Result<T> values that carry the status code with the message of
// sprt_last_error() (copied at once, so later calls cannot overwrite it). No
// exceptions are thrown.
//
//   auto loaded = spperm::runtime::Package::load("model.spp");
//   if (!loaded)
//     return fail(loaded.message());
//   spperm::runtime::Package pkg = std::move(loaded.value());
//   auto layer = pkg.findLayer("fc1");
//   ... pkg.spmm(*layer, b, k, c) ...
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_RUNTIME_SPPERMRUNTIME_HPP
#define SPPERM_RUNTIME_SPPERMRUNTIME_HPP

#if __cplusplus < 201703L
#error "SpPermRuntime.hpp needs C++17 (-std=c++17, or CMake's CXX_STANDARD 17); the C API, SpPermRuntime.h, needs no C++"
#endif

#include "spperm/Runtime/SpPermRuntime.h"

#include <cassert>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace spperm {
namespace runtime {

/// The outcome of a runtime call: SPRT_OK, or a failure code and its message.
class [[nodiscard]] Status {
public:
  Status() = default;
  /// The failure `code` with the calling thread's sprt_last_error().
  static Status lastError(sprt_status code) {
    return Status(code, code == SPRT_OK ? "" : sprt_last_error());
  }
  Status(sprt_status code, std::string message)
      : statusCode(code), text(std::move(message)) {}

  bool ok() const { return statusCode == SPRT_OK; }
  explicit operator bool() const { return ok(); }
  sprt_status code() const { return statusCode; }
  /// One line; empty for success.
  const std::string &message() const { return text; }

private:
  sprt_status statusCode = SPRT_OK;
  std::string text;
};

/// A value of type T, or the Status of the failure that prevented it.
template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : val(std::move(value)) {}
  Result(Status status) : st(std::move(status)) {
    assert(!st.ok() && "Result built from a successful Status");
  }

  bool ok() const { return st.ok(); }
  explicit operator bool() const { return ok(); }
  const Status &status() const { return st; }
  sprt_status code() const { return st.code(); }
  const std::string &message() const { return st.message(); }

  T &value() {
    assert(val && "value() of a failed Result");
    return *val;
  }
  const T &value() const {
    assert(val && "value() of a failed Result");
    return *val;
  }
  T &operator*() { return value(); }
  const T &operator*() const { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

private:
  std::optional<T> val;
  Status st;
};

/// A loaded package; releases it on destruction. Move-only.
class Package {
public:
  Package() = default;
  ~Package() { sprt_package_release(handle); }
  Package(Package &&other) noexcept : handle(other.handle) {
    other.handle = nullptr;
  }
  Package &operator=(Package &&other) noexcept {
    if (this != &other) {
      sprt_package_release(handle);
      handle = other.handle;
      other.handle = nullptr;
    }
    return *this;
  }
  Package(const Package &) = delete;
  Package &operator=(const Package &) = delete;

  /// Loads and verifies the package directory `path` for `device`.
  static Result<Package> load(const std::string &path,
                              sprt_device device = SPRT_DEVICE_CPU) {
    sprt_package *raw = nullptr;
    sprt_status s = sprt_package_load(path.c_str(), device, &raw);
    if (s != SPRT_OK)
      return Status::lastError(s);
    return Package(raw);
  }

  /// True when this object holds a package.
  explicit operator bool() const { return handle != nullptr; }
  /// The C handle, still owned by this object.
  sprt_package *get() const { return handle; }

  /// The number of layers (0 for an empty object).
  int64_t layerCount() const {
    int64_t count = 0;
    if (handle)
      (void)sprt_layer_count(handle, &count);
    return count;
  }

  /// The index of the layer named `name`.
  Result<int64_t> findLayer(const std::string &name) const {
    int64_t index = -1;
    sprt_status s = sprt_layer_find(handle, name.c_str(), &index);
    if (s != SPRT_OK)
      return Status::lastError(s);
    return index;
  }

  /// Describes layer `index`; the strings live as long as the package.
  Result<sprt_layer_desc> layerInfo(int64_t index) const {
    sprt_layer_desc desc{};
    sprt_status s = sprt_layer_info(handle, index, &desc);
    if (s != SPRT_OK)
      return Status::lastError(s);
    return desc;
  }

  /// C = A * B for layer `layer` (see sprt_spmm).
  Status spmm(int64_t layer, const float *b, int64_t k, float *c,
              void *stream = nullptr) {
    return Status::lastError(sprt_spmm(handle, layer, b, k, c, stream));
  }

  /// C = A * B for layer `layer` with B in `order` (see sprt_spmm_ordered;
  /// fp32 B and C, the runtime's workspace).
  Status spmm(int64_t layer, const float *b, sprt_order order, int64_t k,
              float *c, void *stream = nullptr) {
    return Status::lastError(sprt_spmm_ordered(
        handle, layer, b, SPRT_DTYPE_F32, order, k, c, SPRT_DTYPE_F32,
        /*workspace=*/nullptr, 0, stream));
  }

private:
  explicit Package(sprt_package *raw) : handle(raw) {}

  sprt_package *handle = nullptr;
};

} // namespace runtime
} // namespace spperm

#endif // SPPERM_RUNTIME_SPPERMRUNTIME_HPP
