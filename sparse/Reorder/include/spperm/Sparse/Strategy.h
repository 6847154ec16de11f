//===- Strategy.h - Row-permutation strategy names --------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The row-permutation strategies of the seeds (Mehrabi et al.'s sorts and
// BSA's clustering). Each has two spellings: the command-line name of the
// DESIGN contract (`warp-aware`, `hybrid-2.1`) and the IR keyword used in
// `#spperm.perm<...>` (`warp_aware`, `hybrid_2_1`), since MLIR keywords cannot
// contain '-'.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_STRATEGY_H
#define SPPERM_SPARSE_STRATEGY_H

#include <array>
#include <optional>
#include <string_view>

namespace spperm {

/// A row-permutation strategy.
enum class Strategy {
  Identity,
  Plain,
  Flipped,
  Lpt,
  WarpAware,
  CtaAware,
  Hybrid1,
  Hybrid21,
  Hybrid22,
  Hybrid23,
  Bsa,
};

/// Every strategy, in the order the DESIGN contract lists them.
inline constexpr std::array<Strategy, 11> kAllStrategies = {
    Strategy::Identity, Strategy::Plain,    Strategy::Flipped,
    Strategy::Lpt,      Strategy::WarpAware, Strategy::CtaAware,
    Strategy::Hybrid1,  Strategy::Hybrid21, Strategy::Hybrid22,
    Strategy::Hybrid23, Strategy::Bsa};

/// The command-line name (`warp-aware`, `hybrid-2.1`, ...).
std::string_view strategyCliName(Strategy s);
/// The IR keyword (`warp_aware`, `hybrid_2_1`, ...).
std::string_view strategyIrName(Strategy s);
/// Accepts either spelling; std::nullopt for an unknown name.
std::optional<Strategy> parseStrategy(std::string_view name);

} // namespace spperm

#endif // SPPERM_SPARSE_STRATEGY_H
