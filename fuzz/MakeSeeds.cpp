//===- MakeSeeds.cpp - Seed inputs for the fuzz targets -------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// `spperm-fuzz-seeds OUTDIR` writes the seeds that are made with the sparse
// core's own writers rather than committed as binaries: OUTDIR/gzip (gzip
// Matrix Market and DLMC files), OUTDIR/npy (`.npy` files of several
// shapes) and OUTDIR/package (csr, bell and hbp packages, one with kernels,
// one with external data, one `raw:`), in the targets' input layouts
// (FuzzUtil.h). tools/scripts/fuzz.sh runs it before fuzzing.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Npy.h"
#include "spperm/Sparse/Package.h"

#include <sys/stat.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace spperm;

namespace {

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "spperm-fuzz-seeds: error: %s\n", what.c_str());
  std::exit(1);
}

void check(const Status &s) {
  if (!s)
    fail(s.message());
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail(path + ": cannot open");
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void writeGzip(const std::string &path, std::string_view text) {
  gzFile f = gzopen(path.c_str(), "wb9");
  if (!f ||
      gzwrite(f, text.data(), static_cast<unsigned>(text.size())) !=
          static_cast<int>(text.size()) ||
      gzclose(f) != Z_OK)
    fail(path + ": cannot write");
}

/// Writes `layers` as a package in `work` and returns it in the package
/// target's layout.
std::string packageSeed(const std::string &work,
                        const std::vector<PackageLayer> &layers,
                        const PackageOptions &options, bool raw) {
  std::string dir = work + "/p.spp";
  check(writePackage(dir, layers, options));
  std::string seed = raw ? std::string(fuzz::kRawPrefix) : std::string();
  seed += readFile(dir + "/manifest.json");
  if (!options.externalData) {
    seed += fuzz::kDataMarker;
    seed += readFile(dir + "/data.bin");
  }
  std::filesystem::remove_all(dir);
  return seed;
}

PackageLayer layerOf(const std::string &name, const CsrMatrix &m,
                     const FormatOptions &format,
                     const PermutationOptions &permutation) {
  PackageLayer layer;
  layer.name = name;
  layer.format = format;
  layer.permutation = permutation;
  StatusOr<Permutation> perm = computePermutation(m, permutation);
  check(perm.status());
  StatusOr<FormattedMatrix> f = buildFormat(m, perm->order, format);
  check(f.status());
  layer.matrix = std::move(*f);
  return layer;
}

void writePackageSeeds(const std::string &out) {
  std::string work = out + "/.work";
  std::filesystem::create_directories(work);
  CsrMatrix small = generateUniform(40, 30, 0.1, 3);
  CsrMatrix blocks = generateBlockSparse(64, 64, 8, 0.2, 5);

  FormatOptions csr;
  PermutationOptions identity, lpt, bsa;
  lpt.strategy = Strategy::Lpt;
  bsa.strategy = Strategy::Bsa;
  FormatOptions bell;
  bell.kind = FormatKind::Bell;
  bell.bellBlock = 8;
  FormatOptions hbp;
  hbp.kind = FormatKind::Hbp;
  hbp.hbpRowBlock = 32;
  hbp.hbpColBlock = 16;
  hbp.hbpWarps = 2;

  auto save = [&](const std::string &name, const std::string &seed) {
    fuzz::writeFileOrDie(out + "/package/" + name, seed);
  };
  save("csr", packageSeed(work, {layerOf("fc", small, csr, identity)},
                          PackageOptions(), false));
  save("csr.raw", packageSeed(work, {layerOf("fc", small, csr, identity)},
                              PackageOptions(), true));
  save("bell", packageSeed(work, {layerOf("b", blocks, bell, bsa)},
                           PackageOptions(), false));
  save("hbp", packageSeed(work, {layerOf("h", small, hbp, lpt)},
                          PackageOptions(), false));

  // Two layers, one with a kernel variant and the library check.
  PackageLayer withKernels = layerOf("k", small, csr, lpt);
  KernelInfo kernel;
  kernel.name = "spperm_csr_k";
  kernel.family = "csr";
  kernel.variant = "row";
  kernel.kMin = 1;
  kernel.kMax = 64;
  kernel.args = {"order", "csr.row_ptr", "csr.col_idx", "csr.values", "B", "C",
                 "K"};
  kernel.gridX = 2;
  kernel.blockX = 128;
  withKernels.kernels = {kernel};
  withKernels.libraryCheck = true;
  withKernels.k = 32;
  save("two-layers",
       packageSeed(work, {withKernels, layerOf("h", blocks, hbp, identity)},
                   PackageOptions(), false));

  // A checked layer with alternatives (the selector's shortlist).
  PackageLayer shortlisted = withKernels;
  for (auto [format, perm] : {std::pair(bell, bsa), std::pair(csr, identity)}) {
    PackageLayer alt = layerOf("k", small, format, perm);
    alt.kernels = {kernel};
    alt.kernels.front().name = "spperm_alt_" + std::to_string(
        shortlisted.alternatives.size() + 1);
    // Arrays every format has (a bell variant has no csr.* buffers).
    alt.kernels.front().args = {"order", "B", "C", "K"};
    alt.libraryCheck = true;
    alt.k = 32;
    shortlisted.alternatives.push_back(alt);
  }
  save("alternatives",
       packageSeed(work, {shortlisted}, PackageOptions(), false));

  // External data: the harness writes the same src.mtx beside its package.
  fuzz::writeFileOrDie(work + "/src.mtx", fuzz::kSourceMatrix);
  StatusOr<CsrMatrix> src = parseMatrixText(
      fuzz::kSourceMatrix, MatrixFileFormat::MatrixMarket, "src.mtx");
  check(src.status());
  PackageOptions external;
  external.externalData = true;
  for (auto [name, format, perm] :
       {std::tuple("external-csr", csr, bsa),
        std::tuple("external-bell", bell, lpt),
        std::tuple("external-hbp", hbp, identity)}) {
    PackageLayer layer = layerOf("x", *src, format, perm);
    layer.sourcePath = "src.mtx";
    layer.sourceSha256 =
        sha256Hex(fuzz::kSourceMatrix.data(), fuzz::kSourceMatrix.size());
    layer.values.mode = ValueMode::Random;
    layer.values.seed = 7;
    // The layer's arrays are rebuilt with these values.
    ReadOptions options;
    options.values = layer.values;
    StatusOr<CsrMatrix> valued =
        parseMatrixText(fuzz::kSourceMatrix, MatrixFileFormat::MatrixMarket,
                        "src.mtx", options);
    check(valued.status());
    layer.matrix = layerOf("x", *valued, format, perm).matrix;
    save(name, packageSeed(work, {layer}, external, false));
  }
  std::filesystem::remove_all(work);
}

void writeNpySeeds(const std::string &out) {
  int shapes[][2] = {{0, 0}, {1, 1}, {3, 4}, {5, 0}, {16, 2}};
  for (auto [rows, cols] : shapes) {
    DenseMatrix m;
    m.rows = rows;
    m.cols = cols;
    for (int i = 0; i < rows * cols; ++i)
      m.data.push_back(static_cast<float>(i) * 0.5f - 1.0f);
    check(writeNpy(out + "/npy/" + std::to_string(rows) + "x" +
                       std::to_string(cols) + ".npy",
                   m));
  }
}

void writeGzipSeeds(const std::string &out) {
  check(writeMatrixMarket(out + "/gzip/uniform.mtx.gz",
                          generateUniform(20, 30, 0.1, 1)));
  writeGzip(out + "/gzip/src.mtx.gz", fuzz::kSourceMatrix);
  writeGzip(out + "/gzip/small.smtx.gz", "4, 5, 5\n0 2 2 4 5\n0 2 1 4 3\n");
  writeGzip(out + "/gzip/symmetric.mtx.gz",
            "%%MatrixMarket matrix coordinate pattern symmetric\n"
            "3 3 3\n1 1\n2 1\n3 2\n");
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: spperm-fuzz-seeds OUTDIR\n");
    return 1;
  }
  std::string out = argv[1];
  for (const char *sub : {"gzip", "npy", "package"})
    std::filesystem::create_directories(out + "/" + sub);
  writeGzipSeeds(out);
  writeNpySeeds(out);
  writePackageSeeds(out);
  return 0;
}
