//===- CompilerModule.cpp - spperm._compiler: the compiler in-process -----===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The Python module's compiler half (docs/Python.md): spperm/Tools/Compiler.h
// on a matrix file or on a matrix given as CSR arrays, with the options and
// the errors of spperm-compile. Needs the MLIR build; the runtime half
// (_core) does not.
//
//===----------------------------------------------------------------------===//

#include "Arrays.h"
#include "Errors.h"

#include "spperm/Tools/Compiler.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace nb = nanobind;
using namespace spperm;
using namespace spperm::python;

namespace {

using Options = std::vector<std::pair<std::string, std::string>>;

/// Runs the compiler; its errors become one CompileError whose message is
/// the first line (the cause) followed by the others. Returns the stage
/// times. The compile runs on a thread of its own while this one, holding
/// the GIL every 50 ms, lets Python's signal handlers run: a Ctrl-C
/// (KeyboardInterrupt, or any exception a handler raises) stops the compile
/// at its next pass (CompileRequest::interrupted), which writes nothing,
/// and is raised here.
std::vector<std::pair<std::string, double>> run(CompileRequest request) {
  CompileResult result;
  std::atomic<bool> stop{false};
  request.interrupted = [&stop] { return stop.load(); };
  std::mutex m;
  std::condition_variable cv;
  bool done = false, ok = false;
  std::thread worker([&] {
    bool compiled = compilePackage(std::move(request), result);
    std::lock_guard<std::mutex> lock(m);
    ok = compiled;
    done = true;
    cv.notify_one();
  });
  bool signalled = false;
  for (;;) {
    {
      nb::gil_scoped_release release;
      std::unique_lock<std::mutex> lock(m);
      cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; });
      if (done)
        break;
    }
    if (!signalled && PyErr_CheckSignals() != 0) {
      signalled = true; // the handler's exception is now pending
      stop = true;
    }
  }
  {
    nb::gil_scoped_release release;
    worker.join();
  }
  if (signalled)
    throw nb::python_error();
  if (!ok) {
    std::string message;
    for (const std::string &line : result.errors)
      message += (message.empty() ? "" : "\n") + line;
    throw Error(kCompileError,
                message.empty() ? "compilation failed" : message);
  }
  // Options the compile could not use, as spperm-compile's warnings (a
  // warnings filter may raise them; the package is complete by then).
  for (const std::string &warning : result.warnings)
    if (PyErr_WarnEx(PyExc_UserWarning, warning.c_str(), 2) < 0)
      throw nb::python_error();
  return result.stages;
}

CompileRequest makeRequest(const std::string &output, const Options &options,
                           const std::string &report, bool progress,
                           bool storeAlternatives, double sizeBudget,
                           const std::optional<std::string> &dtype,
                           const std::string &valuesDtype) {
  CompileRequest request;
  if (dtype) {
    request.dtype = *dtype;
    request.dtypeGiven = true;
  }
  request.valuesDtype = valuesDtype;
  request.output = output;
  request.storeAlternatives = storeAlternatives;
  request.sizeBudget = sizeBudget;
  request.tuning = options;
  request.report = report;
  request.progress = progress;
  request.tool = "spperm";
  return request;
}

} // namespace

NB_MODULE(_compiler, m) {
  m.doc() = "spperm's compiler (spperm-compile in-process); use the spperm "
            "package, not this module.";
  registerErrorTranslator();

  m.def(
      "compile_file",
      [](const std::string &path, const std::string &output,
         const Options &options, std::optional<std::string> values,
         const std::string &data, const std::string &name,
         const std::string &report, bool progress, bool storeAlternatives,
         double sizeBudget, std::optional<std::string> dtype,
         const std::string &valuesDtype) {
        CompileRequest request =
            makeRequest(output, options, report, progress, storeAlternatives,
                        sizeBudget, dtype, valuesDtype);
        request.input = path;
        request.layerName = name;
        if (values) {
          request.values = *values;
          request.valuesGiven = true;
        }
        request.data = data;
        return run(std::move(request));
      },
      nb::arg("path"), nb::arg("output"), nb::arg("options"),
      nb::arg("values").none(), nb::arg("data"), nb::arg("name"),
      nb::arg("report"), nb::arg("progress"), nb::arg("store_alternatives"),
      nb::arg("size_budget"), nb::arg("dtype").none(),
      nb::arg("values_dtype"));

  m.def(
      "compile_csr",
      [](int64_t rows, int64_t cols, const HostArray &indptr,
         const HostArray &indices, const HostArray &data,
         const std::string &name, const std::string &output,
         const Options &options, const std::string &report, bool progress,
         bool storeAlternatives, double sizeBudget,
         std::optional<std::string> dtype, const std::string &valuesDtype) {
        CompileRequest request =
            makeRequest(output, options, report, progress, storeAlternatives,
                        sizeBudget, dtype, valuesDtype);
        request.matrix = csrFromArrays(rows, cols, indptr, indices, data,
                                       kMemorySourcePrefix + name);
        request.layerName = name;
        return run(std::move(request));
      },
      nb::arg("rows"), nb::arg("cols"), nb::arg("indptr"), nb::arg("indices"),
      nb::arg("data"), nb::arg("name"), nb::arg("output"), nb::arg("options"),
      nb::arg("report"), nb::arg("progress"), nb::arg("store_alternatives"),
      nb::arg("size_budget"), nb::arg("dtype").none(),
      nb::arg("values_dtype"));

  m.def("tuning_options", [] {
    std::vector<std::pair<std::string, bool>> out;
    for (const TuningOption &option : tuningOptions())
      out.emplace_back(option.name, option.flag);
    return out;
  });
}
