//===- OptionValues.h - Enum-typed strategy and format options --*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The values of the `strategy` and `format` options of the passes
// (spperm-select, spperm-permute-rows, spperm-convert-format) and of
// spperm-pipeline: enums whose names come from the core's tables
// (Strategy.h, Names.h), given to llvm::cl as the options' values.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TRANSFORMS_OPTIONVALUES_H
#define SPPERM_TRANSFORMS_OPTIONVALUES_H

#include "spperm/Sparse/Formats.h"
#include "spperm/Sparse/Names.h"
#include "spperm/Sparse/Shards.h"
#include "spperm/Sparse/Strategy.h"

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir::spperm {

/// A `strategy` option: `keep` (leave the IR's permutation), `auto` (each
/// load's spperm-select choice) or one of the sparse core's strategies,
/// whose enumerator is the ::spperm::Strategy value.
enum class StrategyOption : int { Keep = -2, Auto = -1 };

/// The option value for strategy `s`.
inline StrategyOption toStrategyOption(::spperm::Strategy s) {
  return static_cast<StrategyOption>(s);
}

/// The strategy `option` fixes, if any.
inline std::optional<::spperm::Strategy>
getFixedStrategy(StrategyOption option) {
  if (option == StrategyOption::Keep || option == StrategyOption::Auto)
    return std::nullopt;
  return static_cast<::spperm::Strategy>(option);
}

/// An llvm::cl modifier giving a StrategyOption option its values: `keep`,
/// `auto` and the sparse core's strategies by their command-line names.
struct StrategyOptionValues {
  template <typename Opt>
  void apply(Opt &option) const {
    option.getParser().addLiteralOption("keep", StrategyOption::Keep,
                                        "the IR's permutation");
    option.getParser().addLiteralOption("auto", StrategyOption::Auto,
                                        "each load's spperm-select choice");
    for (::spperm::Strategy s : ::spperm::kAllStrategies)
      option.getParser().addLiteralOption(
          llvm::StringRef(::spperm::strategyCliName(s)), toStrategyOption(s),
          "");
  }
};

/// A `format` option: `keep` (the IR's storage), `auto` (each load's
/// spperm-select choice), a storage format, or `cusparse` (the CSR, run by
/// the library).
enum class FormatOption { Keep, Auto, Csr, Bell, Hbp, Cusparse };

/// The option name of `option` (`keep`, `auto`, `csr`, ...).
inline llvm::StringRef getFormatOptionName(FormatOption option) {
  switch (option) {
  case FormatOption::Keep:
    return "keep";
  case FormatOption::Auto:
    return "auto";
  case FormatOption::Csr:
    return ::spperm::format_name::kCsr;
  case FormatOption::Bell:
    return ::spperm::format_name::kBell;
  case FormatOption::Hbp:
    return ::spperm::format_name::kHbp;
  case FormatOption::Cusparse:
    return ::spperm::kCusparse;
  }
  return "";
}

/// An llvm::cl modifier giving a FormatOption option its values.
struct FormatOptionValues {
  template <typename Opt>
  void apply(Opt &option) const {
    static constexpr const char *kHelp[] = {
        "the IR's format", "each load's spperm-select choice",
        "compressed sparse rows", "Blocked-ELL with a CSR residual",
        "hash-based 2-D partition", "the CSR, run by cuSPARSE"};
    for (FormatOption f :
         {FormatOption::Keep, FormatOption::Auto, FormatOption::Csr,
          FormatOption::Bell, FormatOption::Hbp, FormatOption::Cusparse})
      option.getParser().addLiteralOption(getFormatOptionName(f), f,
                                          kHelp[static_cast<int>(f)]);
  }
};

/// A bell `columns` option: the core's BellColumns (auto, blocks,
/// condensed).
using BellColumnsOption = ::spperm::BellColumns;

/// The core's column mode for `option`.
inline ::spperm::BellColumns toBellColumns(BellColumnsOption option) {
  return option;
}

/// An llvm::cl modifier giving a BellColumnsOption option its values.
struct BellColumnsOptionValues {
  template <typename Opt>
  void apply(Opt &option) const {
    static constexpr const char *kHelp[] = {
        "whichever the cost model prices lower",
        "block consecutive columns per tile",
        "any block columns of the block row per tile"};
    for (::spperm::BellColumns c :
         {::spperm::BellColumns::Auto, ::spperm::BellColumns::Blocks,
          ::spperm::BellColumns::Condensed})
      option.getParser().addLiteralOption(
          llvm::StringRef(::spperm::bellColumnsName(c)), c,
          kHelp[static_cast<int>(c)]);
  }
};

/// A `cut` option of spperm-shard-rows: the core's ShardCut (balanced,
/// equal-rows).
using ShardCutOption = ::spperm::ShardCut;

/// An llvm::cl modifier giving a ShardCutOption option its values.
struct ShardCutOptionValues {
  template <typename Opt>
  void apply(Opt &option) const {
    option.getParser().addLiteralOption(
        llvm::StringRef(::spperm::shardCutName(::spperm::ShardCut::Balanced)),
        ::spperm::ShardCut::Balanced,
        "shards of equal predicted time (entries + 1 per row)");
    option.getParser().addLiteralOption(
        llvm::StringRef(::spperm::shardCutName(::spperm::ShardCut::EqualRows)),
        ::spperm::ShardCut::EqualRows, "shards of equal row counts");
  }
};

} // namespace mlir::spperm

#endif // SPPERM_TRANSFORMS_OPTIONVALUES_H
