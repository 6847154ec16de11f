//===- ManifestSchema.cpp - manifest.json, parsed and validated -*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The reader's view of manifest.json, which it trusts in nothing: parsed
// without exceptions and checked against its own trailing checksum; every
// key type- and range-checked, unknown keys refused; buffers aligned, in
// bounds, disjoint and of the size their count implies before anything is
// allocated (so no allocation is larger than data.bin itself). Every
// failure is one line that starts with the manifest's path.
//
//===----------------------------------------------------------------------===//

#include "ManifestSchema.h"

#include "ManifestReader.h"
#include "PackageDetail.h"
#include "spperm/Sparse/Escape.h"
#include "spperm/Sparse/JsonSyntax.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::detail;

namespace {

/// Parses the kernel launch `kj`, which messages call `kCtx`
/// ("layers[0].kernels[2]").
bool parseKernel(ManifestReader &r, const json &kj, const std::string &kCtx,
                 KernelInfo &k) {
  if (!kj.is_object())
    return r.fail(kCtx + " must be an object");
  if (!r.onlyKeys(kj, kCtx,
                  {"name", "family", "variant", "k_min", "k_max", "k_align",
                   "zero_output", "dependent_launch", "args", "grid",
                   "block", "shared_bytes", "grid_k"}) ||
      !r.string(kj, kCtx, "name", k.name) ||
      !r.string(kj, kCtx, "family", k.family) ||
      !r.string(kj, kCtx, "variant", k.variant) ||
      !r.integer(kj, kCtx, "k_min", 1, kMaxIndex, k.kMin) ||
      !r.integer(kj, kCtx, "k_max", 0, kMaxIndex, k.kMax) ||
      !r.integer(kj, kCtx, "k_align", 1, kMaxIndex, k.kAlign) ||
      !r.boolean(kj, kCtx, "zero_output", k.zeroOutput) ||
      !r.stringList(kj, kCtx, "args", k.args) ||
      !r.dims(kj, kCtx, "grid", kMaxIndex, k.gridX, k.gridY, k.gridZ) ||
      !r.dims(kj, kCtx, "block", 1024, k.blockX, k.blockY, k.blockZ) ||
      !r.integer(kj, kCtx, "shared_bytes", 0, kMaxIndex, k.sharedBytes) ||
      (kj.contains("dependent_launch") &&
       !r.boolean(kj, kCtx, "dependent_launch", k.dependentLaunch)))
    return false;
  if (!isValidName(k.name))
    return r.fail(kCtx + ".name must be 1 to 1024 bytes");
  if (std::string why = blockProblem(k.blockX, k.blockY, k.blockZ);
      !why.empty())
    return r.fail(kCtx + "." + why);
  if (kj.contains("grid_k")) {
    const std::string gctx = kCtx + ".grid_k";
    const json *gj = r.object(kj, kCtx, "grid_k");
    if (!gj || !r.onlyKeys(*gj, gctx, {"base", "ctas", "columns"}) ||
        !r.integer(*gj, gctx, "base", 0, kMaxIndex, k.gridBase) ||
        !r.integer(*gj, gctx, "ctas", 1, kMaxIndex, k.gridCtas) ||
        !r.integer(*gj, gctx, "columns", 1, kMaxIndex, k.gridColumns))
      return false;
    if (std::string why = k.gridKProblem(); !why.empty())
      return r.fail(kCtx + ": " + why);
  }
  return true;
}

/// Parses the layer `l` (structure, types, ranges, the buffer list against
/// the format's arrays), which messages call `where` ("layers[3]"); the
/// arrays themselves are not touched.
bool parseLayer(ManifestReader &r, const json &l, const std::string &where,
                bool externalData, uint64_t dataSize, LayerDesc &out) {
  // Buffers in data.bin have offsets; those rebuilt at load (external data,
  // rebuilt alternatives) have none.
  const bool stored = !externalData && !out.rebuilt;
  std::string ctx = where;
  if (!l.is_object())
    return r.fail(ctx + " must be an object");
  if (!r.onlyKeys(l, ctx,
                  {"name", "rows", "cols", "nnz", "k", "dtype", "values_dtype", "strategy",
                   "strategy_params", "format", "format_params", "source",
                   "kernels", "transpose_b", kInPlaceKey, "buffers",
                   "library_check", "shard"}))
    return false;
  PackageLayer &layer = out.layer;
  FormattedMatrix &f = layer.matrix;
  std::string strategyName, formatText, valuesText;
  if (!r.string(l, ctx, "name", layer.name))
    return false;
  if (!isValidName(layer.name))
    return r.fail(ctx + ".name must be 1 to 1024 bytes");
  ctx += " (" + inQuotes(layer.name) + ")";
  if (!r.integerAs(l, ctx, "rows", 0, kMaxIndex, f.rows) ||
      !r.integerAs(l, ctx, "cols", 0, kMaxIndex, f.cols) ||
      !r.integerAs(l, ctx, "nnz", 0, kMaxIndex, f.nnz) ||
      !r.integerAs(l, ctx, "k", 0, kMaxIndex, layer.k) ||
      !r.string(l, ctx, "strategy", strategyName) ||
      !r.string(l, ctx, "format", formatText))
    return false;
  if (static_cast<uint64_t>(f.nnz) >
      static_cast<uint64_t>(f.rows) * static_cast<uint64_t>(f.cols))
    return r.fail(ctx + ".nnz " + std::to_string(f.nnz) +
                  " is larger than rows x cols");
  // The operands' element type; packages without it take f32.
  if (l.contains("dtype")) {
    std::string dtype;
    if (!r.string(l, ctx, "dtype", dtype))
      return false;
    std::optional<ValueType> type = parseValueType(dtype);
    if (!type)
      return r.fail(ctx + ".dtype " + inQuotes(dtype) +
                    " is not f32, f16 or bf16");
    layer.operandType = *type;
  }
  if (l.contains("values_dtype")) {
    std::string dtype;
    if (!r.string(l, ctx, "values_dtype", dtype))
      return false;
    std::optional<ValueType> type = parseValueType(dtype);
    if (!type || (*type != ValueType::F32 && *type != layer.operandType))
      return r.fail(ctx + ".values_dtype " + inQuotes(dtype) +
                    " is not f32 or the layer's dtype");
    layer.valueType = *type;
  }

  // The shard of its layer (docs/Package.md, "Shards"); the shards' order
  // and cover are checked once all layers are read (checkShards).
  if (l.contains("shard")) {
    const std::string sctx = ctx + ".shard";
    const json *sj = r.object(l, ctx, "shard");
    ShardInfo &shard = layer.shard;
    if (!sj ||
        !r.onlyKeys(*sj, sctx,
                    {"index", "count", "row_begin", "row_end", "rows"}) ||
        !r.integerAs(*sj, sctx, "count", 2, kMaxIndex, shard.count) ||
        !r.integerAs(*sj, sctx, "index", 0, shard.count - 1, shard.index) ||
        !r.integerAs(*sj, sctx, "rows", 0, kMaxIndex, shard.rows) ||
        !r.integerAs(*sj, sctx, "row_begin", 0, shard.rows, shard.rowBegin) ||
        !r.integerAs(*sj, sctx, "row_end", shard.rowBegin, shard.rows,
                     shard.rowEnd))
      return false;
    if (shard.rowEnd - shard.rowBegin != f.rows)
      return r.fail(sctx + ": rows [" + std::to_string(shard.rowBegin) +
                    ", " + std::to_string(shard.rowEnd) + ") are not the " +
                    std::to_string(f.rows) + " rows of the shard");
  }

  // Strategy and its parameters.
  std::optional<Strategy> strategy = parseStrategy(strategyName);
  if (!strategy || strategyCliName(*strategy) != strategyName)
    return r.fail(ctx + ".strategy " + inQuotes(strategyName) +
                  " is not a strategy name");
  PermutationOptions &p = layer.permutation;
  p.strategy = *strategy;
  const json *sp = r.object(l, ctx, "strategy_params");
  std::string spCtx = ctx + ".strategy_params";
  if (!sp ||
      !r.onlyKeys(
          *sp, spCtx,
          {"warps", "line", "rows_per_warp", "tau", "alpha", "candidates"}) ||
      !r.integerAs(*sp, spCtx, "warps", 1, INT32_MAX, p.warps) ||
      !r.integerAs(*sp, spCtx, "line", 1, INT32_MAX, p.lineWidth) ||
      !r.integerAs(*sp, spCtx, "rows_per_warp", 1, INT32_MAX, p.rowsPerWarp) ||
      !r.integerAs(*sp, spCtx, "tau", 1, INT32_MAX, p.tau) ||
      !r.number(*sp, spCtx, "alpha", 0.0, 1.0, p.alpha) ||
      !r.integerAs(*sp, spCtx, "candidates", 0, INT32_MAX, p.candidateLimit))
    return false;
  if (Status s = validatePermutationOptions(p); !s)
    return r.fail(spCtx + ": " + s.message());

  // Format and its parameters.
  std::optional<FormatKind> kind = parseFormatKind(formatText);
  if (!kind)
    return r.fail(ctx + ".format " + inQuotes(formatText) +
                  " is not one of csr, bell, hbp");
  f.kind = *kind;
  FormatOptions &fo = layer.format;
  fo.kind = *kind;
  const json *fp = r.object(l, ctx, "format_params");
  std::string fpCtx = ctx + ".format_params";
  if (!fp)
    return false;
  switch (*kind) {
  case FormatKind::Csr:
    if (!r.onlyKeys(*fp, fpCtx, {}))
      return false;
    break;
  case FormatKind::Bell: {
    BellStorage &b = f.bell;
    if (!r.onlyKeys(*fp, fpCtx,
                    {"block", "width", "delta", "dense_nnz", "max_width",
                     "columns"}) ||
        !r.integerAs(*fp, fpCtx, "block", 1, 32, b.block) ||
        !r.integerAs(*fp, fpCtx, "width", 0, kMaxIndex, b.width) ||
        !r.number(*fp, fpCtx, "delta", 0.0, 1.0, b.delta) ||
        !r.integerAs(*fp, fpCtx, "dense_nnz", 0, f.nnz, b.denseNnz) ||
        !r.integerAs(*fp, fpCtx, "max_width", 0, kMaxIndex, fo.bellMaxWidth))
      return false;
    if (!(b.delta > 0.0))
      return r.fail(fpCtx + ".delta must be in (0, 1]");
    // "columns" is absent for consecutive blocks (packages before
    // condensed tiles have none).
    if (fp->contains("columns")) {
      std::string columns;
      if (!r.string(*fp, fpCtx, "columns", columns))
        return false;
      if (columns != bell_columns::kCondensed &&
          columns != bell_columns::kBlocks)
        return r.fail(fpCtx + ".columns must be \"blocks\" or "
                              "\"condensed\", got " +
                      inQuotes(columns));
      b.condensed = columns == bell_columns::kCondensed;
    }
    fo.bellColumns =
        b.condensed ? BellColumns::Condensed : BellColumns::Blocks;
    if ((b.block & (b.block - 1)) != 0)
      return r.fail(fpCtx + ".block must be 1, 2, 4, 8, 16 or 32, got " +
                    std::to_string(b.block));
    b.blockRows =
        static_cast<int32_t>((int64_t(f.rows) + b.block - 1) / b.block);
    b.residual.rows = f.rows;
    b.residual.cols = f.cols;
    fo.bellBlock = b.block;
    fo.bellDelta = b.delta;
    break;
  }
  case FormatKind::Hbp: {
    HbpStorage &h = f.hbp;
    const json *hash;
    std::string hashCtx = fpCtx + ".hash";
    if (!r.onlyKeys(
            *fp, fpCtx,
            {"row_block", "col_block", "fixed_fraction", "warps", "hash"}) ||
        !r.integerAs(*fp, fpCtx, "row_block", 32, kMaxIndex, h.rowBlock) ||
        !r.integerAs(*fp, fpCtx, "col_block", 1, kMaxIndex, h.colBlock) ||
        !r.number(*fp, fpCtx, "fixed_fraction", 0.0, 1.0,
                  fo.hbpFixedFraction) ||
        !r.integerAs(*fp, fpCtx, "warps", 1, kMaxIndex, fo.hbpWarps) ||
        !(hash = r.object(*fp, fpCtx, "hash")) ||
        !r.onlyKeys(*hash, hashCtx, {"a", "b", "c", "d"}) ||
        !r.integerAs(*hash, hashCtx, "a", INT32_MIN, INT32_MAX, h.hashA) ||
        !r.integerAs(*hash, hashCtx, "b", INT32_MIN, INT32_MAX, h.hashB) ||
        !r.integerAs(*hash, hashCtx, "c", INT32_MIN, INT32_MAX, h.hashC) ||
        !r.integerAs(*hash, hashCtx, "d", INT32_MIN, INT32_MAX, h.hashD))
      return false;
    if (h.rowBlock % 32 != 0)
      return r.fail(fpCtx + ".row_block must be a multiple of 32, got " +
                    std::to_string(h.rowBlock));
    h.blockRows =
        static_cast<int32_t>((int64_t(f.rows) + h.rowBlock - 1) / h.rowBlock);
    h.blockCols =
        static_cast<int32_t>((int64_t(f.cols) + h.colBlock - 1) / h.colBlock);
    fo.hbpRowBlock = h.rowBlock;
    fo.hbpColBlock = h.colBlock;
    break;
  }
  }

  if (Status s = validateFormatOptions(fo); !s)
    return r.fail(fpCtx + ": " + s.message());

  // Source.
  const json *source = r.object(l, ctx, "source");
  std::string srcCtx = ctx + ".source";
  if (!source ||
      !r.onlyKeys(*source, srcCtx,
                  {"path", "sha256", "values", "row_begin", "row_end"}) ||
      !r.string(*source, srcCtx, "path", layer.sourcePath) ||
      !r.sha256(*source, srcCtx, "sha256", layer.sourceSha256,
                /*allowEmpty=*/!externalData) ||
      !r.string(*source, srcCtx, "values", valuesText))
    return false;
  // A range of the source's rows (both keys or neither).
  if (source->contains("row_begin") || source->contains("row_end")) {
    int32_t begin = 0, end = 0;
    if (!r.integerAs(*source, srcCtx, "row_begin", 0, kMaxIndex, begin) ||
        !r.integerAs(*source, srcCtx, "row_end", begin, kMaxIndex, end))
      return false;
    layer.sourceRows = std::pair(begin, end);
    if (Status s = checkSourceRows(layer); !s)
      return r.fail(srcCtx + ": " + s.message());
  }
  if (externalData && layer.sourcePath.empty())
    return r.fail(srcCtx + ".path must name the matrix file (external data)");
  StatusOr<ValuesSpec> values = parseValuesSpec(valuesText);
  if (!values)
    return r.fail(srcCtx + ".values: " + values.message());
  layer.values = *values;

  if (l.contains("library_check") &&
      !r.boolean(l, ctx, "library_check", layer.libraryCheck))
    return false;

  // Kernels.
  const json *kernels = r.array(l, ctx, "kernels");
  if (!kernels)
    return false;
  for (size_t i = 0; i < kernels->size(); ++i) {
    KernelInfo k;
    if (!parseKernel(r, (*kernels)[i],
                     ctx + ".kernels[" + std::to_string(i) + "]", k))
      return false;
    layer.kernels.push_back(std::move(k));
  }
  if (l.contains("transpose_b")) {
    KernelInfo k;
    if (!parseKernel(r, l["transpose_b"], ctx + ".transpose_b", k))
      return false;
    if (k.gridCtas > 0)
      return r.fail(ctx + ".transpose_b cannot have grid_k");
    if (!isTransposeArgs(k.args))
      return r.fail(ctx + ".transpose_b.args must take " + kTransposeArgsRule);
    if (k.blockX != kTransposeThreads || k.blockY != 1 || k.blockZ != 1)
      return r.fail(ctx + ".transpose_b.block must be [" +
                    std::to_string(kTransposeThreads) + ", 1, 1]");
    layer.transposeB = std::move(k);
  }
  if (l.contains(kInPlaceKey)) {
    const json *inPlace = r.array(l, ctx, kInPlaceKey);
    if (!inPlace)
      return false;
    for (size_t i = 0; i < inPlace->size(); ++i) {
      const std::string kctx =
          ctx + "." + kInPlaceKey + "[" + std::to_string(i) + "]";
      KernelInfo k;
      if (!parseKernel(r, (*inPlace)[i], kctx, k))
        return false;
      if (!isInPlaceCallArgs(k.args))
        return r.fail(kctx + ".args must take " + kInPlaceArgsRule);
      // It runs alone: nothing clears C before it or overlaps it.
      if (k.zeroOutput || k.dependentLaunch)
        return r.fail(kctx + " cannot have zero_output or dependent_launch");
      if (k.gridCtas > 0)
        return r.fail(kctx + " cannot have grid_k");
      layer.inPlaceB.push_back(std::move(k));
    }
  }
  // Buffers: the list must be exactly the format's arrays (the csr.* group
  // is optional for bell and hbp), with the right types and sizes, inside
  // data.bin and aligned.
  const json *buffers = r.array(l, ctx, "buffers");
  if (!buffers)
    return false;
  for (size_t i = 0; i < buffers->size(); ++i) {
    const json &bj = (*buffers)[i];
    std::string bCtx = ctx + ".buffers[" + std::to_string(i) + "]";
    if (!bj.is_object())
      return r.fail(bCtx + " must be an object");
    BufferDesc b;
    int64_t count, size, offset = 0;
    if (!stored ? !r.onlyKeys(bj, bCtx,
                              {"name", "dtype", "count", "size", "sha256"})
                : !r.onlyKeys(bj, bCtx,
                              {"name", "dtype", "count", "offset", "size",
                               "sha256"}))
      return false;
    if (!r.string(bj, bCtx, "name", b.name) ||
        !r.string(bj, bCtx, "dtype", b.dtype) ||
        !r.integer(bj, bCtx, "count", 0, INT64_MAX, count) ||
        (stored && !r.integer(bj, bCtx, "offset", 0, INT64_MAX, offset)) ||
        !r.integer(bj, bCtx, "size", 0, INT64_MAX, size) ||
        !r.sha256(bj, bCtx, "sha256", b.sha256))
      return false;
    b.count = static_cast<uint64_t>(count);
    b.size = static_cast<uint64_t>(size);
    b.offset = static_cast<uint64_t>(offset);
    bCtx += " (" + inQuotes(b.name) + ")";
    const uint64_t elem = LayerBuffer::elementBytes(b.dtype);
    if (elem == 0)
      return r.fail(bCtx + ".dtype " + inQuotes(b.dtype) +
                    " is not one of i32, i64, f32, f16, bf16");
    if (b.count > b.size / elem || b.count * elem != b.size)
      return r.fail(bCtx + ": size " + std::to_string(b.size) +
                    " does not match count " + std::to_string(b.count) +
                    " of " + b.dtype);
    if (stored) {
      if (b.offset % kAlignment != 0)
        return r.fail(bCtx + ": offset " + std::to_string(b.offset) +
                      " is not a multiple of " + std::to_string(kAlignment));
      if (b.offset > dataSize || b.size > dataSize - b.offset)
        return r.fail(bCtx + ": bytes [" + std::to_string(b.offset) + ", " +
                      std::to_string(b.offset) + " + " +
                      std::to_string(b.size) + ") lie outside data.bin (" +
                      std::to_string(dataSize) + " bytes)");
    }
    for (const BufferDesc &other : out.buffers)
      if (other.name == b.name)
        return r.fail(bCtx + ": a second buffer with this name");
    out.withCsr |= isCsrGroupName(b.name);
    out.buffers.push_back(std::move(b));
  }

  // Bind each expected array to its buffer; the expected set decides.
  size_t bound = 0;
  bool ok = true;
  forEachBuffer(f, out.withCsr, [&](std::string_view name, auto &vec) {
    using T = typename std::decay_t<decltype(vec)>::value_type;
    if (!ok)
      return;
    auto it = std::find_if(out.buffers.begin(), out.buffers.end(),
                           [&](const BufferDesc &b) { return b.name == name; });
    if (it == out.buffers.end()) {
      ok = r.fail(ctx + ".buffers: the " + std::string(formatName(f.kind)) +
                  " format needs a buffer " + inQuotes(name));
      return;
    }
    // Values are stored in the layer's values_dtype; a 16-bit layer's may
    // also be f32 (packages written before 16-bit storage).
    const std::string_view want = storedDtype<T>(out.layer.valueType);
    if (it->dtype != want && it->dtype != DType<T>::name) {
      ok = r.fail(ctx + ".buffers: " + inQuotes(name) + " must have dtype " +
                  std::string(want) + ", got " + it->dtype);
      return;
    }
    if constexpr (std::is_same_v<T, int32_t>) {
      it->i32 = &vec;
    } else if constexpr (std::is_same_v<T, int64_t>) {
      it->i64 = &vec;
    } else {
      it->f32 = &vec;
      if (it->dtype != DType<T>::name)
        it->halfType = out.layer.valueType;
      else
        it->exactIn = out.layer.valueType;
    }
    ++bound;
  });
  if (!ok)
    return false;
  if (bound != out.buffers.size()) {
    for (const BufferDesc &b : out.buffers)
      if (!b.i32 && !b.i64 && !b.f32)
        return r.fail(ctx + ".buffers: " + inQuotes(b.name) +
                      " is not an array of the " +
                      std::string(formatName(f.kind)) + " format");
  }
  // The kernels' arguments (and the in-place kernels', with B_col).
  const size_t kernelCount = out.layer.kernels.size();
  for (size_t i = 0; i < kernelCount + out.layer.inPlaceB.size(); ++i) {
    const bool inPlace = i >= kernelCount;
    const KernelInfo &kernel = inPlace ? out.layer.inPlaceB[i - kernelCount]
                                       : out.layer.kernels[i];
    const std::string kctx =
        inPlace ? ctx + "." + kInPlaceKey + "[" +
                      std::to_string(i - kernelCount) + "]"
                : ctx + ".kernels[" + std::to_string(i) + "]";
    for (const std::string &arg : kernel.args) {
      bool known =
          isCallArg(arg) || (inPlace && arg == call_arg::kBColumnMajor);
      std::string_view base = narrowedBuffer(arg);
      if (std::string why = narrowIndexProblem(arg, out.layer.matrix.cols);
          !why.empty())
        return r.fail(kctx + ".args: " + inQuotes(arg) + " " + why);
      for (const BufferDesc &b : out.buffers)
        known = known || b.name == arg || (!base.empty() && b.name == base);
      if (!known)
        return r.fail(kctx + ".args: " + inQuotes(arg) +
                      " is not a buffer of the layer, B, C, " + "K, " +
                      std::string(call_arg::kTickets) + " or " +
                      std::string(call_arg::kAccumulator));
    }
  }

  // The counts that follow from the shape (verifyFormat checks the rest).
  auto expectCount = [&](std::string_view name, uint64_t want) {
    for (const BufferDesc &b : out.buffers)
      if (b.name == name && b.count != want)
        return r.fail(ctx + ".buffers: " + inQuotes(name) + " has " +
                      std::to_string(b.count) + " elements, expected " +
                      std::to_string(want));
    return true;
  };
  auto sameCount = [&](std::string_view a, std::string_view b) {
    uint64_t ca = 0, cb = 0;
    bool hasA = false, hasB = false;
    for (const BufferDesc &d : out.buffers) {
      if (d.name == a)
        ca = d.count, hasA = true;
      if (d.name == b)
        cb = d.count, hasB = true;
    }
    if (hasA && hasB && ca != cb)
      return r.fail(ctx + ".buffers: " + inQuotes(a) + " and " + inQuotes(b) +
                    " have different counts");
    return true;
  };
  const uint64_t rows = static_cast<uint64_t>(f.rows);
  if (!expectCount(buffer::kOrder, rows) || !expectCount(buffer::kCsrRowPtr, rows + 1) ||
      !expectCount(buffer::kBellResidualRowPtr, rows + 1) ||
      !sameCount(buffer::kCsrColIdx, buffer::kCsrValues) ||
      !sameCount(buffer::kBellResidualColIdx, buffer::kBellResidualValues) ||
      (f.kind == FormatKind::Csr &&
       !expectCount(buffer::kCsrColIdx, static_cast<uint64_t>(f.nnz))))
    return false;
  if (out.withCsr) {
    f.csr.rows = f.rows;
    f.csr.cols = f.cols;
  }
  return true;
}

/// Parses and validates the whole manifest.
bool parseManifest(ManifestReader &r, const json &root, ManifestDesc &out) {
  if (!r.onlyKeys(root, "",
                  {"schema", "version", "target", "data", "code", "layers",
                   kChecksumKey}))
    return false;
  if (!r.string(root, "", "target", out.target))
    return false;
  if (!isValidTarget(out.target))
    return r.fail("target " + inQuotes(out.target) +
                  " is not an architecture name such as sm_90");

  const json *data = r.member(root, "", "data");
  if (!data)
    return false;
  if (data->is_string()) {
    if (data->get<std::string>() != "external")
      return r.fail("data must be \"external\" or an object");
    out.externalData = true;
  } else if (!r.fileDesc(root, "", "data", kDataFile, INT64_MAX, out.data)) {
    return false;
  }

  const json *code = r.object(root, "", "code");
  if (!code || !r.onlyKeys(*code, "code", {"ptx", "cubin"}))
    return false;
  if (code->contains("ptx")) {
    out.hasPtx = true;
    if (!r.fileDesc(*code, "code", "ptx", kPtxFile, kMaxCodeBytes, out.ptx))
      return false;
  }
  if (code->contains("cubin")) {
    out.hasCubin = true;
    if (!r.fileDesc(*code, "code", "cubin", "kernels." + out.target + ".cubin",
                    kMaxCodeBytes, out.cubin))
      return false;
  }

  const json *layers = r.array(root, "", "layers");
  if (!layers)
    return false;
  if (layers->empty())
    return r.fail("layers is empty");
  // Layers and their alternatives, flat: each alternative after its
  // layer, parsed as the layer with the alternative's keys in place of its
  // own (so it is validated like any layer).
  // Reserved in full first: a buffer's description points into its
  // layer's arrays, so the descriptions must not move.
  size_t entries = layers->size();
  for (const json &entry : *layers)
    if (entry.is_object() && entry.contains("alternatives") &&
        entry["alternatives"].is_array())
      entries += entry["alternatives"].size();
  out.layers.reserve(entries);
  for (size_t i = 0; i < layers->size(); ++i) {
    const std::string ctx = "layers[" + std::to_string(i) + "]";
    const json &entry = (*layers)[i];
    const json *alternatives = nullptr;
    json plain;
    if (entry.is_object() && entry.contains("alternatives")) {
      alternatives = &entry["alternatives"];
      plain = entry;
      plain.erase("alternatives");
    }
    const int64_t index = static_cast<int64_t>(out.layers.size());
    if (!parseLayer(r, alternatives ? plain : entry, ctx, out.externalData,
                    out.data.size, out.layers.emplace_back()))
      return false;
    const PackageLayer &layer = out.layers.back().layer;
    for (const LayerDesc &other : out.layers)
      if (&other.layer != &layer && other.parent < 0 &&
          other.layer.name == layer.name &&
          !(other.layer.isShard() && layer.isShard()))
        return r.fail("two layers are named " + inQuotes(layer.name));
    if (!alternatives)
      continue;
    const std::string actx = ctx + " (" + inQuotes(layer.name) + ")";
    if (!alternatives->is_array() || alternatives->empty())
      return r.fail(actx + ".alternatives must be a non-empty array");
    if (!layer.libraryCheck || !hasGeneratedKernels(layer))
      return r.fail(actx + " has alternatives but not the library check "
                           "and generated kernels (the runtime chooses "
                           "among them by timing)");
    for (size_t j = 0; j < alternatives->size(); ++j) {
      const std::string jctx =
          actx + ".alternatives[" + std::to_string(j) + "]";
      const json &alt = (*alternatives)[j];
      if (!alt.is_object())
        return r.fail(jctx + " must be an object");
      if (!r.onlyKeys(alt, jctx,
                      {kAlternativeKeys[0], kAlternativeKeys[1],
                       kAlternativeKeys[2], kAlternativeKeys[3],
                       kAlternativeKeys[4], kAlternativeKeys[5],
                       kInPlaceKey, kRebuiltKey}))
        return false;
      for (const char *key : kAlternativeKeys)
        if (!alt.contains(key))
          return r.fail(jctx + " lacks " + inQuotes(key));
      bool rebuilt = false;
      if (alt.contains(kRebuiltKey) &&
          !r.boolean(alt, jctx, kRebuiltKey, rebuilt))
        return false;
      if (rebuilt && out.externalData)
        return r.fail(jctx + ".rebuilt: with external data every layer is "
                             "rebuilt from its source");
      json merged = plain;
      merged.erase(kInPlaceKey); // the alternative's own, if any
      for (auto it = alt.begin(); it != alt.end(); ++it)
        if (it.key() != kRebuiltKey)
          merged[it.key()] = it.value();
      LayerDesc &desc = out.layers.emplace_back();
      desc.parent = index;
      desc.rebuilt = rebuilt;
      desc.layer.rebuilt = rebuilt;
      if (!parseLayer(r, merged, jctx, out.externalData, out.data.size, desc))
        return false;
      // The layer's transposing kernel serves its alternatives.
      desc.layer.transposeB.reset();
      if (!hasGeneratedKernels(desc.layer))
        return r.fail(jctx + " needs generated kernels (an alternative is a "
                             "variant the runtime times)");
    }
  }

  // The shards of each sharded layer in order, covering its rows.
  std::vector<PackageLayer> top;
  for (const LayerDesc &l : out.layers)
    if (l.parent < 0) {
      PackageLayer &t = top.emplace_back();
      t.name = l.layer.name;
      t.shard = l.layer.shard;
      t.k = l.layer.k;
      t.matrix.rows = l.layer.matrix.rows;
      t.matrix.cols = l.layer.matrix.cols;
      t.sourcePath = l.layer.sourcePath;
      t.sourceSha256 = l.layer.sourceSha256;
      t.values = l.layer.values;
      t.sourceRows = l.layer.sourceRows;
    }
  if (Status s = checkShards(top); !s)
    return r.fail("layers: " + s.message());

  // No two buffers may share bytes of data.bin.
  if (!out.externalData) {
    struct Span {
      uint64_t begin, end;
      const LayerDesc *layer;
      const BufferDesc *buffer;
    };
    std::vector<Span> spans;
    for (const LayerDesc &l : out.layers)
      for (const BufferDesc &b : l.buffers)
        if (b.size > 0 && !l.rebuilt)
          spans.push_back({b.offset, b.offset + b.size, &l, &b});
    std::sort(spans.begin(), spans.end(),
              [](const Span &a, const Span &b) { return a.begin < b.begin; });
    for (size_t i = 1; i < spans.size(); ++i)
      if (spans[i].begin < spans[i - 1].end)
        return r.fail("buffers " + inQuotes(spans[i - 1].buffer->name) +
                      " of layer " + inQuotes(spans[i - 1].layer->layer.name) +
                      " and " + inQuotes(spans[i].buffer->name) + " of layer " +
                      inQuotes(spans[i].layer->layer.name) + " overlap");
  }
  return true;
}

} // namespace

Status detail::parseManifestText(const std::string &manifestPath,
                                 const std::string &text, ManifestDesc &m) {
  if (std::string syntax = jsonSyntaxError(text); !syntax.empty())
    return Status::error(manifestPath + ": not valid JSON: " + syntax);
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded())
    return Status::error(manifestPath + ": not valid JSON");

  ManifestReader r(manifestPath);
  if (!root.is_object())
    return Status::error(manifestPath + ": not a spperm package manifest (the "
                                        "top level is not an object)");
  std::string schema;
  int64_t version;
  if (!r.string(root, "", "schema", schema))
    return Status::error(r.message());
  if (schema != kSchema)
    return Status::error(manifestPath +
                         ": not a spperm package manifest "
                         "(schema " +
                         inQuotes(schema) + ", expected " + inQuotes(kSchema) +
                         ")");
  if (!r.integer(root, "", "version", 0, INT64_MAX, version))
    return Status::error(r.message());
  if (version != kPackageVersion)
    return Status::error(manifestPath + ": unsupported package version " +
                         std::to_string(version) + " (this build reads " +
                         std::to_string(kPackageVersion) + ")");

  // The manifest's own checksum: the writer ends the file with
  // `"manifest_sha256": "<sha256 of every byte before the key>"\n}\n`.
  const std::string key = "\"" + std::string(kChecksumKey) + "\": \"";
  const std::string tail = "\"\n}\n";
  const size_t suffix = key.size() + 64 + tail.size();
  std::string recorded;
  if (text.size() < suffix ||
      text.compare(text.size() - suffix, key.size(), key) != 0 ||
      text.compare(text.size() - tail.size(), tail.size(), tail) != 0 ||
      !r.sha256(root, "", kChecksumKey, recorded) ||
      text.compare(text.size() - suffix + key.size(), 64, recorded) != 0)
    return Status::error(manifestPath + ": the manifest_sha256 line is "
                                        "missing or not at the end of the "
                                        "file (was the manifest edited?)");
  if (sha256Hex(text.data(), text.size() - suffix) != recorded)
    return Status::error(manifestPath + ": the manifest does not match its "
                                        "manifest_sha256: it is corrupt or "
                                        "was edited");

  if (!parseManifest(r, root, m))
    return Status::error(r.message());
  return Status::ok();
}
