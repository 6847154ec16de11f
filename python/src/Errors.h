//===- Errors.h - Python exceptions of the spperm module --------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// One C++ exception for every failure the bindings report: it carries the
// runtime's status (sprt_status, or kCompileError) and its one-line message,
// and is translated into the matching class of spperm._errors
// (docs/Python.md, "Errors").
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_PYTHON_ERRORS_H
#define SPPERM_PYTHON_ERRORS_H

#include <nanobind/nanobind.h>

#include <exception>
#include <string>
#include <utility>

namespace spperm::python {

/// The status of a compilation failure (not an sprt_status).
constexpr int kCompileError = -1;

/// A failure with the runtime's status and message.
class Error : public std::exception {
public:
  Error(int status, std::string message)
      : status(status), text(std::move(message)) {}
  const char *what() const noexcept override { return text.c_str(); }
  int status;

private:
  std::string text;
};

/// Translates Error into spperm._errors.error_class(status)(message).
inline void registerErrorTranslator() {
  nanobind::register_exception_translator(
      [](const std::exception_ptr &p, void *) {
        try {
          std::rethrow_exception(p);
        } catch (const Error &e) {
          nanobind::object errors =
              nanobind::module_::import_("spperm._errors");
          nanobind::object cls = errors.attr("error_class")(e.status);
          PyErr_SetString(cls.ptr(), e.what());
        }
      });
}

} // namespace spperm::python

#endif // SPPERM_PYTHON_ERRORS_H
