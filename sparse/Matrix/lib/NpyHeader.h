//===- NpyHeader.h - The .npy prefix and header dict ------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the Matrix library: the parts of the .npy format that the
// dense reader (Npy.cpp) and the scipy .npz reader (NpzReader.cpp) share.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_LIB_NPYHEADER_H
#define SPPERM_SPARSE_LIB_NPYHEADER_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace spperm {

/// The fields of a .npy header dict that matter here.
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

/// Parses the .npy magic, version, header length and header dict at the
/// start of `bytes` (an array held in memory); sets `header` and
/// `dataOffset` (where the array's data starts). On failure returns false
/// with `error` saying what is wrong.
bool parseNpyPrefix(std::string_view bytes, NpyHeader &header,
                    size_t &dataOffset, std::string &error);

} // namespace spperm

#endif // SPPERM_SPARSE_LIB_NPYHEADER_H
