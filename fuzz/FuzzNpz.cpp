//===- FuzzNpz.cpp - libFuzzer target: the .npz reader --------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The .npz reader (scipy.sparse.save_npz files) through readMatrixFile. A zip
// whose bytes are mutated at random almost never passes its CRC checks, so
// the input is a list of members that the harness packs into a valid stored
// zip (correct sizes and CRC-32s): members are separated by the line
// "--npz--", each a name line then the member's bytes. An input that
// starts with "PK" is written as it is, so the zip parser is fuzzed too. A
// finding is a crash, a sanitizer report, a leak, an error that is not one
// line, or a matrix that does not verify (FuzzUtil.h).
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "spperm/Sparse/MatrixIO.h"

#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

/// The separator between members of the input.
constexpr std::string_view kSeparator = "\n--npz--\n";

void put16(std::string &out, uint32_t v) {
  out.push_back(static_cast<char>(v & 0xff));
  out.push_back(static_cast<char>((v >> 8) & 0xff));
}
void put32(std::string &out, uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}

/// A zip archive of `members` (name, bytes), stored (method 0), with local
/// headers, a central directory and its end record.
std::string storedZip(
    const std::vector<std::pair<std::string, std::string_view>> &members) {
  std::string zip, central;
  for (const auto &[name, bytes] : members) {
    const uint32_t crc = static_cast<uint32_t>(
        crc32(0, reinterpret_cast<const Bytef *>(bytes.data()),
              static_cast<uInt>(bytes.size())));
    const uint32_t offset = static_cast<uint32_t>(zip.size());
    const auto size = static_cast<uint32_t>(bytes.size());
    put32(zip, 0x04034b50);
    put16(zip, 20); // version needed
    put16(zip, 0);  // flags
    put16(zip, 0);  // stored
    put32(zip, 0);  // time, date
    put32(zip, crc);
    put32(zip, size);
    put32(zip, size);
    put16(zip, static_cast<uint32_t>(name.size()));
    put16(zip, 0); // extra
    zip += name;
    zip.append(bytes.data(), bytes.size());
    put32(central, 0x02014b50);
    put16(central, 20); // made by
    put16(central, 20); // needed
    put16(central, 0);
    put16(central, 0);
    put32(central, 0);
    put32(central, crc);
    put32(central, size);
    put32(central, size);
    put16(central, static_cast<uint32_t>(name.size()));
    put16(central, 0); // extra
    put16(central, 0); // comment
    put16(central, 0); // disk
    put16(central, 0); // internal attributes
    put32(central, 0); // external attributes
    put32(central, offset);
    central += name;
  }
  const uint32_t centralOffset = static_cast<uint32_t>(zip.size());
  zip += central;
  put32(zip, 0x06054b50);
  put16(zip, 0);
  put16(zip, 0);
  put16(zip, static_cast<uint32_t>(members.size()));
  put16(zip, static_cast<uint32_t>(members.size()));
  put32(zip, static_cast<uint32_t>(central.size()));
  put32(zip, centralOffset);
  put16(zip, 0); // comment
  return zip;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static spperm::fuzz::ScratchFile file(".npz");
  std::string_view input(reinterpret_cast<const char *>(data), size);
  if (input.substr(0, 2) == "PK") {
    file.write(data, size);
  } else {
    std::vector<std::pair<std::string, std::string_view>> members;
    while (!input.empty() && members.size() < 16) {
      size_t end = input.find(kSeparator);
      std::string_view member = input.substr(0, end);
      input = end == std::string_view::npos
                  ? std::string_view()
                  : input.substr(end + kSeparator.size());
      size_t newline = member.find('\n');
      if (newline == std::string_view::npos)
        continue;
      members.emplace_back(std::string(member.substr(0, newline)),
                           member.substr(newline + 1));
    }
    const std::string zip = storedZip(members);
    file.write(reinterpret_cast<const uint8_t *>(zip.data()), zip.size());
  }
  spperm::fuzz::checkMatrix(
      spperm::readMatrixFile(file.path(), spperm::fuzz::fuzzReadOptions()));
  return 0;
}
