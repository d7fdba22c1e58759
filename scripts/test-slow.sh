#!/usr/bin/env bash
# The exhaustive sweeps that the CI command (scripts/test.sh) leaves out for time: the unit and
# accuracy tests again with TESSERA_TEST_EXHAUSTIVE=1, as ctest tests labelled "slow"
# (tests/CMakeLists.txt):
#   - the runtime suite on 1, 2, 3, 4 and 8 workers, every policy, and the randomized stress
#     test with four times the seeds;
#   - the accuracy tests over every registered policy x {0, 1, 2} emulated devices x {s, d, c,
#     z}, at sizes 0 to 1500 (ragged and round).
# Builds (or reuses) the Release tree build/ as scripts/test.sh does. Arguments go to ctest,
# e.g. scripts/test-slow.sh -R accuracy_test_potrf to run one family.
# Run it before a release and after changing the runtime's core or a tile algorithm.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DTESSERA_SANITIZE=
cmake --build build -j "$(nproc)"
start=$SECONDS
ctest --test-dir build --output-on-failure --no-tests=error -j "$(nproc)" -L slow "$@"
echo "test-slow: passed in $((SECONDS - start)) s"
