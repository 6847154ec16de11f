//===- Formats.cpp - Storage formats of a fixed sparse matrix ---*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Conversion of a CSR matrix and a row permutation into csr, bell and hbp,
// their verification, statistics and CPU executors. docs/Formats.md has the
// same layouts with examples; this comment and those of BellFormat.cpp and
// HbpFormat.cpp are the reference the kernels and the package code follow.
// Throughout, P is the permuted matrix: row p of P is row order[p] of the
// original, and every executor writes row p's result to row order[p] of C.
//
// csr: `csr` is P.
//
// bell and hbp, their builders and verifiers are in BellFormat.cpp and
// HbpFormat.cpp, the CPU executor in CpuExecutor.cpp; this file has csr, the
// options, and the entry points that dispatch on the format.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Formats.h"

#include "FormatsDetail.h"

#include "spperm/Sparse/Names.h"
#include "spperm/Sparse/Permutation.h"

#include <cmath>
#include <string>
#include <vector>

using namespace spperm;
using namespace spperm::detail;

namespace {

Status verifyCsrFormat(const FormattedMatrix &f, const CsrMatrix *original) {
  const CsrMatrix &c = f.csr;
  if (Status s = c.verify(); !s)
    return fail("csr format: " + s.message());
  if (c.rows != f.rows || c.cols != f.cols)
    return fail("csr format: matrix is " + str(c.rows) + " x " + str(c.cols) +
                ", expected " + str(f.rows) + " x " + str(f.cols));
  if (c.nnz() != f.nnz)
    return fail("csr format: " + str(c.nnz()) + " entries, expected " +
                str(f.nnz));
  if (!original)
    return Status::ok();
  for (int32_t p = 0; p < f.rows; ++p) {
    int32_t r = f.order[p];
    if (original->rowLength(r) != c.rowLength(p))
      return fail("csr format: row " + str(p) + " has " +
                  str(c.rowLength(p)) + " entries, original row " + str(r) +
                  " has " + str(original->rowLength(r)));
    for (int32_t i = 0; i < c.rowLength(p); ++i) {
      int32_t a = c.rowPtr[p] + i, b = original->rowPtr[r] + i;
      if (c.colIdx[a] != original->colIdx[b] ||
          !sameBits(c.values[a], original->values[b]))
        return fail("csr format: row " + str(p) + " differs from original "
                    "row " + str(r) + " at entry " + str(i));
    }
  }
  return Status::ok();
}

} // namespace

FormattedMatrix detail::startFormat(const CsrMatrix &m,
                                    const std::vector<int32_t> &order,
                                    FormatKind kind) {
  FormattedMatrix f;
  f.rows = m.rows;
  f.cols = m.cols;
  f.nnz = m.nnz();
  f.kind = kind;
  f.order = order;
  return f;
}

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

std::string_view spperm::formatName(FormatKind kind) {
  switch (kind) {
  case FormatKind::Csr:
    return format_name::kCsr;
  case FormatKind::Bell:
    return format_name::kBell;
  case FormatKind::Hbp:
    return format_name::kHbp;
  }
  return "unknown";
}

std::optional<FormatKind> spperm::parseFormatKind(std::string_view name) {
  for (FormatKind k : {FormatKind::Csr, FormatKind::Bell, FormatKind::Hbp})
    if (formatName(k) == name)
      return k;
  return std::nullopt;
}

std::string_view spperm::bellColumnsName(BellColumns columns) {
  switch (columns) {
  case BellColumns::Auto:
    return bell_columns::kAuto;
  case BellColumns::Blocks:
    return bell_columns::kBlocks;
  case BellColumns::Condensed:
    return bell_columns::kCondensed;
  }
  return "unknown";
}

Status spperm::validateFormatOptions(const FormatOptions &o) {
  switch (o.kind) {
  case FormatKind::Csr:
    return Status::ok();
  case FormatKind::Bell:
    if (!isBellBlock(o.bellBlock))
      return Status::error("bell block " + str(o.bellBlock) +
                           " is not 1, 2, 4, 8, 16 or 32");
    if (std::isnan(o.bellDelta) || o.bellDelta > 1.0)
      return Status::error("bell delta " + std::to_string(o.bellDelta) +
                           " is not in (0, 1] (or <= 0 to search)");
    if (o.bellMaxWidth < 0)
      return Status::error("bell max width " + str(o.bellMaxWidth) +
                           " is negative");
    return Status::ok();
  case FormatKind::Hbp:
    if (o.hbpRowBlock <= 0 || o.hbpRowBlock % kWarp != 0 ||
        o.hbpRowBlock > kHbpMaxRowBlock)
      return Status::error("hbp row block " + str(o.hbpRowBlock) +
                           " is not a positive multiple of 32 up to " +
                           str(kHbpMaxRowBlock));
    if (o.hbpColBlock <= 0)
      return Status::error("hbp column block " + str(o.hbpColBlock) +
                           " is not positive");
    if (!(o.hbpFixedFraction >= 0.0 && o.hbpFixedFraction <= 1.0))
      return Status::error("hbp fixed fraction " +
                           std::to_string(o.hbpFixedFraction) +
                           " is not in [0, 1]");
    if (o.hbpWarps <= 0 || o.hbpWarps > (1 << 24))
      return Status::error("hbp warps " + str(o.hbpWarps) +
                           " is not in [1, 2^24]");
    return Status::ok();
  }
  return Status::error("unknown format kind");
}

StatusOr<FormattedMatrix> spperm::buildFormat(const CsrMatrix &m,
                                              const std::vector<int32_t> &order,
                                              const FormatOptions &options) {
  if (Status s = validateFormatOptions(options); !s)
    return s;
  if (!isPermutation(order, m.rows))
    return Status::error("the row order is not a permutation of the " +
                         str(m.rows) + " rows");
  switch (options.kind) {
  case FormatKind::Csr: {
    FormattedMatrix f = startFormat(m, order, FormatKind::Csr);
    f.csr = permuteRows(m, order);
    return f;
  }
  case FormatKind::Bell:
    return buildBell(m, order, options);
  case FormatKind::Hbp:
    return buildHbp(m, order, options);
  }
  return Status::error("unknown format kind");
}

Status spperm::verifyFormat(const FormattedMatrix &f,
                            const CsrMatrix *original) {
  if (f.rows < 0 || f.cols < 0 || f.nnz < 0)
    return fail("format: negative shape " + str(f.rows) + " x " + str(f.cols) +
                " or nnz " + str(f.nnz));
  if (!isPermutation(f.order, f.rows))
    return fail("format: order is not a permutation of the " + str(f.rows) +
                " rows");
  if (original) {
    if (Status s = original->verify(); !s)
      return s;
    if (original->rows != f.rows || original->cols != f.cols ||
        original->nnz() != f.nnz)
      return fail("format: shape " + str(f.rows) + " x " + str(f.cols) +
                  " with " + str(f.nnz) + " entries, original is " +
                  str(original->rows) + " x " + str(original->cols) +
                  " with " + str(original->nnz()));
  }
  switch (f.kind) {
  case FormatKind::Csr:
    return verifyCsrFormat(f, original);
  case FormatKind::Bell:
    return verifyBellFormat(f, original);
  case FormatKind::Hbp:
    return verifyHbpFormat(f, original);
  }
  return fail("format: unknown kind");
}

FormatStats spperm::computeFormatStats(const FormattedMatrix &f,
                                       const CsrMatrix &original) {
  (void)original;
  FormatStats st;
  if (f.kind == FormatKind::Bell) {
    const BellStorage &b = f.bell;
    if (b.denseNnz > 0)
      st.fillRatio = static_cast<double>(b.blockValues.size()) /
                     static_cast<double>(b.denseNnz);
    if (f.nnz > 0)
      st.denseNnzShare =
          static_cast<double>(b.denseNnz) / static_cast<double>(f.nnz);
    return st;
  }
  if (f.kind != FormatKind::Hbp)
    return st;
  // Lane lengths from the add_sign chains; "before" uses the same lengths
  // in local row order (slot r of the unhashed block holds row r).
  const HbpStorage &h = f.hbp;
  const int64_t R = h.rowBlock, G = R / kWarp;
  const int64_t S = static_cast<int64_t>(h.blocks.size());
  std::vector<int64_t> byRow(static_cast<size_t>(R)), bySlot(R);
  auto groupStd = [](const int64_t *x) {
    double mean = 0, sq = 0;
    for (int32_t t = 0; t < kWarp; ++t)
      mean += static_cast<double>(x[t]);
    mean /= kWarp;
    for (int32_t t = 0; t < kWarp; ++t)
      sq += (static_cast<double>(x[t]) - mean) * (static_cast<double>(x[t]) - mean);
    return std::sqrt(sq / kWarp);
  };
  double before = 0, after = 0;
  for (int64_t s = 0; s < S; ++s) {
    for (int64_t g = 0; g < G; ++g)
      for (int32_t t = 0; t < kWarp; ++t) {
        int64_t slot = g * kWarp + t;
        int32_t zr = h.zeroRow[s * R + slot];
        int64_t n = 0;
        if (zr >= 0) {
          int64_t j = h.beginNnz[s * G + g] + t - zr;
          for (n = 1; h.addSign[j] > 0; ++n)
            j += h.addSign[j];
        }
        bySlot[slot] = n;
        byRow[h.outputHash[s * R + slot]] = n;
      }
    for (int64_t g = 0; g < G; ++g) {
      before += groupStd(byRow.data() + g * kWarp);
      after += groupStd(bySlot.data() + g * kWarp);
    }
  }
  if (S > 0) {
    st.hbpGroupStdBefore = before / static_cast<double>(S * G);
    st.hbpGroupStdAfter = after / static_cast<double>(S * G);
  }
  return st;
}
