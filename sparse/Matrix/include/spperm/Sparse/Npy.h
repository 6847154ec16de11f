//===- Npy.h - NumPy .npy dense matrices ------------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Dense operands and results travel as NumPy `.npy` files: dtype `<f4`
// (`<f2` for float16 packages' operands), C order, two dimensions (format
// versions 1.0, 2.0 and 3.0 are read; 1.0 is written).
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_NPY_H
#define SPPERM_SPARSE_NPY_H

#include "spperm/Sparse/Status.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace spperm {

/// A dense row-major float matrix.
struct DenseMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<float> data; // rows * cols, row-major
  /// The file's type is float16 (`<f2`): read so (the values widened
  /// exactly), or to be written so (each value rounded to float16).
  bool float16 = false;

  float &at(int64_t r, int64_t c) { return data[r * cols + c]; }
  float at(int64_t r, int64_t c) const { return data[r * cols + c]; }
};

/// Reads a 2-D `<f4` or `<f2` C-order `.npy` file. Errors name the file.
StatusOr<DenseMatrix> readNpy(const std::string &path);

/// The shape and type of a `.npy` file.
struct NpyShape {
  int64_t rows = 0;
  int64_t cols = 0;
  bool float16 = false; // `<f2`, else `<f4`
};

/// Checks a `.npy` file as readNpy does (type, order, shape against the
/// file's size) without reading its data: what a tool checks up front of
/// an operand that other processes read.
StatusOr<NpyShape> readNpyShape(const std::string &path);

/// Writes `m` as a version 1.0 `.npy` file, atomically: the data goes to a
/// temporary file beside `path` that is renamed over it only once complete.
Status writeNpy(const std::string &path, const DenseMatrix &m);

/// Writes `bytes` to `path` atomically (temporary file + rename); on failure
/// nothing is left at `path` or beside it. A symbolic link is written
/// through (the links kept); a device or FIFO is written in place (not
/// atomically: a failure may leave part of the bytes written there); a path
/// inside a package directory is refused (checkOutputSparesInputs in
/// OutputPath.h).
Status writeFileAtomically(const std::string &path, const std::string &bytes);

} // namespace spperm

#endif // SPPERM_SPARSE_NPY_H
