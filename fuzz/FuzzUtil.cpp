//===- FuzzUtil.cpp - Shared helpers of the fuzz targets ------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

using namespace spperm::fuzz;

namespace {

[[noreturn]] void die(const std::string &what) {
  std::fprintf(stderr, "spperm-fuzz: harness error: %s: %s\n", what.c_str(),
               std::strerror(errno));
  std::abort();
}

bool writeAll(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

} // namespace

spperm::ReadOptions spperm::fuzz::fuzzReadOptions() {
  ReadOptions options;
  options.maxIndex = kFuzzMaxIndex;
  return options;
}

void spperm::fuzz::checkError(const Status &status) {
  static const bool verbose = std::getenv("SPPERM_FUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "spperm-fuzz: %s\n",
                 status ? "accepted" : status.message().c_str());
  if (status)
    return;
  const std::string &msg = status.message();
  if (msg.empty() || msg.find('\n') != std::string::npos) {
    std::fprintf(stderr,
                 "spperm-fuzz: finding: the error is not one line: "
                 "'%s'\n",
                 msg.c_str());
    std::abort();
  }
}

void spperm::fuzz::checkMatrix(const StatusOr<CsrMatrix> &m) {
  checkError(m.status());
  if (!m)
    return;
  Status valid = m->verify();
  if (!valid) {
    std::fprintf(stderr,
                 "spperm-fuzz: finding: the reader returned an "
                 "invalid matrix: %s\n",
                 valid.message().c_str());
    std::abort();
  }
  if (m->rows > kFuzzMaxIndex || m->cols > kFuzzMaxIndex) {
    std::fprintf(stderr,
                 "spperm-fuzz: finding: a %d x %d matrix passed the "
                 "limit %lld\n",
                 m->rows, m->cols, static_cast<long long>(kFuzzMaxIndex));
    std::abort();
  }
}

std::string spperm::fuzz::tempRoot() {
  const char *dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

ScratchFile::ScratchFile(std::string_view suffix) {
  filePath = tempRoot() + "/spperm-fuzz-XXXXXX" + std::string(suffix);
  fd = ::mkstemps(filePath.data(), static_cast<int>(suffix.size()));
  if (fd < 0)
    die("cannot create " + filePath);
}

ScratchFile::~ScratchFile() {
  ::close(fd);
  ::unlink(filePath.c_str());
}

void ScratchFile::write(const uint8_t *data, size_t size) {
  if (::ftruncate(fd, 0) != 0 || ::lseek(fd, 0, SEEK_SET) != 0 ||
      !writeAll(fd, reinterpret_cast<const char *>(data), size))
    die("cannot write " + filePath);
}

void spperm::fuzz::writeFileOrDie(const std::string &path,
                                  std::string_view bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    die("cannot create " + path);
  bool ok = writeAll(fd, bytes.data(), bytes.size());
  if (::close(fd) != 0 || !ok)
    die("cannot write " + path);
}
