//===- CoreModule.cpp - spperm._core: the runtime and the matrix core -----===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The Python module's runtime half (docs/Python.md): packages loaded through
// the runtime's C API (spperm/Runtime/SpPermRuntime.h) and C = A * B on
// array objects zero-copy; matrices read and checked by the sparse core, and
// their static features. It links no LLVM/MLIR, so it builds wherever the
// runtime does.
//
//===----------------------------------------------------------------------===//

#include "Arrays.h"
#include "Errors.h"

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Sparse/Features.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/OutputPath.h"
#include "spperm/Sparse/Package.h"
#include "spperm/Sparse/Spelling.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nb = nanobind;
using namespace spperm;
using namespace spperm::python;

namespace {

/// The runtime's last error as Python shows it: without the C function's
/// name the C API puts first ("sprt_spmm_ordered: layer 'fc' was compiled
/// for ..."), which a Python caller did not call.
std::string lastErrorForPython() {
  std::string message = sprt_last_error();
  if (message.rfind("sprt_", 0) == 0) {
    const size_t colon = message.find(": ");
    if (colon != std::string::npos && message.find_first_of(" '\"") > colon)
      message.erase(0, colon + 2);
  }
  return message;
}

/// Throws the runtime's last error when `status` is not SPRT_OK.
void check(sprt_status status) {
  if (status != SPRT_OK)
    throw Error(status, lastErrorForPython());
}

/// A dense operand of C = A * B: a 2-D array of any device.
using DenseArray = nb::ndarray<nb::ndim<2>>;
using DenseInput = nb::ndarray<nb::ro, nb::ndim<2>>;

/// The DLPack device type of the package's device (kDLCPU, kDLCUDA).
int dlpackDevice(sprt_device device) {
  return device == SPRT_DEVICE_GPU ? nb::device::cuda::value
                                   : nb::device::cpu::value;
}

/// The DLPack type of `dtype`'s elements.
nb::dlpack::dtype dlpackType(sprt_dtype dtype) {
  switch (dtype) {
  case SPRT_DTYPE_F16:
    return {static_cast<uint8_t>(nb::dlpack::dtype_code::Float), 16, 1};
  case SPRT_DTYPE_BF16:
    return {static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat), 16, 1};
  case SPRT_DTYPE_F32:
    break;
  }
  return nb::dtype<float>();
}

/// The NumPy / torch name of `dtype`'s elements.
const char *dtypeName(sprt_dtype dtype) {
  return dtype == SPRT_DTYPE_F16    ? "float16"
         : dtype == SPRT_DTYPE_BF16 ? "bfloat16"
                                    : "float32";
}

/// The NumPy / torch name of a DLPack element type (`float64`, `int32`,
/// ...), for errors.
std::string dlpackTypeName(nb::dlpack::dtype type) {
  std::string kind;
  switch (static_cast<nb::dlpack::dtype_code>(type.code)) {
  case nb::dlpack::dtype_code::Int:
    kind = "int";
    break;
  case nb::dlpack::dtype_code::UInt:
    kind = "uint";
    break;
  case nb::dlpack::dtype_code::Float:
    kind = "float";
    break;
  case nb::dlpack::dtype_code::Bfloat:
    kind = "bfloat";
    break;
  case nb::dlpack::dtype_code::Complex:
    kind = "complex";
    break;
  case nb::dlpack::dtype_code::Bool:
    return "bool";
  default:
    kind = "type code " + std::to_string(type.code) + " of ";
  }
  std::string name = kind + std::to_string(type.bits);
  if (type.lanes != 1)
    name += " x " + std::to_string(type.lanes);
  return name;
}

/// Checks that `a` (the operand `name`: "B", or "out" for C) can be passed
/// to sprt_spmm_typed on `device` for a layer of `dtype`: of that element
/// type, C-contiguous rows (unit column stride, row stride = columns), or
/// for B with `columnMajor` given also F-contiguous, on the device the
/// package runs on. The runtime checks shapes, alignment and overlap
/// itself.
template <typename Array>
void checkOperand(const Array &a, const char *name, sprt_device device,
                  int32_t ordinal, sprt_dtype dtype,
                  bool *columnMajor = nullptr) {
  auto fail = [&](const std::string &message) {
    return Error(SPRT_ERROR_INVALID_ARGUMENT,
                 std::string(name) + " " + message);
  };
  if (a.dtype() != dlpackType(dtype))
    throw fail(
        std::string("must be ") + dtypeName(dtype) + ", got " +
        dlpackTypeName(a.dtype()) +
        (dtype == SPRT_DTYPE_F32
             ? ""
             : " (the layer was compiled with --dtype " +
                   std::string(dtype == SPRT_DTYPE_F16 ? "f16" : "bf16") +
                   ")"));
  // B may also be column-major (F-contiguous, e.g. X.t() of a row-major
  // X): sprt_spmm_ordered with SPRT_ORDER_COL. An array with no elements
  // is row-major whatever strides its exporter gives it.
  const bool empty = a.shape(0) == 0 || a.shape(1) == 0;
  const bool rowMajor =
      empty ||
      ((a.shape(1) <= 1 || a.stride(1) == 1) &&
       (a.shape(0) <= 1 || a.stride(0) == static_cast<int64_t>(a.shape(1))));
  const bool colMajor =
      !rowMajor && (a.shape(0) <= 1 || a.stride(0) == 1) &&
      (a.shape(1) <= 1 || a.stride(1) == static_cast<int64_t>(a.shape(0)));
  if (columnMajor)
    *columnMajor = colMajor;
  if (!rowMajor && !(columnMajor && colMajor))
    throw fail(std::string("must be ") +
               (columnMajor ? "C-contiguous or F-contiguous (row- or "
                              "column-major, such as x.t() of a row-major x)"
                            : "C-contiguous (row-major)") +
               ", got strides (" + std::to_string(a.stride(0)) + ", " +
               std::to_string(a.stride(1)) + ") elements for shape (" +
               std::to_string(a.shape(0)) + ", " + std::to_string(a.shape(1)) +
               "); use .contiguous() / np.ascontiguousarray");
  if (a.device_type() != dlpackDevice(device))
    throw fail(device == SPRT_DEVICE_GPU
                   ? "must be on the GPU (a CUDA array) for a package "
                     "loaded on the GPU"
                   : "must be on the host (a CPU array) for a package "
                     "loaded on the CPU");
  if (device == SPRT_DEVICE_GPU && a.device_id() != ordinal)
    throw fail("is on CUDA device " + std::to_string(a.device_id()) +
               " but the runtime uses device " + std::to_string(ordinal) +
               " (SPPERM_CUDA_DEVICE)");
}

/// A loaded package (sprt_package) on one device.
class LoadedPackage {
public:
  LoadedPackage(const std::string &path, const std::string &device,
                int32_t rank, int32_t ranks) {
    if (device == "gpu")
      this->device = SPRT_DEVICE_GPU;
    else if (device == "cpu")
      this->device = SPRT_DEVICE_CPU;
    else
      throw Error(SPRT_ERROR_INVALID_ARGUMENT,
                  "device must be 'cpu' or 'gpu', got '" + device + "'");
    sprt_status status;
    {
      nb::gil_scoped_release release;
      status = ranks > 0 ? sprt_package_load_shard(path.c_str(), this->device,
                                                   rank, ranks, &package)
                         : sprt_package_load(path.c_str(), this->device,
                                             &package);
    }
    check(status);
    if (this->device == SPRT_DEVICE_GPU) {
      sprt_device_props props;
      if (sprt_status s = sprt_device_properties(&props); s != SPRT_OK) {
        std::string message = lastErrorForPython();
        sprt_package_release(package);
        throw Error(s, message);
      }
      ordinal = props.ordinal;
    }
  }
  ~LoadedPackage() { sprt_package_release(package); }
  LoadedPackage(const LoadedPackage &) = delete;
  LoadedPackage &operator=(const LoadedPackage &) = delete;

  /// The CUDA device the package runs on (0 on the CPU).
  int32_t cudaOrdinal() const { return ordinal; }

  int64_t layerCount() const {
    int64_t count = 0;
    check(sprt_layer_count(package, &count));
    return count;
  }

  /// The shards layer `index` holds (sprt_layer_shard), as dicts.
  nb::list shards(int64_t index) const {
    int64_t count = 0;
    check(sprt_layer_shard_count(package, index, &count));
    nb::list out;
    for (int64_t i = 0; i < count; ++i) {
      sprt_shard_desc desc;
      check(sprt_layer_shard(package, index, i, &desc));
      nb::dict d;
      d["index"] = desc.index;
      d["count"] = desc.count;
      d["row_begin"] = desc.row_begin;
      d["row_end"] = desc.row_end;
      d["rows"] = desc.rows;
      out.append(d);
    }
    return out;
  }

  nb::dict layerInfo(int64_t index) const {
    sprt_layer_desc desc;
    check(sprt_layer_info(package, index, &desc));
    nb::dict info;
    info["name"] = desc.name;
    info["rows"] = desc.rows;
    info["cols"] = desc.cols;
    info["nnz"] = desc.nnz;
    info["k"] = desc.k;
    info["format"] = desc.format;
    info["strategy"] = desc.strategy;
    info["dtype"] = dtypeName(layerDtype(index));
    return info;
  }

  /// Whether layer `index` takes a column-major B on this device
  /// (sprt_layer_accepts_order).
  bool acceptsColumnMajor(int64_t index) const {
    int32_t accepted = 0;
    check(sprt_layer_accepts_order(package, index, SPRT_ORDER_COL, &accepted));
    return accepted != 0;
  }

  /// The element type of layer `index`'s B and C.
  sprt_dtype layerDtype(int64_t index) const {
    sprt_dtype dtype = SPRT_DTYPE_F32;
    check(sprt_layer_dtype(package, index, &dtype));
    return dtype;
  }

  int64_t find(const std::string &name) const {
    int64_t index = -1;
    check(sprt_layer_find(package, name.c_str(), &index));
    return index;
  }

  /// C = A * B on `stream` (a CUstream as an integer; 0 the legacy default
  /// stream), enqueued only on the GPU.
  void spmm(int64_t layer, const DenseInput &b, DenseArray c,
            uintptr_t stream) {
    const sprt_dtype dtype = layerDtype(layer);
    bool columnMajor = false;
    checkOperand(b, "B", device, ordinal, dtype, &columnMajor);
    checkOperand(c, "out", device, ordinal, dtype);
    const int64_t k = static_cast<int64_t>(b.shape(1));
    if (static_cast<int64_t>(c.shape(1)) != k)
      throw Error(SPRT_ERROR_INVALID_ARGUMENT,
                  "out has " + std::to_string(c.shape(1)) +
                      " columns but B has " + std::to_string(k));
    checkRows(layer, b, c);
    sprt_status status;
    {
      nb::gil_scoped_release release;
      status = sprt_spmm_ordered(
          package, layer, b.data(), dtype,
          columnMajor ? SPRT_ORDER_COL : SPRT_ORDER_ROW, k, c.data(), dtype,
          /*workspace=*/nullptr, 0, reinterpret_cast<void *>(stream));
    }
    check(status);
  }

  /// sprt_spmm_ordered on raw addresses, for callers that checked the
  /// operands themselves (spperm's torch fast path): B is cols x k in
  /// `order` (an sprt_order) and C rows x k row-major, of the layer's dtype
  /// (`dtype`, an sprt_dtype), on this package's device; `workspace` (0:
  /// the runtime's) of `workspaceBytes` for a column-major B on the GPU.
  void spmmAddresses(int64_t layer, uintptr_t b, int64_t k, uintptr_t c,
                     uintptr_t stream, int dtype, int order,
                     uintptr_t workspace, size_t workspaceBytes) {
    sprt_status status;
    {
      nb::gil_scoped_release release;
      status = sprt_spmm_ordered(
          package, layer, reinterpret_cast<const void *>(b),
          static_cast<sprt_dtype>(dtype), static_cast<sprt_order>(order), k,
          reinterpret_cast<void *>(c), static_cast<sprt_dtype>(dtype),
          reinterpret_cast<void *>(workspace), workspaceBytes,
          reinterpret_cast<void *>(stream));
    }
    check(status);
  }

  /// sprt_spmm_time: the times in milliseconds of `runs` runs of `variant`.
  std::vector<float> time(int64_t layer, std::optional<std::string> variant,
                          const DenseInput &b, DenseArray c, uintptr_t stream,
                          int32_t warmup, int32_t runs) {
    const sprt_dtype dtype = layerDtype(layer);
    checkOperand(b, "B", device, ordinal, dtype);
    checkOperand(c, "out", device, ordinal, dtype);
    checkRows(layer, b, c);
    // spperm-run's bounds (the module checks them first, naming them).
    if (runs < 1 || warmup < 0 || runs > 100000 || warmup > 100000)
      throw Error(SPRT_ERROR_INVALID_ARGUMENT,
                  "runs must be in [1, 100000] and warmup in [0, 100000]");
    std::vector<float> times(runs);
    sprt_status status;
    {
      nb::gil_scoped_release release;
      status = sprt_spmm_time_typed(
          package, layer, variant ? variant->c_str() : nullptr, b.data(),
          dtype, static_cast<int64_t>(b.shape(1)), c.data(), dtype,
          reinterpret_cast<void *>(stream), warmup, runs, times.data());
    }
    check(status);
    return times;
  }

private:
  /// Shape errors that name the layer's shape (the runtime only knows
  /// pointers).
  template <typename B, typename C>
  void checkRows(int64_t layer, const B &b, const C &c) const {
    sprt_layer_desc desc;
    check(sprt_layer_info(package, layer, &desc));
    if (static_cast<int64_t>(b.shape(0)) != desc.cols)
      throw Error(SPRT_ERROR_INVALID_ARGUMENT,
                  "B has " + std::to_string(b.shape(0)) +
                      " rows but layer '" + desc.name + "' is " +
                      std::to_string(desc.rows) + " x " +
                      std::to_string(desc.cols) + " (B must be " +
                      std::to_string(desc.cols) + " x K)");
    if (static_cast<int64_t>(c.shape(0)) != desc.rows ||
        c.shape(1) != b.shape(1))
      throw Error(SPRT_ERROR_INVALID_ARGUMENT,
                  "out is " + std::to_string(c.shape(0)) + " x " +
                      std::to_string(c.shape(1)) + " but must be " +
                      std::to_string(desc.rows) + " x " +
                      std::to_string(b.shape(1)) + " (rows of layer '" +
                      desc.name + "' x K)");
  }

  sprt_package *package = nullptr;
  sprt_device device = SPRT_DEVICE_CPU;
  int32_t ordinal = 0;
};

nb::dict deviceProperties() {
  sprt_device_props props;
  check(sprt_device_properties(&props));
  nb::dict d;
  d["name"] = props.name;
  d["ordinal"] = props.ordinal;
  d["driver_version"] = props.driver_version;
  d["cusparse_version"] = props.cusparse_version;
  d["compute_capability"] =
      nb::make_tuple(props.compute_major, props.compute_minor);
  d["multiprocessors"] = props.multiprocessors;
  d["l2_cache_bytes"] = props.l2_cache_bytes;
  d["total_memory_bytes"] = props.total_memory_bytes;
  return d;
}

/// The features of a matrix as `spperm-inspect --json` prints them: top-level
/// numbers and one dict per group.
nb::dict featureDict(const CsrMatrix &m) {
  Features features;
  {
    nb::gil_scoped_release release;
    features = computeFeatures(m);
  }
  nb::dict out;
  for (const FeatureValue &f : flattenFeatures(features)) {
    nb::object value = f.isInteger
                           ? nb::object(nb::int_(static_cast<int64_t>(f.value)))
                           : nb::object(nb::float_(f.value));
    if (f.group.empty()) {
      out[f.name.c_str()] = value;
      continue;
    }
    if (!out.contains(f.group.c_str()))
      out[f.group.c_str()] = nb::dict();
    nb::dict group = nb::borrow<nb::dict>(out[f.group.c_str()]);
    group[f.name.c_str()] = value;
  }
  return out;
}

/// A 1-D NumPy array that owns a copy of `values`.
template <typename T> nb::object numpyArray(const std::vector<T> &values) {
  auto *copy = new std::vector<T>(values);
  nb::capsule owner(copy, [](void *p) noexcept {
    delete static_cast<std::vector<T> *>(p);
  });
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(
      copy->data(), {copy->size()}, owner));
}

/// Reads a matrix file: (rows, cols, indptr, indices, data) as NumPy arrays.
nb::tuple readMatrix(const std::string &path, const std::string &values) {
  StatusOr<ValuesSpec> spec = parseValuesSpec(values);
  if (!spec)
    throw Error(SPRT_ERROR_INVALID_ARGUMENT, spec.message());
  ReadOptions options;
  options.values = *spec;
  StatusOr<CsrMatrix> m = [&] {
    nb::gil_scoped_release release;
    return readMatrixFile(path, options);
  }();
  if (!m)
    throw Error(SPRT_ERROR_INVALID_ARGUMENT, m.message());
  return nb::make_tuple(m->rows, m->cols, numpyArray(m->rowPtr),
                        numpyArray(m->colIdx), numpyArray(m->values));
}

} // namespace

NB_MODULE(_core, m) {
  m.doc() = "spperm's runtime and matrix core (no compiler); use the "
            "spperm package, not this module.";
  registerErrorTranslator();
  // Packages may live until the interpreter exits (held by modules in
  // global state); that is not a reference leak.
  nb::set_leak_warnings(false);
  m.attr("ABI_VERSION") = sprt_abi_version();

  nb::class_<LoadedPackage>(m, "Package")
      .def(nb::init<const std::string &, const std::string &, int32_t,
                    int32_t>(),
           nb::arg("path"), nb::arg("device"), nb::arg("rank") = -1,
           nb::arg("ranks") = 0)
      .def("shards", &LoadedPackage::shards, nb::arg("index"))
      .def_prop_ro("ordinal",
                   [](const LoadedPackage &p) { return p.cudaOrdinal(); })
      .def("layer_count", &LoadedPackage::layerCount)
      .def("layer_info", &LoadedPackage::layerInfo, nb::arg("index"))
      .def("find", &LoadedPackage::find, nb::arg("name"))
      .def("accepts_column_major", &LoadedPackage::acceptsColumnMajor,
           nb::arg("index"))
      .def("spmm", &LoadedPackage::spmm, nb::arg("layer"), nb::arg("b"),
           nb::arg("c").noconvert(), nb::arg("stream"))
      .def("spmm_addresses", &LoadedPackage::spmmAddresses, nb::arg("layer"),
           nb::arg("b"), nb::arg("k"), nb::arg("c"), nb::arg("stream"),
           nb::arg("dtype") = 0, nb::arg("order") = 0,
           nb::arg("workspace") = 0, nb::arg("workspace_bytes") = 0)
      .def("time", &LoadedPackage::time, nb::arg("layer"), nb::arg("variant").none(),
           nb::arg("b"), nb::arg("c").noconvert(), nb::arg("stream"),
           nb::arg("warmup"), nb::arg("runs"));

  m.def("device_properties", &deviceProperties);
  m.def("read_matrix", &readMatrix, nb::arg("path"), nb::arg("values"));
  m.def(
      "features",
      [](int64_t rows, int64_t cols, const HostArray &indptr,
         const HostArray &indices, const HostArray &data) {
        return featureDict(
            csrFromArrays(rows, cols, indptr, indices, data, "matrix"));
      },
      nb::arg("rows"), nb::arg("cols"), nb::arg("indptr"), nb::arg("indices"),
      nb::arg("data"));
  m.def(
      "check_writable_directory_of",
      [](const std::string &path) {
        if (Status s = checkWritableDirectoryOf(path); !s)
          throw Error(SPRT_ERROR_IO, s.message());
      },
      nb::arg("path"));
  m.def(
      "check_writable_file",
      [](const std::string &path) {
        if (Status s = checkWritableFile(path); !s)
          throw Error(SPRT_ERROR_IO, s.message());
      },
      nb::arg("path"));
  m.def(
      "did_you_mean",
      [](const std::string &value, const std::vector<std::string> &names) {
        return didYouMean(
            value, std::vector<std::string_view>(names.begin(), names.end()));
      },
      nb::arg("value"), nb::arg("names"),
      "The end of an 'unknown name' message: \"; did you mean 'NAME'?\" for "
      "the names value is likely a slip of (spperm/Sparse/Spelling.h), or "
      "\"\".");
  m.def(
      "check_package_destination",
      [](const std::string &path) {
        if (Status s = checkPackageDestination(path); !s)
          throw Error(SPRT_ERROR_INVALID_ARGUMENT, s.message());
      },
      nb::arg("path"));
  m.def(
      "copy_package",
      [](const std::string &source, const std::string &path) {
        // A destination refused is the caller's mistake (InvalidArgument);
        // checked here too so that only the copy's failures are I/O errors.
        if (Status s = checkPackageDestination(path); !s)
          throw Error(SPRT_ERROR_INVALID_ARGUMENT, s.message());
        Status s = Status::ok();
        {
          nb::gil_scoped_release release;
          s = copyPackageDirectory(source, path);
        }
        if (!s)
          throw Error(SPRT_ERROR_IO, s.message());
      },
      nb::arg("source"), nb::arg("path"));
}
