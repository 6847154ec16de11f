//===- FuzzGzip.cpp - libFuzzer target: matrix files through zlib ---------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The input is a matrix file's bytes, usually gzip-compressed (the seeds
// are), read by spperm::readMatrixFile from a scratch file named `*.gz`: the
// zlib stream (corrupt and truncated members, concatenated members, plain
// text passed through), the refilling scanner and the format sniffing.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "spperm/Sparse/MatrixIO.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static spperm::fuzz::ScratchFile file(".gz");
  file.write(data, size);
  spperm::fuzz::checkMatrix(
      spperm::readMatrixFile(file.path(), spperm::fuzz::fuzzReadOptions()));
  return 0;
}
