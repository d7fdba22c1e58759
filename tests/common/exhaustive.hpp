// TESSERA_TEST_EXHAUSTIVE=1 (ctest's "slow" runs, scripts/test-slow.sh) widens the sweeps of the
// unit and accuracy tests: more worker counts, seeds, sizes, policies and devices than the
// default runs have time for. TESSERA_TEST_PAIRWISE=1 (the sanitizer trees) narrows the
// accuracy sweep to points that cover every pair of parameter values (accuracy.hpp).
#pragma once

#include <cstdlib>

namespace tessera::test {

inline bool exhaustive_sweep()
{
    char const* v = std::getenv("TESSERA_TEST_EXHAUSTIVE");
    return v && *v && *v != '0';
}

inline bool pairwise_sweep()
{
    char const* v = std::getenv("TESSERA_TEST_PAIRWISE");
    return v && *v && *v != '0';
}

}  // namespace tessera::test
