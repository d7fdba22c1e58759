#!/usr/bin/env bash
# Builds and tests Tessera in three trees:
#   build/       Release, CUDA when nvcc is found: every test but those labelled "slow"
#   build-tsan/  ThreadSanitizer, CUDA on the CUDA simulator: the runtime unit tests, the potrf,
#                getrf, LU panel, QR panel, geqrf, FFT, TileMatrix, tile-size, C API and
#                nested-call accuracy tests (also with a simulated GPU; their sweep pairwise),
#                the CUDA driver's tests and the MPI layer's (1, 2 and 4 ranks):
#                ctest -L "runtime|accuracy|cuda|mpi" -LE "slow|emu"
#   build-asan/  AddressSanitizer + UBSan: the same
# and prints one summary line per tree; exits non-zero when any step of any tree failed.
# TESSERA_TEST_QUICK=1 runs only build/ (for developers).
# shellcheck disable=SC2317  # the tree functions are called through run()
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jobs=$(nproc)
scripts/setup.sh

# Sanitizer options (a caller's own settings win). Suppression files, when they exist, sit in
# tests/sanitizers/ (one "race:" / "leak:" pattern per line).
supp_dir="$PWD/tests/sanitizers"
tsan_opts="halt_on_error=1 second_deadlock_stack=1"
[[ -f $supp_dir/tsan.supp ]] && tsan_opts+=" suppressions=$supp_dir/tsan.supp"
export TSAN_OPTIONS="${TSAN_OPTIONS:-$tsan_opts}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
[[ -f $supp_dir/lsan.supp ]] && export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$supp_dir/lsan.supp}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# Builds PLASMA, a peer of the benchmarks that Debian lacks, into $1/peers when its source is on
# this machine (TESSERA_PLASMA_SOURCE, or this project's ../shared/peers/): the tests then
# compare it with Tessera at n = 500 (bench_peer.plasma.*), so that the peer path cannot rot.
plasma_peer()
{
    local source
    for source in "${TESSERA_PLASMA_SOURCE:-}" ../shared/peers/plasma-*.tar.gz /work/shared/peers/plasma-*.tar.gz; do
        if [[ -n $source && -e $source ]]; then
            JOBS=$jobs scripts/peers.sh plasma "$source" "$1"
            return
        fi
    done
    echo "PLASMA's source was not found (TESSERA_PLASMA_SOURCE, ../shared/peers/): its peer is not tested"
}

release_tree()
{
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DTESSERA_SANITIZE=
    plasma_peer build
    cmake --build build -j "$jobs"
    ctest --test-dir build --output-on-failure --no-tests=error -j2 -LE slow
}

# $1 = thread | address. Only the library and its unit tests: bench and tools are left out.
# CUDA runs on the CUDA simulator (tests/cudasim): nvcc does not instrument and CI has no GPU,
# but the driver's threads, streams and events are then checked by the sanitizers, with the
# tests in tests/cuda and the "cuda" variant of the accuracy tests (a simulated GPU of 4 MB).
# Without the CUDA headers (no toolkit installed) CUDA is left out. The accuracy tests sweep
# pairwise (TESSERA_TEST_PAIRWISE: every pair of precision, policy and device count meets, in
# half the points), and the drop-in LAPACK, which no test of these trees runs, is not built.
sanitizer_tree()
{
    local tree=build-${1:0:1}san   # build-tsan, build-asan
    local cuda=OFF nvcc root
    nvcc=$(command -v nvcc || true)
    for root in "${nvcc:+$(dirname "$(dirname "$nvcc")")}" "${CUDA_PATH:-}" /usr/local/cuda; do
        if [[ -n $root && -f $root/include/cuda_runtime_api.h ]]; then cuda=SIM; break; fi
    done
    cmake -S . -B "$tree" -DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON -DTESSERA_SANITIZE="$1" \
        -DTESSERA_ENABLE_CUDA=$cuda -DTESSERA_BUILD_BENCH=OFF -DTESSERA_BUILD_TOOLS=OFF -DTESSERA_BUILD_EXAMPLES=OFF \
        -DTESSERA_BUILD_DROPIN=OFF -DTESSERA_TEST_PAIRWISE=ON \
        -DTESSERA_ACCURACY_TESTS="test_potrf;test_getrf;test_lu_panel;test_qr_panel;test_geqrf;test_fft2d;test_tile_matrix;test_tile_size;test_c_api;test_nested_calls"
    # setarch -R (no address-space randomisation): TSan's fixed memory layout breaks on
    # kernels with high mmap randomisation (vm.mmap_rnd_bits > 28); harmless elsewhere. The
    # build needs it too, as it runs each test binary to list its tests.
    local -a launcher=()
    if [[ $1 == thread ]] && setarch "$(uname -m)" -R true 2>/dev/null; then
        launcher=(setarch "$(uname -m)" -R)
    fi
    "${launcher[@]}" cmake --build "$tree" -j "$jobs"
    # the "emu" re-runs of the sweeps stay in the Release tree: the sanitizers still see the
    # emulated devices through the memory-node, relaxed-mode and device stress tests
    "${launcher[@]}" ctest --test-dir "$tree" --output-on-failure --no-tests=error -j2 -L "runtime|accuracy|cuda|mpi" -LE "slow|emu"
}

summary=()
failed=0
# run <tree name> <function> [args]: runs the steps with errexit in a subshell, so that one
# failed tree is reported and the next ones still run.
run()
{
    local name=$1; shift
    local start=$SECONDS rc=0
    echo "===== $name"
    rm -f "${name%% *}/Testing/Temporary/LastTestsFailed.log"  # a stale list would mislead
    set +e
    ( set -e; "$@" )
    rc=$?
    set -e
    local took=$((SECONDS - start))
    if [[ $rc -eq 0 ]]; then
        summary+=("$name: PASS (${took}s)")
    else
        summary+=("$name: FAIL (exit $rc after ${took}s)")
        failed=1
        # name the failed tests in the summary: CI shows only the end of the log
        local list=${name%% *}/Testing/Temporary/LastTestsFailed.log
        if [[ -s $list ]]; then
            while read -r line; do summary+=("    failed: $line"); done < <(head -n 20 "$list")
        fi
    fi
}

run "build (Release)" release_tree
if [[ ${TESSERA_TEST_QUICK:-0} == 1 ]]; then
    summary+=("build-tsan: SKIPPED (TESSERA_TEST_QUICK=1)" "build-asan: SKIPPED (TESSERA_TEST_QUICK=1)")
else
    run "build-tsan (ThreadSanitizer)" sanitizer_tree thread
    run "build-asan (AddressSanitizer+UBSan)" sanitizer_tree address
fi

echo "===== summary"
printf '%s\n' "${summary[@]}"
exit "$failed"
