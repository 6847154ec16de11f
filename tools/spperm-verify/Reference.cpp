//===- Reference.cpp - The float64 reference and the comparisons --------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "Verify.h"

#include "spperm/Sparse/Accuracy.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Shards.h"

#include <algorithm>
#include <sys/stat.h>
#include <thread>

using namespace spperm;
using namespace spperm::verify;

std::vector<float> spperm::verify::makeB(int64_t rows, int64_t k) {
  std::vector<float> b(static_cast<size_t>(rows * k));
  uint64_t x = 0x9e3779b97f4a7c15ull ^ static_cast<uint64_t>(rows * 131 + k);
  for (float &v : b) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v = static_cast<float>(static_cast<double>(x >> 40) / 8388608.0 - 1.0);
  }
  return b;
}

std::vector<double> spperm::verify::reference(const CsrMatrix &a,
                                             const std::vector<float> &b,
                                             int64_t k) {
  std::vector<double> r(static_cast<size_t>(a.rows) * k, 0.0);
  auto work = [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      double *out = &r[static_cast<size_t>(i * k)];
      for (int32_t p = a.rowPtr[i]; p < a.rowPtr[i + 1]; ++p) {
        const double v = a.values[p];
        const float *row = &b[static_cast<size_t>(a.colIdx[p]) * k];
        for (int64_t j = 0; j < k; ++j)
          out[j] += v * row[j];
      }
    }
  };
  const int64_t work64 = a.nnz() * k;
  const int64_t n = work64 < (int64_t(1) << 22)
                        ? 1
                        : std::max<int64_t>(
                              1, std::thread::hardware_concurrency());
  std::vector<std::thread> threads;
  for (int64_t t = 0; t < n; ++t)
    threads.emplace_back(work, a.rows * t / n, a.rows * (t + 1) / n);
  for (std::thread &t : threads)
    t.join();
  return r;
}

std::string spperm::verify::parentOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::vector<CheckedLayer> spperm::verify::checkedLayers(const Package &pkg) {
  std::vector<CheckedLayer> out;
  for (const LayerGroup &g : groupShards(pkg.layers)) {
    CheckedLayer l;
    l.layer = &pkg.layers[g.first];
    l.index = static_cast<int64_t>(out.size());
    l.first = g.first;
    l.count = g.count;
    l.rows = l.layer->isShard() ? l.layer->shard.rows : l.layer->matrix.rows;
    l.cols = l.layer->matrix.cols;
    out.push_back(l);
  }
  return out;
}

/// The rows of `parts` one after the other (all of the same columns).
static CsrMatrix stackRows(const std::vector<CsrMatrix> &parts) {
  CsrMatrix out;
  out.cols = parts.empty() ? 0 : parts.front().cols;
  for (const CsrMatrix &p : parts) {
    const int32_t base = out.rowPtr.back();
    for (int32_t i = 1; i <= p.rows; ++i)
      out.rowPtr.push_back(base + p.rowPtr[i]);
    out.colIdx.insert(out.colIdx.end(), p.colIdx.begin(), p.colIdx.end());
    out.values.insert(out.values.end(), p.values.begin(), p.values.end());
    out.rows += p.rows;
  }
  return out;
}

bool spperm::verify::referenceMatrix(const std::string &path,
                                    const CheckedLayer &layer, CsrMatrix &a,
                                    std::string &from, std::string &error) {
  const PackageLayer &l = *layer.layer;
  std::string src = l.sourcePath;
  if (!src.empty() && src[0] != '/')
    src = parentOf(path) + "/" + src;
  ReadOptions ro;
  ro.values = l.values;
  // Only the very file the package was compiled from: a regular file (a
  // FIFO would block the read) whose SHA-256 is the recorded one (an
  // edited source is no reference, whatever its shape).
  auto recordedSource = [&]() -> Status {
    struct stat st;
    if (src.empty())
      return Status::error("no source");
    if (::stat(src.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      return Status::error("not a regular file");
    if (!l.sourceSha256.empty()) {
      StatusOr<std::string> sha = sha256File(src);
      if (!sha || *sha != l.sourceSha256)
        return Status::error("changed since the package was compiled");
    }
    return Status::ok();
  };
  Status usable = recordedSource();
  StatusOr<CsrMatrix> m =
      usable ? readMatrixFile(src, ro) : StatusOr<CsrMatrix>(usable);
  // The layer's rows of the source (all of them without a recorded range).
  if (m && l.sourceRows) {
    const auto [begin, end] = *l.sourceRows;
    m = m->rows < end ? StatusOr<CsrMatrix>(Status::error("too few rows"))
                      : StatusOr<CsrMatrix>(sliceRows(*m, begin, end));
  }
  // A source of another shape (changed since, or a range the package does
  // not record) is no reference: the package's arrays are.
  if (m && m->rows == layer.rows && m->cols == layer.cols) {
    a = std::move(*m);
    // 16-bit values: the product the package computes is of the values
    // rounded to the type.
    if (l.valueType != ValueType::F32)
      for (float &v : a.values)
        v = roundToValueType(v, l.valueType);
    from = "source";
    return true;
  }
  // The package's own arrays, read completely.
  StatusOr<Package> full = readPackage(path);
  if (!full) {
    error = full.message();
    return false;
  }
  if (layer.first + layer.count > full->layers.size() ||
      full->layers[layer.first].name != l.name) {
    error = path + ": the package changed while it was being checked";
    return false;
  }
  std::vector<CsrMatrix> parts;
  for (size_t i = 0; i < layer.count; ++i)
    parts.push_back(toOriginalCsr(full->layers[layer.first + i].matrix));
  a = stackRows(parts);
  from = "package";
  if (a.rows != layer.rows || a.cols != layer.cols) {
    error = "layer '" + l.name + "': its arrays are " +
            std::to_string(a.rows) + " x " + std::to_string(a.cols) +
            ", the layer " + std::to_string(layer.rows) + " x " +
            std::to_string(layer.cols);
    return false;
  }
  return true;
}

std::vector<double> spperm::verify::underflowSlack(const CsrMatrix &a) {
  std::vector<double> out(static_cast<size_t>(a.rows));
  for (int32_t i = 0; i < a.rows; ++i)
    out[i] = ::spperm::underflowSlack(a.rowPtr[i + 1] - a.rowPtr[i]);
  return out;
}

/// compare with `extra` added to every row's slack.
static Comparison compareBeyond(const std::vector<float> &c,
                                const std::vector<double> &r,
                                const std::vector<double> &slack,
                                double extra) {
  Comparison out;
  double num = 0.0, den = 0.0;
  // Elements per row: C is rows x K, row-major.
  const size_t k = slack.empty() ? 0 : r.size() / slack.size();
  for (size_t i = 0; i < r.size(); ++i) {
    if (std::isnan(c[i]) && !std::isnan(r[i])) {
      ++out.unwritten;
      continue;
    }
    const double d = beyondAllowance(static_cast<double>(c[i]) - r[i],
                                     extra + (k ? slack[i / k] : 0.0));
    num += d * d;
    den += r[i] * r[i];
  }
  out.error = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return out;
}

Comparison spperm::verify::compare(const std::vector<float> &c,
                                   const std::vector<double> &r,
                                   const std::vector<double> &slack) {
  return compareBeyond(c, r, slack, 0.0);
}

Comparison spperm::verify::compareRounded(const std::vector<float> &c,
                                          const std::vector<double> &r,
                                          const std::vector<double> &rAbs,
                                          ValueType type, double tolerance,
                                          const std::vector<double> &slack) {
  // The unit roundoff of the type, and half its smallest subnormal (the
  // rounding error of results below its normal range).
  const double unit =
      type == ValueType::F16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
  const double tiny =
      type == ValueType::F16 ? std::ldexp(1.0, -25) : std::ldexp(1.0, -134);
  Comparison out = compareBeyond(c, r, slack, tiny);
  const size_t k = slack.empty() ? 0 : r.size() / slack.size();
  out.errorLimit = unit;
  for (size_t i = 0; i < r.size(); ++i) {
    if (std::isnan(c[i]) || !std::isfinite(r[i]))
      continue;
    const double bound = unit * std::fabs(r[i]) +
                         (1.0 + unit) * tolerance * rAbs[i] + tiny +
                         (k ? slack[i / k] : 0.0);
    if (!(std::fabs(static_cast<double>(c[i]) - r[i]) <= bound))
      ++out.outOfBound;
  }
  return out;
}

void spperm::verify::roundOperand(std::vector<float> &b, ValueType type,
                                  std::vector<uint16_t> &bits) {
  bits.clear();
  if (type == ValueType::F32)
    return;
  bits = narrowArray(b, type);
  widenArray(bits.data(), bits.size(), type, b.data());
}

uint16_t spperm::verify::nanBits(ValueType type) {
  return type == ValueType::F16 ? uint16_t(0x7e00) : uint16_t(0x7fc0);
}
