//===- CudaBackendImpl.h - The GPU backend of a package ---------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the runtime's GPU backend: the Backend that createCudaBackend
// (CudaBackend.h) makes for a package loaded for the GPU.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_RUNTIME_LIB_CUDABACKENDIMPL_H
#define SPPERM_RUNTIME_LIB_CUDABACKENDIMPL_H

#include "CudaBackend.h"
#include "CudaResources.h"
#include "CusparsePlan.h"
#include "DensePlan.h"
#include "KernelLaunch.h"
#include "TuningCache.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace spperm::runtime_detail {

/// The GPU backend of one loaded package (createCudaBackend). Its members
/// are defined by concern: the Backend calls in CudaBackend.cpp, loading in
/// CudaLoading.cpp, launching in CudaLaunch.cpp and the choices made at a
/// layer's first call in CudaDecisions.cpp.
class CudaBackend final : public Backend {
public:
  CudaBackend(const Driver &d, const Cusparse &sp) : d(d), sp(sp) {}

  ~CudaBackend() override;

  /// Creates the cuSPARSE handle, loads the package's module when a layer
  /// has generated kernels, uploads what each layer runs with, and opens
  /// the tuning cache the environment names.
  sprt_status init(const Package &package);

  sprt_status spmm(int64_t index, const PackageLayer &layer, const void *b,
                   int64_t k, void *c, void *stream) override;

  sprt_status time(const char *what, int64_t index, const PackageLayer &layer,
                   const std::string &variant, const void *b, int64_t k,
                   void *c, void *streamArg, int32_t warmup, int32_t runs,
                   float *timesMs) override;

  sprt_status accepts(int64_t index, const PackageLayer &layer,
                      int64_t k) override;

  /// The transposing kernel into `workspace` (or the stream's own), then
  /// what spmm runs, reading that; or, where the library call chosen reads
  /// a column-major B itself (dense SGEMM), that call alone
  /// (CudaLaunch.cpp); or, where the layer has in-place kernels for K and
  /// one of them was timed faster at the bucket's first column-major call,
  /// that kernel alone (CudaInPlace.cpp).
  sprt_status spmmColumnMajor(int64_t index, const PackageLayer &layer,
                              const void *b, int64_t k, void *c,
                              void *workspace, void *stream) override;

  bool acceptsColumnMajor(int64_t index, const PackageLayer &layer) override;

  /// The 1.5-D algorithm (CudaDistributed.cpp).
  sprt_status spmmAllgather(int64_t index, const PackageLayer &layer,
                            CommState &comm, const void *bLocal, int64_t k,
                            int64_t chunk, void *c, void *stream) override;

private:
  /// The cuSPARSE algorithm named `variant`, or null.
  static const Algorithm *findAlgorithm(const std::string &variant);

  //===--------------------------------------------------------------------===//
  // Loading (CudaLoading.cpp)
  //===--------------------------------------------------------------------===//

  /// Uploads `layer` as the CSR of its matrix in the original row order.
  sprt_status uploadCsr(const PackageLayer &layer, DeviceLayer &device);

  /// Loads the package's module, when some layer has generated kernels or
  /// a transposing kernel (loadModuleCode). A package whose layers all run
  /// through the library loads without it where it cannot be loaded.
  sprt_status loadModule(const Package &package);

  /// Loads the package's code: the cubin when the package's target is this
  /// device's compute capability, else kernels.ptx through the driver's
  /// JIT.
  sprt_status loadModuleCode(const Package &package);

  /// Uploads the arrays the generated kernels of `layer` take, looks the
  /// kernels up in the module and checks each against its manifest entry.
  /// `family` is the device layer whose variant `device` is (uploadArrays).
  sprt_status prepareKernels(const PackageLayer &layer, DeviceLayer &device,
                             const DeviceLayer &family);

  /// Sets `out` to `kernel` of `layer` in the module, checked against its
  /// manifest entry (checkParams) and its shared memory against the
  /// device's.
  sprt_status lookUpKernel(const PackageLayer &layer, const KernelInfo &kernel,
                           CUfunction &out);

  /// Looks up the in-place kernels of variant `layer` (PackageLayer::inPlaceB)
  /// into `device.inPlace`, each checked against its manifest entry; one
  /// whose shared memory exceeds what this GPU allows a block is left null
  /// (no candidate) instead of failing the load.
  sprt_status lookUpInPlaceKernels(const PackageLayer &layer,
                                   DeviceLayer &device);

  /// Puts the arrays the generated kernels of `layer` take into `device`
  /// (arrays, spans), unless they are there: an array that `layer` takes
  /// twice, or that a resident variant of `family` (the device layer whose
  /// variant `device` is) holds already, is shared (sameUpload); the
  /// others are uploaded. On failure `device` holds nothing.
  sprt_status uploadArrays(const PackageLayer &layer, DeviceLayer &device,
                           const DeviceLayer &family);

  /// Makes variant `which` of layer `index` resident (uploadArrays).
  sprt_status ensureResident(int64_t index, const PackageLayer &layer,
                             size_t which);

  /// After a decision of layer `index`: releases the arrays of its variants
  /// that no decided K bucket runs, unless SPRT_KEEP_VARIANTS=1. The
  /// layer's own variant stays once a decided bucket fell back on it
  /// (DeviceLayer::fallenBackTo).
  void releaseUnchosen(int64_t index, const PackageLayer &layer);

  /// Checks that `function` takes the parameters `kernel`'s args make (5
  /// per array, 1 for K, each of 8 bytes), where the driver can tell
  /// (cuFuncGetParamInfo, CUDA 12.4): a mismatch would make cuLaunchKernel
  /// read garbage.
  sprt_status checkParams(CUfunction function, const KernelInfo &kernel,
                          const std::string &where);

  //===--------------------------------------------------------------------===//
  // Launching (CudaLaunch.cpp)
  //===--------------------------------------------------------------------===//

  /// What identifies `stream` in the per-stream state (the prepared library
  /// calls, the ticket counters): its id
  /// (cuStreamGetId, CUDA 12.0), unique for the life of the process, so
  /// that the per-thread default streams of two threads
  /// (CU_STREAM_PER_THREAD, one handle) and a stream created where a
  /// destroyed one was are told apart; the handle where the driver has no
  /// stream ids, and (tagged with kCapturedStreamKey) while the stream is
  /// being captured into a CUDA graph, where cuStreamGetId would invalidate
  /// the capture.
  uint64_t streamKey(CUstream stream) const;
  /// The tag of a key made from the handle of a stream being captured into
  /// a CUDA graph (handles are user-space addresses, below 2^63).
  static constexpr uint64_t kCapturedStreamKey = uint64_t(1) << 63;

  /// Sets `out` to the ticket counters of `stream` (key `key`), allocated
  /// and cleared on that stream at its first use.
  sprt_status ticketsFor(CUstream stream, uint64_t key, DeviceSpan &out);
  /// Sets `out` to the fp32 accumulator of the stream of key `key`, at
  /// least `floats` long (grown at twice the size it had, at least).
  sprt_status accumulatorFor(uint64_t key, size_t floats, DeviceSpan &out);

  /// Sets `out.data` to the row-major B of the stream of key `key`, at
  /// least `bytes` long (grown as accumulatorFor).
  sprt_status rowMajorBFor(uint64_t key, size_t bytes, DeviceSpan &out);

  /// Enqueues one launch of `function` (`kernel` of `layer`, in plain
  /// stream order) on `grid` with the manifest's block and shared memory;
  /// a failure names the kernel and the layer.
  sprt_status launchKernel(CUfunction function, const KernelInfo &kernel,
                           std::array<int64_t, 3> grid, KernelParams &params,
                           const PackageLayer &layer, CUstream stream);

  /// Enqueues layer `index`'s transposing kernel on `stream`: column-major
  /// `b` (cols x k) into row-major `out`.
  sprt_status launchTranspose(const DeviceLayer &device,
                              const PackageLayer &layer, const void *b,
                              int64_t k, DeviceSpan out, CUstream stream);

  /// What C = A * B is for an empty matrix: nothing, or C = 0.
  std::function<sprt_status()> trivialLaunch(const DeviceLayer &layer,
                                             int64_t k, void *c,
                                             CUstream stream);

  /// Sets `launch` to the package's computation of layer `index` for B, C
  /// and `stream`: the generated kernels of the variant chosen for K's
  /// bucket, or the library call chosen for it, prepared for (index, k,
  /// stream); the choice is made first (makeDecision) when the bucket has
  /// none. `library`, when given, is set to the library call when one is
  /// the launch; `afterTranspose` as generatedLaunch's.
  sprt_status packageLaunch(int64_t index, const PackageLayer &layer,
                            const void *b, int64_t k, void *c,
                            CUstream stream,
                            std::function<sprt_status()> &launch,
                            LibraryPlan **library = nullptr,
                            bool afterTranspose = false);

  /// What is known of packageLaunch for layer `index` and K before it runs.
  struct KnownLaunch {
    /// It runs without a first-call decision (made already, or none
    /// needed).
    bool decided = true;
    /// The decided call is a library call that reads B column-major in
    /// place (libraryReadsColumnMajor).
    bool readsColumnMajor = false;
    /// The decided call is a library call (cuSPARSE or the dense
    /// candidate).
    bool library = false;
  };
  KnownLaunch knownLaunch(int64_t index, const PackageLayer &layer, int64_t k);

  /// The column-major call without in-place kernels: the transposing kernel
  /// into `workspace` (or a buffer of the stream's, or of the graph's while
  /// `captured`), then the row-major launch; or the library call that
  /// reads B column-major itself (`known`, knownLaunch's).
  sprt_status transposingLaunch(int64_t index, const PackageLayer &layer,
                                const void *b, int64_t k, void *c,
                                void *workspace, CUstream stream,
                                bool captured, const KnownLaunch &known);

  /// Sets `launch` to variant `which` of layer `index` (its generated
  /// kernels for K, or only C's clearing for an empty matrix), unchecked;
  /// SPRT_ERROR_UNSUPPORTED when the variant has no generated kernels for
  /// K.
  sprt_status variantLaunch(int64_t index, const PackageLayer &layer,
                            size_t which, const void *b, int64_t k, void *c,
                            CUstream stream,
                            std::function<sprt_status()> &launch,
                            bool afterTranspose = false);

  /// One kernel launch of a variant, its parameters bound.
  struct Step {
    CUfunction function;
    const KernelInfo *kernel;
    KernelParams params;
    /// Launched as the programmatic dependent of the kernel before, where
    /// the driver allows it: a kernel after the variant's first that is
    /// marked dependent_launch (it waits for the one before itself,
    /// griddepcontrol.wait, before it touches C); or the variant's first
    /// right after the layer's transposing kernel, when that is marked
    /// dependent_launch (every first kernel waits at its start).
    bool dependent = false;
    /// The CTAs in x at this call's K (KernelInfo::gridXFor).
    int64_t gridX = 1;
  };

  /// Sets `launch` to the kernels of `choice` for B, C and `stream`: C
  /// cleared first when the variant needs it, then each kernel in manifest
  /// order. `afterTranspose`: the launch follows the layer's transposing
  /// kernel, whose dependent the first kernel may be (Step::dependent).
  sprt_status generatedLaunch(const DeviceLayer &device,
                              const PackageLayer &layer,
                              const LaunchChoice &choice, const void *b,
                              int64_t k, void *c, CUstream stream,
                              std::function<sprt_status()> &launch,
                              bool afterTranspose = false);

  //===--------------------------------------------------------------------===//
  // In-place kernels for a column-major B (CudaInPlace.cpp)
  //===--------------------------------------------------------------------===//

  /// SPRT_IN_PLACE_B (read by init): whether column-major calls time the
  /// layers' in-place kernels against the transposing path (auto, the
  /// default), never run them, or always run the fastest of them where a
  /// layer has one for K (for tests and A/B measurements).
  enum class InPlaceMode { Auto, Never, Always };
  static sprt_status inPlaceModeFromEnvironment(InPlaceMode &mode);

  /// One in-place kernel of layer `index`: its variant and its place in
  /// that variant's PackageLayer::inPlaceB; kernel -1: none (the
  /// transposing path).
  struct InPlaceChoice {
    size_t variant = 0;
    int64_t kernel = -1;
  };

  /// The in-place kernels of layer `index` that take K and that this GPU
  /// can run (their shared memory within its limit).
  std::vector<InPlaceChoice> inPlaceCandidates(int64_t index,
                                               const PackageLayer &layer,
                                               int64_t k) const;

  /// Enqueues in-place kernel `choice` of layer `index` on `stream`, its
  /// variant's arrays made resident first.
  sprt_status launchInPlace(int64_t index, const PackageLayer &layer,
                            const InPlaceChoice &choice, const void *b,
                            int64_t k, void *c, CUstream stream);

  /// The tuning cache's column-major choice for layer `index` and K, if
  /// it names the transposing path or one of `candidates` (the others are
  /// rejected, to be timed again). Mode auto only.
  std::optional<InPlaceChoice>
  recallInPlace(int64_t index, const PackageLayer &layer,
                const std::vector<InPlaceChoice> &candidates, int64_t k);

  /// The tuning key of layer `index`'s column-major choice for K.
  TuningKey inPlaceTuningKey(int64_t index, const PackageLayer &layer,
                             int64_t k);

  /// The first column-major call of layer `index` for K: runs the
  /// transposing path once (which makes the row-major decision when there
  /// is none), then times it and each of `candidates` as CUDA graphs run
  /// them (medianTimes, TimingMode::Graph; queued when the row-major call
  /// is the library's), keeps the fastest in-place kernel where its median is at
  /// most kCheckTieRatio of the transposing path's (mode auto; the fastest
  /// whatever the transposing path takes in mode always), records it in
  /// inPlaceDecisions and the tuning cache, and enqueues what it chose
  /// once more, so that C is its result; a choice in the tuning cache
  /// (recallInPlace) is taken without timing. SPPERM_LOG_CHOICES=1 prints
  /// the times.
  sprt_status decideInPlace(int64_t index, const PackageLayer &layer,
                            const std::vector<InPlaceChoice> &candidates,
                            const void *b, int64_t k, void *c,
                            void *workspace, CUstream stream);

  //===--------------------------------------------------------------------===//
  // Choosing at the first call (CudaDecisions.cpp)
  //===--------------------------------------------------------------------===//

  /// The library check's timed runs per side, and how much faster than the
  /// library the generated kernels must be to be kept (their median at
  /// most this ratio of cuSPARSE's).
  static constexpr int kCheckRuns = 15;
  static constexpr float kCheckTieRatio = 0.98f;

  /// The library check: chooses the library's fastest call (choosePlan),
  /// then times it
  /// (1 warm-up, kCheckRuns queued runs) and `generated` (1 warm-up,
  /// kCheckRuns runs before the library's and kCheckRuns after) on this
  /// call's operands; sets `libraryPlan` to cuSPARSE's plan unless the
  /// generated kernels' median is at most kCheckTieRatio of the library's,
  /// else leaves it null. A layer cuSPARSE cannot run keeps its kernels
  /// (and the caller's last error); `libraryUntimedOut`, when given, is set
  /// when that was for want of device memory.
  sprt_status checkAgainstLibrary(const DeviceLayer &device, const void *b,
                                  int64_t k, void *c, CUstream stream,
                                  const std::function<sprt_status()> &generated,
                                  std::unique_ptr<LibraryPlan> &libraryPlan,
                                  float *generatedOut = nullptr,
                                  float *libraryOut = nullptr,
                                  std::string *libraryNameOut = nullptr,
                                  bool *libraryUntimedOut = nullptr);

  /// What runs a layer for a K bucket, on every stream: for a checked layer
  /// the
  /// variant whose generated kernels run (0: the layer's own, n: its
  /// alternative n); and the library's call (a LibraryPlan variant name)
  /// instead when that was faster than them, or for a library layer;
  /// empty when the generated kernels run.
  struct Decision {
    size_t variant = 0;
    std::string library;
    /// The library could not be timed against the variant (no device
    /// memory for it): the choice holds for this process only, and is not
    /// stored in the tuning cache.
    bool libraryUntimed = false;
  };

  /// What a first-call decision is remembered by: the layer, its own
  /// variant for K ("" for a library layer) and the K bucket (kBucket). Not
  /// the stream: every stream runs what the first call chose (only the
  /// library call's descriptors and workspace are per stream), and a
  /// server whose K changes with every batch decides once per bucket, not
  /// once per K (RuntimeABI.md).
  using DecisionKey = std::tuple<int64_t, std::string, int64_t>;

  /// The K bucket of `k` for `layer`: k itself for a layer compiled for one
  /// K, else the power of two at least k.
  static int64_t kBucket(const PackageLayer &layer, int64_t k);

  /// Makes the decision for layer `index` at the first call for a K bucket
  /// (`choice` is the layer's own launch choice for K): takes the tuning
  /// cache's entry when there is one that applies (recall), else times the
  /// candidates (decide for a checked layer, choosePlan for a library
  /// layer) and stores the outcome in the cache. `launch` is variant 0's
  /// launch of a checked layer on entry; `plan` is set to the library's
  /// call, prepared for K and `stream`, when the library runs.
  sprt_status makeDecision(int64_t index, const PackageLayer &layer,
                           const LaunchChoice &choice, const void *b,
                           int64_t k, void *c, CUstream stream,
                           std::function<sprt_status()> &launch, Decision &out,
                           std::unique_ptr<LibraryPlan> &plan);

  /// Applies the tuning cache's `cached` choice for layer `index` and K if
  /// it can run here: a library layer's entry must name a library call, a
  /// generated variant must have kernels for K, and a library call must be
  /// preparable for K (it is, into `plan`). Sets `applies`; an entry that
  /// does not apply is rejected (a warning) and leaves the caller's last
  /// error alone. An entry whose library call does not fit on the device
  /// now does not apply and is kept; running out of device memory is
  /// returned only for a library layer.
  sprt_status recall(int64_t index, const PackageLayer &layer,
                     const LaunchChoice &choice, const TuningKey &key,
                     const TuningChoice &cached, const void *b, int64_t k,
                     void *c, CUstream stream, Decision &out,
                     std::unique_ptr<LibraryPlan> &plan, bool &applies);

  /// The tuning cache's key of layer `index` for K (its own launch choice
  /// `choice`).
  TuningKey tuningKey(int64_t index, const PackageLayer &layer,
                      const LaunchChoice &choice, int64_t k);

  /// What a cache entry of `layer` must agree with.
  static TuningLayer tuningLayer(const PackageLayer &layer);

  /// Whether dense GEMM on the densified matrix is a candidate for
  /// `layer`: it computes the layer (denseComputes), the matrix fits the
  /// budget and cuBLAS loads.
  bool denseCandidate(const DeviceLayer &layer) const;

  /// libraryPlan for a call on `stream`; while `stream` is being captured
  /// into a CUDA graph (any capture mode), prepared on a stream of the
  /// backend's outside the graph and bound to `stream` after.
  sprt_status streamLibraryPlan(const DeviceLayer &layer,
                                const std::string &name, const void *b,
                                int64_t k, void *c, CUstream stream,
                                std::unique_ptr<LibraryPlan> &out);

  /// Sets `out` to the library call `name` (a cuSPARSE algorithm or
  /// denseVariantOf the layer's type) prepared for `layer`, K and
  /// `stream`: a candidate or a baseline (sprt_spmm_time). `owner`, when
  /// given, is the stream whose per-stream state (the dense plans' cuBLAS
  /// workspace) the plan takes, where it is prepared on another stream
  /// for it (streamLibraryPlan).
  sprt_status libraryPlan(const DeviceLayer &layer, const std::string &name,
                          const void *b, int64_t k, void *c, CUstream stream,
                          std::unique_ptr<LibraryPlan> &out,
                          CUstream owner = nullptr);

  /// Decides for a checked layer at its first call for (K, stream): with
  /// alternatives, times every variant that accepts K (its generated
  /// kernels, 1 warm-up and kCheckRuns runs each, then kCheckRuns more in
  /// the reverse order, so that a clock ramp favours none; medians) and
  /// takes the fastest; then checks it against the library
  /// (checkAgainstLibrary). `launch` is variant 0's launch on entry and the
  /// chosen variant's on return; `plan` is the library's call when it won. SPPERM_LOG_CHOICES=1 prints the times and
  /// the decision on stderr.
  sprt_status decide(int64_t index, const PackageLayer &layer, const void *b,
                     int64_t k, void *c, CUstream stream,
                     std::function<sprt_status()> &launch, Decision &out,
                     std::unique_ptr<LibraryPlan> &plan);

  /// SPPERM_LOG_CHOICES=1: every first-call decision on stderr (read at
  /// each decision).
  static bool logChoices();

  /// Prepares every library call that applies to K and computes the layer
  /// (cusparseComputes, denseComputes), times each (1 warm-up,
  /// kCheckRuns queued runs, median), and keeps the fastest. An algorithm
  /// that fails (cuSPARSE refuses some for some shapes, not always with
  /// NOT_SUPPORTED) is skipped
  /// without touching the caller's last error, unless none works; running
  /// out of memory is returned at once. `timesOut`, when given, gets each
  /// candidate's "NAME MEDIAN ms;" (for SPPERM_LOG_CHOICES).
  sprt_status choosePlan(const DeviceLayer &layer, const void *b, int64_t k,
                         void *c, CUstream stream,
                         std::unique_ptr<LibraryPlan> &out,
                         std::string *timesOut = nullptr);

  /// Sets `out` to the dense candidate of `layer` for K and `stream`, or
  /// to null when the layer has none: its densified matrix would exceed
  /// the budget (denseBudgetBytes; 0 turns the candidate off), or
  /// cuBLAS (or cusparseSparseToDense) is not there. The densified matrix
  /// is built at the first call and kept with the layer.
  /// The plan runs on `stream` with the cuBLAS workspace of `owner`
  /// (blasWorkspaceFor).
  sprt_status densePlan(const DeviceLayer &layer, int64_t k, CUstream stream,
                        CUstream owner, std::unique_ptr<DensePlan> &out);

  /// Sets `out` to a cuBLAS workspace of at least `bytes` for a dense plan
  /// of the stream `key` (streamKey): the stream's (kDenseWorkspaceBytes),
  /// allocated at its first plan that needs one and freed with the last
  /// that holds it; for a stream being captured, one of the plan's own.
  sprt_status blasWorkspaceFor(uint64_t key, size_t bytes,
                               std::shared_ptr<DeviceBuffer> &out);

  /// Reads the dense candidate's budget in bytes (0: none) from
  /// $SPPERM_DENSE_BUDGET_MB; a value that is not a number of MiB is an
  /// error.
  static sprt_status denseBudget(int64_t &bytes);

  const Driver &d;
  const Cusparse &sp;
  cusparseHandle_t handle = nullptr;
  /// The package's generated kernels (null when no layer has any), and the
  /// file it came from, for messages.
  CUmodule module = nullptr;
  std::string moduleFile;
  std::vector<DeviceLayer> layers;
  /// Serializes the calls on this package (they share the handle, the
  /// plans and the decisions; the work itself is only enqueued while it is
  /// held). A first call that decides holds it while it times, so that
  /// concurrent first calls of the same bucket wait and then reuse its
  /// decision instead of timing again.
  std::mutex mutex;
  /// What runs per (layer, K bucket), whatever the stream: the library
  /// call of a library layer; for a layer with the library check, the
  /// variant that won, or the library's call if that was faster.
  std::map<DecisionKey, Decision> decisions;
  /// A library plan's key: the layer's index, K and the stream (streamKey).
  using PlanKey = std::tuple<int64_t, int64_t, uint64_t>;
  /// The library calls prepared per (layer, K, stream), for the decisions
  /// that run the library (descriptors and workspace depend on K, and a
  /// stream's calls must not share a workspace with another's).
  std::map<PlanKey, std::unique_ptr<LibraryPlan>> libraryPlans;
  /// The (layer, K, stream) whose decided library call the library refused
  /// (not for want of memory): the checked layer's own kernels run there.
  std::set<PlanKey> refusedPlans;
  /// The ticket counters (call_arg::kTickets) per stream (streamKey): launches on
  /// one stream run one after the other and leave them at zero, so one pair
  /// serves every kernel of the package on that stream.
  std::map<uint64_t, DeviceBuffer> tickets;
  /// The fp32 accumulator (call_arg::kAccumulator) per stream (streamKey),
  /// as large as the largest call on that stream has needed: launches on
  /// one stream run one after the other, so one buffer serves every 16-bit
  /// layer of the package there. An outgrown buffer is kept until the
  /// package is unloaded: launches still in flight, or captured into a
  /// CUDA graph, may use it.
  struct Accumulator {
    DeviceBuffer buffer;
    size_t floats = 0;
    std::vector<DeviceBuffer> outgrown;
  };
  std::map<uint64_t, Accumulator> accumulators;
  /// Sets `out` to `scratch`'s buffer, grown first (to twice its size, at
  /// least) when it holds fewer than `bytes`; an outgrown buffer is kept
  /// with it.
  static sprt_status growScratch(const Driver &d, Accumulator &scratch,
                                 size_t bytes, void *&out);
  /// The row-major B of column-major calls without a workspace of the
  /// caller's, per stream (streamKey), kept as the accumulators are (their
  /// `floats` counts 4-byte words).
  std::map<uint64_t, Accumulator> rowMajorBs;
  /// The tuning cache ($SPRT_TUNING_CACHE, ...; disabled when the GPU's
  /// identity cannot be read), and the fields of its keys that are the
  /// same for every layer (the package, the GPU, the driver, cuSPARSE, the
  /// ABI).
  std::unique_ptr<TuningCache> tuning;
  TuningKey tuningBase;
  /// The dense candidate's budget, read by init.
  int64_t denseBudgetBytes = 0;
  /// SPRT_KEEP_VARIANTS=1 (read by init): keep every variant's arrays on
  /// the device after the decisions (releaseUnchosen).
  bool keepVariants = false;
  /// SPRT_IN_PLACE_B (read by init).
  InPlaceMode inPlaceMode = InPlaceMode::Auto;
  /// What column-major calls run per (layer, K) where the layer has
  /// in-place kernels for K (chosen per exact K), whatever the
  /// stream; made at the first column-major call for K (decideInPlace),
  /// or taken from the tuning cache there.
  std::map<std::pair<int64_t, int64_t>, InPlaceChoice> inPlaceDecisions;
  /// The process's cuBLAS and cuBLASLt handles (sharedCublasHandles, asked
  /// for at the first dense candidate) and each layer's densified matrix
  /// (by its DeviceLayer, which never moves after init).
  const Cublas *blas = nullptr;
  cublasHandle_t blasHandle = nullptr;
  cublasLtHandle_t ltHandle = nullptr;
  std::map<const DeviceLayer *, DeviceBuffer> denseMatrices;
  /// The dense plans' cuBLAS workspace per stream (streamKey; not for
  /// streams being captured, whose plans have their own): a stream's calls
  /// run one after the other, so its plans share one; another stream's,
  /// running at the same time, must not (cuBLAS's own default pool is not
  /// used: a capture allocates from it inside the graph). Held by the
  /// plans (DensePlan::setWorkspace).
  std::map<uint64_t, std::weak_ptr<DeviceBuffer>> blasWorkspaces;
};

} // namespace spperm::runtime_detail

#endif // SPPERM_RUNTIME_LIB_CUDABACKENDIMPL_H
