//===- MatrixWriter.cpp - Writing Matrix Market files -----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Npy.h"

#include <algorithm>
#include <charconv>
#include <zlib.h>

using namespace spperm;

/// Compresses `text` into a single gzip member.
static StatusOr<std::string> gzipCompress(const std::string &path,
                                          const std::string &text) {
  z_stream zs{};
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    return Status::error(path + ": cannot initialize gzip compression");
  std::string out;
  out.resize(deflateBound(&zs, text.size()));
  zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(text.data()));
  zs.avail_in = 0;
  zs.next_out = reinterpret_cast<Bytef *>(out.data());
  zs.avail_out = 0;
  size_t inLeft = text.size(), outLeft = out.size();
  int rc = Z_OK;
  // avail_in/avail_out are 32-bit: feed at most 1 GiB at a time.
  const size_t kStep = size_t(1) << 30;
  while (rc == Z_OK) {
    if (zs.avail_in == 0) {
      zs.avail_in = static_cast<uInt>(std::min(inLeft, kStep));
      inLeft -= zs.avail_in;
    }
    if (zs.avail_out == 0) {
      zs.avail_out = static_cast<uInt>(std::min(outLeft, kStep));
      outLeft -= zs.avail_out;
    }
    rc = deflate(&zs, inLeft == 0 ? Z_FINISH : Z_NO_FLUSH);
  }
  size_t written = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END)
    return Status::error(path + ": gzip compression failed");
  out.resize(written);
  return out;
}

Status spperm::writeMatrixMarket(const std::string &path, const CsrMatrix &m) {
  std::string text = "%%MatrixMarket matrix coordinate real general\n";
  text += std::to_string(m.rows) + " " + std::to_string(m.cols) + " " +
          std::to_string(m.nnz()) + "\n";
  text.reserve(text.size() + static_cast<size_t>(m.nnz()) * 32);
  // Each field fits its buffer: int32 needs 11 chars, a shortest float 15.
  auto append = [&text](auto value, char separator) {
    char buf[32];
    std::to_chars_result res = std::to_chars(buf, buf + sizeof(buf), value);
    text.append(buf, res.ptr);
    text.push_back(separator);
  };
  for (int32_t r = 0; r < m.rows; ++r) {
    for (int32_t k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k) {
      append(r + 1, ' ');
      append(m.colIdx[k] + 1, ' ');
      append(m.values[k], '\n');
    }
  }
  if (!endsWithIgnoreCase(path, ".gz"))
    return writeFileAtomically(path, text);
  StatusOr<std::string> compressed = gzipCompress(path, text);
  if (!compressed)
    return compressed.status();
  return writeFileAtomically(path, *compressed);
}
