//===- KernelLaunchTests.cpp - The generated-kernel path ---------*- C++
//-*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The runtime's launch path for generated kernels. Everywhere: the choice of
// a variant for K, the kernel parameters in the memref-descriptor ABI, the
// target check that decides between cubin and PTX, and layerBuffers (the
// name -> array list the uploads use) against the buffers the writer
// records. On a GPU (skipped, visibly, elsewhere): packages whose layers carry
// the hand-written kernels of Inputs/test_kernels.ptx, run through sprt_spmm
// and sprt_spmm_time and compared with spmmCpu, and the load errors (a
// kernel the module lacks, a cubin for this GPU that does not load, a kernel
// whose parameters do not match its args).
//
//===----------------------------------------------------------------------===//

#include "KernelLaunch.h"

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/Package.h"

#include "RuntimeTestUtil.h"

#include "gtest/gtest.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace spperm;
using namespace spperm::runtime_detail;
using spperm::test::DeviceArray;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Scratch directories come from the sparse core's test helpers, the
/// hand-written kernels (Inputs/test_kernels.cu) from the runtime's.
using ::spperm::test::ScratchDir;
using ::spperm::test::readWholeFile;
using ::spperm::test::ScopedEnv;
using ::spperm::test::testInPlaceKernel;
using ::spperm::test::testKernel;
using ::spperm::test::testTransposeKernel;
using ::spperm::test::testKernels;
using ::spperm::test::testPtx;

/// A kernel of variant `variant` for K in [kMin, kMax] (0 = no bound) and
/// K % kAlign == 0.
KernelInfo kernel(const std::string &name, const std::string &variant,
                  int64_t kMin = 1, int64_t kMax = 0, int64_t kAlign = 1,
                  bool zeroOutput = false) {
  KernelInfo k;
  k.name = name;
  k.family = "csr";
  k.variant = variant;
  k.kMin = kMin;
  k.kMax = kMax;
  k.kAlign = kAlign;
  k.zeroOutput = zeroOutput;
  return k;
}

/// A package layer of `m` (strategy `s`, format `kind`); bell and hbp also
/// carry their permuted CSR, which the test kernels read.
PackageLayer makeLayer(const std::string &name, const CsrMatrix &m, Strategy s,
                       FormatKind kind) {
  PackageLayer layer;
  layer.name = name;
  layer.permutation.strategy = s;
  layer.permutation.warps = 4;
  layer.format.kind = kind;
  layer.format.bellBlock = 4;
  layer.format.hbpRowBlock = 64;
  layer.format.hbpColBlock = 16;
  layer.format.hbpWarps = 4;
  StatusOr<Permutation> perm = computePermutation(m, layer.permutation);
  EXPECT_TRUE(perm) << perm.message();
  StatusOr<FormattedMatrix> f = buildFormat(m, perm->order, layer.format);
  EXPECT_TRUE(f) << f.message();
  layer.matrix = std::move(*f);
  if (kind != FormatKind::Csr)
    layer.matrix.csr = permuteRows(m, layer.matrix.order);
  layer.sourcePath = name + ".mtx";
  layer.values.mode = ValueMode::File;
  return layer;
}

std::vector<float> randomDense(int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(count));
  for (float &x : v)
    x = u(rng);
  return v;
}

/// ||got - want|| / ||want|| (Frobenius; absolute when want is 0).
double relativeError(const std::vector<float> &got,
                     const std::vector<float> &want) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    diff += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
    norm += double(want[i]) * want[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

//===----------------------------------------------------------------------===//
// Choosing the kernels for K
//===----------------------------------------------------------------------===//

TEST(ChooseLaunchTest, LayerWithoutKernelsRunsThroughCusparse) {
  PackageLayer layer;
  layer.name = "plain";
  LaunchChoice choice;
  ASSERT_EQ(chooseLaunch(layer, 7, choice), SPRT_OK);
  EXPECT_TRUE(choice.cusparse);
  EXPECT_TRUE(choice.kernels.empty());
  EXPECT_FALSE(hasGeneratedKernels(layer));
  EXPECT_TRUE(mayRunLibrary(layer));
}

TEST(ChooseLaunchTest, FirstAcceptingKernelPicksTheVariant) {
  PackageLayer layer;
  layer.name = "fc1";
  // vec4 (two launches, interleaved with the others in the manifest) for
  // K % 4 == 0 up to 128; small for K <= 8; general for any K.
  layer.kernels = {kernel("vec4_main", "vec4", 4, 128, 4, true),
                   kernel("small", "small", 1, 8),
                   kernel("vec4_tail", "vec4", 4, 128, 4),
                   kernel("general", "general")};
  EXPECT_TRUE(hasGeneratedKernels(layer));
  EXPECT_FALSE(mayRunLibrary(layer));

  struct Case {
    int64_t k;
    const char *variant;
    std::vector<size_t> kernels;
    bool zeroOutput;
  } cases[] = {{1, "small", {1}, false},    {4, "vec4", {0, 2}, true},
               {6, "small", {1}, false},    {12, "vec4", {0, 2}, true},
               {13, "general", {3}, false}, {128, "vec4", {0, 2}, true},
               {132, "general", {3}, false}};
  for (const Case &c : cases) {
    SCOPED_TRACE("K = " + std::to_string(c.k));
    LaunchChoice choice;
    ASSERT_EQ(chooseLaunch(layer, c.k, choice), SPRT_OK);
    EXPECT_FALSE(choice.cusparse);
    EXPECT_EQ(choice.variant, c.variant);
    EXPECT_EQ(choice.kernels, c.kernels);
    EXPECT_EQ(choice.zeroOutput, c.zeroOutput);
  }
}

TEST(ChooseLaunchTest, CusparseVariant) {
  PackageLayer layer;
  layer.name = "fc2";
  layer.kernels = {kernel("cusparse", "cusparse", 1, 1),
                   kernel("rows", "rows")};
  EXPECT_TRUE(hasGeneratedKernels(layer));
  EXPECT_TRUE(mayRunLibrary(layer));
  LaunchChoice choice;
  ASSERT_EQ(chooseLaunch(layer, 1, choice), SPRT_OK);
  EXPECT_TRUE(choice.cusparse);
  EXPECT_EQ(choice.variant, "cusparse");
  EXPECT_TRUE(choice.kernels.empty());
  ASSERT_EQ(chooseLaunch(layer, 2, choice), SPRT_OK);
  EXPECT_FALSE(choice.cusparse);
  EXPECT_EQ(choice.kernels, std::vector<size_t>{1});

  PackageLayer onlyCusparse;
  onlyCusparse.kernels = {kernel("cusparse", "cusparse")};
  EXPECT_FALSE(hasGeneratedKernels(onlyCusparse));
  EXPECT_TRUE(mayRunLibrary(onlyCusparse));

  // A 16-bit layer of fp32 values never runs cuSPARSE (which multiplies A
  // and B of one type): a K that would is refused, its generated kernels
  // run.
  layer.operandType = ValueType::BF16;
  EXPECT_FALSE(cusparseComputes(layer.operandType, layer.valueType));
  EXPECT_FALSE(mayRunLibrary(layer));
  ASSERT_EQ(chooseLaunch(layer, 1, choice), SPRT_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(sprt_last_error())
                .find("layer 'fc2' takes bf16 B and C with f32 values and "
                      "runs cuSPARSE for this K, which multiplies A and B of "
                      "one type"),
            std::string::npos)
      << sprt_last_error();
  ASSERT_EQ(chooseLaunch(layer, 2, choice), SPRT_OK);
  EXPECT_FALSE(choice.cusparse);
  PackageLayer noKernels;
  noKernels.operandType = ValueType::F16;
  EXPECT_EQ(chooseLaunch(noKernels, 4, choice), SPRT_ERROR_UNSUPPORTED);

  // With values of its type, cuSPARSE computes it (C rounded once, as
  // the generated kernels round it).
  layer.valueType = ValueType::BF16;
  EXPECT_TRUE(cusparseComputes(layer.operandType, layer.valueType));
  EXPECT_TRUE(mayRunLibrary(layer));
  ASSERT_EQ(chooseLaunch(layer, 1, choice), SPRT_OK);
  EXPECT_TRUE(choice.cusparse);
  noKernels.valueType = ValueType::F16;
  ASSERT_EQ(chooseLaunch(noKernels, 4, choice), SPRT_OK);
  EXPECT_TRUE(choice.cusparse);
}

TEST(ChooseLaunchTest, GpuOperandAlignment) {
  // fp32: 16-byte vectors when K % 4 == 0, else one float.
  EXPECT_EQ(gpuOperandAlignment(4, 32), 16);
  EXPECT_EQ(gpuOperandAlignment(4, 12), 16);
  EXPECT_EQ(gpuOperandAlignment(4, 7), 4);
  // 16-bit: 8 elements (16 bytes) when K % 8 == 0, 4 (8 bytes) when
  // K % 4 == 0, else one.
  EXPECT_EQ(gpuOperandAlignment(2, 64), 16);
  EXPECT_EQ(gpuOperandAlignment(2, 12), 8);
  EXPECT_EQ(gpuOperandAlignment(2, 1), 2);
  EXPECT_EQ(gpuOperandAlignment(2, 6), 2);
}

TEST(ChooseLaunchTest, LibraryCandidatesByElementType) {
  // fp32 layers: cuSPARSE and the dense GEMM both compute them.
  EXPECT_TRUE(cusparseComputes(ValueType::F32, ValueType::F32));
  EXPECT_TRUE(denseComputes(ValueType::F32, ValueType::F32));
  // 16-bit layers: cuSPARSE and the dense GEMM (fp32 partial sums, C
  // rounded once) when the values are of B's type.
  for (ValueType t : {ValueType::F16, ValueType::BF16}) {
    EXPECT_TRUE(cusparseComputes(t, t));
    EXPECT_FALSE(cusparseComputes(t, ValueType::F32));
    EXPECT_TRUE(denseComputes(t, t));
    EXPECT_FALSE(denseComputes(t, ValueType::F32));
  }
  EXPECT_FALSE(denseComputes(ValueType::F16, ValueType::BF16));
  // Which cuSPARSE algorithms round a 16-bit C once (the others are
  // baselines): every fp32 one; of f16 and bf16, SpMV and CSR_ALG3.
  for (const char *name :
       {"cusparse-spmm-default", "cusparse-spmm-csr-alg2",
        "cusparse-spmm-csr-alg3", "cusparse-spmv-default",
        "cusparse-spmv-csr-alg1", "cusparse-spmv-csr-alg2"})
    EXPECT_TRUE(cusparseRoundsOnce(name, ValueType::F32)) << name;
  for (ValueType t : {ValueType::F16, ValueType::BF16}) {
    EXPECT_FALSE(cusparseRoundsOnce("cusparse-spmm-default", t));
    EXPECT_FALSE(cusparseRoundsOnce("cusparse-spmm-csr-alg2", t));
    EXPECT_TRUE(cusparseRoundsOnce("cusparse-spmm-csr-alg3", t));
    EXPECT_TRUE(cusparseRoundsOnce("cusparse-spmv-default", t));
    EXPECT_TRUE(cusparseRoundsOnce("cusparse-spmv-csr-alg1", t));
    EXPECT_TRUE(cusparseRoundsOnce("cusparse-spmv-csr-alg2", t));
  }

  // A checked 16-bit layer keeps its CSR on the device for the dense
  // candidate; with fp32 values (a baseline only) it does not.
  PackageLayer layer;
  layer.name = "fc3";
  layer.kernels = {kernel("rows", "rows")};
  layer.libraryCheck = true;
  layer.operandType = ValueType::BF16;
  layer.valueType = ValueType::BF16;
  EXPECT_TRUE(mayRunLibrary(layer));
  layer.valueType = ValueType::F32;
  EXPECT_FALSE(mayRunLibrary(layer));
  layer.operandType = ValueType::F32;
  EXPECT_TRUE(mayRunLibrary(layer));
  layer.libraryCheck = false;
  EXPECT_FALSE(mayRunLibrary(layer));
}

TEST(ChooseLaunchTest, NoKernelAcceptsK) {
  PackageLayer layer;
  layer.name = "x";
  layer.kernels = {kernel("vec4", "vec4", 4, 0, 4),
                   kernel("narrow", "narrow", 8, 16)};
  LaunchChoice choice;
  choice.variant = "untouched";
  ASSERT_EQ(chooseLaunch(layer, 3, choice), SPRT_ERROR_UNSUPPORTED);
  EXPECT_EQ(choice.variant, "untouched");
  const std::string message = sprt_last_error();
  EXPECT_NE(message.find("layer 'x': no generated kernel accepts K = 3"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("4 <= K, K % 4 == 0"), std::string::npos) << message;
  EXPECT_NE(message.find("8 <= K <= 16"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

// A variant is chosen only where every one of its kernels accepts K: a
// kernel whose K bound its sibling lacks (another producer's manifest),
// or whose grid cannot reach K, passes the choice on to the next variant.
TEST(ChooseLaunchTest, EveryKernelOfTheVariantAcceptsK) {
  PackageLayer layer;
  layer.name = "fc2";
  layer.kernels = {kernel("wide_main", "wide", 1, 0),
                   kernel("wide_tail", "wide", 1, 64),
                   kernel("general", "general")};
  struct Case {
    int64_t k;
    const char *variant;
    std::vector<size_t> kernels;
  } cases[] = {{1, "wide", {0, 1}}, {64, "wide", {0, 1}}, {65, "general", {2}}};
  for (const Case &c : cases) {
    SCOPED_TRACE("K = " + std::to_string(c.k));
    LaunchChoice choice;
    ASSERT_EQ(chooseLaunch(layer, c.k, choice), SPRT_OK);
    EXPECT_EQ(choice.variant, c.variant);
    EXPECT_EQ(choice.kernels, c.kernels);
  }
}

// A grid that grows with K and has no k_max (a manifest not written by
// spperm-compile, which bounds it) accepts K only as far as the grid
// reaches within 2^31 - 1 CTAs; past it the launch would be cut short and
// leave columns of C unwritten, so the call is refused instead.
TEST(ChooseLaunchTest, GridThatCannotReachKIsNotChosen) {
  PackageLayer layer;
  layer.name = "r512";
  KernelInfo k = kernel("rows", "r512", 1, 0);
  k.args = {"B", "C", "K"};
  k.gridBase = 1;
  k.gridCtas = int64_t{1} << 29; // 3 slices fit: K up to 3 * 128.
  k.gridColumns = 128;
  k.gridX = k.gridBase + k.gridCtas;
  layer.kernels = {k};
  EXPECT_EQ(k.gridReachK(), 3 * 128);
  EXPECT_EQ(k.gridXFor(3 * 128), 1 + 3 * (int64_t{1} << 29));
  LaunchChoice choice;
  EXPECT_EQ(chooseLaunch(layer, 3 * 128, choice), SPRT_OK) << sprt_last_error();
  ASSERT_EQ(chooseLaunch(layer, 3 * 128 + 1, choice), SPRT_ERROR_UNSUPPORTED);
  const std::string message = sprt_last_error();
  EXPECT_NE(message.find("no generated kernel accepts K = 385"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("1 <= K, K <= 384 (its grid's reach)"),
            std::string::npos)
      << message;
  // With a fallback variant, that one runs.
  layer.kernels.push_back(kernel("general", "general"));
  ASSERT_EQ(chooseLaunch(layer, 3 * 128 + 1, choice), SPRT_OK);
  EXPECT_EQ(choice.variant, "general");

  // The grid's kernel second in its variant refuses K for the whole
  // variant, whose first kernel accepts any K.
  layer.kernels = {kernel("long_rows", "r512"), k, kernel("general", "general")};
  ASSERT_EQ(chooseLaunch(layer, 3 * 128, choice), SPRT_OK);
  EXPECT_EQ(choice.variant, "r512");
  EXPECT_EQ(choice.kernels, (std::vector<size_t>{0, 1}));
  ASSERT_EQ(chooseLaunch(layer, 3 * 128 + 1, choice), SPRT_OK);
  EXPECT_EQ(choice.variant, "general");
  EXPECT_EQ(choice.kernels, (std::vector<size_t>{2}));

  // Where k_max is the tighter bound, the message gives k_max alone.
  layer.kernels = {k};
  layer.kernels[0].kMax = 256;
  ASSERT_EQ(chooseLaunch(layer, 300, choice), SPRT_ERROR_UNSUPPORTED);
  const std::string bounded = sprt_last_error();
  EXPECT_NE(bounded.find("1 <= K <= 256)"), std::string::npos) << bounded;
  EXPECT_EQ(bounded.find("reach"), std::string::npos) << bounded;
}

//===----------------------------------------------------------------------===//
// Kernel parameters
//===----------------------------------------------------------------------===//

TEST(KernelParamsTest, MemrefDescriptorsAndK) {
  int dummy[4];
  KernelParams params;
  params.addMemref({&dummy[0], 4});
  params.addInt64(-3);
  params.addMemref({nullptr, 0});
  ASSERT_EQ(params.size(), 11u);
  const int64_t address = reinterpret_cast<int64_t>(&dummy[0]);
  const int64_t want[] = {address, address, 0, 4, 1, -3, 0, 0, 0, 0, 1};
  void **pointers = params.pointers();
  for (size_t i = 0; i < params.size(); ++i) {
    SCOPED_TRACE("parameter " + std::to_string(i));
    EXPECT_EQ(params.value(i), want[i]);
    // cuLaunchKernel reads each parameter's 8 bytes through its pointer.
    EXPECT_EQ(*static_cast<int64_t *>(pointers[i]), want[i]);
  }
}

TEST(KernelParamsTest, BindFollowsTheArgs) {
  KernelInfo k = kernel("spmm", "rows");
  k.args = {"order", "csr.row_ptr", "B", "C", "K"};
  EXPECT_EQ(paramCount(k.args), 21u);
  int order[3], rowPtr[4];
  float b[10], c[6];
  std::map<std::string, DeviceSpan, std::less<>> arrays = {
      {"order", {order, 3}}, {"csr.row_ptr", {rowPtr, 4}}};
  LaunchOperands operands{{b, 10}, {c, 6}, 2};
  KernelParams params;
  ASSERT_EQ(bindKernelParams("fc1", k, arrays, operands, params), SPRT_OK);
  ASSERT_EQ(params.size(), 21u);
  auto address = [](const void *p) { return reinterpret_cast<int64_t>(p); };
  // clang-format off
  const int64_t want[] = {
      address(order),  address(order),  0, 3,  1, // order
      address(rowPtr), address(rowPtr), 0, 4,  1, // csr.row_ptr
      address(b),      address(b),      0, 10, 1, // B
      address(c),      address(c),      0, 6,  1, // C
      2};                                         // K
  // clang-format on
  for (size_t i = 0; i < params.size(); ++i)
    EXPECT_EQ(params.value(i), want[i]) << "parameter " << i;

  k.args = {"order", "csr.col_idx", "C"};
  KernelParams untouched;
  untouched.addInt64(5);
  ASSERT_EQ(bindKernelParams("fc1", k, arrays, operands, untouched),
            SPRT_ERROR_CORRUPT_PACKAGE);
  EXPECT_EQ(untouched.size(), 1u);
  EXPECT_STREQ(sprt_last_error(), "layer 'fc1': kernel 'spmm' takes "
                                  "'csr.col_idx', which is not an array of "
                                  "the layer");
}

// The ticket counters come from the call (one pair per stream), not from
// the layer's arrays.
TEST(KernelParamsTest, TicketsComeFromTheOperands) {
  KernelInfo k = kernel("hbp", "vec4");
  k.args = {"order", "C", std::string(call_arg::kTickets), "K"};
  EXPECT_TRUE(takesTickets(k));
  EXPECT_FALSE(takesTickets(kernel("csr", "vec4")));
  int order[3], tickets[2];
  float c[6];
  std::map<std::string, DeviceSpan, std::less<>> arrays = {
      {"order", {order, 3}}};
  LaunchOperands operands{{nullptr, 0}, {c, 6}, 2, {tickets, 2}};
  KernelParams params;
  ASSERT_EQ(bindKernelParams("h", k, arrays, operands, params), SPRT_OK);
  ASSERT_EQ(params.size(), 16u);
  EXPECT_EQ(params.value(10), reinterpret_cast<int64_t>(tickets));
  EXPECT_EQ(params.value(13), 2);
  EXPECT_EQ(params.value(15), 2);
  // A layer array of that name does not stand in for them.
  arrays["tickets"] = {order, 3};
  ASSERT_EQ(bindKernelParams("h", k, arrays, operands, params), SPRT_OK);
  EXPECT_EQ(params.value(10), reinterpret_cast<int64_t>(tickets));
}

// The fp32 accumulator of 16-bit layers comes from the call too, and
// zero_output on a kernel that takes it clears it, not C.
TEST(KernelParamsTest, AccumulatorComesFromTheOperandsAndIsWhatIsCleared) {
  KernelInfo tile = kernel("tile", "k32", 32, 32, 1, /*zeroOutput=*/true);
  tile.args = {"order", "B", std::string(call_arg::kAccumulator), "K"};
  KernelInfo rows = kernel("rows", "k32", 32, 32);
  rows.args = {"order", "B", "C", std::string(call_arg::kAccumulator), "K"};
  EXPECT_TRUE(takesAccumulator(tile));
  EXPECT_TRUE(takesAccumulator(rows));
  EXPECT_FALSE(takesAccumulator(kernel("csr", "vec4")));
  // The row kernel reads the accumulator and writes C.
  EXPECT_TRUE(writesAccumulator(tile));
  EXPECT_FALSE(writesAccumulator(rows));

  PackageLayer layer;
  layer.kernels = {tile, rows};
  LaunchChoice choice;
  ASSERT_EQ(chooseLaunch(layer, 32, choice), SPRT_OK);
  EXPECT_EQ(choice.kernels, (std::vector<size_t>{0, 1}));
  EXPECT_TRUE(choice.zeroAccumulator);
  EXPECT_FALSE(choice.zeroOutput);
  // Without zero_output on the tile kernel (one part: it stores every
  // element), nothing is cleared.
  layer.kernels[0].zeroOutput = false;
  ASSERT_EQ(chooseLaunch(layer, 32, choice), SPRT_OK);
  EXPECT_FALSE(choice.zeroAccumulator);
  EXPECT_FALSE(choice.zeroOutput);
  // zero_output on a kernel that reads the accumulator and writes C clears
  // C.
  layer.kernels[1].zeroOutput = true;
  ASSERT_EQ(chooseLaunch(layer, 32, choice), SPRT_OK);
  EXPECT_FALSE(choice.zeroAccumulator);
  EXPECT_TRUE(choice.zeroOutput);

  int order[3];
  uint16_t b[64], c[96];
  float acc[96];
  std::map<std::string, DeviceSpan, std::less<>> arrays = {
      {"order", {order, 3}}, {"acc", {order, 3}}};
  LaunchOperands operands{{b, 64}, {c, 96}, 32, {}, {acc, 96}};
  KernelParams params;
  ASSERT_EQ(bindKernelParams("h", rows, arrays, operands, params), SPRT_OK);
  ASSERT_EQ(params.size(), 21u);
  EXPECT_EQ(params.value(10), reinterpret_cast<int64_t>(c));
  // A layer array of that name does not stand in for it.
  EXPECT_EQ(params.value(15), reinterpret_cast<int64_t>(acc));
  EXPECT_EQ(params.value(18), 96);
  EXPECT_EQ(params.value(20), 32);
}

//===----------------------------------------------------------------------===//
// Targets
//===----------------------------------------------------------------------===//

TEST(TargetTest, MatchesTheComputeCapability) {
  EXPECT_TRUE(targetMatches("sm_90", 9, 0));
  EXPECT_TRUE(targetMatches("sm_90a", 9, 0));
  EXPECT_TRUE(targetMatches("sm_86", 8, 6));
  EXPECT_TRUE(targetMatches("sm_100", 10, 0));
  EXPECT_TRUE(targetMatches("sm_120f", 12, 0));
  EXPECT_FALSE(targetMatches("sm_90", 8, 0));
  EXPECT_FALSE(targetMatches("sm_90", 9, 1));
  EXPECT_FALSE(targetMatches("sm_80", 9, 0));
  EXPECT_FALSE(targetMatches("sm_9", 0, 9));
  EXPECT_FALSE(targetMatches("sm_090", 9, 0));
  EXPECT_FALSE(targetMatches("compute_90", 9, 0));
  EXPECT_FALSE(targetMatches("sm_9x0", 9, 0));
  EXPECT_FALSE(targetMatches("sm_", 0, 0));
  EXPECT_FALSE(targetMatches("", 0, 0));
}

//===----------------------------------------------------------------------===//
// layerBuffers: the arrays the uploads take by name
//===----------------------------------------------------------------------===//

TEST(LayerBuffersTest, SameListAsTheWriter) {
  ScratchDir dir;
  const CsrMatrix m = generateSkewed(90, 60, 2);
  std::vector<PackageLayer> layers = {
      makeLayer("csr", m, Strategy::Lpt, FormatKind::Csr),
      makeLayer("bell", m, Strategy::Identity, FormatKind::Bell),
      makeLayer("hbp", m, Strategy::Identity, FormatKind::Hbp)};
  // A bell layer without its CSR lists no csr.* buffers.
  layers.push_back(layers[1]);
  layers.back().name = "bell-only";
  layers.back().matrix.csr = CsrMatrix();
  ASSERT_TRUE(writePackage(dir.path("p.spp"), layers, PackageOptions()));
  const auto manifest = nlohmann::ordered_json::parse(
      readWholeFile(dir.path("p.spp") + "/manifest.json"));

  for (size_t i = 0; i < layers.size(); ++i) {
    SCOPED_TRACE(layers[i].name);
    const std::vector<LayerBuffer> buffers = layerBuffers(layers[i]);
    const auto &recorded = manifest["layers"][i]["buffers"];
    ASSERT_EQ(buffers.size(), recorded.size());
    for (size_t j = 0; j < buffers.size(); ++j) {
      EXPECT_EQ(std::string(buffers[j].name), recorded[j]["name"]);
      EXPECT_EQ(std::string(buffers[j].dtype), recorded[j]["dtype"]);
      EXPECT_EQ(buffers[j].count, recorded[j]["count"].get<uint64_t>());
    }
    EXPECT_EQ(buffers[0].data, layers[i].matrix.order.data());
  }
  // The pointers are the layer's own arrays.
  const std::vector<LayerBuffer> hbp = layerBuffers(layers[2]);
  for (const LayerBuffer &b : hbp)
    if (b.name == "hbp.begin_nnz") {
      EXPECT_EQ(b.dtype, "i64");
      EXPECT_EQ(b.data, layers[2].matrix.hbp.beginNnz.data());
    }
}

//===----------------------------------------------------------------------===//
// On the GPU (skipped, visibly, where there is no usable GPU)
//===----------------------------------------------------------------------===//

/// Skips the test unless the runtime has a usable GPU; sets `props`.
#define REQUIRE_GPU(props)                                                     \
  do {                                                                         \
    if (sprt_status s_ = sprt_device_properties(&(props)); s_ != SPRT_OK)      \
      GTEST_SKIP() << "no usable GPU: " << sprt_last_error();                  \
  } while (0)

/// Runs layer `index` of `p` for K through sprt_spmm (C first filled with
/// NaN) and returns C.
std::vector<float> runOnGpu(sprt_package *p, int64_t index,
                            const PackageLayer &layer,
                            const std::vector<float> &b, int64_t k,
                            sprt_status &status) {
  const int64_t bBytes = layer.matrix.cols * k * 4;
  const int64_t cBytes = layer.matrix.rows * k * 4;
  DeviceArray db(bBytes), dc(cBytes);
  std::vector<float> c(static_cast<size_t>(layer.matrix.rows * k), NAN);
  EXPECT_EQ(sprt_memcpy_htod(db.get(), b.data(), bBytes), SPRT_OK);
  EXPECT_EQ(sprt_memcpy_htod(dc.get(), c.data(), cBytes), SPRT_OK);
  status = sprt_spmm(p, index, db.get(), k, dc.get(), nullptr);
  if (status == SPRT_OK) {
    EXPECT_EQ(sprt_memcpy_dtoh(c.data(), dc.get(), cBytes), SPRT_OK)
        << sprt_last_error();
  }
  return c;
}

TEST(GeneratedKernelGpuTest, MatchesSpmmCpu) {
  sprt_device_props props;
  REQUIRE_GPU(props);
  ScratchDir dir;
  const std::vector<CsrMatrix> matrices = {
      generateUniform(70, 50, 0.08, 1), generateSkewed(300, 120, 2),
      generateBlockSparse(64, 48, 4, 0.3, 3)};
  std::vector<PackageLayer> layers;
  for (size_t i = 0; i < matrices.size(); ++i)
    for (FormatKind kind :
         {FormatKind::Csr, FormatKind::Bell, FormatKind::Hbp}) {
      layers.push_back(
          makeLayer(std::string(formatName(kind)) + "." + std::to_string(i),
                    matrices[i], Strategy::Lpt, kind));
      layers.back().kernels = testKernels();
    }
  // cuSPARSE for K = 1, the generated kernels otherwise.
  layers.push_back(
      makeLayer("mixed", matrices[1], Strategy::Bsa, FormatKind::Csr));
  layers.back().kernels = testKernels();
  layers.back().kernels.insert(layers.back().kernels.begin(),
                               kernel("cusparse", "cusparse", 1, 1));
  // More dynamic shared memory than a kernel gets without opting in (every
  // GPU since sm_75 allows at least 64 KiB).
  layers.back().kernels.back().sharedBytes = 60 * 1024;
  // No entries: C must still be all zeros.
  CsrMatrix empty;
  empty.rows = 40;
  empty.cols = 30;
  empty.rowPtr.assign(41, 0);
  layers.push_back(
      makeLayer("empty", empty, Strategy::Identity, FormatKind::Csr));
  layers.back().kernels = testKernels();
  PackageOptions options;
  options.ptx = testPtx();
  ASSERT_TRUE(writePackage(dir.path("gen.spp"), layers, options));

  sprt_package *p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("gen.spp").c_str(), SPRT_DEVICE_GPU, &p),
            SPRT_OK)
      << sprt_last_error();
  for (size_t i = 0; i < layers.size(); ++i) {
    SCOPED_TRACE(layers[i].name);
    const FormattedMatrix &m = layers[i].matrix;
    for (int64_t k : {1, 3, 32}) {
      SCOPED_TRACE("K = " + std::to_string(k));
      const std::vector<float> b = randomDense(m.cols * k, 7 + k);
      std::vector<float> want(static_cast<size_t>(m.rows * k));
      spmmCpu(m, b.data(), k, want.data());
      // Twice: nothing of the first call may leak into the second.
      for (int round = 0; round < 2; ++round) {
        sprt_status s;
        const std::vector<float> got =
            runOnGpu(p, int64_t(i), layers[i], b, k, s);
        ASSERT_EQ(s, SPRT_OK) << sprt_last_error();
        EXPECT_LE(relativeError(got, want), 1e-5) << "round " << round;
      }
    }
  }

  // sprt_spmm_time runs the same kernels, and the cuSPARSE baseline of a
  // layer that never runs through cuSPARSE uploads its CSR on demand.
  const FormattedMatrix &m = layers[1].matrix;
  const int64_t k = 32;
  const std::vector<float> b = randomDense(m.cols * k, 99);
  std::vector<float> want(static_cast<size_t>(m.rows * k));
  spmmCpu(m, b.data(), k, want.data());
  DeviceArray db(m.cols * k * 4), dc(m.rows * k * 4);
  ASSERT_EQ(sprt_memcpy_htod(db.get(), b.data(), m.cols * k * 4), SPRT_OK);
  for (const char *variant : {"spperm", "cusparse-spmm-default"}) {
    SCOPED_TRACE(variant);
    std::vector<float> c(static_cast<size_t>(m.rows * k), NAN);
    ASSERT_EQ(sprt_memcpy_htod(dc.get(), c.data(), m.rows * k * 4), SPRT_OK);
    float times[3];
    ASSERT_EQ(sprt_spmm_time(p, 1, variant, db.get(), k, dc.get(), nullptr, 1,
                             3, times),
              SPRT_OK)
        << sprt_last_error();
    ASSERT_EQ(sprt_memcpy_dtoh(c.data(), dc.get(), m.rows * k * 4), SPRT_OK);
    EXPECT_LE(relativeError(c, want), 1e-5);
    for (float t : times)
      EXPECT_GE(t, 0.0f);
  }
  sprt_package_release(p);
}

/// `b` (rows x k, row-major) laid out column-major: element (i, j) at
/// i + j * rows.
std::vector<float> columnMajor(const std::vector<float> &b, int64_t rows,
                               int64_t k) {
  std::vector<float> out(b.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < k; ++j)
      out[static_cast<size_t>(i + j * rows)] =
          b[static_cast<size_t>(i * k + j)];
  return out;
}

// sprt_spmm_ordered with a column-major B: the layer's transposing kernel
// (here Inputs/test_kernels.cu's transpose_b) writes B row-major into the
// caller's workspace or the stream's own, then the layer runs as for
// sprt_spmm; a layer without one is refused (SPRT_ERROR_UNSUPPORTED), and
// so are workspaces too small, misaligned or overlapping an operand.
TEST(GeneratedKernelGpuTest, ColumnMajorB) {
  sprt_device_props props;
  REQUIRE_GPU(props);
  ScratchDir dir;
  const KernelInfo transpose = testTransposeKernel();
  const std::vector<CsrMatrix> matrices = {generateUniform(70, 50, 0.08, 1),
                                           generateSkewed(300, 120, 2)};
  std::vector<PackageLayer> layers;
  for (size_t i = 0; i < matrices.size(); ++i)
    for (FormatKind kind :
         {FormatKind::Csr, FormatKind::Bell, FormatKind::Hbp}) {
      layers.push_back(
          makeLayer(std::string(formatName(kind)) + "." + std::to_string(i),
                    matrices[i], Strategy::Lpt, kind));
      layers.back().kernels = testKernels();
      layers.back().transposeB = transpose;
    }
  // cuSPARSE for K = 1: the library reads the transposed B too.
  layers.push_back(
      makeLayer("mixed", matrices[1], Strategy::Bsa, FormatKind::Csr));
  layers.back().kernels = testKernels();
  layers.back().kernels.insert(layers.back().kernels.begin(),
                               kernel("cusparse", "cusparse", 1, 1));
  layers.back().transposeB = transpose;
  // A package made before transposing kernels.
  layers.push_back(makeLayer("old", matrices[0], Strategy::Lpt,
                             FormatKind::Csr));
  layers.back().kernels = testKernels();
  PackageOptions options;
  options.ptx = testPtx();
  ASSERT_TRUE(writePackage(dir.path("col.spp"), layers, options));

  sprt_package *p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("col.spp").c_str(), SPRT_DEVICE_GPU, &p),
            SPRT_OK)
      << sprt_last_error();
  const int64_t old = static_cast<int64_t>(layers.size()) - 1;
  for (int64_t i = 0; i < old; ++i) {
    SCOPED_TRACE(layers[i].name);
    int32_t accepted = 0;
    ASSERT_EQ(sprt_layer_accepts_order(p, i, SPRT_ORDER_COL, &accepted),
              SPRT_OK);
    EXPECT_EQ(accepted, 1);
    const FormattedMatrix &m = layers[i].matrix;
    for (int64_t k : {1, 3, 32, 40}) {
      SCOPED_TRACE("K = " + std::to_string(k));
      const std::vector<float> b = randomDense(m.cols * k, 11 + k);
      std::vector<float> want(static_cast<size_t>(m.rows * k));
      spmmCpu(m, b.data(), k, want.data());
      const std::vector<float> bCol = columnMajor(b, m.cols, k);
      const int64_t bBytes = m.cols * k * 4, cBytes = m.rows * k * 4;
      DeviceArray db(bBytes), dc(cBytes), dw(bBytes);
      ASSERT_EQ(sprt_memcpy_htod(db.get(), bCol.data(), bBytes), SPRT_OK);
      // The stream's workspace, then the caller's.
      for (void *workspace :
           std::vector<void *>{nullptr, static_cast<void *>(dw.get())}) {
        std::vector<float> c(static_cast<size_t>(m.rows * k), NAN);
        ASSERT_EQ(sprt_memcpy_htod(dc.get(), c.data(), cBytes), SPRT_OK);
        ASSERT_EQ(sprt_spmm_ordered(p, i, db.get(), SPRT_DTYPE_F32,
                                    SPRT_ORDER_COL, k, dc.get(),
                                    SPRT_DTYPE_F32, workspace,
                                    static_cast<size_t>(bBytes), nullptr),
                  SPRT_OK)
            << sprt_last_error();
        ASSERT_EQ(sprt_memcpy_dtoh(c.data(), dc.get(), cBytes), SPRT_OK);
        EXPECT_LE(relativeError(c, want), 1e-5)
            << (workspace ? "caller's workspace" : "stream's workspace");
      }
    }
  }

  // Refusals, before anything runs.
  const FormattedMatrix &m = layers[0].matrix;
  const int64_t k = 8, bBytes = m.cols * k * 4;
  DeviceArray db(bBytes), dc(m.rows * k * 4), dw(bBytes + 16);
  auto call = [&](int64_t layer, void *workspace, size_t bytes,
                  int order = SPRT_ORDER_COL) {
    return sprt_spmm_ordered(p, layer, db.get(), SPRT_DTYPE_F32,
                             static_cast<sprt_order>(order), k, dc.get(),
                             SPRT_DTYPE_F32, workspace, bytes, nullptr);
  };
  EXPECT_EQ(call(0, dw.get(), static_cast<size_t>(bBytes - 4)),
            SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(sprt_last_error()).find("the workspace holds"),
            std::string::npos)
      << sprt_last_error();
  EXPECT_EQ(call(0, reinterpret_cast<char *>(dw.get()) + 4,
                 static_cast<size_t>(bBytes)),
            SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(sprt_last_error()).find("16-byte aligned"),
            std::string::npos);
  EXPECT_EQ(call(0, db.get(), static_cast<size_t>(bBytes)),
            SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(sprt_last_error()).find("overlaps B"),
            std::string::npos);
  EXPECT_EQ(call(0, nullptr, 0, 7), SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(sprt_last_error()).find("not an sprt_order"),
            std::string::npos);
  int32_t accepted = 1;
  ASSERT_EQ(sprt_layer_accepts_order(p, old, SPRT_ORDER_COL, &accepted),
            SPRT_OK);
  EXPECT_EQ(accepted, 0);
  EXPECT_EQ(call(old, nullptr, 0), SPRT_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(sprt_last_error()).find("no transposing kernel"),
            std::string::npos)
      << sprt_last_error();
  // Row-major B is sprt_spmm_typed's, for every layer.
  ASSERT_EQ(sprt_layer_accepts_order(p, old, SPRT_ORDER_ROW, &accepted),
            SPRT_OK);
  EXPECT_EQ(accepted, 1);
  EXPECT_EQ(call(old, nullptr, 0, SPRT_ORDER_ROW), SPRT_OK)
      << sprt_last_error();
  sprt_package_release(p);
}

// In-place kernels (`in_place_b`, here Inputs/test_kernels.cu's
// spmm_in_place): with SPRT_IN_PLACE_B=always a column-major call runs the
// layer's in-place kernel once the bucket's first call has timed it, and
// leaves the workspace alone; with never it runs the transposing path,
// which writes the workspace; with auto (the default) whichever was
// faster, correct either way. A candidate whose shared memory this GPU
// cannot give is no candidate; a bad SPRT_IN_PLACE_B fails the load.
TEST(GeneratedKernelGpuTest, InPlaceColumnMajorB) {
  sprt_device_props props;
  REQUIRE_GPU(props);
  ScratchDir dir;
  const std::vector<CsrMatrix> matrices = {generateUniform(70, 50, 0.08, 1),
                                           generateSkewed(300, 120, 2)};
  std::vector<PackageLayer> layers;
  for (size_t i = 0; i < matrices.size(); ++i) {
    layers.push_back(makeLayer("csr." + std::to_string(i), matrices[i],
                               Strategy::Lpt, FormatKind::Csr));
    layers.back().kernels = testKernels();
    layers.back().transposeB = testTransposeKernel();
    layers.back().inPlaceB = {testInPlaceKernel()};
  }
  // An in-place kernel that needs more shared memory than any GPU gives.
  layers.push_back(layers[0]);
  layers.back().name = "too-large";
  layers.back().inPlaceB[0].sharedBytes = int64_t(1) << 30;
  PackageOptions options;
  options.ptx = testPtx();
  ASSERT_TRUE(writePackage(dir.path("inplace.spp"), layers, options));

  {
    ScopedEnv bad("SPRT_IN_PLACE_B", "sometimes");
    sprt_package *p = nullptr;
    EXPECT_EQ(
        sprt_package_load(dir.path("inplace.spp").c_str(), SPRT_DEVICE_GPU, &p),
        SPRT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(sprt_last_error()).find(
                  "SPRT_IN_PLACE_B must be auto, never or always"),
              std::string::npos)
        << sprt_last_error();
    sprt_package_release(p);
  }
  constexpr uint8_t kSentinel = 0x5a;
  for (const char *mode : {"always", "never", "auto"}) {
    SCOPED_TRACE(std::string("SPRT_IN_PLACE_B=") + mode);
    ScopedEnv env("SPRT_IN_PLACE_B", mode);
    sprt_package *p = nullptr;
    ASSERT_EQ(
        sprt_package_load(dir.path("inplace.spp").c_str(), SPRT_DEVICE_GPU, &p),
        SPRT_OK)
        << sprt_last_error();
    for (int64_t i = 0; i < static_cast<int64_t>(layers.size()); ++i) {
      SCOPED_TRACE(layers[i].name);
      const FormattedMatrix &m = layers[i].matrix;
      for (int64_t k : {3, 32, 40}) {
        SCOPED_TRACE("K = " + std::to_string(k));
        const std::vector<float> b = randomDense(m.cols * k, 5 + k);
        std::vector<float> want(static_cast<size_t>(m.rows * k));
        spmmCpu(m, b.data(), k, want.data());
        const std::vector<float> bCol = columnMajor(b, m.cols, k);
        const int64_t bBytes = m.cols * k * 4, cBytes = m.rows * k * 4;
        DeviceArray db(bBytes), dc(cBytes), dw(bBytes);
        ASSERT_EQ(sprt_memcpy_htod(db.get(), bCol.data(), bBytes), SPRT_OK);
        const std::vector<uint8_t> sentinel(static_cast<size_t>(bBytes),
                                            kSentinel);
        // The first call decides; the second runs what it decided.
        for (int call = 0; call < 2; ++call) {
          std::vector<float> c(static_cast<size_t>(m.rows * k), NAN);
          ASSERT_EQ(sprt_memcpy_htod(dc.get(), c.data(), cBytes), SPRT_OK);
          ASSERT_EQ(sprt_memcpy_htod(dw.get(), sentinel.data(), bBytes),
                    SPRT_OK);
          ASSERT_EQ(sprt_spmm_ordered(p, i, db.get(), SPRT_DTYPE_F32,
                                      SPRT_ORDER_COL, k, dc.get(),
                                      SPRT_DTYPE_F32, dw.get(),
                                      static_cast<size_t>(bBytes), nullptr),
                    SPRT_OK)
              << sprt_last_error();
          ASSERT_EQ(sprt_memcpy_dtoh(c.data(), dc.get(), cBytes), SPRT_OK);
          EXPECT_LE(relativeError(c, want), 1e-5) << "call " << call;
          if (call == 0 || std::string_view(mode) == "auto")
            continue;
          std::vector<uint8_t> w(static_cast<size_t>(bBytes));
          ASSERT_EQ(sprt_memcpy_dtoh(w.data(), dw.get(), bBytes), SPRT_OK);
          const bool untouched = w == sentinel;
          const bool inPlace =
              std::string_view(mode) == "always" && layers[i].name != "too-large";
          EXPECT_EQ(untouched, inPlace)
              << (inPlace ? "the in-place kernel should have run"
                          : "the transposing kernel should have run");
        }
      }
    }
    sprt_package_release(p);
  }
}

// The column-major choice goes in the tuning cache (docs/RuntimeABI.md,
// "Tuning cache"): an entry with "column_major_b" for the exact K. A later
// load takes an entry naming the in-place kernel without timing (the
// workspace stays untouched), and one naming a kernel this GPU cannot run
// or the layer lacks is rejected with a warning and timed again.
TEST(GeneratedKernelGpuTest, InPlaceChoiceInTheTuningCache) {
  sprt_device_props props;
  REQUIRE_GPU(props);
  ScratchDir dir;
  const CsrMatrix matrix = generateUniform(70, 50, 0.08, 1);
  std::vector<PackageLayer> layers = {
      makeLayer("csr", matrix, Strategy::Lpt, FormatKind::Csr)};
  layers[0].kernels = testKernels();
  layers[0].transposeB = testTransposeKernel();
  layers[0].inPlaceB = {testInPlaceKernel()};
  // The same, with an in-place kernel no GPU can run.
  layers.push_back(layers[0]);
  layers.back().name = "too-large";
  layers.back().inPlaceB[0].sharedBytes = int64_t(1) << 30;
  PackageOptions options;
  options.ptx = testPtx();
  ASSERT_TRUE(writePackage(dir.path("inplace.spp"), layers, options));
  const std::string cachePath = dir.path("tuning.json");
  ScopedEnv cache("SPRT_TUNING_CACHE", cachePath.c_str());
  ScopedEnv mode("SPRT_IN_PLACE_B", "auto");
  ScopedEnv log("SPPERM_LOG_CHOICES", "1");
  const FormattedMatrix &m = layers[0].matrix;
  constexpr int64_t k = 32;
  const std::vector<float> b = randomDense(m.cols * k, 9);
  std::vector<float> want(static_cast<size_t>(m.rows * k));
  spmmCpu(m, b.data(), k, want.data());
  const std::vector<float> bCol = columnMajor(b, m.cols, k);
  const int64_t bBytes = m.cols * k * 4, cBytes = m.rows * k * 4;
  DeviceArray db(bBytes), dc(cBytes), dw(bBytes);
  ASSERT_EQ(sprt_memcpy_htod(db.get(), bCol.data(), bBytes), SPRT_OK);
  const std::vector<uint8_t> sentinel(static_cast<size_t>(bBytes), 0x5a);
  // Loads the package, calls layer `index` once with a column-major B and
  // checks C; returns stderr, and whether the workspace stayed untouched.
  auto callOnce = [&](int64_t index, bool &untouched) {
    testing::internal::CaptureStderr();
    sprt_package *p = nullptr;
    EXPECT_EQ(
        sprt_package_load(dir.path("inplace.spp").c_str(), SPRT_DEVICE_GPU, &p),
        SPRT_OK)
        << sprt_last_error();
    std::vector<float> c(static_cast<size_t>(m.rows * k), NAN);
    EXPECT_EQ(sprt_memcpy_htod(dc.get(), c.data(), cBytes), SPRT_OK);
    EXPECT_EQ(sprt_memcpy_htod(dw.get(), sentinel.data(), bBytes), SPRT_OK);
    EXPECT_EQ(sprt_spmm_ordered(p, index, db.get(), SPRT_DTYPE_F32,
                                SPRT_ORDER_COL, k, dc.get(), SPRT_DTYPE_F32,
                                dw.get(), static_cast<size_t>(bBytes), nullptr),
              SPRT_OK)
        << sprt_last_error();
    EXPECT_EQ(sprt_memcpy_dtoh(c.data(), dc.get(), cBytes), SPRT_OK);
    EXPECT_LE(relativeError(c, want), 1e-5);
    std::vector<uint8_t> w(static_cast<size_t>(bBytes));
    EXPECT_EQ(sprt_memcpy_dtoh(w.data(), dw.get(), bBytes), SPRT_OK);
    untouched = w == sentinel;
    sprt_package_release(p);
    return testing::internal::GetCapturedStderr();
  };
  // The column-major entry of `layer`, which the test edits.
  auto editEntry = [&](const std::string &layer,
                       const std::function<void(nlohmann::json &)> &edit) {
    nlohmann::json root = nlohmann::json::parse(readWholeFile(cachePath));
    bool found = false;
    for (nlohmann::json &e : root["entries"])
      if (e["key"]["layer"] == layer && e["key"]["column_major_b"] == true) {
        EXPECT_EQ(e["key"]["k"], k);
        edit(e);
        found = true;
      }
    ASSERT_TRUE(found) << layer;
    std::ofstream(cachePath) << root.dump();
  };
  bool untouched = false;
  // Timed, and stored (whichever it chose).
  std::string err = callOnce(0, untouched);
  EXPECT_NE(err.find("column-major B (graph)"), std::string::npos) << err;
  editEntry("csr", [](nlohmann::json &e) {
    e["choice"]["in_place"] = "spmm_in_place";
    e["choice"]["variant"] = 0;
  });
  // Recalled: the in-place kernel runs without timing.
  err = callOnce(0, untouched);
  EXPECT_NE(err.find("column-major B: from the tuning cache: runs "
                     "spmm_in_place"),
            std::string::npos)
      << err;
  EXPECT_TRUE(untouched) << "the in-place kernel should have run";
  // Recalled: the transposing path.
  editEntry("csr", [](nlohmann::json &e) { e["choice"]["in_place"] = ""; });
  err = callOnce(0, untouched);
  EXPECT_NE(err.find("from the tuning cache: runs the transposing kernel"),
            std::string::npos)
      << err;
  EXPECT_FALSE(untouched) << "the transposing kernel should have run";
  // A kernel the layer lacks: rejected by the cache, timed again.
  editEntry("csr",
            [](nlohmann::json &e) { e["choice"]["in_place"] = "elsewhere"; });
  err = callOnce(0, untouched);
  EXPECT_NE(err.find("'elsewhere', which variant 0 lacks"), std::string::npos)
      << err;
  EXPECT_NE(err.find("column-major B (graph)"), std::string::npos) << err;
  // A kernel this GPU cannot run: no candidates, so no entry is stored for
  // it; one written by hand is not consulted either (the transposing path
  // runs, untimed).
  err = callOnce(1, untouched);
  EXPECT_FALSE(untouched);
  EXPECT_EQ(err.find("column-major B"), std::string::npos) << err;
}

// A kernel that takes "csr.col_idx.u16" gets the column indices narrowed
// to 16 bits at upload (docs/Package.md, "Narrow column indices"), beside
// the int32 array for a kernel that takes it by its plain name. 65,536
// columns put indices above 32,767, which a sign extension would break.
TEST(GeneratedKernelGpuTest, NarrowColumnIndices) {
  sprt_device_props props;
  REQUIRE_GPU(props);
  ScratchDir dir;
  std::vector<PackageLayer> layers = {
      makeLayer("wide", generateUniform(40, 65536, 0.002, 5), Strategy::Lpt,
                FormatKind::Csr)};
  KernelInfo narrow = testKernel("spmm_rows_u16", "narrow", 4);
  narrow.args[2] = "csr.col_idx.u16";
  layers[0].kernels = {narrow, testKernel("spmm_rows", "rows")};
  PackageOptions options;
  options.ptx = testPtx();
  ASSERT_TRUE(writePackage(dir.path("u16.spp"), layers, options));
  sprt_package *p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("u16.spp").c_str(), SPRT_DEVICE_GPU, &p),
            SPRT_OK)
      << sprt_last_error();
  const FormattedMatrix &m = layers[0].matrix;
  ASSERT_GT(*std::max_element(m.csr.colIdx.begin(), m.csr.colIdx.end()),
            40000);
  for (int64_t k : {3, 4, 32}) {
    SCOPED_TRACE("K = " + std::to_string(k));
    const std::vector<float> b = randomDense(m.cols * k, 11 + k);
    std::vector<float> want(static_cast<size_t>(m.rows * k));
    spmmCpu(m, b.data(), k, want.data());
    sprt_status s;
    const std::vector<float> got = runOnGpu(p, 0, layers[0], b, k, s);
    ASSERT_EQ(s, SPRT_OK) << sprt_last_error();
    EXPECT_LE(relativeError(got, want), 1e-5);
  }
  sprt_package_release(p);
}

TEST(GeneratedKernelGpuTest, NoKernelForK) {
  sprt_device_props props;
  REQUIRE_GPU(props);
  ScratchDir dir;
  std::vector<PackageLayer> layers = {
      makeLayer("wide", generateUniform(70, 50, 0.08, 1), Strategy::Lpt,
                FormatKind::Csr)};
  layers[0].kernels = {testKernel("spmm_rows", "rows", 4)};
  PackageOptions options;
  options.ptx = testPtx();
  ASSERT_TRUE(writePackage(dir.path("k4.spp"), layers, options));
  sprt_package *p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("k4.spp").c_str(), SPRT_DEVICE_GPU, &p),
            SPRT_OK)
      << sprt_last_error();
  const std::vector<float> b = randomDense(50 * 3, 1);
  sprt_status s;
  runOnGpu(p, 0, layers[0], b, 3, s);
  EXPECT_EQ(s, SPRT_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(sprt_last_error())
                .find("layer 'wide': no generated kernel accepts K = 3"),
            std::string::npos)
      << sprt_last_error();
  const std::vector<float> b4 = randomDense(50 * 4, 1);
  runOnGpu(p, 0, layers[0], b4, 4, s);
  EXPECT_EQ(s, SPRT_OK) << sprt_last_error();
  sprt_package_release(p);
}

// The fp32 accumulator ("acc") of 16-bit layers' variants: cleared (not
// C) before a variant whose kernel that takes it has zero_output, grown when
// a larger K comes, and one per stream, so that calls on two streams in
// flight together do not share it. The test kernels are fp32; the runtime
// treats the accumulator alike for any layer.
TEST(GeneratedKernelGpuTest, AccumulatorIsClearedGrownAndPerStream) {
  sprt_device_props props;
  REQUIRE_GPU(props);
  ScratchDir dir;
  std::vector<PackageLayer> layers = {makeLayer(
      "acc", generateSkewed(300, 120, 2), Strategy::Lpt, FormatKind::Csr)};
  KernelInfo even = testKernel("acc_even", "acc", 1, /*zeroOutput=*/true);
  even.args = {"order", "csr.row_ptr", "csr.col_idx", "csr.values",
               "B",     std::string(call_arg::kAccumulator), "K"};
  KernelInfo odd = testKernel("acc_odd", "acc");
  odd.args = {"order", "csr.row_ptr", "csr.col_idx", "csr.values", "B",
              "C",     std::string(call_arg::kAccumulator), "K"};
  layers[0].kernels = {even, odd};
  PackageOptions options;
  options.ptx = testPtx();
  ASSERT_TRUE(writePackage(dir.path("acc.spp"), layers, options));
  sprt_package *p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("acc.spp").c_str(), SPRT_DEVICE_GPU, &p),
            SPRT_OK)
      << sprt_last_error();
  const FormattedMatrix &m = layers[0].matrix;
  auto expected = [&](const std::vector<float> &b, int64_t k) {
    std::vector<float> want(static_cast<size_t>(m.rows * k));
    spmmCpu(m, b.data(), k, want.data());
    return want;
  };
  // One stream: K = 4, then 64 (the accumulator grows), then 8 and 4 again
  // (the larger one serves; what K = 64 left in it is cleared).
  for (int64_t k : {4, 64, 8, 4}) {
    SCOPED_TRACE("K = " + std::to_string(k));
    const std::vector<float> b = randomDense(m.cols * k, 11 + k);
    sprt_status s;
    const std::vector<float> got = runOnGpu(p, 0, layers[0], b, k, s);
    ASSERT_EQ(s, SPRT_OK) << sprt_last_error();
    EXPECT_LE(relativeError(got, expected(b, k)), 1e-5);
  }
  // Two streams, calls enqueued alternately without waiting: a shared
  // accumulator would mix their sums.
  const int64_t ks[2] = {32, 48};
  void *streams[2] = {nullptr, nullptr};
  std::vector<float> bs[2];
  std::vector<std::unique_ptr<DeviceArray>> db, dc;
  for (int t = 0; t < 2; ++t) {
    ASSERT_EQ(sprt_stream_create(&streams[t]), SPRT_OK) << sprt_last_error();
    bs[t] = randomDense(m.cols * ks[t], 40 + t);
    db.push_back(std::make_unique<DeviceArray>(m.cols * ks[t] * 4));
    dc.push_back(std::make_unique<DeviceArray>(m.rows * ks[t] * 4));
    ASSERT_EQ(sprt_memcpy_htod(db[t]->get(), bs[t].data(), m.cols * ks[t] * 4),
              SPRT_OK);
  }
  for (int round = 0; round < 20; ++round)
    for (int t = 0; t < 2; ++t)
      ASSERT_EQ(sprt_spmm(p, 0, db[t]->get(), ks[t], dc[t]->get(), streams[t]),
                SPRT_OK)
          << sprt_last_error();
  for (int t = 0; t < 2; ++t) {
    SCOPED_TRACE("stream " + std::to_string(t));
    ASSERT_EQ(sprt_stream_synchronize(streams[t]), SPRT_OK);
    std::vector<float> c(static_cast<size_t>(m.rows * ks[t]));
    ASSERT_EQ(sprt_memcpy_dtoh(c.data(), dc[t]->get(), m.rows * ks[t] * 4),
              SPRT_OK);
    EXPECT_LE(relativeError(c, expected(bs[t], ks[t])), 1e-5);
    EXPECT_EQ(sprt_stream_destroy(streams[t]), SPRT_OK);
  }
  sprt_package_release(p);
}

TEST(GeneratedKernelGpuTest, MisalignedPointersAreRefusedBeforeLaunch) {
  sprt_device_props props;
  REQUIRE_GPU(props);
  ScratchDir dir;
  const CsrMatrix a = generateUniform(70, 50, 0.08, 1);
  std::vector<PackageLayer> layers = {
      makeLayer("fc", a, Strategy::Lpt, FormatKind::Csr)};
  layers[0].kernels = testKernels();
  PackageOptions options;
  options.ptx = testPtx();
  ASSERT_TRUE(writePackage(dir.path("fc.spp"), layers, options));
  sprt_package *p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("fc.spp").c_str(), SPRT_DEVICE_GPU, &p),
            SPRT_OK)
      << sprt_last_error();
  // Room for one float more than B and C need, so that the shifted
  // pointers stay inside the allocations.
  for (int64_t k : {4, 32, 5}) {
    SCOPED_TRACE("K = " + std::to_string(k));
    DeviceArray db((50 * k + 4) * 4), dc((70 * k + 4) * 4);
    for (int shift : {1, 2}) {
      const float *b = db.get() + (shift == 1 ? 1 : 0);
      float *c = dc.get() + (shift == 2 ? 1 : 0);
      sprt_status s = sprt_spmm(p, 0, b, k, c, nullptr);
      if (k % 4 == 0) {
        EXPECT_EQ(s, SPRT_ERROR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(sprt_last_error())
                      .find(std::string(shift == 1 ? "B" : "C") +
                            " is not 16-byte aligned"),
                  std::string::npos)
            << sprt_last_error();
      } else {
        // Kernels for K not a multiple of 4 move single floats.
        EXPECT_EQ(s, SPRT_OK) << sprt_last_error();
      }
    }
    // A pointer that is not even float-aligned is refused for every K.
    const float *odd = reinterpret_cast<const float *>(
        reinterpret_cast<const char *>(db.get()) + 2);
    EXPECT_EQ(sprt_spmm(p, 0, odd, k, dc.get(), nullptr),
              SPRT_ERROR_INVALID_ARGUMENT);
  }
  sprt_package_release(p);
}

/// Writes a one-layer package with `kernels` and `options` to `path` and
/// loads it for the GPU; returns the status and the message.
sprt_status loadWith(const std::string &path, std::vector<KernelInfo> kernels,
                     const PackageOptions &options, std::string &message) {
  std::vector<PackageLayer> layers = {makeLayer(
      "fc1", generateUniform(70, 50, 0.08, 1), Strategy::Lpt, FormatKind::Csr)};
  layers[0].kernels = std::move(kernels);
  EXPECT_TRUE(writePackage(path, layers, options));
  sprt_package *p = reinterpret_cast<sprt_package *>(0x1);
  sprt_status s = sprt_package_load(path.c_str(), SPRT_DEVICE_GPU, &p);
  message = s == SPRT_OK ? "" : sprt_last_error();
  if (s != SPRT_OK) {
    EXPECT_EQ(p, nullptr);
  }
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  sprt_package_release(s == SPRT_OK ? p : nullptr);
  return s;
}

TEST(GeneratedKernelGpuTest, LoadErrors) {
  sprt_device_props props;
  REQUIRE_GPU(props);
  ScratchDir dir;
  PackageOptions options;
  options.ptx = testPtx();
  std::string message;

  // A kernel the module lacks.
  EXPECT_EQ(loadWith(dir.path("missing.spp"),
                     {testKernel("spmm_rows", "rows"),
                      testKernel("spmm_columns", "rows")},
                     options, message),
            SPRT_ERROR_CORRUPT_PACKAGE);
  EXPECT_EQ(message, "layer 'fc1': kernel 'spmm_columns' (variant 'rows') is "
                     "not in kernels.ptx");

  // Generated kernels, but no code.
  EXPECT_EQ(loadWith(dir.path("nocode.spp"), {testKernel("spmm_rows", "rows")},
                     PackageOptions(), message),
            SPRT_ERROR_CORRUPT_PACKAGE);
  EXPECT_NE(message.find("no kernels.ptx"), std::string::npos) << message;

  // PTX the JIT refuses: the message carries its log.
  PackageOptions badPtx;
  badPtx.ptx = ".version 7.0\n.target sm_75\n.address_size 64\nnonsense\n";
  EXPECT_EQ(loadWith(dir.path("badptx.spp"), {testKernel("spmm_rows", "rows")},
                     badPtx, message),
            SPRT_ERROR_DEVICE);
  EXPECT_NE(message.find("cuModuleLoadDataEx"), std::string::npos) << message;
  std::printf("note: the JIT's refusal: %s\n", message.c_str());

  // The module cut short (half of it, or everything after its header, or
  // nothing at all): the JIT's refusal, in one line, nothing launched.
  const std::string ptx = testPtx();
  for (size_t keep : {ptx.size() / 2, ptx.find(".visible"), size_t(0)}) {
    SCOPED_TRACE("PTX cut to " + std::to_string(keep) + " bytes");
    PackageOptions cut;
    cut.ptx = ptx.substr(0, keep);
    sprt_status s = loadWith(dir.path("cut.spp"),
                             {testKernel("spmm_rows", "rows")}, cut, message);
    EXPECT_NE(s, SPRT_OK);
    if (keep == 0) {
      // No code at all is the package's fault, found before the driver.
      EXPECT_EQ(s, SPRT_ERROR_CORRUPT_PACKAGE);
    } else {
      EXPECT_TRUE(s == SPRT_ERROR_DEVICE || s == SPRT_ERROR_CORRUPT_PACKAGE)
          << sprt_status_name(s);
    }
    EXPECT_FALSE(message.empty());
    std::printf("note: PTX cut to %zu bytes: %s\n", keep, message.c_str());
  }

  // A cubin for this GPU is loaded instead of the PTX (here it is not a
  // cubin, so loading fails); a cubin for another target is ignored.
  const std::string arch = "sm_" + std::to_string(props.compute_major) +
                           std::to_string(props.compute_minor);
  PackageOptions withCubin = options;
  withCubin.cubin = "not a cubin";
  withCubin.target = arch;
  EXPECT_EQ(loadWith(dir.path("cubin.spp"), {testKernel("spmm_rows", "rows")},
                     withCubin, message),
            SPRT_ERROR_DEVICE);
  EXPECT_NE(message.find("cuModuleLoadData of kernels." + arch + ".cubin"),
            std::string::npos)
      << message;
  withCubin.target = props.compute_major == 5 ? "sm_60" : "sm_50";
  EXPECT_EQ(loadWith(dir.path("other.spp"), {testKernel("spmm_rows", "rows")},
                     withCubin, message),
            SPRT_OK)
      << message;
  withCubin.ptx.clear();
  EXPECT_EQ(loadWith(dir.path("cubinonly.spp"),
                     {testKernel("spmm_rows", "rows")}, withCubin, message),
            SPRT_ERROR_UNSUPPORTED);
  EXPECT_NE(message.find("but the GPU is " + arch), std::string::npos)
      << message;

  // Args that do not match the kernel's parameters (one array short),
  // where the driver can tell (cuFuncGetParamInfo).
  KernelInfo short_ = testKernel("spmm_rows", "rows");
  short_.args.erase(short_.args.begin());
  sprt_status s = loadWith(dir.path("short.spp"), {short_}, options, message);
  if (s == SPRT_OK) {
    std::printf("note: this driver cannot check kernel parameters\n");
  } else {
    EXPECT_EQ(s, SPRT_ERROR_CORRUPT_PACKAGE);
    EXPECT_NE(message.find("layer 'fc1': kernel 'spmm_rows' does not take the "
                           "parameters its args make (26 of 8 bytes"),
              std::string::npos)
        << message;
  }

  // More dynamic shared memory than any GPU has.
  KernelInfo greedy = testKernel("spmm_rows", "rows");
  greedy.sharedBytes = 64 << 20;
  EXPECT_EQ(loadWith(dir.path("greedy.spp"), {greedy}, options, message),
            SPRT_ERROR_UNSUPPORTED);
  EXPECT_NE(message.find("needs 67108864 bytes of shared memory"),
            std::string::npos)
      << message;
}

} // namespace
