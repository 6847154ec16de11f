//===- FuzzNpy.cpp - libFuzzer target: the .npy reader --------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The input is a `.npy` file, read by spperm::readNpy from a scratch file. A
// finding is a crash, a sanitizer report, a leak, an error that is not one
// line, or a matrix whose data does not hold rows x cols values.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "spperm/Sparse/Npy.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static spperm::fuzz::ScratchFile file(".npy");
  file.write(data, size);
  spperm::StatusOr<spperm::DenseMatrix> m = spperm::readNpy(file.path());
  spperm::fuzz::checkError(m.status());
  if (!m)
    return 0;
  if (m->rows < 0 || m->cols < 0 ||
      static_cast<uint64_t>(m->rows) * static_cast<uint64_t>(m->cols) !=
          m->data.size()) {
    std::fprintf(stderr,
                 "spperm-fuzz: finding: a %lld x %lld matrix with %zu "
                 "values\n",
                 static_cast<long long>(m->rows),
                 static_cast<long long>(m->cols), m->data.size());
    std::abort();
  }
  return 0;
}
