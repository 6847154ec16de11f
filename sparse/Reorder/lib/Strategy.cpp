//===- Strategy.cpp - Row-permutation strategy names ------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Strategy.h"

using namespace spperm;

namespace {
struct StrategyName {
  Strategy strategy;
  std::string_view cli;
  std::string_view ir;
};
} // namespace

static constexpr StrategyName kNames[] = {
    {Strategy::Identity, "identity", "identity"},
    {Strategy::Plain, "plain", "plain"},
    {Strategy::Flipped, "flipped", "flipped"},
    {Strategy::Lpt, "lpt", "lpt"},
    {Strategy::WarpAware, "warp-aware", "warp_aware"},
    {Strategy::CtaAware, "cta-aware", "cta_aware"},
    {Strategy::Hybrid1, "hybrid-1", "hybrid_1"},
    {Strategy::Hybrid21, "hybrid-2.1", "hybrid_2_1"},
    {Strategy::Hybrid22, "hybrid-2.2", "hybrid_2_2"},
    {Strategy::Hybrid23, "hybrid-2.3", "hybrid_2_3"},
    {Strategy::Bsa, "bsa", "bsa"},
};

static const StrategyName &entry(Strategy s) {
  return kNames[static_cast<int>(s)];
}

std::string_view spperm::strategyCliName(Strategy s) { return entry(s).cli; }

std::string_view spperm::strategyIrName(Strategy s) { return entry(s).ir; }

std::optional<Strategy> spperm::parseStrategy(std::string_view name) {
  for (const StrategyName &n : kNames)
    if (name == n.cli || name == n.ir)
      return n.strategy;
  return std::nullopt;
}
