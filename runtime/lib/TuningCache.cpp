//===- TuningCache.cpp - The GPU backend's persistent choices ---*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The tuning cache's file (TuningCache.h; docs/RuntimeABI.md, "Tuning
// cache"):
//
//   {"schema": "spperm-tuning-cache", "version": 3, "entries": [
//   {"key": {"abi": 1, "column_major_b": false, "compute_capability": 90,
//            "cusparse": 12600, "dense": true, "driver": 13000, "gpu": NAME,
//            "k": K, "layer": NAME, "package": SHA256, "variant": NAME},
//    "layer": {"cols": N, "nnz": NNZ, "rows": M},
//    "choice": {"in_place": "" or "l0_in_place_1" (column-major B),
//               "library": "" or "cusparse-spmm-csr-alg2" ...,
//               "variant": 1, "variant_name": "bell/bsa"},
//    "stored": SECONDS_SINCE_EPOCH},
//   ...]}
//
// one entry per line. A store re-reads the file under the lock only when it
// changed since this object last read or wrote it (another process wrote
// it), so that a process storing its decisions one after the other
// serializes the entries but does not parse them each time.
//
// The file is untrusted input: nlohmann::json parses it without exceptions
// (json::parse(..., allow_exceptions = false), is_discarded()), every member
// is read only after its type and range are checked, and the file's size is
// bounded, so no content can crash the runtime or make it throw.
//
//===----------------------------------------------------------------------===//

#include "TuningCache.h"

#include "spperm/Sparse/Npy.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <limits>
#include <string_view>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

using namespace spperm;
using namespace spperm::runtime_detail;

namespace {

/// Sorted keys: a key's text is canonical (canonicalKey).
using json = nlohmann::json;

/// The file's "schema" member.
constexpr const char *kSchemaName = "spperm-tuning-cache";

/// JSON text that never fails (invalid UTF-8 is replaced, not thrown on).
std::string toText(const json &value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

json keyJson(const TuningKey &key) {
  json j = json::object();
  j["package"] = key.package;
  j["layer"] = key.layer;
  j["variant"] = key.variant;
  j["k"] = key.k;
  j["gpu"] = key.gpu;
  j["compute_capability"] = key.computeCapability;
  j["driver"] = key.driverVersion;
  j["cusparse"] = key.cusparseVersion;
  j["abi"] = key.abiVersion;
  j["dense"] = key.denseCandidate;
  j["column_major_b"] = key.columnMajorB;
  return j;
}

/// The text entries are matched by: every field of the key, in a fixed
/// order, each string prefixed by its length (so that no two keys have the
/// same text).
std::string canonicalKey(const TuningKey &key) {
  std::string id;
  for (const std::string *text :
       {&key.package, &key.layer, &key.variant, &key.gpu})
    id += std::to_string(text->size()) + ":" + *text + ";";
  for (int64_t number :
       {key.k, int64_t{key.computeCapability}, int64_t{key.driverVersion},
        int64_t{key.cusparseVersion}, int64_t{key.abiVersion},
        int64_t{key.denseCandidate}, int64_t{key.columnMajorB}})
    id += std::to_string(number) + ";";
  return id;
}

/// Reads the string member `name` of `object`.
bool readString(const json &object, const char *name, std::string &out) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_string())
    return false;
  out = it->get_ref<const std::string &>();
  return true;
}

/// Reads the integer member `name` of `object`, which must lie in [lo, hi].
bool readInt(const json &object, const char *name, int64_t lo, int64_t hi,
             int64_t &out) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_number_integer())
    return false;
  if (it->is_number_unsigned()) {
    const uint64_t u = it->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return false;
    out = static_cast<int64_t>(u);
  } else {
    out = it->get<int64_t>();
  }
  return out >= lo && out <= hi;
}

/// readInt for an int32_t field.
bool readInt32(const json &object, const char *name, int32_t &out) {
  int64_t value = 0;
  if (!readInt(object, name, std::numeric_limits<int32_t>::min(),
               std::numeric_limits<int32_t>::max(), value))
    return false;
  out = static_cast<int32_t>(value);
  return true;
}

/// Reads the boolean member `name` of `object`.
bool readBool(const json &object, const char *name, bool &out) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_boolean())
    return false;
  out = it->get<bool>();
  return true;
}

/// The object member `name` of `object`, or null.
const json *readObject(const json &object, const char *name) {
  auto it = object.find(name);
  return it == object.end() || !it->is_object() ? nullptr : &*it;
}

/// Reads one entry of the file; false when any member is missing or
/// mistyped.
bool parseEntry(const json &j, TuningCacheEntry &out) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (!j.is_object())
    return false;
  const json *key = readObject(j, "key");
  const json *layer = readObject(j, "layer");
  const json *choice = readObject(j, "choice");
  if (!key || !layer || !choice)
    return false;
  TuningKey &k = out.key;
  int64_t variant = 0;
  if (!readString(*key, "package", k.package) ||
      !readString(*key, "layer", k.layer) ||
      !readString(*key, "variant", k.variant) ||
      !readInt(*key, "k", 1, kMax, k.k) || !readString(*key, "gpu", k.gpu) ||
      !readInt32(*key, "compute_capability", k.computeCapability) ||
      !readInt32(*key, "driver", k.driverVersion) ||
      !readInt32(*key, "cusparse", k.cusparseVersion) ||
      !readInt32(*key, "abi", k.abiVersion) ||
      !readBool(*key, "dense", k.denseCandidate) ||
      !readBool(*key, "column_major_b", k.columnMajorB) ||
      !readInt(*layer, "rows", 0, kMax, out.rows) ||
      !readInt(*layer, "cols", 0, kMax, out.cols) ||
      !readInt(*layer, "nnz", 0, kMax, out.nnz) ||
      !readInt(*choice, "variant", 0, kMax, variant) ||
      !readString(*choice, "variant_name", out.variantName) ||
      !readString(*choice, "library", out.choice.library) ||
      !readString(*choice, "in_place", out.choice.inPlace) ||
      !readInt(j, "stored", 0, kMax, out.stored))
    return false;
  out.choice.variant = static_cast<size_t>(variant);
  return true;
}

json entryJson(const TuningCacheEntry &e) {
  json j = json::object();
  j["key"] = keyJson(e.key);
  j["layer"] = {{"rows", e.rows}, {"cols", e.cols}, {"nnz", e.nnz}};
  j["choice"] = {{"variant", e.choice.variant},
                 {"variant_name", e.variantName},
                 {"library", e.choice.library},
                 {"in_place", e.choice.inPlace}};
  j["stored"] = e.stored;
  return j;
}

/// Why `e` cannot be used for `layer` ("" when it can).
std::string mismatch(const TuningCacheEntry &e, const TuningLayer &layer) {
  if (e.rows != layer.rows || e.cols != layer.cols || e.nnz != layer.nnz)
    return "it is for a " + std::to_string(e.rows) + " x " +
           std::to_string(e.cols) + " matrix with " + std::to_string(e.nnz) +
           " entries, the layer's is " + std::to_string(layer.rows) + " x " +
           std::to_string(layer.cols) + " with " + std::to_string(layer.nnz);
  if (e.choice.variant >= layer.variants.size())
    return "it names variant " + std::to_string(e.choice.variant) +
           ", the layer has " + std::to_string(layer.variants.size());
  if (e.variantName != layer.variants[e.choice.variant])
    return "it names variant " + std::to_string(e.choice.variant) + " as '" +
           e.variantName + "', the layer's is '" +
           layer.variants[e.choice.variant] + "'";
  if (!e.choice.library.empty() &&
      std::find(layer.libraries.begin(), layer.libraries.end(),
                e.choice.library) == layer.libraries.end())
    return "it names the library call '" + e.choice.library +
           "', which is not a candidate for this layer here";
  if (e.key.columnMajorB && !e.choice.library.empty())
    return "it names a library call for a column-major B";
  if (!e.key.columnMajorB && !e.choice.inPlace.empty())
    return "it names an in-place kernel for a row-major B";
  if (!e.choice.inPlace.empty()) {
    const std::vector<std::string> *kernels =
        e.choice.variant < layer.inPlaceKernels.size()
            ? &layer.inPlaceKernels[e.choice.variant]
            : nullptr;
    if (!kernels || std::find(kernels->begin(), kernels->end(),
                              e.choice.inPlace) == kernels->end())
      return "it names the in-place kernel '" + e.choice.inPlace +
             "', which variant " + std::to_string(e.choice.variant) +
             " lacks";
  }
  return "";
}

/// How reading a file went.
enum class ReadResult { Read, Missing, Failed };

} // namespace

bool TuningCache::FileStamp::operator==(const FileStamp &other) const {
  return device == other.device && inode == other.inode && size == other.size &&
         modifiedNs == other.modifiedNs && changedNs == other.changedNs;
}

namespace {

/// The stamp of the file `st` describes.
TuningCache::FileStamp stampOf(const struct stat &st) {
  TuningCache::FileStamp stamp;
  stamp.device = static_cast<uint64_t>(st.st_dev);
  stamp.inode = static_cast<uint64_t>(st.st_ino);
  stamp.size = static_cast<int64_t>(st.st_size);
  stamp.modifiedNs =
      int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  stamp.changedNs =
      int64_t{st.st_ctim.tv_sec} * 1000000000 + st.st_ctim.tv_nsec;
  return stamp;
}

/// Reads the regular file `path` of at most kTuningCacheMaxBytes into
/// `out`, and its stamp into `stamp`; on failure `error` says why.
ReadResult readBounded(const std::string &path, std::string &out,
                       TuningCache::FileStamp &stamp, std::string &error) {
  // O_NONBLOCK: a FIFO in its place must not block the open.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT)
      return ReadResult::Missing;
    error = std::string("cannot open it: ") + std::strerror(errno);
    return ReadResult::Failed;
  }
  struct stat st;
  ReadResult result = ReadResult::Read;
  if (::fstat(fd, &st) != 0) {
    error = std::string("cannot stat it: ") + std::strerror(errno);
    result = ReadResult::Failed;
  } else if (!S_ISREG(st.st_mode)) {
    error = "it is not a regular file";
    result = ReadResult::Failed;
  } else if (st.st_size > kTuningCacheMaxBytes) {
    error = "it is larger than " + std::to_string(kTuningCacheMaxBytes >> 20) +
            " MiB";
    result = ReadResult::Failed;
  } else {
    stamp = stampOf(st);
  }
  out.clear();
  char chunk[1 << 16];
  while (result == ReadResult::Read) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n == 0)
      break;
    if (n < 0) {
      if (errno == EINTR)
        continue;
      error = std::string("cannot read it: ") + std::strerror(errno);
      result = ReadResult::Failed;
      break;
    }
    out.append(chunk, static_cast<size_t>(n));
    // The file may have grown since fstat.
    if (static_cast<int64_t>(out.size()) > kTuningCacheMaxBytes) {
      error = "it is larger than " +
              std::to_string(kTuningCacheMaxBytes >> 20) + " MiB";
      result = ReadResult::Failed;
    }
  }
  ::close(fd);
  return result;
}

/// Creates the directories of `path` up to its last '/', as `mkdir -p`
/// does; false with `error` set when one cannot be made.
bool makeParents(const std::string &path, std::string &error) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    const std::string dir = path.substr(0, slash);
    if (::mkdir(dir.c_str(), 0777) == 0 || errno == EEXIST)
      continue;
    error = "cannot create " + dir + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

/// An exclusive flock on PATH.lock for the object's lifetime. Where the
/// file system has no locks (flock fails), the writes go ahead unlocked:
/// each is still atomic, so a concurrent writer may lose an entry but never
/// corrupt the file.
class FileLock {
public:
  explicit FileLock(const std::string &path) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
      error = "cannot open " + path + ": " + std::strerror(errno);
      return;
    }
    while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~FileLock() {
    if (fd >= 0)
      ::close(fd); // releases the lock
  }
  FileLock(const FileLock &) = delete;
  FileLock &operator=(const FileLock &) = delete;

  /// Why the lock file could not be opened ("" when it was).
  std::string error;

private:
  int fd = -1;
};

} // namespace

std::string spperm::runtime_detail::tuningCachePathFromEnvironment() {
  if (const char *env = std::getenv("SPRT_TUNING_CACHE")) {
    const std::string_view value(env);
    if (value.empty() || value == "off" || value == "0")
      return "";
    return env;
  }
  // The XDG base directory specification: a relative XDG_CACHE_HOME is
  // invalid and ignored.
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/')
    return std::string(xdg) + "/spperm/tuning.json";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/spperm/tuning.json";
  return "";
}

TuningCache::TuningCache(std::string path) : path(std::move(path)) {}

std::optional<TuningChoice> TuningCache::lookup(const TuningKey &key,
                                                const TuningLayer &layer) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!enabled())
    return std::nullopt;
  if (!loaded) {
    readFile(entries, stamp);
    loaded = true;
  }
  const std::string id = canonicalKey(key);
  auto it = entries.find(id);
  if (it == entries.end() || rejected.count(id))
    return std::nullopt;
  if (std::string why = mismatch(it->second, layer); !why.empty()) {
    warn("ignoring the entry of layer '" + key.layer + "' for k " +
         std::to_string(key.k) + ": " + why + "; timing again");
    rejected.insert(id);
    return std::nullopt;
  }
  return it->second.choice;
}

void TuningCache::reject(const TuningKey &key, const std::string &why) {
  std::lock_guard<std::mutex> lock(mutex);
  rejected.insert(canonicalKey(key));
  warn("ignoring the entry of layer '" + key.layer + "' for k " +
       std::to_string(key.k) + ": " + why + "; timing again");
}

void TuningCache::store(const TuningKey &key, const TuningLayer &layer,
                        const TuningChoice &choice) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!enabled())
    return;
  TuningCacheEntry entry;
  entry.key = key;
  entry.rows = layer.rows;
  entry.cols = layer.cols;
  entry.nnz = layer.nnz;
  entry.choice = choice;
  if (choice.variant < layer.variants.size())
    entry.variantName = layer.variants[choice.variant];
  entry.stored = static_cast<int64_t>(std::time(nullptr));
  const std::string id = canonicalKey(key);
  rejected.erase(id);
  std::string error;
  if (!unwritable && !merge(id, entry, error)) {
    unwritable = true;
    warnFile("cannot write it (" + error +
             "); the choices of this process are not kept");
  }
  // What this object's lookups see, whether or not the file took it.
  entries[id] = std::move(entry);
  loaded = true;
}

bool TuningCache::merge(const std::string &id, const TuningCacheEntry &entry,
                        std::string &error) {
  if (!makeParents(path, error))
    return false;
  FileLock fileLock(path + ".lock");
  if (!fileLock.error.empty()) {
    error = fileLock.error;
    return false;
  }
  // Under the lock, the file as it is now: what this object last read or
  // wrote when it is unchanged since, else read again, so that the entries
  // other processes stored meanwhile are kept.
  struct stat st;
  if (!loaded || !stamp || ::stat(path.c_str(), &st) != 0 ||
      !(stampOf(st) == *stamp)) {
    readFile(entries, stamp);
    loaded = true;
  }
  entries[id] = entry;
  if (!writeFile(entries, id, error))
    return false;
  stamp.reset();
  if (::stat(path.c_str(), &st) == 0)
    stamp = stampOf(st);
  return true;
}

void TuningCache::readFile(EntryMap &out, std::optional<FileStamp> &read) {
  out.clear();
  read.reset();
  std::string text, error;
  FileStamp readStamp;
  switch (readBounded(path, text, readStamp, error)) {
  case ReadResult::Missing:
    return;
  case ReadResult::Failed:
    warnFile(error + "; ignored");
    return;
  case ReadResult::Read:
    read = readStamp;
    break;
  }
  const json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    warnFile("it is not a JSON object; ignored (it is rewritten at the next "
             "store)");
    return;
  }
  std::string schema;
  int64_t version = 0;
  if (!readString(root, "schema", schema) || schema != kSchemaName) {
    warnFile("its \"schema\" is not \"" + std::string(kSchemaName) +
             "\"; ignored (it is rewritten at the next store)");
    return;
  }
  if (!readInt(root, "version", std::numeric_limits<int64_t>::min(),
               std::numeric_limits<int64_t>::max(), version) ||
      version != kTuningCacheVersion) {
    warnFile("it is not of schema version " +
             std::to_string(kTuningCacheVersion) +
             "; ignored (it is rewritten at the next store)");
    return;
  }
  auto list = root.find("entries");
  if (list == root.end() || !list->is_array()) {
    warnFile("it has no \"entries\" array; ignored (it is rewritten at the "
             "next store)");
    return;
  }
  size_t malformed = 0;
  const auto now = static_cast<int64_t>(std::time(nullptr));
  for (const json &j : *list) {
    TuningCacheEntry entry;
    if (!parseEntry(j, entry)) {
      ++malformed;
      continue;
    }
    // A time past now (a skewed clock, a foreign or edited file) would
    // outlive every entry stored from now on: it is not trusted, and
    // counts as the oldest.
    if (entry.stored > now)
      entry.stored = 0;
    std::string id = canonicalKey(entry.key);
    auto [it, fresh] = out.try_emplace(std::move(id), entry);
    if (!fresh && it->second.stored <= entry.stored)
      it->second = std::move(entry);
  }
  if (malformed)
    warnFile(std::to_string(malformed) + " of its " +
             std::to_string(list->size()) +
             " entries are malformed; they are ignored (and dropped at the "
             "next store)");
}

bool TuningCache::writeFile(EntryMap &all, const std::string &keep,
                            std::string &error) {
  if (all.size() > kTuningCacheMaxEntries) {
    std::vector<std::pair<int64_t, const std::string *>> byAge;
    byAge.reserve(all.size());
    for (const auto &[id, entry] : all)
      if (id != keep)
        byAge.emplace_back(entry.stored, &id);
    std::stable_sort(
        byAge.begin(), byAge.end(),
        [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<std::string> oldest;
    for (size_t i = 0; i < all.size() - kTuningCacheMaxEntries; ++i)
      oldest.push_back(*byAge[i].second);
    for (const std::string &id : oldest)
      all.erase(id);
  }
  // One entry per line, for people who read or diff the file.
  std::string text = "{\"schema\": \"" + std::string(kSchemaName) +
                     "\", \"version\": " + std::to_string(kTuningCacheVersion) +
                     ", \"entries\": [";
  const char *separator = "\n";
  for (auto &[id, entry] : all) {
    if (entry.line.empty())
      entry.line = toText(entryJson(entry));
    text += separator;
    text += entry.line;
    separator = ",\n";
  }
  text += "\n]}\n";
  const Status written = writeFileAtomically(path, text);
  if (!written)
    error = written.message();
  return written.isOk();
}

void TuningCache::warnFile(const std::string &message) {
  if (warnedFile)
    return;
  warnedFile = true;
  warn(message);
}

void TuningCache::warn(const std::string &message) {
  std::fprintf(stderr, "spperm runtime: warning: tuning cache %s: %s\n",
               path.c_str(), message.c_str());
}
