//===- Status.h - Error values for the sparse core --------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The sparse core is built without exceptions (it links into MLIR passes, and
// Debian's LLVM is built with -fno-exceptions), so fallible functions return a
// `Status` or a `StatusOr<T>`. A failed status carries one line of text that a
// tool prints as `TOOL: error: <message>`; messages about a file start with
// `FILE:LINE: ` (or `FILE: ` when no line applies).
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_STATUS_H
#define SPPERM_SPARSE_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace spperm {

/// The result of an operation that can fail: success, or one line of text.
class [[nodiscard]] Status {
public:
  /// A successful status.
  static Status ok() { return Status(); }
  /// A failed status with the given one-line message.
  static Status error(std::string message) {
    Status s;
    s.failed = true;
    s.msg = std::move(message);
    return s;
  }

  bool isOk() const { return !failed; }
  explicit operator bool() const { return !failed; }
  /// The message of a failed status; empty for success.
  const std::string &message() const { return msg; }

private:
  Status() = default;
  bool failed = false;
  std::string msg;
};

/// Either a value of type T or a failed Status.
template <typename T>
class [[nodiscard]] StatusOr {
public:
  StatusOr(T value) : val(std::move(value)), st(Status::ok()) {}
  StatusOr(Status status) : st(std::move(status)) {
    assert(!st.isOk() && "StatusOr constructed from a successful Status");
  }

  bool isOk() const { return st.isOk(); }
  explicit operator bool() const { return st.isOk(); }
  const Status &status() const { return st; }
  const std::string &message() const { return st.message(); }

  T &value() {
    assert(val && "value() of a failed StatusOr");
    return *val;
  }
  const T &value() const {
    assert(val && "value() of a failed StatusOr");
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

} // namespace spperm

#endif // SPPERM_SPARSE_STATUS_H
