//===- Npy.cpp - NumPy .npy dense matrices ----------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The .npy format: the magic "\x93NUMPY", a version byte pair, a little-endian
// header length (2 bytes in 1.0, 4 bytes in 2.0/3.0), then a Python dict
// literal such as `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`
// padded with spaces and a final newline, then the raw data. Sizes are checked
// against the file size before anything is allocated.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Npy.h"

#include "spperm/Sparse/Escape.h"
#include "spperm/Sparse/HalfFloat.h"
#include "spperm/Sparse/Interrupt.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/OutputPath.h"

#include "NpyHeader.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <initializer_list>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace spperm;

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
/// Headers longer than this are refused (NumPy itself writes a few hundred
/// bytes; this bounds what a corrupt length field can make us allocate).
constexpr uint32_t kMaxHeaderSize = 1u << 20;

bool isLittleEndianHost() {
  const uint16_t probe = 1;
  unsigned char first;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

void byteSwap32(char *data, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    char *p = data + 4 * i;
    std::swap(p[0], p[3]);
    std::swap(p[1], p[2]);
  }
}

/// Closes a FILE on scope exit.
struct FileCloser {
  void operator()(std::FILE *f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

/// A parser for the Python literal subset NumPy writes in headers: one dict
/// with string keys whose values are strings, True/False or tuples of
/// non-negative integers.
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : text(text) {}

  /// Parses the dict; on failure returns false with `error` set.
  bool parse(NpyHeader &header, std::string &error) {
    bool seenDescr = false, seenOrder = false, seenShape = false;
    skipSpaces();
    if (!consume('{'))
      return fail(error, "header is not a dict");
    for (;;) {
      skipSpaces();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key))
        return fail(error, "expected a quoted key in the header dict");
      skipSpaces();
      if (!consume(':'))
        return fail(error,
                    "expected ':' after " + quoted(key) + " in the header");
      skipSpaces();
      if (key == "descr") {
        if (!parseString(header.descr))
          return fail(error, "'descr' is not a string");
        seenDescr = true;
      } else if (key == "fortran_order") {
        if (!parseBool(header.fortranOrder))
          return fail(error, "'fortran_order' is not True or False");
        seenOrder = true;
      } else if (key == "shape") {
        if (!parseShape(header.shape))
          return fail(error, "'shape' is not a tuple of non-negative "
                             "integers");
        seenShape = true;
      } else {
        return fail(error, "unexpected key " + quoted(key) + " in the header");
      }
      skipSpaces();
      if (consume(','))
        continue;
      skipSpaces();
      if (consume('}'))
        break;
      return fail(error, "expected ',' or '}' in the header dict");
    }
    skipSpaces();
    if (i != text.size())
      return fail(error, "unexpected text after the header dict");
    if (!seenDescr || !seenOrder || !seenShape)
      return fail(error, std::string("header lacks '") +
                             (!seenDescr   ? "descr"
                              : !seenOrder ? "fortran_order"
                                           : "shape") +
                             "'");
    return true;
  }

private:
  static bool fail(std::string &error, std::string what) {
    error = std::move(what);
    return false;
  }
  void skipSpaces() {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' ||
                               text[i] == '\n' || text[i] == '\r'))
      ++i;
  }
  bool consume(char c) {
    if (i < text.size() && text[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  bool consumeWord(std::string_view w) {
    if (text.substr(i, w.size()) != w)
      return false;
    i += w.size();
    return true;
  }
  bool parseString(std::string &out) {
    if (i >= text.size() || (text[i] != '\'' && text[i] != '"'))
      return false;
    char quote = text[i++];
    size_t close = text.find(quote, i);
    if (close == std::string_view::npos)
      return false;
    out.assign(text.substr(i, close - i));
    i = close + 1;
    return true;
  }
  bool parseBool(bool &out) {
    if (consumeWord("True")) {
      out = true;
      return true;
    }
    if (consumeWord("False")) {
      out = false;
      return true;
    }
    return false;
  }
  bool parseShape(std::vector<int64_t> &shape) {
    if (!consume('('))
      return false;
    for (;;) {
      skipSpaces();
      if (consume(')'))
        return true;
      size_t start = i;
      int64_t v = 0;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        if (v > (INT64_MAX - 9) / 10)
          return false;
        v = v * 10 + (text[i++] - '0');
      }
      if (i == start)
        return false;
      consume('L'); // Python 2 longs
      shape.push_back(v);
      skipSpaces();
      if (consume(','))
        continue;
      skipSpaces();
      if (consume(')'))
        return true;
      return false;
    }
  }

  std::string_view text;
  size_t i = 0;
};

std::string errnoText() { return std::strerror(errno); }

/// The process umask, read without changing it (umask(2) can only be read
/// by setting it, which races with other threads).
mode_t currentUmask() {
  mode_t mask = 022;
  if (std::FILE *f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof(line), f)) {
      unsigned value;
      if (std::sscanf(line, "Umask: %o", &value) == 1) {
        mask = static_cast<mode_t>(value);
        break;
      }
    }
    std::fclose(f);
  }
  return mask;
}

/// One piece of a file being written.
struct Piece {
  const char *data;
  size_t size;
};

bool writeAll(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

/// Writes the pieces straight into an existing file that is not a regular
/// file (a device such as /dev/null, a FIFO): renaming over it would replace
/// the node itself.
Status writePiecesInPlace(const std::string &path,
                          std::initializer_list<Piece> pieces) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0)
    return Status::error(path + ": cannot open for writing: " + errnoText());
  for (const Piece &piece : pieces)
    if (!writeAll(fd, piece.data, piece.size)) {
      const std::string why = errnoText();
      ::close(fd);
      return Status::error(path + ": cannot write: " + why);
    }
  if (::close(fd) != 0)
    return Status::error(path + ": cannot write: " + errnoText());
  return Status::ok();
}

/// Writes the concatenated pieces to `path` through a temporary file in the
/// same directory that is renamed over `path` once complete. A symbolic link
/// is written through (its target replaced, the link kept); a device or FIFO
/// is written in place.
Status writePiecesAtomically(const std::string &given,
                             std::initializer_list<Piece> pieces) {
  if (Status s = checkOutputSparesInputs(given, {}); !s)
    return s;
  std::string path = given;
  struct stat st;
  if (::stat(given.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return Status::error(given + ": is a directory");
    // A device, FIFO or pipe (also through links: /dev/stdout) is opened
    // by the name given.
    if (!S_ISREG(st.st_mode))
      return writePiecesInPlace(given, pieces);
  }
  // A symbolic link (or a chain of them) is written through: its final
  // target is replaced, the links stay.
  for (int hops = 0; ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
       ++hops) {
    char target[PATH_MAX];
    const ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
    if (n < 0 || hops == 40)
      return Status::error(given + ": cannot follow the symbolic link: " +
                           (n < 0 ? errnoText() : "too many levels"));
    target[n] = '\0';
    // A relative target is taken from the link's directory.
    path = target[0] == '/' ? std::string(target)
                            : parentDirectory(path) + "/" + target;
  }
  if (path != given)
    if (Status s = checkOutputSparesInputs(path, {}); !s)
      return s;
  // The temporary is registered for removal on an interruption before it
  // is created (mkstemp would leave a moment where it exists unregistered):
  // a name of our own, created exclusively, another one drawn if taken.
  std::string tmp;
  std::optional<ScopedTemporary> interrupted;
  int fd = -1;
  static std::atomic<uint64_t> drawn{0};
  std::mt19937_64 rng(
      static_cast<uint64_t>(::getpid()) * 0x9E3779B97F4A7C15u ^
      static_cast<uint64_t>(
          std::chrono::steady_clock::now().time_since_epoch().count()) ^
      drawn.fetch_add(1));
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    static const char kLetters[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    tmp = path + ".tmp.";
    for (int i = 0; i < 6; ++i)
      tmp += kLetters[rng() % (sizeof kLetters - 1)];
    interrupted.emplace(tmp);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0) {
    const int saved = errno;
    // The usual cause, a mistyped directory, said as such.
    if (saved == ENOENT)
      return Status::error(given + ": cannot write: the directory " +
                           parentDirectory(path) + " does not exist");
    if (saved == ENOTDIR)
      return Status::error(given + ": cannot write: a component of " +
                           parentDirectory(path) + " is not a directory");
    return Status::error(path + ": cannot create a temporary file: " +
                         std::strerror(saved));
  }
  auto abandon = [&](const std::string &what) {
    int saved = errno;
    if (fd >= 0)
      ::close(fd);
    ::unlink(tmp.c_str());
    return Status::error(path + ": " + what + ": " + std::strerror(saved));
  };
  for (const Piece &piece : pieces)
    if (!writeAll(fd, piece.data, piece.size))
      return abandon("cannot write");
  // mkstemp creates the file 0600; give it the mode a plain create would.
  if (::fchmod(fd, 0666 & ~currentUmask()) != 0)
    return abandon("cannot set the mode of the temporary file");
  if (::fsync(fd) != 0)
    return abandon("cannot write");
  int closed = ::close(fd);
  fd = -1;
  if (closed != 0)
    return abandon("cannot write");
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return abandon("cannot rename the temporary file into place");
  return Status::ok();
}

} // namespace

bool spperm::parseNpyPrefix(std::string_view bytes, NpyHeader &header,
                            size_t &dataOffset, std::string &error) {
  if (bytes.size() < kMagicSize ||
      bytes.substr(0, kMagicSize) != std::string_view(kMagic, kMagicSize)) {
    error = "not a .npy array (bad magic)";
    return false;
  }
  if (bytes.size() < 10) {
    error = "truncated .npy header";
    return false;
  }
  auto byte = [&](size_t i) {
    return static_cast<uint64_t>(static_cast<unsigned char>(bytes[i]));
  };
  const unsigned major = byte(6), minor = byte(7);
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    error = "unsupported .npy version " + std::to_string(major) + "." +
            std::to_string(minor) + " (expected 1.0, 2.0 or 3.0)";
    return false;
  }
  uint64_t headerSize = byte(8) | (byte(9) << 8), headerStart = 10;
  if (major != 1) {
    if (bytes.size() < 12) {
      error = "truncated .npy header";
      return false;
    }
    headerSize |= (byte(10) << 16) | (byte(11) << 24);
    headerStart = 12;
  }
  if (headerSize > kMaxHeaderSize || headerStart + headerSize > bytes.size()) {
    error = "truncated .npy header";
    return false;
  }
  if (!HeaderParser(bytes.substr(headerStart, headerSize)).parse(header, error)) {
    error = "malformed .npy header: " + error;
    return false;
  }
  dataOffset = headerStart + headerSize;
  return true;
}

namespace {

/// A `.npy` file opened and checked (type, order, shape against the file's
/// size), positioned at its data.
struct OpenedNpy {
  FilePtr file;
  NpyShape shape;
  uint64_t count = 0; // rows * cols
  bool little = true; // the host's byte order
};

Status openNpy(const std::string &path, OpenedNpy &out) {
  auto error = [&](const std::string &what) {
    return Status::error(path + ": " + what);
  };
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return error("cannot open: " + errnoText());
  if (S_ISDIR(st.st_mode))
    return directoryGivenForFile(path, ".npy");
  // A FIFO would block the open itself until a writer comes.
  if (!S_ISREG(st.st_mode))
    return error("not a regular file");
  FilePtr &file = out.file;
  file.reset(std::fopen(path.c_str(), "rb"));
  if (!file)
    return error("cannot open: " + errnoText());
  if (::fstat(::fileno(file.get()), &st) != 0)
    return error("cannot open: " + errnoText());
  if (!S_ISREG(st.st_mode))
    return error("not a regular file");
  const uint64_t fileSize = static_cast<uint64_t>(st.st_size);

  // Magic, version and header length.
  unsigned char prefix[12];
  size_t got = std::fread(prefix, 1, sizeof(prefix), file.get());
  if (got < kMagicSize || std::memcmp(prefix, kMagic, kMagicSize) != 0)
    return error("not a .npy file (bad magic)");
  if (got < 10)
    return error("truncated .npy header");
  const unsigned major = prefix[6], minor = prefix[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return error("unsupported .npy version " + std::to_string(major) + "." +
                 std::to_string(minor) + " (expected 1.0, 2.0 or 3.0)");
  uint64_t headerSize, headerStart;
  if (major == 1) {
    headerSize = prefix[8] | (prefix[9] << 8);
    headerStart = 10;
  } else {
    if (got < 12)
      return error("truncated .npy header");
    headerSize = uint64_t(prefix[8]) | (uint64_t(prefix[9]) << 8) |
                 (uint64_t(prefix[10]) << 16) | (uint64_t(prefix[11]) << 24);
    headerStart = 12;
  }
  if (headerSize > kMaxHeaderSize)
    return error(".npy header length " + std::to_string(headerSize) +
                 " is implausible");
  if (headerStart + headerSize > fileSize)
    return error("truncated .npy header: it needs " +
                 std::to_string(headerSize) + " bytes, the file has " +
                 std::to_string(fileSize - headerStart) + " after the prefix");

  std::string headerText(headerSize, '\0');
  if (std::fseek(file.get(), static_cast<long>(headerStart), SEEK_SET) != 0 ||
      std::fread(headerText.data(), 1, headerSize, file.get()) != headerSize)
    return error("cannot read the .npy header: " + errnoText());
  NpyHeader header;
  std::string why;
  if (!HeaderParser(headerText).parse(header, why))
    return error("malformed .npy header: " + why);

  const bool little = isLittleEndianHost();
  auto is = [&](const char *type) {
    return header.descr == std::string("<") + type ||
           (little && header.descr == std::string("=") + type);
  };
  const bool half = is("f2");
  if (!is("f4") && !half)
    return error("unsupported dtype " + quoted(header.descr) +
                 " (expected '<f4', little-endian float32, or '<f2', "
                 "float16)");
  const uint64_t elementBytes = half ? 2 : 4;
  if (header.fortranOrder)
    return error("Fortran-order arrays are not supported (expected C order)");
  if (header.shape.size() != 2)
    return error("expected a 2-D array, but the shape has " +
                 std::to_string(header.shape.size()) + " dimension" +
                 (header.shape.size() == 1 ? "" : "s"));

  // Check the data size against the file before allocating.
  const int64_t rows = header.shape[0], cols = header.shape[1];
  uint64_t count, bytes;
  if (__builtin_mul_overflow(static_cast<uint64_t>(rows),
                             static_cast<uint64_t>(cols), &count) ||
      __builtin_mul_overflow(count, elementBytes, &bytes))
    return error("shape (" + std::to_string(rows) + ", " +
                 std::to_string(cols) + ") is too large");
  const uint64_t dataStart = headerStart + headerSize;
  const uint64_t available = fileSize - dataStart;
  if (available < bytes)
    return error("truncated .npy data: shape (" + std::to_string(rows) + ", " +
                 std::to_string(cols) + ") needs " + std::to_string(bytes) +
                 " bytes, the file has " + std::to_string(available));
  if (available > bytes)
    return error(std::to_string(available - bytes) +
                 " unexpected bytes after the .npy data");

  out.shape.rows = rows;
  out.shape.cols = cols;
  out.shape.float16 = half;
  out.count = count;
  out.little = little;
  return Status::ok();
}

} // namespace

StatusOr<NpyShape> spperm::readNpyShape(const std::string &path) {
  OpenedNpy npy;
  if (Status s = openNpy(path, npy); !s)
    return s;
  return npy.shape;
}

StatusOr<DenseMatrix> spperm::readNpy(const std::string &path) {
  OpenedNpy npy;
  if (Status s = openNpy(path, npy); !s)
    return s;
  FILE *file = npy.file.get();
  const uint64_t count = npy.count;
  const bool little = npy.little, half = npy.shape.float16;
  auto error = [&](const std::string &what) {
    return Status::error(path + ": " + what);
  };
  DenseMatrix m;
  m.rows = npy.shape.rows;
  m.cols = npy.shape.cols;
  m.float16 = half;
  m.data.resize(count);
  auto readError = [&] {
    return error(
        "cannot read the .npy data: " +
        (std::ferror(file) ? errnoText() : std::string("file shrank")));
  };
  if (half) {
    std::vector<uint16_t> bits(count);
    if (count > 0 && std::fread(bits.data(), 2, count, file) != count)
      return readError();
    if (!little)
      for (uint16_t &b : bits)
        b = static_cast<uint16_t>((b >> 8) | (b << 8));
    widenArray(bits.data(), count, ValueType::F16, m.data.data());
    return m;
  }
  if (count > 0 && std::fread(m.data.data(), 4, count, file) != count)
    return readError();
  if (!little)
    byteSwap32(reinterpret_cast<char *>(m.data.data()), count);
  return m;
}

Status spperm::writeNpy(const std::string &path, const DenseMatrix &m) {
  if (m.rows < 0 || m.cols < 0 ||
      m.data.size() !=
          static_cast<uint64_t>(m.rows) * static_cast<uint64_t>(m.cols))
    return Status::error(path + ": cannot write: matrix data has " +
                         std::to_string(m.data.size()) + " values for shape (" +
                         std::to_string(m.rows) + ", " +
                         std::to_string(m.cols) + ")");
  std::string header =
      std::string("{'descr': '") + (m.float16 ? "<f2" : "<f4") +
      "', 'fortran_order': False, 'shape': (" + std::to_string(m.rows) + ", " +
      std::to_string(m.cols) + "), }";
  // Pad with spaces so the data starts at a multiple of 64 bytes; the header
  // ends with a newline.
  size_t total = 10 + header.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  header.append(padded - total, ' ');
  header.push_back('\n');
  std::string prefix(kMagic, kMagicSize);
  prefix.push_back('\x01');
  prefix.push_back('\x00');
  prefix.push_back(static_cast<char>(header.size() & 0xff));
  prefix.push_back(static_cast<char>((header.size() >> 8) & 0xff));
  prefix += header;

  if (m.float16) {
    std::vector<uint16_t> bits = narrowArray(m.data, ValueType::F16);
    if (!isLittleEndianHost())
      for (uint16_t &b : bits)
        b = static_cast<uint16_t>((b >> 8) | (b << 8));
    return writePiecesAtomically(
        path, {{prefix.data(), prefix.size()},
               {reinterpret_cast<const char *>(bits.data()), 2 * bits.size()}});
  }
  const char *data = reinterpret_cast<const char *>(m.data.data());
  std::vector<float> swapped;
  if (!isLittleEndianHost()) {
    swapped = m.data;
    byteSwap32(reinterpret_cast<char *>(swapped.data()), swapped.size());
    data = reinterpret_cast<const char *>(swapped.data());
  }
  return writePiecesAtomically(
      path, {{prefix.data(), prefix.size()}, {data, 4 * m.data.size()}});
}

Status spperm::writeFileAtomically(const std::string &path,
                                   const std::string &bytes) {
  return writePiecesAtomically(path, {{bytes.data(), bytes.size()}});
}
