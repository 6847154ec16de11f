//===- CsrMatrix.cpp - Compressed sparse row matrix -------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Structural verification of a CsrMatrix, and its O(nnz + rows + cols)
// construction from coordinate triplets: a stable counting sort by row, then
// a stable sort of each row by column (insertion sort for short rows, one
// shared counting sort for the long ones), leaves duplicates adjacent and in
// input order, so they are summed in one pass.
//
// A counting sort by column followed by one by row would do as well in
// theory, but both passes scatter across the whole matrix; sorting within
// rows stays in cache and is about three times faster on large inputs.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/CsrMatrix.h"

#include <cassert>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

using namespace spperm;

Status CsrMatrix::verify() const {
  auto fail = [](const std::string &what) {
    return Status::error("invalid CSR matrix: " + what);
  };
  if (rows < 0 || cols < 0)
    return fail("negative dimensions " + std::to_string(rows) + " x " +
                std::to_string(cols));
  if (rowPtr.size() != static_cast<size_t>(rows) + 1)
    return fail("rowPtr has " + std::to_string(rowPtr.size()) +
                " entries, expected rows + 1 = " + std::to_string(rows + 1LL));
  if (values.size() != colIdx.size())
    return fail("values has " + std::to_string(values.size()) +
                " entries but colIdx has " + std::to_string(colIdx.size()));
  if (colIdx.size() > static_cast<size_t>(kMaxIndex))
    return fail("more than " + std::to_string(kMaxIndex) + " stored entries");
  if (rowPtr[0] != 0)
    return fail("rowPtr[0] is " + std::to_string(rowPtr[0]) + ", expected 0");
  if (static_cast<size_t>(rowPtr[rows]) != colIdx.size())
    return fail("rowPtr[rows] is " + std::to_string(rowPtr[rows]) +
                " but there are " + std::to_string(colIdx.size()) +
                " stored entries");
  // With rowPtr[0] == 0 and rowPtr[rows] == nnz, a non-decreasing rowPtr
  // keeps every row inside colIdx; check that before reading any row.
  for (int32_t r = 0; r < rows; ++r)
    if (rowPtr[r + 1] < rowPtr[r])
      return fail("rowPtr decreases at row " + std::to_string(r) + " (" +
                  std::to_string(rowPtr[r]) + " then " +
                  std::to_string(rowPtr[r + 1]) + ")");
  for (int32_t r = 0; r < rows; ++r) {
    int32_t begin = rowPtr[r], end = rowPtr[r + 1];
    for (int32_t k = begin; k < end; ++k) {
      int32_t c = colIdx[k];
      if (c < 0 || c >= cols)
        return fail("column " + std::to_string(c) + " in row " +
                    std::to_string(r) + " is out of range [0, " +
                    std::to_string(cols) + ")");
      if (k > begin && colIdx[k - 1] >= c)
        return fail("columns of row " + std::to_string(r) +
                    " are not strictly increasing (" +
                    std::to_string(colIdx[k - 1]) + " then " +
                    std::to_string(c) + ")");
    }
  }
  return Status::ok();
}

namespace {

/// Rows up to this long are sorted by insertion sort; longer unsorted rows
/// go through a counting sort, which keeps the whole build linear.
constexpr size_t kInsertionSortMax = 32;

/// An entry being sorted: its column and value side by side, so that the
/// scatter by row touches one cache line per entry.
struct Slot {
  int32_t col;
  double val;
};

/// Stable insertion sort of slots [begin, end) by column.
void insertionSortByColumn(Slot *slots, size_t begin, size_t end) {
  for (size_t i = begin + 1; i < end; ++i) {
    Slot s = slots[i];
    size_t j = i;
    for (; j > begin && slots[j - 1].col > s.col; --j)
      slots[j] = slots[j - 1];
    slots[j] = s;
  }
}

/// Stable sort by column of the given long rows, all at once: a counting sort
/// by column of their entries, then a stable distribution back into each
/// row's range. O(entries + rows + cols).
void sortLongRows(const std::vector<uint32_t> &longRows,
                  const std::vector<uint32_t> &rowEnd, size_t rows, size_t cols,
                  Slot *slots) {
  auto rowBegin = [&](uint32_t r) -> size_t { return r ? rowEnd[r - 1] : 0; };
  std::vector<uint32_t> colEnd(cols + 1, 0);
  size_t total = 0;
  for (uint32_t r : longRows) {
    for (size_t k = rowBegin(r), e = rowEnd[r]; k < e; ++k)
      ++colEnd[static_cast<size_t>(slots[k].col) + 1];
    total += rowEnd[r] - rowBegin(r);
  }
  for (size_t c = 1; c <= cols; ++c)
    colEnd[c] += colEnd[c - 1];
  std::vector<uint32_t> tRow(total);
  std::vector<double> tVal(total);
  for (uint32_t r : longRows) {
    for (size_t k = rowBegin(r), e = rowEnd[r]; k < e; ++k) {
      uint32_t p = colEnd[static_cast<size_t>(slots[k].col)]++;
      tRow[p] = r;
      tVal[p] = slots[k].val;
    }
  }
  std::vector<uint32_t> cursor(rows, 0);
  for (uint32_t r : longRows)
    cursor[r] = static_cast<uint32_t>(rowBegin(r));
  size_t p = 0;
  for (size_t c = 0; c < cols; ++c)
    for (size_t e = colEnd[c]; p < e; ++p)
      slots[cursor[tRow[p]]++] = Slot{static_cast<int32_t>(c), tVal[p]};
}

} // namespace

CsrMatrix spperm::buildCsr(const CooTriplets &coo) {
  assert(coo.rows >= 0 && coo.rows <= kMaxIndex && "rows out of range");
  assert(coo.cols >= 0 && coo.cols <= kMaxIndex && "cols out of range");
  assert(coo.row.size() == coo.col.size() &&
         coo.row.size() == coo.value.size() && "triplet arrays differ");
  assert(coo.row.size() <= static_cast<size_t>(UINT32_MAX) &&
         "too many triplets");
  const size_t n = coo.row.size();
  const size_t rows = static_cast<size_t>(coo.rows);
  const size_t cols = static_cast<size_t>(coo.cols);

  // Stable counting sort by row; afterwards rowEnd[r] is the end of row r
  // (and the beginning of row r + 1). Input already in row order is copied
  // sequentially.
  std::vector<uint32_t> rowEnd(rows + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    assert(coo.row[i] >= 0 && static_cast<size_t>(coo.row[i]) < rows &&
           "row index out of range");
    assert(coo.col[i] >= 0 && static_cast<size_t>(coo.col[i]) < cols &&
           "column index out of range");
    ++rowEnd[static_cast<size_t>(coo.row[i]) + 1];
  }
  for (size_t r = 1; r <= rows; ++r)
    rowEnd[r] += rowEnd[r - 1];
  // Every slot is written by the scatter: no need to initialize them. On
  // unordered input the writes land all over the array; prefetching a few
  // entries ahead overlaps their cache misses.
  std::unique_ptr<Slot[]> slots(new Slot[n]);
  constexpr size_t kPrefetchDistance = 16;
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchDistance < n)
      __builtin_prefetch(
          &slots[rowEnd[static_cast<size_t>(coo.row[i + kPrefetchDistance])]],
          /*rw=*/1);
    slots[rowEnd[static_cast<size_t>(coo.row[i])]++] =
        Slot{coo.col[i], coo.value[i]};
  }

  // Sort each row by column, stably so that duplicates keep their input
  // order: short rows by insertion sort (at most kInsertionSortMax^2 steps
  // per row, so O(nnz) in all), long unsorted rows by one counting sort.
  std::vector<uint32_t> longRows;
  for (size_t r = 0, begin = 0; r < rows; begin = rowEnd[r++]) {
    size_t end = rowEnd[r];
    size_t k = begin + 1;
    while (k < end && slots[k - 1].col <= slots[k].col)
      ++k;
    if (k >= end)
      continue; // already sorted
    if (end - begin <= kInsertionSortMax)
      insertionSortByColumn(slots.get(), begin, end);
    else
      longRows.push_back(static_cast<uint32_t>(r));
  }
  if (!longRows.empty())
    sortLongRows(longRows, rowEnd, rows, cols, slots.get());

  // Merge adjacent duplicates, summing in double in input order and rounding
  // to float once.
  size_t stored = 0;
  for (size_t r = 0, begin = 0; r < rows; begin = rowEnd[r++])
    for (size_t k = begin; k < rowEnd[r]; ++k)
      stored += k == begin || slots[k - 1].col != slots[k].col;
  assert(stored <= static_cast<size_t>(kMaxIndex) && "too many stored entries");
  CsrMatrix m;
  m.rows = static_cast<int32_t>(coo.rows);
  m.cols = static_cast<int32_t>(coo.cols);
  m.rowPtr.assign(rows + 1, 0);
  m.colIdx.resize(stored);
  m.values.resize(stored);
  size_t out = 0, k = 0;
  for (size_t r = 0; r < rows; ++r) {
    for (size_t end = rowEnd[r]; k < end;) {
      int32_t c = slots[k].col;
      double sum = slots[k++].val;
      while (k < end && slots[k].col == c)
        sum += slots[k++].val;
      m.colIdx[out] = c;
      m.values[out] = static_cast<float>(sum);
      ++out;
    }
    m.rowPtr[r + 1] = static_cast<int32_t>(out);
  }
  return m;
}

CsrMatrix spperm::permuteRows(const CsrMatrix &m,
                              const std::vector<int32_t> &order) {
  assert(static_cast<int32_t>(order.size()) == m.rows && "order size");
  CsrMatrix out;
  out.rows = m.rows;
  out.cols = m.cols;
  out.rowPtr.assign(m.rows + 1, 0);
  out.colIdx.reserve(m.colIdx.size());
  out.values.reserve(m.values.size());
  for (int32_t p = 0; p < m.rows; ++p) {
    int32_t r = order[p];
    out.colIdx.insert(out.colIdx.end(), m.colIdx.begin() + m.rowPtr[r],
                      m.colIdx.begin() + m.rowPtr[r + 1]);
    out.values.insert(out.values.end(), m.values.begin() + m.rowPtr[r],
                      m.values.begin() + m.rowPtr[r + 1]);
    out.rowPtr[p + 1] = static_cast<int32_t>(out.colIdx.size());
  }
  return out;
}

const char *spperm::float32ValueProblem(double v) {
  if (!std::isfinite(v))
    return "is not a finite number";
  if (std::fabs(v) >= 0x1.ffffffp127)
    return "is out of the float32 range";
  return nullptr;
}
