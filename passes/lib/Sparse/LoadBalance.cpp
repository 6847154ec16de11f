// Being written.
#include "Strategies.h"
#include <numeric>
using namespace spperm;
std::vector<int32_t> detail::plainOrder(const CsrMatrix &m) { std::vector<int32_t> o(m.rows); std::iota(o.begin(), o.end(), 0); return o; }
std::vector<int32_t> detail::flippedOrder(const CsrMatrix &m, const PermutationOptions &) { return plainOrder(m); }
std::vector<int32_t> detail::lptOrder(const CsrMatrix &m, const PermutationOptions &, bool) { return plainOrder(m); }
