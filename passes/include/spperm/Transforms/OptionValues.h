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

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <optional>
#include <string>

namespace mlir::spperm {

/// The message for `value`, which is none of an option's `names`: the names,
/// and those the value looks like a slip of: the one that differs only in
/// case (`LPT`), else the ones it begins (`hybrid-2`), else the nearest
/// where it is near (`warp_aware` for `warp-aware`).
std::string describeUnknownOptionValue(llvm::StringRef value,
                                       llvm::ArrayRef<llvm::StringRef> names);

/// The llvm::cl parser of the passes' and spperm-pipeline's enum options
/// (llvm::cl::parser<T> is this for each of them, below): llvm::cl's
/// generic parser, whose error for an unknown value lists the values and
/// names the nearest (describeUnknownOptionValue) rather than "Cannot find
/// option named".
template <typename T>
class EnumOptionParser : public llvm::cl::generic_parser_base {
protected:
  class OptionInfo : public GenericOptionInfo {
  public:
    OptionInfo(llvm::StringRef name, T value, llvm::StringRef help)
        : GenericOptionInfo(name, help), V(value) {}
    llvm::cl::OptionValue<T> V;
  };
  // Named as llvm::cl::parser's: MLIR's pass-option parser reads it.
  llvm::SmallVector<OptionInfo, 8> Values;

public:
  using parser_data_type = T;

  explicit EnumOptionParser(llvm::cl::Option &option)
      : generic_parser_base(option) {}

  unsigned getNumOptions() const override {
    return static_cast<unsigned>(Values.size());
  }
  llvm::StringRef getOption(unsigned n) const override {
    return Values[n].Name;
  }
  llvm::StringRef getDescription(unsigned n) const override {
    return Values[n].HelpStr;
  }
  const llvm::cl::GenericOptionValue &
  getOptionValue(unsigned n) const override {
    return Values[n].V;
  }

  /// Sets `value` to the enumerator named `arg`; true (after reporting it
  /// through `option`) when there is none.
  bool parse(llvm::cl::Option &option, llvm::StringRef, llvm::StringRef arg,
             T &value) {
    for (const OptionInfo &info : Values)
      if (info.Name == arg) {
        value = info.V.getValue();
        return false;
      }
    llvm::SmallVector<llvm::StringRef, 16> names;
    for (const OptionInfo &info : Values)
      names.push_back(info.Name);
    return option.error(describeUnknownOptionValue(arg, names));
  }

  /// Adds the value `name` (the options' modifiers call it).
  template <typename U>
  void addLiteralOption(llvm::StringRef name, const U &value,
                        llvm::StringRef help) {
    Values.emplace_back(name, static_cast<T>(value), help);
    llvm::cl::AddLiteralOption(Owner, name);
  }
};

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

/// A bell `columns` option (auto, blocks, condensed): the core's
/// BellColumns, as an enum of its own so that its llvm::cl parser (below)
/// is declared with it.
enum class BellColumnsOption { Auto, Blocks, Condensed };

/// The core's column mode for `option`.
inline ::spperm::BellColumns toBellColumns(BellColumnsOption option) {
  switch (option) {
  case BellColumnsOption::Auto:
    return ::spperm::BellColumns::Auto;
  case BellColumnsOption::Blocks:
    return ::spperm::BellColumns::Blocks;
  case BellColumnsOption::Condensed:
    return ::spperm::BellColumns::Condensed;
  }
  return ::spperm::BellColumns::Blocks;
}

/// An llvm::cl modifier giving a BellColumnsOption option its values.
struct BellColumnsOptionValues {
  template <typename Opt>
  void apply(Opt &option) const {
    static constexpr const char *kHelp[] = {
        "whichever the cost model prices lower",
        "block consecutive columns per tile",
        "any block columns of the block row per tile"};
    for (BellColumnsOption c :
         {BellColumnsOption::Auto, BellColumnsOption::Blocks,
          BellColumnsOption::Condensed})
      option.getParser().addLiteralOption(
          llvm::StringRef(::spperm::bellColumnsName(toBellColumns(c))), c,
          kHelp[static_cast<int>(c)]);
  }
};

/// A `cut` option of spperm-shard-rows (balanced, equal-rows): the core's
/// ShardCut, as an enum of its own like BellColumnsOption.
enum class ShardCutOption { Balanced, EqualRows };

/// The core's cut for `option`.
inline ::spperm::ShardCut toShardCut(ShardCutOption option) {
  return option == ShardCutOption::EqualRows ? ::spperm::ShardCut::EqualRows
                                             : ::spperm::ShardCut::Balanced;
}

/// An llvm::cl modifier giving a ShardCutOption option its values.
struct ShardCutOptionValues {
  template <typename Opt>
  void apply(Opt &option) const {
    static constexpr const char *kHelp[] = {
        "shards of equal predicted time (entries + 1 per row)",
        "shards of equal row counts"};
    for (ShardCutOption c :
         {ShardCutOption::Balanced, ShardCutOption::EqualRows})
      option.getParser().addLiteralOption(
          llvm::StringRef(::spperm::shardCutName(toShardCut(c))), c,
          kHelp[static_cast<int>(c)]);
  }
};

} // namespace mlir::spperm

/// Makes EnumOptionParser<T> llvm::cl's parser of the enum option type T.
#define SPPERM_ENUM_OPTION_PARSER(T)                                           \
  template <>                                                                  \
  class llvm::cl::parser<T> : public ::mlir::spperm::EnumOptionParser<T> {     \
  public:                                                                      \
    using ::mlir::spperm::EnumOptionParser<T>::EnumOptionParser;               \
  };

SPPERM_ENUM_OPTION_PARSER(::mlir::spperm::StrategyOption)
SPPERM_ENUM_OPTION_PARSER(::mlir::spperm::FormatOption)
SPPERM_ENUM_OPTION_PARSER(::mlir::spperm::BellColumnsOption)
SPPERM_ENUM_OPTION_PARSER(::mlir::spperm::ShardCutOption)

#endif // SPPERM_TRANSFORMS_OPTIONVALUES_H
