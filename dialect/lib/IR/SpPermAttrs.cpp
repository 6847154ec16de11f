//===- SpPermAttrs.cpp - spperm attributes ----------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Escape.h"
#include "spperm/Sparse/Names.h"
#include "spperm/Sparse/Permutation.h"
#include "spperm/Sparse/Spelling.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::spperm;

//===----------------------------------------------------------------------===//
// Strategy keywords
//===----------------------------------------------------------------------===//

FailureOr<::spperm::Strategy>
FieldParser<::spperm::Strategy>::parse(AsmParser &parser) {
  // The IR keyword (`warp_aware`), or the command-line name as a string
  // (`"warp-aware"`), which cannot be a keyword.
  SMLoc loc = parser.getCurrentLocation();
  std::string keyword;
  if (failed(parser.parseKeywordOrString(&keyword)))
    return failure();
  std::optional<::spperm::Strategy> strategy =
      ::spperm::parseStrategy(keyword);
  if (!strategy) {
    std::vector<std::string_view> names;
    for (::spperm::Strategy s : ::spperm::kAllStrategies)
      names.push_back(::spperm::strategyIrName(s));
    return parser.emitError(loc, "unknown row-permutation strategy '")
           << keyword << "' (expected one of "
           << llvm::join(names.begin(), names.end(), ", ")
           << "; a command-line name is written in quotes, e.g. "
              "\"warp-aware\")"
           << ::spperm::didYouMean(keyword, names);
  }
  return *strategy;
}

AsmPrinter &mlir::operator<<(AsmPrinter &printer,
                              ::spperm::Strategy strategy) {
  std::string_view name = ::spperm::strategyIrName(strategy);
  printer << StringRef(name.data(), name.size());
  return printer;
}

//===----------------------------------------------------------------------===//
// PermAttr
//===----------------------------------------------------------------------===//

Attribute PermAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  if (failed(parser.parseLess()))
    return {};
  FailureOr<::spperm::Strategy> strategy =
      FieldParser<::spperm::Strategy>::parse(parser);
  if (failed(strategy))
    return {};

  int64_t warps = kDefaultWarps;
  int64_t line = kDefaultLine;
  std::optional<int64_t> tau;
  FloatAttr alpha;
  llvm::SmallDenseSet<StringRef> seen;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (failed(parser.parseKeyword(&key)) || failed(parser.parseEqual()))
      return {};
    if (!seen.insert(key).second) {
      parser.emitError(loc, "duplicate parameter '") << key << "'";
      return {};
    }
    if (key == "warps" || key == "line" || key == "tau") {
      int64_t value;
      if (failed(parser.parseInteger(value)))
        return {};
      if (key == "warps")
        warps = value;
      else if (key == "line")
        line = value;
      else
        tau = value;
      continue;
    }
    if (key == "alpha") {
      double value;
      if (failed(parser.parseFloat(value)))
        return {};
      alpha = FloatAttr::get(Float64Type::get(ctx), value);
      continue;
    }
    parser.emitError(loc, "unknown parameter '")
        << key << "' (expected warps, line, tau or alpha)"
        << ::spperm::didYouMean(std::string_view(key),
                                {"warps", "line", "tau", "alpha"});
    return {};
  }
  if (failed(parser.parseGreater()))
    return {};
  elideDefaults(*strategy, tau, alpha);
  return parser.getChecked<PermAttr>(ctx, *strategy, warps, line, tau, alpha);
}

void PermAttr::elideDefaults(::spperm::Strategy strategy,
                             std::optional<int64_t> &tau, FloatAttr &alpha) {
  if (strategy != ::spperm::Strategy::Bsa)
    return;
  const ::spperm::PermutationOptions defaults;
  if (tau == defaults.tau)
    tau.reset();
  if (alpha && alpha.getValueAsDouble() == defaults.alpha)
    alpha = {};
}

void PermAttr::print(AsmPrinter &printer) const {
  printer << '<' << getStrategy();
  if (getWarps() != kDefaultWarps)
    printer << ", warps = " << getWarps();
  if (getLine() != kDefaultLine)
    printer << ", line = " << getLine();
  if (getTau())
    printer << ", tau = " << *getTau();
  if (getAlpha()) {
    printer << ", alpha = ";
    printer.printFloat(getAlpha().getValue());
  }
  printer << '>';
}

LogicalResult PermAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ::spperm::Strategy strategy, int64_t warps,
                               int64_t line, std::optional<int64_t> tau,
                               FloatAttr alpha) {
  if (warps < 1 || warps > 1024)
    return emitError() << "warps must be in [1, 1024], got " << warps;
  if (line < 1 || line > 1024 || !llvm::isPowerOf2_64(line))
    return emitError() << "line must be a power of two in [1, 1024], got "
                       << line;
  bool isBsa = strategy == ::spperm::Strategy::Bsa;
  if (tau) {
    if (!isBsa)
      return emitError() << "'tau' only applies to the bsa strategy";
    if (*tau < 1 || *tau > 1024)
      return emitError() << "tau must be in [1, 1024], got " << *tau;
  }
  if (alpha) {
    if (!isBsa)
      return emitError() << "'alpha' only applies to the bsa strategy";
    double a = alpha.getValueAsDouble();
    if (!(a > 0.0 && a <= 1.0))
      return emitError() << "alpha must be in (0, 1], got "
                         << ::spperm::exactNumber(a);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// FeaturesAttr
//===----------------------------------------------------------------------===//

/// A float, or an integer whose value fits in int64_t (what the features
/// are read back as).
static bool isNumber(Attribute a) {
  if (auto i = dyn_cast<IntegerAttr>(a)) {
    // An i0 holds no value (and APInt's sign queries assert on it).
    if (i.getValue().getBitWidth() == 0)
      return false;
    // Read back as int64_t: an unsigned value must stay below 2^63.
    if (i.getType().isUnsignedInteger())
      return i.getValue().getActiveBits() <= 63;
    return i.getValue().getSignificantBits() <= 64;
  }
  // A feature is a measurement: NaN or an infinity is none, and the
  // selector's trees would take an arbitrary branch on it.
  auto f = dyn_cast<FloatAttr>(a);
  return f && f.getValue().isFinite();
}

LogicalResult ChoiceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef strategy, StringRef format,
                                 StringRef source, ArrayAttr alternatives) {
  if (!::spperm::parseStrategy(strategy.str()))
    return emitError() << "unknown strategy '" << strategy
                       << "' (expected a --strategy name: identity, plain, "
                          "flipped, lpt, warp-aware, cta-aware, hybrid-1, "
                          "hybrid-2.1, hybrid-2.2, hybrid-2.3 or bsa; or its "
                          "IR keyword, such as warp_aware)";
  // Two spellings of one strategy are the same choice.
  auto sameStrategy = [](StringRef a, StringRef b) {
    return ::spperm::parseStrategy(a.str()) == ::spperm::parseStrategy(b.str());
  };
  if (!::spperm::isFormatChoice(format))
    return emitError() << "unknown format '" << format
                       << "' (expected csr, bell, hbp or cusparse)";
  if (source.empty())
    return emitError() << "source must not be empty";
  if (!alternatives)
    return success();
  if (format == StringRef(::spperm::kCusparse) ||
      format == StringRef(::spperm::format_name::kHbp))
    return emitError() << "a " << format
                       << " choice has no alternatives (the shortlist is "
                          "csr and bell variants the runtime times)";
  for (auto [i, element] : llvm::enumerate(alternatives)) {
    auto alt = dyn_cast<ChoiceAttr>(element);
    if (!alt)
      return emitError() << "alternatives[" << i
                         << "] must be a #spperm.choice";
    if (alt.getAlternatives())
      return emitError() << "alternatives[" << i
                         << "] must not have alternatives of its own";
    if (alt.getFormat() != StringRef(::spperm::format_name::kCsr) &&
        alt.getFormat() != StringRef(::spperm::format_name::kBell))
      return emitError() << "alternatives[" << i << "] has format '"
                         << alt.getFormat() << "' (expected csr or bell)";
    if (sameStrategy(alt.getStrategy(), strategy) && alt.getFormat() == format)
      return emitError() << "alternatives[" << i << "] repeats the choice";
    for (Attribute other : alternatives.getValue().take_front(i)) {
      auto before = cast<ChoiceAttr>(other);
      if (sameStrategy(before.getStrategy(), alt.getStrategy()) &&
          before.getFormat() == alt.getFormat())
        return emitError() << "alternatives[" << i << "] repeats an earlier "
                           << "alternative";
    }
  }
  return success();
}

LogicalResult
FeaturesAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     DictionaryAttr entries) {
  for (NamedAttribute entry : entries) {
    Attribute value = entry.getValue();
    if (isNumber(value))
      continue;
    auto group = dyn_cast<DictionaryAttr>(value);
    if (!group)
      return emitError() << "feature '" << entry.getName().getValue()
                         << "' must be a number (an integer in [-2^63, "
                            "2^63), or a finite float) or a dictionary of "
                            "numbers";
    for (NamedAttribute inner : group)
      if (!isNumber(inner.getValue()))
        return emitError() << "feature '" << entry.getName().getValue() << "."
                           << inner.getName().getValue()
                           << "' must be a number (an integer in [-2^63, "
                              "2^63), or a finite float)";
  }

  auto getCount = [&](StringRef key,
                      std::optional<int64_t> &out) -> LogicalResult {
    Attribute value = entries.get(key);
    if (!value)
      return success();
    auto intAttr = dyn_cast<IntegerAttr>(value);
    if (!intAttr)
      return emitError() << "feature '" << key << "' must be an integer";
    out = intAttr.getValue().getSExtValue();
    if (*out < 0)
      return emitError() << "feature '" << key
                         << "' must be non-negative, got " << *out;
    return success();
  };
  std::optional<int64_t> rows, cols, nnz, emptyRows;
  if (failed(getCount("rows", rows)) || failed(getCount("cols", cols)) ||
      failed(getCount("nnz", nnz)) || failed(getCount("empty_rows", emptyRows)))
    return failure();
  int64_t size = 0;
  if (rows && cols && nnz && !llvm::MulOverflow(*rows, *cols, size) &&
      *nnz > size)
    return emitError() << "feature 'nnz' (" << *nnz << ") exceeds rows * cols ("
                       << size << ")";
  if (rows && emptyRows && *emptyRows > *rows)
    return emitError() << "feature 'empty_rows' (" << *emptyRows
                       << ") exceeds rows (" << *rows << ")";
  if (Attribute density = entries.get("density")) {
    auto floatAttr = dyn_cast<FloatAttr>(density);
    if (!floatAttr)
      return emitError() << "feature 'density' must be a float";
    double d = floatAttr.getValueAsDouble();
    if (!(d >= 0.0 && d <= 1.0))
      return emitError() << "feature 'density' must be in [0, 1], got "
                         << ::spperm::exactNumber(d);
    // spperm-extract-features writes nnz / (rows * cols), and 0 for an empty
    // shape; a hand-written value needs six significant digits (at most
    // 5e-6 off, relative).
    if (rows && cols && nnz) {
      double cells = static_cast<double>(*rows) * static_cast<double>(*cols);
      double expected = cells > 0 ? static_cast<double>(*nnz) / cells : 0.0;
      if (std::fabs(d - expected) > 1e-5 * expected)
        return emitError() << "feature 'density' ("
                           << ::spperm::exactNumber(d)
                           << ") disagrees with nnz / (rows * cols) = "
                           << ::spperm::exactNumber(expected);
    }
  }
  return success();
}

std::optional<int64_t> FeaturesAttr::getInt(StringRef key) const {
  if (auto intAttr = dyn_cast_or_null<IntegerAttr>(getEntries().get(key)))
    return intAttr.getValue().getSExtValue();
  return std::nullopt;
}

std::optional<double> FeaturesAttr::getNumber(StringRef key) const {
  Attribute value = getEntries().get(key);
  if (auto intAttr = dyn_cast_or_null<IntegerAttr>(value))
    return static_cast<double>(intAttr.getValue().getSExtValue());
  if (auto floatAttr = dyn_cast_or_null<FloatAttr>(value))
    return floatAttr.getValueAsDouble();
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// FormatAttrInterface
//===----------------------------------------------------------------------===//

PermAttr FormatAttrInterface::getPerm() const {
  return cast_or_null<PermAttr>(getPermAttr());
}

FormatAttrInterface FormatAttrInterface::withPerm(PermAttr perm) const {
  return cast<FormatAttrInterface>(withPermAttr(perm));
}

//===----------------------------------------------------------------------===//
// Format parameters
//===----------------------------------------------------------------------===//

/// Parses a format attribute's `key = value, ...>` (its `<` already read):
/// each key one of `keys`, at most once, its value read by `parseValue`;
/// every key of `required` present. Each error is one diagnostic, where it
/// is: the value's own (`unknown row-permutation strategy ...`), or an
/// unknown, repeated or missing parameter, naming the attribute.
static ParseResult
parseFormatParameters(AsmParser &parser, StringRef attrName,
                      ArrayRef<StringRef> keys, ArrayRef<StringRef> required,
                      function_ref<ParseResult(StringRef key)> parseValue) {
  llvm::SmallDenseSet<StringRef> seen;
  do {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (failed(parser.parseOptionalKeyword(&key)))
      return parser.emitError(loc, "expected a parameter of #spperm.")
             << attrName << " (" << llvm::join(keys, ", ") << ")";
    if (!llvm::is_contained(keys, key)) {
      std::vector<std::string_view> names(keys.begin(), keys.end());
      return parser.emitError(loc, "unknown parameter '")
             << key << "' of #spperm." << attrName << " (expected "
             << llvm::join(keys, ", ") << ")"
             << ::spperm::didYouMean(std::string_view(key), names);
    }
    if (!seen.insert(key).second)
      return parser.emitError(loc, "duplicate parameter '") << key << "'";
    if (failed(parser.parseEqual()) || failed(parseValue(key)))
      return failure();
  } while (succeeded(parser.parseOptionalComma()));
  SMLoc end = parser.getCurrentLocation();
  if (failed(parser.parseGreater()))
    return failure();
  for (StringRef key : required)
    if (!seen.contains(key))
      return parser.emitError(end, "#spperm.")
             << attrName << " needs '" << key
             << "' (its required parameters: " << llvm::join(required, ", ")
             << ")";
  return success();
}

/// The value of the `perm` parameter: a #spperm.perm attribute, or its body
/// alone (`<lpt>`).
static ParseResult parsePermValue(AsmParser &parser, PermAttr &perm) {
  SMLoc loc = parser.getCurrentLocation();
  Attribute attr;
  if (failed(parser.parseCustomAttributeWithFallback(
          attr, Type(), [&](Attribute &result, Type type) -> ParseResult {
            result = PermAttr::parse(parser, type);
            return success(static_cast<bool>(result));
          })))
    return failure();
  perm = dyn_cast<PermAttr>(attr);
  if (!perm)
    return parser.emitError(loc, "perm must be a #spperm.perm<...>, got ")
           << attr;
  return success();
}

/// Prints `, perm = #spperm.perm<...>` where there is a permutation.
static void printPermParameter(AsmPrinter &printer, PermAttr perm, bool first) {
  if (!perm)
    return;
  printer << (first ? "" : ", ") << "perm = ";
  printer.printAttribute(perm);
}

//===----------------------------------------------------------------------===//
// CsrAttr
//===----------------------------------------------------------------------===//

Attribute CsrAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  PermAttr perm;
  // `#spperm.csr<>` is `#spperm.csr`.
  if (succeeded(parser.parseOptionalLess()) &&
      failed(parser.parseOptionalGreater()) &&
      failed(parseFormatParameters(
          parser, getMnemonic(), {"perm"}, {},
          [&](StringRef) { return parsePermValue(parser, perm); })))
    return {};
  return parser.getChecked<CsrAttr>(loc, parser.getContext(), perm);
}

void CsrAttr::print(AsmPrinter &printer) const {
  if (!getPerm())
    return;
  printer << '<';
  printPermParameter(printer, getPerm(), /*first=*/true);
  printer << '>';
}

Attribute CsrAttr::getPermAttr() const { return getPerm(); }

Attribute CsrAttr::withPermAttr(Attribute permAttr) const {
  auto perm = cast_or_null<PermAttr>(permAttr);
  return CsrAttr::get(getContext(), perm);
}

StringRef CsrAttr::getFormatName() const {
  return ::spperm::format_name::kCsr;
}

LogicalResult CsrAttr::verifyShape(function_ref<InFlightDiagnostic()>,
                                   int64_t, int64_t) const {
  return success();
}

//===----------------------------------------------------------------------===//
// BellAttr
//===----------------------------------------------------------------------===//

Attribute BellAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t block = 0, width = 0;
  std::optional<ResidualFormat> residual;
  FloatAttr delta;
  bool condensed = false;
  PermAttr perm;
  auto parseValue = [&](StringRef key) -> ParseResult {
    if (key == "block")
      return parser.parseInteger(block);
    if (key == "width")
      return parser.parseInteger(width);
    if (key == "residual") {
      SMLoc at = parser.getCurrentLocation();
      std::string name;
      if (failed(parser.parseKeywordOrString(&name)))
        return failure();
      residual = symbolizeResidualFormat(name);
      if (!residual)
        return parser.emitError(at, "unknown residual format '")
               << name << "' (expected csr)";
      return success();
    }
    if (key == "delta") {
      SMLoc at = parser.getCurrentLocation();
      Attribute attr;
      if (failed(parser.parseAttribute(attr)))
        return failure();
      delta = dyn_cast<FloatAttr>(attr);
      if (!delta)
        return parser.emitError(at, "delta must be a float in (0, 1], got ")
               << attr;
      return success();
    }
    if (key == "condensed") {
      FailureOr<bool> value = FieldParser<bool>::parse(parser);
      if (failed(value))
        return failure();
      condensed = *value;
      return success();
    }
    return parsePermValue(parser, perm);
  };
  if (failed(parser.parseLess()) ||
      failed(parseFormatParameters(
          parser, getMnemonic(),
          {"block", "width", "residual", "delta", "condensed", "perm"},
          {"block", "width", "residual"}, parseValue)))
    return {};
  return parser.getChecked<BellAttr>(loc, parser.getContext(), block, width,
                                     *residual, delta, condensed, perm);
}

void BellAttr::print(AsmPrinter &printer) const {
  printer << "<block = " << getBlock() << ", width = " << getWidth()
          << ", residual = " << stringifyResidualFormat(getResidual());
  if (getDelta()) {
    printer << ", delta = ";
    printer.printStrippedAttrOrType(getDelta());
  }
  if (getCondensed())
    printer << ", condensed = true";
  printPermParameter(printer, getPerm(), /*first=*/false);
  printer << '>';
}

LogicalResult BellAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t block, int64_t width, ResidualFormat,
                               FloatAttr delta, bool, PermAttr) {
  if (block < 1 || block > 32 || !llvm::isPowerOf2_64(block))
    return emitError() << "block must be one of 1, 2, 4, 8, 16, 32, got "
                       << block;
  if (width < 0)
    return emitError() << "width must be non-negative, got " << width;
  if (delta) {
    double d = delta.getValueAsDouble();
    if (!(d > 0.0 && d <= 1.0))
      return emitError() << "delta must be in (0, 1], got "
                         << ::spperm::exactNumber(d);
  }
  return success();
}

Attribute BellAttr::getPermAttr() const { return getPerm(); }

Attribute BellAttr::withPermAttr(Attribute permAttr) const {
  auto perm = cast_or_null<PermAttr>(permAttr);
  return BellAttr::get(getContext(), getBlock(), getWidth(), getResidual(),
                       getDelta(), getCondensed(), perm);
}

StringRef BellAttr::getFormatName() const {
  return ::spperm::format_name::kBell;
}

LogicalResult
BellAttr::verifyShape(function_ref<InFlightDiagnostic()> emitError,
                      int64_t rows, int64_t cols) const {
  (void)rows;
  int64_t blockCols = llvm::divideCeil(cols, getBlock());
  if (getWidth() > blockCols)
    return emitError() << "ELL width " << getWidth() << " exceeds the "
                       << blockCols << " block columns of a " << cols
                       << "-column matrix with block " << getBlock();
  return success();
}

//===----------------------------------------------------------------------===//
// HbpAttr
//===----------------------------------------------------------------------===//

Attribute HbpAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t rows = 0, cols = 0;
  PermAttr perm;
  auto parseValue = [&](StringRef key) -> ParseResult {
    if (key == "rows")
      return parser.parseInteger(rows);
    if (key == "cols")
      return parser.parseInteger(cols);
    return parsePermValue(parser, perm);
  };
  if (failed(parser.parseLess()) ||
      failed(parseFormatParameters(parser, getMnemonic(),
                                   {"rows", "cols", "perm"}, {"rows", "cols"},
                                   parseValue)))
    return {};
  return parser.getChecked<HbpAttr>(loc, parser.getContext(), rows, cols, perm);
}

void HbpAttr::print(AsmPrinter &printer) const {
  printer << "<rows = " << getRows() << ", cols = " << getCols();
  printPermParameter(printer, getPerm(), /*first=*/false);
  printer << '>';
}

LogicalResult HbpAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              int64_t rows, int64_t cols, PermAttr) {
  // The format's row and column blocks are 32-bit counts (Formats.h).
  if (rows < 32 || rows % 32 != 0 || rows > ::spperm::kMaxIndex)
    return emitError() << "rows must be a positive multiple of 32 below "
                          "2^31, got "
                       << rows;
  if (cols < 1 || cols > ::spperm::kMaxIndex)
    return emitError() << "cols must be in [1, 2^31 - 1], got " << cols;
  return success();
}

Attribute HbpAttr::getPermAttr() const { return getPerm(); }

Attribute HbpAttr::withPermAttr(Attribute permAttr) const {
  auto perm = cast_or_null<PermAttr>(permAttr);
  return HbpAttr::get(getContext(), getRows(), getCols(), perm);
}

StringRef HbpAttr::getFormatName() const {
  return ::spperm::format_name::kHbp;
}

LogicalResult HbpAttr::verifyShape(function_ref<InFlightDiagnostic()>,
                                   int64_t, int64_t) const {
  return success();
}

//===----------------------------------------------------------------------===//
// LaunchAttr
//===----------------------------------------------------------------------===//

LogicalResult LaunchAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name, StringRef family,
                                 StringRef variant, int64_t kMin, int64_t kMax,
                                 int64_t kAlign, bool, bool, ArrayAttr args,
                                 DenseI64ArrayAttr grid,
                                 DenseI64ArrayAttr block, int64_t sharedBytes,
                                 DenseI64ArrayAttr gridK) {
  if (name.empty() || family.empty() || variant.empty())
    return emitError() << "name, family and variant must not be empty";
  if (kMin < 1 || kAlign < 1 || (kMax != 0 && kMax < kMin))
    return emitError() << "the K condition needs k_min >= 1, k_align >= 1 "
                          "and k_max 0 or >= k_min, got "
                       << kMin << ", " << kAlign << " and " << kMax;
  if (!llvm::all_of(args, [](Attribute a) { return isa<StringAttr>(a); }))
    return emitError() << "args must be strings";
  for (Attribute arg : args) {
    StringRef text = cast<StringAttr>(arg).getValue();
    if (std::string why = ::spperm::kernelArgProblem(text); !why.empty())
      return emitError() << "args: '" << text << "' " << why;
  }
  for (auto [what, sizes] : {std::pair{"grid", grid}, {"block", block}})
    if (sizes.size() != 3 ||
        !llvm::all_of(sizes.asArrayRef(), [](int64_t v) { return v >= 1; }))
      return emitError() << what << " must be three positive sizes";
  if (std::string why = ::spperm::blockProblem(block[0], block[1], block[2]);
      !why.empty())
    return emitError() << why;
  // The package's bound (docs/Package.md); the GPU's own is checked when
  // the runtime loads the kernel.
  if (sharedBytes < 0 || sharedBytes > ::spperm::kMaxIndex)
    return emitError() << "shared_bytes must be in [0, 2^31 - 1], got "
                       << sharedBytes;
  if (!gridK)
    return success();
  ArrayRef<int64_t> g = gridK.asArrayRef();
  if (g.size() != 3)
    return emitError() << ::spperm::kGridKValuesRule;
  // The package's rule (grid has three sizes: checked above).
  const bool takesK = llvm::any_of(args, [](Attribute a) {
    return cast<StringAttr>(a).getValue() == StringRef(::spperm::call_arg::kK);
  });
  if (std::string why = ::spperm::gridKProblem(g[0], g[1], g[2], grid[0],
                                               grid[1], grid[2], takesK);
      !why.empty())
    return emitError() << why;
  return success();
}

//===----------------------------------------------------------------------===//
// TableGen'd definitions
//===----------------------------------------------------------------------===//

#include "spperm/Dialect/SpPerm/IR/SpPermAttrInterfaces.cpp.inc"
#include "spperm/Dialect/SpPerm/IR/SpPermEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "spperm/Dialect/SpPerm/IR/SpPermAttrs.cpp.inc"

void SpPermDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "spperm/Dialect/SpPerm/IR/SpPermAttrs.cpp.inc"
      >();
}
