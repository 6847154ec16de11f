//===- NpzReader.cpp - scipy.sparse .npz files ----------------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// `scipy.sparse.save_npz` writes a zip archive (stored, or deflated with
// `compressed=True`, the default) of .npy arrays: `format` (the bytes
// b'csr', b'csc', b'coo' or b'bsr'), `shape` (two integers), `data`, and
// `indices` + `indptr` (csr, csc, bsr) or `row` + `col` (coo). This reader
// takes the archive's central directory, inflates the members it needs with
// zlib (checking their CRC-32), checks every array against the others and
// the shape before using it, and builds the CSR through the triplet path
// the text readers use (duplicates summed, explicit zeros kept). Nothing is
// allocated from a size field before it has been checked against the
// archive's size or the read limit.
//
//===----------------------------------------------------------------------===//

#include "NpzReader.h"

#include "NpyHeader.h"

#include "spperm/Sparse/Escape.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <sys/stat.h>

using namespace spperm;

namespace {

/// A double in the shortest %g form (for messages).
std::string shortDouble(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", x);
  return text;
}

constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint32_t kCentralHeader = 0x02014b50;
constexpr uint32_t kEndOfCentralDirectory = 0x06054b50;

uint32_t le16(std::string_view b, size_t at) {
  return static_cast<uint32_t>(static_cast<unsigned char>(b[at])) |
         (static_cast<uint32_t>(static_cast<unsigned char>(b[at + 1])) << 8);
}
uint32_t le32(std::string_view b, size_t at) {
  return le16(b, at) | (le16(b, at + 2) << 16);
}
uint64_t le64(std::string_view b, size_t at) {
  return static_cast<uint64_t>(le32(b, at)) |
         (static_cast<uint64_t>(le32(b, at + 4)) << 32);
}

/// One member of the archive, from its central directory entry.
struct Member {
  uint32_t method = 0, crc = 0;
  uint64_t compressedSize = 0, size = 0, localOffset = 0;
};

/// An error of the archive or of one of its arrays; `Reader::fail` prefixes
/// the file.
class Reader {
public:
  Reader(std::string path, std::string bytes, const ReadOptions &options)
      : path(std::move(path)), bytes(std::move(bytes)), options(options) {}

  StatusOr<CsrMatrix> read() {
    if (Status s = readDirectory(); !s)
      return s;
    std::string format;
    if (Status s = readFormat(format); !s)
      return s;
    int64_t rows = 0, cols = 0;
    if (Status s = readShape(rows, cols); !s)
      return s;
    CooTriplets coo;
    coo.rows = rows;
    coo.cols = cols;
    Status s = format == "csr" || format == "csc" ? readCompressed(format, coo)
               : format == "coo"                  ? readCoo(coo)
               : format == "bsr"                  ? readBsr(coo)
                                                  : fail(
                                    "format " + quoted(format) +
                                    " is not read (csr, csc, coo and bsr "
                                    "are; convert with A.tocsr())");
    if (!s)
      return s;
    return buildCsr(coo);
  }

private:
  /// An array member: its header and raw data.
  struct Array {
    NpyHeader header;
    std::string data;
    int64_t count = 0;
    /// Bytes per element (elementSize of the dtype, parsed once).
    uint64_t width = 0;
  };

  Status fail(const std::string &what) const {
    return Status::error(path + ": " + what);
  }

  int64_t limit() const { return std::min<int64_t>(options.maxIndex, kMaxIndex); }

  Status readDirectory() {
    // The end of central directory record: 22 bytes plus a comment of up
    // to 65,535, at the end of the file.
    const size_t n = bytes.size();
    size_t eocd = std::string_view::npos;
    for (size_t back = 22; back <= std::min<size_t>(n, 22 + 65535); ++back)
      if (le32(bytes, n - back) == kEndOfCentralDirectory) {
        eocd = n - back;
        break;
      }
    if (n < 22 || eocd == std::string_view::npos)
      return fail("not a readable .npz archive (no zip end of central "
                  "directory record)");
    const uint64_t entries = le16(bytes, eocd + 10);
    const uint64_t dirSize = le32(bytes, eocd + 12);
    const uint64_t dirOffset = le32(bytes, eocd + 16);
    if (entries == 0xffff || dirSize == 0xffffffff || dirOffset == 0xffffffff)
      return fail("zip64 archives (over 4 GiB or 65,535 members) are not "
                  "supported");
    if (dirOffset + dirSize > eocd)
      return fail("corrupt .npz archive (central directory out of bounds)");
    size_t at = dirOffset;
    for (uint64_t e = 0; e < entries; ++e) {
      if (at + 46 > eocd || le32(bytes, at) != kCentralHeader)
        return fail("corrupt .npz archive (bad central directory entry)");
      Member m;
      const uint32_t flags = le16(bytes, at + 8);
      m.method = le16(bytes, at + 10);
      m.crc = le32(bytes, at + 16);
      m.compressedSize = le32(bytes, at + 20);
      m.size = le32(bytes, at + 24);
      const size_t nameLength = le16(bytes, at + 28);
      const size_t extraLength = le16(bytes, at + 30);
      const size_t commentLength = le16(bytes, at + 32);
      m.localOffset = le32(bytes, at + 42);
      if (at + 46 + nameLength + extraLength + commentLength > eocd)
        return fail("corrupt .npz archive (bad central directory entry)");
      std::string name = bytes.substr(at + 46, nameLength);
      if (Status s = readZip64Extra(
              std::string_view(bytes).substr(at + 46 + nameLength, extraLength),
              m);
          !s)
        return s;
      if (flags & 1)
        return fail("member " + quoted(name) + " is encrypted");
      members[name] = m;
      at += 46 + nameLength + extraLength + commentLength;
    }
    return Status::ok();
  }

  /// The zip64 extended information of a central directory entry: the
  /// 64-bit values of the fields that are 0xffffffff, in order.
  Status readZip64Extra(std::string_view extra, Member &m) {
    for (size_t at = 0; at + 4 <= extra.size();) {
      const uint32_t id = le16(extra, at), size = le16(extra, at + 2);
      if (at + 4 + size > extra.size())
        return fail("corrupt .npz archive (bad extra field)");
      if (id == 1) {
        size_t f = at + 4;
        for (uint64_t *field : {&m.size, &m.compressedSize, &m.localOffset}) {
          if (*field != 0xffffffff)
            continue;
          if (f + 8 > at + 4 + size)
            return fail("corrupt .npz archive (short zip64 field)");
          *field = le64(extra, f);
          f += 8;
        }
      }
      at += 4 + size;
    }
    return Status::ok();
  }

  /// The uncompressed bytes of member `name` (checked against its CRC-32),
  /// or an error saying it is missing.
  Status extract(const std::string &name, std::string &out) {
    auto it = members.find(name);
    if (it == members.end())
      return fail("no " + quoted(name) +
                  " in the archive (is it a scipy.sparse.save_npz file? "
                  "it has " + memberList() + ")");
    const Member &m = it->second;
    const uint64_t local = m.localOffset;
    if (local + 30 > bytes.size() || le32(bytes, local) != kLocalHeader)
      return fail("corrupt .npz archive (bad local header of " + quoted(name) +
                  ")");
    const uint64_t start =
        local + 30 + le16(bytes, local + 26) + le16(bytes, local + 28);
    if (start + m.compressedSize > bytes.size())
      return fail("truncated .npz archive (" + quoted(name) + " ends past " +
                  "the file)");
    // No array of a valid matrix is larger than limit() 8-byte elements
    // plus its header.
    const uint64_t maxSize = static_cast<uint64_t>(limit()) * 8 + 4096;
    if (m.size > maxSize)
      return fail(quoted(name) + " is " + std::to_string(m.size) +
                  " bytes, more than any array within the read limit");
    std::string_view packed =
        std::string_view(bytes).substr(start, m.compressedSize);
    if (m.method == 0) {
      if (m.compressedSize != m.size)
        return fail("corrupt .npz archive (stored member " + quoted(name) +
                    " has two sizes)");
      out.assign(packed);
    } else if (m.method == 8) {
      out.assign(m.size, '\0');
      z_stream z{};
      if (const int rc = inflateInit2(&z, -MAX_WBITS); rc != Z_OK) {
        // A failed allocation: the process's policy decides, as for
        // operator new (MatrixIO.cpp, GzFileSource).
        if (rc == Z_MEM_ERROR)
          if (std::new_handler handler = std::get_new_handler())
            handler();
        return fail(rc == Z_MEM_ERROR ? "out of memory (zlib's buffers)"
                                      : "cannot initialize zlib");
      }
      z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(packed.data()));
      z.avail_in = static_cast<uInt>(packed.size());
      z.next_out = reinterpret_cast<Bytef *>(out.data());
      z.avail_out = static_cast<uInt>(out.size());
      const int rc = inflate(&z, Z_FINISH);
      const uint64_t produced = z.total_out;
      inflateEnd(&z);
      if (rc == Z_MEM_ERROR) {
        if (std::new_handler handler = std::get_new_handler())
          handler();
        return fail("out of memory (zlib's buffers)");
      }
      if (rc != Z_STREAM_END || produced != m.size)
        return fail("corrupt deflated data in " + quoted(name));
    } else {
      return fail(quoted(name) + " uses zip compression method " +
                  std::to_string(m.method) +
                  " (save_npz writes stored or deflated members)");
    }
    const uLong crc = crc32(0L, reinterpret_cast<const Bytef *>(out.data()),
                            static_cast<uInt>(out.size()));
    if (crc != m.crc)
      return fail("CRC mismatch in " + quoted(name) + " (corrupt archive)");
    return Status::ok();
  }

  std::string memberList() const {
    // Names come from the file: escaped (one line) and at most 8 of them.
    std::string out;
    size_t listed = 0;
    for (const auto &[name, m] : members) {
      if (listed++ == 8) {
        out += ", ...";
        break;
      }
      out += (out.empty() ? "" : ", ") + escaped(name);
    }
    return out.empty() ? "no members" : out;
  }

  /// Member `name`.npy as an array of `dims` dimensions.
  Status readArray(const std::string &name, size_t dims, Array &a) {
    const std::string member = name + ".npy";
    std::string raw;
    if (Status s = extract(member, raw); !s)
      return s;
    size_t offset = 0;
    std::string why;
    if (!parseNpyPrefix(raw, a.header, offset, why))
      return fail(member + ": " + why);
    if (a.header.fortranOrder && a.header.shape.size() > 1)
      return fail(member + ": Fortran-order arrays are not supported");
    if (a.header.shape.size() != dims)
      return fail(member + ": expected " + std::to_string(dims) +
                  " dimension" + (dims == 1 ? "" : "s") + ", the shape has " +
                  std::to_string(a.header.shape.size()));
    uint64_t count = 1;
    for (int64_t d : a.header.shape)
      if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count))
        return fail(member + ": shape is too large");
    const uint64_t width = elementSize(a.header.descr);
    if (width == 0)
      return fail(member + ": unsupported dtype " + quoted(a.header.descr));
    uint64_t need;
    if (__builtin_mul_overflow(count, width, &need) ||
        need != raw.size() - offset)
      return fail(member + ": the data is " +
                  std::to_string(raw.size() - offset) + " bytes, its shape " +
                  "and dtype need " + std::to_string(count * width));
    a.data = raw.substr(offset);
    a.count = static_cast<int64_t>(count);
    a.width = width;
    return Status::ok();
  }

  /// Bytes per element of the dtypes read here (0: not one of them).
  static uint64_t elementSize(const std::string &descr) {
    if (descr.size() < 3 || (descr[0] != '<' && descr[0] != '|' &&
                             descr[0] != '='))
      return 0;
    const char kind = descr[1];
    const std::string digits = descr.substr(2);
    if (digits.empty() || digits.size() > 3 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      return 0;
    const uint64_t n = std::stoul(digits);
    if (kind == 'S')
      return n;
    if (kind == 'U')
      return 4 * n;
    if ((kind == 'i' || kind == 'u') && (n == 1 || n == 2 || n == 4 || n == 8))
      return n;
    if (kind == 'f' && (n == 4 || n == 8))
      return n;
    if (kind == 'b' && n == 1)
      return 1;
    return 0;
  }

  /// Element i of an integer array, as int64 (false: not an integer dtype,
  /// or an unsigned value past int64).
  static bool integerAt(const Array &a, int64_t i, int64_t &out) {
    const char kind = a.header.descr[1];
    if (kind != 'i' && kind != 'u')
      return false;
    const size_t n = a.width;
    uint64_t raw = 0;
    std::memcpy(&raw, a.data.data() + i * n, n);
    if (kind == 'i' && n < 8 && (raw >> (8 * n - 1)) & 1)
      raw |= ~uint64_t(0) << (8 * n); // sign-extend
    if (kind == 'u' && raw > static_cast<uint64_t>(INT64_MAX))
      return false;
    out = static_cast<int64_t>(raw);
    return true;
  }

  /// Element i of an integer array as decimal text (for messages: an
  /// unsigned value past INT64_MAX too).
  static std::string integerText(const Array &a, int64_t i) {
    int64_t v = 0;
    if (integerAt(a, i, v))
      return std::to_string(v);
    uint64_t raw = 0;
    std::memcpy(&raw, a.data.data() + i * a.width, a.width);
    return std::to_string(raw);
  }

  /// Element i of a numeric array, as double.
  static double valueAt(const Array &a, int64_t i) {
    const char kind = a.header.descr[1];
    if (kind == 'f') {
      if (a.width == 4) {
        float f;
        std::memcpy(&f, a.data.data() + 4 * i, 4);
        return f;
      }
      double d;
      std::memcpy(&d, a.data.data() + 8 * i, 8);
      return d;
    }
    if (kind == 'b')
      return a.data[i] ? 1.0 : 0.0;
    int64_t v = 0;
    if (integerAt(a, i, v))
      return static_cast<double>(v);
    // An unsigned value past INT64_MAX (integerAt refuses it as an index).
    uint64_t raw = 0;
    std::memcpy(&raw, a.data.data() + i * a.width, a.width);
    return static_cast<double>(raw);
  }

  Status readFormat(std::string &format) {
    Array a;
    if (Status s = readArray("format", 0, a); !s)
      return s;
    const char kind = a.header.descr[1];
    if (kind == 'S') {
      format = a.data.substr(0, a.data.find('\0'));
    } else if (kind == 'U') {
      // UTF-32 code units; the names are ASCII.
      for (size_t i = 0; i + 4 <= a.data.size(); i += 4)
        if (a.data[i])
          format.push_back(a.data[i]);
    } else {
      return fail("format.npy is not a string (dtype " +
                  quoted(a.header.descr) + ")");
    }
    return Status::ok();
  }

  Status readShape(int64_t &rows, int64_t &cols) {
    Array a;
    if (Status s = readArray("shape", 1, a); !s)
      return s;
    if (a.count != 2 || !integerAt(a, 0, rows) || !integerAt(a, 1, cols))
      return fail("shape.npy is not two integers (the matrix must be 2-D)");
    if (rows < 0 || cols < 0 || rows > limit() || cols > limit())
      return fail("shape (" + std::to_string(rows) + ", " +
                  std::to_string(cols) + ") is out of range [0, " +
                  std::to_string(limit()) + "]");
    return Status::ok();
  }

  /// Checks the values array `data` (read) against `count` entries.
  Status checkValues(int64_t count, CooTriplets &coo, const Array &data) {
    const char kind = data.header.descr[1];
    if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
      return fail("data.npy has dtype " + quoted(data.header.descr) +
                  " (complex and other dtypes are not supported; convert "
                  "with A.astype(numpy.float32))");
    if (data.count != count)
      return fail("data.npy has " + std::to_string(data.count) +
                  " values for " + std::to_string(count) + " entries");
    if (count > limit())
      return fail(std::to_string(count) + " entries, more than the limit " +
                  std::to_string(limit()));
    // As in the text formats: finite values within float32's range.
    if (options.values.mode == ValueMode::File && kind == 'f')
      for (int64_t i = 0; i < count; ++i) {
        const double v = valueAt(data, i);
        if (const char *problem = float32ValueProblem(v))
          return fail("data.npy element " + std::to_string(i) + " (" +
                      shortDouble(v) + ") " + problem);
      }
    coo.value.reserve(static_cast<size_t>(count));
    return Status::ok();
  }

  /// The value of entry e in file order under the read options.
  double entryValue(const Array &data, int64_t e) const {
    switch (options.values.mode) {
    case ValueMode::Ones:
      return 1.0;
    case ValueMode::Random:
      return randomValue(options.values.seed, static_cast<uint64_t>(e));
    case ValueMode::File:
      break;
    }
    return valueAt(data, e);
  }

  /// An index array of `name` with `count` elements in [0, bound).
  Status readIndices(const std::string &name, int64_t count, int64_t bound,
                     Array &a) {
    if (Status s = readArray(name, 1, a); !s)
      return s;
    if (a.header.descr[1] != 'i' && a.header.descr[1] != 'u')
      return fail(name + ".npy is not an integer array (dtype " +
                  quoted(a.header.descr) + ")");
    if (count >= 0 && a.count != count)
      return fail(name + ".npy has " + std::to_string(a.count) +
                  " elements, expected " + std::to_string(count));
    for (int64_t i = 0; i < a.count; ++i) {
      int64_t v = 0;
      if (!integerAt(a, i, v) || v < 0 || v >= bound)
        return fail(name + ".npy element " + std::to_string(i) + " (" +
                    integerText(a, i) + ") is out of range [0, " +
                    std::to_string(bound) + ")");
    }
    return Status::ok();
  }

  /// An index pointer of `outer` + 1 non-decreasing offsets from 0 to the
  /// entries' count.
  Status readPointer(int64_t outer, Array &ptr, int64_t &entries) {
    if (Status s = readArray("indptr", 1, ptr); !s)
      return s;
    if (ptr.header.descr[1] != 'i' && ptr.header.descr[1] != 'u')
      return fail("indptr.npy is not an integer array");
    if (ptr.count != outer + 1)
      return fail("indptr.npy has " + std::to_string(ptr.count) +
                  " elements, expected " + std::to_string(outer + 1));
    int64_t prev = 0;
    for (int64_t i = 0; i <= outer; ++i) {
      int64_t v = 0;
      if (!integerAt(ptr, i, v) || (i == 0 && v != 0) || v < prev)
        return fail("indptr.npy is not non-decreasing from 0 (element " +
                    std::to_string(i) + ")");
      prev = v;
    }
    entries = prev;
    return Status::ok();
  }

  /// csr (rows outer) or csc (columns outer).
  Status readCompressed(const std::string &format, CooTriplets &coo) {
    const bool byRow = format == "csr";
    const int64_t outer = byRow ? coo.rows : coo.cols;
    const int64_t inner = byRow ? coo.cols : coo.rows;
    Array ptr, idx, data;
    int64_t entries = 0;
    if (Status s = readPointer(outer, ptr, entries); !s)
      return s;
    if (Status s = readArray("data", 1, data); !s)
      return s;
    if (Status s = checkValues(entries, coo, data); !s)
      return s;
    if (Status s = readIndices("indices", entries, inner, idx); !s)
      return s;
    coo.row.reserve(static_cast<size_t>(entries));
    coo.col.reserve(static_cast<size_t>(entries));
    for (int64_t o = 0; o < outer; ++o) {
      int64_t begin = 0, end = 0;
      integerAt(ptr, o, begin);
      integerAt(ptr, o + 1, end);
      for (int64_t p = begin; p < end; ++p) {
        int64_t i = 0;
        integerAt(idx, p, i);
        coo.row.push_back(static_cast<int32_t>(byRow ? o : i));
        coo.col.push_back(static_cast<int32_t>(byRow ? i : o));
        coo.value.push_back(entryValue(data, p));
      }
    }
    return Status::ok();
  }

  Status readCoo(CooTriplets &coo) {
    Array row, col, data;
    if (Status s = readArray("data", 1, data); !s)
      return s;
    const int64_t entries = data.count;
    if (Status s = checkValues(entries, coo, data); !s)
      return s;
    if (Status s = readIndices("row", entries, coo.rows, row); !s)
      return s;
    if (Status s = readIndices("col", entries, coo.cols, col); !s)
      return s;
    for (int64_t e = 0; e < entries; ++e) {
      int64_t r = 0, c = 0;
      integerAt(row, e, r);
      integerAt(col, e, c);
      coo.row.push_back(static_cast<int32_t>(r));
      coo.col.push_back(static_cast<int32_t>(c));
      coo.value.push_back(entryValue(data, e));
    }
    return Status::ok();
  }

  /// bsr: data (blocks, R, C), indptr over block rows, indices the block
  /// columns; every element of a stored block is an entry.
  Status readBsr(CooTriplets &coo) {
    Array ptr, idx, data;
    if (Status s = readArray("data", 3, data); !s)
      return s;
    const int64_t br = data.header.shape[1], bc = data.header.shape[2];
    if (br <= 0 || bc <= 0 || coo.rows % br != 0 || coo.cols % bc != 0)
      return fail("bsr blocks of " + std::to_string(br) + " x " +
                  std::to_string(bc) + " do not tile the shape (" +
                  std::to_string(coo.rows) + ", " + std::to_string(coo.cols) +
                  ")");
    int64_t blocks = 0;
    if (Status s = readPointer(coo.rows / br, ptr, blocks); !s)
      return s;
    if (data.header.shape[0] != blocks)
      return fail("data.npy holds " + std::to_string(data.header.shape[0]) +
                  " blocks, indptr.npy " + std::to_string(blocks));
    if (Status s = checkValues(data.count, coo, data); !s)
      return s;
    if (Status s = readIndices("indices", blocks, coo.cols / bc, idx); !s)
      return s;
    for (int64_t brow = 0; brow < coo.rows / br; ++brow) {
      int64_t begin = 0, end = 0;
      integerAt(ptr, brow, begin);
      integerAt(ptr, brow + 1, end);
      for (int64_t b = begin; b < end; ++b) {
        int64_t bcol = 0;
        integerAt(idx, b, bcol);
        for (int64_t i = 0; i < br; ++i)
          for (int64_t j = 0; j < bc; ++j) {
            const int64_t e = (b * br + i) * bc + j;
            coo.row.push_back(static_cast<int32_t>(brow * br + i));
            coo.col.push_back(static_cast<int32_t>(bcol * bc + j));
            coo.value.push_back(entryValue(data, e));
          }
      }
    }
    return Status::ok();
  }

  std::string path;
  std::string bytes;
  const ReadOptions &options;
  std::map<std::string, Member> members;
};

} // namespace

bool spperm::looksLikeZip(std::string_view head) {
  return head.size() >= 4 && le32(head, 0) == kLocalHeader;
}

StatusOr<CsrMatrix> spperm::readNpz(const std::string &path,
                                    const ReadOptions &options) {
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> file(
      std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file)
    return Status::error(path + ": cannot open: " + std::strerror(errno));
  struct stat st;
  if (::fstat(::fileno(file.get()), &st) != 0 || !S_ISREG(st.st_mode))
    return Status::error(path + ": not a regular file");
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  if (!bytes.empty() &&
      std::fread(bytes.data(), 1, bytes.size(), file.get()) != bytes.size())
    return Status::error(path + ": cannot read: " +
                         (std::ferror(file.get()) ? std::strerror(errno)
                                                  : "the file shrank"));
  return Reader(path, std::move(bytes), options).read();
}
