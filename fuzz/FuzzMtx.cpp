//===- FuzzMtx.cpp - libFuzzer target: the .mtx reader --------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The input is Matrix Market (`.mtx`) text, parsed in memory by
// spperm::parseMatrixText. A finding is a crash, a sanitizer report, a leak, an
// error that is not one line, or a matrix that does not verify.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "spperm/Sparse/MatrixIO.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  spperm::fuzz::checkMatrix(
      spperm::parseMatrixText(text, spperm::MatrixFileFormat::MatrixMarket,
                              "fuzz.mtx", spperm::fuzz::fuzzReadOptions()));
  return 0;
}
