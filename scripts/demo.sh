#!/usr/bin/env bash
# Builds Tessera (Release, in build/) and runs the task-overhead benchmark:
#   scripts/demo.sh [extra tessera-bench arguments]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh --peers
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)" --target tessera-bench
exec build/bin/tessera-bench overhead "$@"
