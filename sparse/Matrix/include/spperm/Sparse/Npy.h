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

/// Writes `m` as a version 1.0 `.npy` file, atomically: the data goes to a
/// temporary file beside `path` that is renamed over it only once complete.
Status writeNpy(const std::string &path, const DenseMatrix &m);

/// Writes `bytes` to `path` atomically (temporary file + rename); on failure
/// nothing is left at `path` or beside it. A symbolic link is written
/// through (the links kept); a device or FIFO is written in place (not
/// atomically: a failure may leave part of the bytes written there); a path
/// inside a package directory is refused (checkOutputSparesInputs).
Status writeFileAtomically(const std::string &path, const std::string &bytes);

/// Why writing `output` would destroy an input, or ok: `output` must not be
/// the same file as any of `inputs` (by device and inode, through links),
/// nor a file inside a package directory (one that holds a manifest.json).
/// Tools check every output this way before any work.
Status checkOutputSparesInputs(const std::string &output,
                               const std::vector<std::string> &inputs);

} // namespace spperm

#endif // SPPERM_SPARSE_NPY_H
