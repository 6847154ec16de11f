// Being written.
#include "Strategies.h"
#include <numeric>
using namespace spperm;
std::vector<int32_t> detail::warpAwareOrder(const CsrMatrix &m, const PermutationOptions &, WarpAwareTieBreak) { std::vector<int32_t> o(m.rows); std::iota(o.begin(), o.end(), 0); return o; }
std::vector<int32_t> detail::ctaAwareOrder(const CsrMatrix &m, const PermutationOptions &o, CtaAwareTieBreak) { return warpAwareOrder(m, o, WarpAwareTieBreak::None); }
