//===- NpzReader.h - scipy.sparse .npz files --------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the Matrix library: the reader behind readMatrixFile for the
// files `scipy.sparse.save_npz` writes (docs/MatrixFiles.md, ".npz").
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_LIB_NPZREADER_H
#define SPPERM_SPARSE_LIB_NPZREADER_H

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Status.h"

#include <string>
#include <string_view>

namespace spperm {

/// Whether `head` (a file's first bytes) starts a zip archive, as .npz
/// files do.
bool looksLikeZip(std::string_view head);

/// Reads a scipy.sparse matrix saved by `save_npz` (csr, csc, coo or bsr;
/// compressed or not) from `path`. Errors read `PATH: what is wrong`.
StatusOr<CsrMatrix> readNpz(const std::string &path,
                            const ReadOptions &options);

} // namespace spperm

#endif // SPPERM_SPARSE_LIB_NPZREADER_H
