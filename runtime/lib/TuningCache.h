//===- TuningCache.h - The GPU backend's persistent choices -----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the runtime library: the tuning cache (docs/RuntimeABI.md,
// "Tuning cache"). The GPU backend times a layer's candidates at its first
// call for a K bucket and runs the fastest; the cache keeps that choice in a
// JSON file, keyed by what the timing depended on (the package's content,
// the layer, the K bucket, the GPU, the driver, cuSPARSE, the runtime), so
// that the next process takes it instead of timing again.
//
// The cache is never required and its file is untrusted input: a location
// that cannot be read or written only means that the backend times, and an
// entry that is malformed, of another schema, or that names what the layer
// lacks is ignored (with one warning line) and replaced by the next timing.
// Writes are read-merge-write under an flock on a lock file beside the
// cache, to a temporary file renamed over it, so that concurrent processes
// neither corrupt the file nor lose each other's entries, and an interrupted
// write leaves the old file whole. Nothing here needs a GPU (the tests run
// everywhere).
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_RUNTIME_LIB_TUNINGCACHE_H
#define SPPERM_RUNTIME_LIB_TUNINGCACHE_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace spperm::runtime_detail {

/// The schema version of the cache file ("version"). Incremented when the
/// file's layout or the meaning of a choice changes, or when a layer's
/// candidates do (2: 16-bit layers time the dense candidate,
/// `cublaslt-gemm`; 3: entries for a column-major B, which choose between
/// the transposing path and an in-place kernel); a file of another version
/// is ignored (with a warning) and replaced at the next store.
inline constexpr int kTuningCacheVersion = 3;

/// The most entries a cache file keeps; past it, the oldest stored go.
inline constexpr size_t kTuningCacheMaxEntries = 4096;

/// The largest cache file read (a bigger one is treated as corrupt).
inline constexpr int64_t kTuningCacheMaxBytes = int64_t{16} << 20;

/// What a choice depends on: an entry is used only when every field is
/// equal.
struct TuningKey {
  /// SHA-256 of the package's manifest.json (Package::manifestSha256),
  /// which records the checksum of every other file of the package.
  std::string package;
  /// The layer's name.
  std::string layer;
  /// The layer's own variant for K (its manifest variant name; "" for a
  /// layer that runs through the library).
  std::string variant;
  /// The K bucket: the power of two at least K, or K itself for a layer
  /// compiled for one K; K itself for a column-major B's choice.
  int64_t k = 0;
  /// Whether the choice is the one for a column-major B (the transposing
  /// path or an in-place kernel; docs/RuntimeABI.md, "Column-major B")
  /// rather than the row-major call's.
  bool columnMajorB = false;
  /// The GPU: cuDeviceGetName and 10 * major + minor of the compute
  /// capability.
  std::string gpu;
  int32_t computeCapability = 0;
  /// cuDriverGetVersion, and the cuSPARSE version (1000 * major + 100 *
  /// minor + patch).
  int32_t driverVersion = 0;
  int32_t cusparseVersion = 0;
  /// SPRT_ABI_VERSION of the runtime that timed.
  int32_t abiVersion = 0;
  /// Whether dense GEMM on the densified matrix was a candidate (it
  /// computes the layer, the layer fit $SPPERM_DENSE_BUDGET_MB and cuBLAS
  /// loaded).
  bool denseCandidate = false;
};

/// The layer as loaded, which an entry must agree with to be used.
struct TuningLayer {
  int64_t rows = 0, cols = 0, nnz = 0;
  /// Each variant's "format/strategy" (index 0: the layer's own, n: its
  /// alternative n).
  std::vector<std::string> variants;
  /// The library calls the runtime knows (cuSPARSE algorithms, the dense
  /// candidate), by their sprt_spmm_time variant names.
  std::vector<std::string> libraries;
  /// Each variant's in-place kernels for a column-major B (the manifest's
  /// `in_place_b` names; index as `variants`).
  std::vector<std::vector<std::string>> inPlaceKernels;
};

/// What runs the layer for the key's K bucket.
struct TuningChoice {
  /// The variant whose generated kernels run (0: the layer's own).
  size_t variant = 0;
  /// The library call that runs instead (a TuningLayer::libraries name),
  /// or "" when the generated kernels do.
  std::string library;
  /// For a column-major B: the in-place kernel of `variant` that runs (a
  /// TuningLayer::inPlaceKernels name), or "" for the transposing path.
  std::string inPlace;
};

/// One entry of the cache file.
struct TuningCacheEntry {
  TuningKey key;
  /// The shape of the layer's matrix when it was timed.
  int64_t rows = 0, cols = 0, nnz = 0;
  TuningChoice choice;
  /// The format/strategy of choice.variant when it was stored.
  std::string variantName;
  /// When it was stored (seconds since the epoch): the oldest go first.
  int64_t stored = 0;
  /// Its line in the file, once made (so that a store does not serialize
  /// every entry again).
  std::string line;
};

/// The cache file's path by the environment: $SPRT_TUNING_CACHE when set
/// ("" when it is empty, "off" or "0": no cache), else
/// $XDG_CACHE_HOME/spperm/tuning.json when XDG_CACHE_HOME is an absolute
/// path, else $HOME/.cache/spperm/tuning.json, else "".
std::string tuningCachePathFromEnvironment();

/// The tuning cache of one loaded package: the file's entries, read at the
/// first lookup, and stores merged into the file. Thread-safe. Warnings go
/// to stderr, one line each, prefixed "spperm runtime: warning: ": at most
/// one about the file itself (unreadable, unwritable, corrupt, another
/// schema) per object, and one per entry rejected.
class TuningCache {
public:
  /// A cache kept in the file `path`; "" disables it (lookups miss, stores
  /// do nothing).
  explicit TuningCache(std::string path);
  TuningCache(const TuningCache &) = delete;
  TuningCache &operator=(const TuningCache &) = delete;

  /// Whether there is a cache file to use.
  bool enabled() const { return !path.empty(); }

  /// The cache file's path ("" when disabled).
  const std::string &getPath() const { return path; }

  /// The choice stored for `key`, if there is one that `layer` allows:
  /// same shape, a variant the layer has (index and format/strategy), a
  /// library call it knows, an in-place kernel of that variant (and none
  /// in a row-major choice, no library call in a column-major one). An entry that does not is ignored with a
  /// warning.
  std::optional<TuningChoice> lookup(const TuningKey &key,
                                     const TuningLayer &layer);

  /// Records `choice` for `key` (replacing an entry of the same key) and
  /// merges it into the file. A failure to write is a warning, never an
  /// error.
  void store(const TuningKey &key, const TuningLayer &layer,
             const TuningChoice &choice);

  /// Drops the entry of `key` from what lookups see, until a store for
  /// the key replaces it (the caller found that it does not apply: `why`,
  /// which the warning gives).
  void reject(const TuningKey &key, const std::string &why);

  /// What tells one version of the cache file from another: every write
  /// renames a new file into place, which changes the change time (and
  /// usually the inode).
  struct FileStamp {
    uint64_t device = 0, inode = 0;
    int64_t size = 0, modifiedNs = 0, changedNs = 0;
    bool operator==(const FileStamp &other) const;
  };

private:
  /// Entries by their key's canonical text (canonicalKey).
  using EntryMap = std::map<std::string, TuningCacheEntry>;

  /// Reads the file into `out`, and sets `read` to the stamp of what was
  /// read (none when the file is missing or unusable). A missing file is
  /// an empty cache; anything else wrong with it is a file warning and an
  /// empty cache too.
  void readFile(EntryMap &out, std::optional<FileStamp> &read);

  /// Merges `entry` (of canonical key `id`) into the file under its lock:
  /// reads it again into `entries` if it changed since `stamp`, replaces or
  /// adds the entry there, and writes `entries` back. False with `error` set
  /// when the file cannot be written.
  bool merge(const std::string &id, const TuningCacheEntry &entry,
             std::string &error);

  /// Writes `entries` to the file (the caller holds the lock), the oldest
  /// but `keep` (the entry being stored) dropped past
  /// kTuningCacheMaxEntries, and fills in their lines. False with `error`
  /// set on failure.
  bool writeFile(EntryMap &entries, const std::string &keep,
                 std::string &error);

  /// A warning about the file itself, printed once per object.
  void warnFile(const std::string &message);

  /// A warning line on stderr about this cache.
  void warn(const std::string &message);

  const std::string path;
  std::mutex mutex;
  /// The file's entries as last read or written (plus this object's stores
  /// once the file proved unwritable); valid once `loaded`. `stamp` is
  /// that of the file they were read from or written to.
  EntryMap entries;
  bool loaded = false;
  std::optional<FileStamp> stamp;
  /// The canonical keys of entries found not to apply, which lookups skip
  /// until a store replaces them.
  std::set<std::string> rejected;
  /// Set once the file could not be written, so that later stores do not
  /// try (and warn) again.
  bool unwritable = false;
  bool warnedFile = false;
};

} // namespace spperm::runtime_detail

#endif // SPPERM_RUNTIME_LIB_TUNINGCACHE_H
