#!/usr/bin/env bash
# Validates Tessera on a machine with an NVIDIA GPU, in steps that each fit a short lease of
# the machine (a few minutes with 16 cores), so that a session can run them one call apiece
# or all in one. Logs and JSON go to $OUT (default: gpu-validation-out/); each step ends by
# printing its few lines of results, to be copied into docs/gpu-validation.md with the device
# and the date.
#
#   scripts/gpu-validate.sh env      the GPU, the driver, nvcc, and the libraries the build needs
#   scripts/gpu-validate.sh build    configure and build build-gpu: Release, CUDA for the GPU found
#   scripts/gpu-validate.sh test     ctest -L cuda (none may be skipped), then the whole suite
#   scripts/gpu-validate.sh cuda-tests  tests/cuda's alone (after a build of TARGETS, below)
#   scripts/gpu-validate.sh suite    the whole suite but tests/cuda's (ctest -LE slow)
#   scripts/gpu-validate.sh bus      the bus calibration of the GPU's links (tessera-bus)
#   scripts/gpu-validate.sh gemm     tiled DGEMM vs one cublasDgemm, n = 16384 and 32768
#   scripts/gpu-validate.sh potrf    dpotrf at n = 40000 vs cusolverDnDpotrf (and LAPACKE)
#   scripts/gpu-validate.sh posv     dposv at n = 20000, with dpotrs, dpotri and dpotrf('U')
#   scripts/gpu-validate.sh lu       dgetrf, dgesv and dsgesv at n = 30000 vs cuSOLVER's getrf,
#                                    getrf+getrs and DSgesv (and LAPACKE)
#   scripts/gpu-validate.sh qr       dgeqrf at n = 30000 vs cusolverDnDgeqrf (and LAPACKE), and
#                                    at 1000000 x 200 (tall and narrow: one panel on the cores)
#   scripts/gpu-validate.sh fft      2D c2c FFT at n = 16384 vs cufftExecZ2Z (and FFTW's threads),
#                                    a 1D transform of 2^26 points, and the 2D one again with
#                                    TESSERA_CUDA_MEM=FFT_OOC_MEM (default 2GB): out of core
#   scripts/gpu-validate.sh dropin   the drop-in LAPACK's tests with the GPU, and its crossovers
#                                    (Tessera with the GPU against OpenBLAS's same symbol) for
#                                    DROPIN_ROUTINES (default: d potrf gesv geqrf gemm getrf) at
#                                    DROPIN_ORDERS (default: 1024 2048 4096 8192)
#   scripts/gpu-validate.sh study    seed 001's study (tessera-bench study) on the cores and the
#                                    GPU, no emulated device: saxpy 2^26 (STUDY_SAXPY_N), jacobi
#                                    8192 (STUDY_JACOBI_N), cholesky and lu 16384 (STUDY_N)
#   scripts/gpu-validate.sh trace    a traced dpotrf at n = 20000 on the cores and the GPU: its
#                                    bounds (--bound), Gantt chart and summary (tessera-trace)
#   scripts/gpu-validate.sh nb       dpotrf at n = 40000 for nb = 960, 1280, 1600, 2048
#   scripts/gpu-validate.sh pin      dgemm n = 16384 and dpotrf n = 20000 with the user's arrays
#                                    page-locked (the default from 16 MB) and left pageable
#
# Steps run in the order given: scripts/gpu-validate.sh env build test. REPS (default 3) sets
# the benchmarks' repetitions, PEER_REPS (default REPS) the CPU peer's (one run of LAPACKE's
# dpotrf at n = 40000 takes tens of seconds of a short lease), JOBS (default: every core) the
# build's, TREE (default build-gpu) the build tree, TARGETS (default: all) what the build step
# builds, GEMM_N, POTRF_N, LU_N and QR_N (defaults 16384,32768, 40000, 30000 and 30000) the
# sizes of those steps, CMAKE_ARGS more options for the configure step (a carried GLPK, say:
# -DTESSERA_GLPK_INCLUDE_DIR=… -DTESSERA_GLPK_LIBRARY=…). To measure first and build the rest after, in one lease (on an H200
# with 16 cores, with PEER_REPS=1 GEMM_N=16384, this took 393 s in all, 2026-11-26):
#   TARGETS="tessera-bench tessera-bus cuda_test_cuda_driver cuda_test_cuda_linalg cuda_test_gpu_peers" \
#       scripts/gpu-validate.sh env build cuda-tests bus gemm potrf
#   scripts/gpu-validate.sh build suite
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out=${OUT:-gpu-validation-out}
mkdir -p "$out"
reps=${REPS:-3}
peer_reps=${PEER_REPS:-$reps}
jobs=${JOBS:-$(nproc)}
tree=${TREE:-build-gpu}
failed=0

note() { printf '%s\n' "$*" | tee -a "$out/summary.txt"; }

# The GPU's compute capability as CMake names it (9.0 -> 90); 80;90 when it cannot tell.
gpu_architecture()
{
    local cap
    cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .')
    [[ $cap =~ ^[0-9]+$ ]] && echo "$cap" || echo "80;90"
}

step_env()
{
    local gpu
    gpu=$(nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv,noheader 2>/dev/null || true)
    {
        date -u '+%Y-%m-%d %H:%M UTC'
        echo "GPU (name, memory, driver, compute capability): ${gpu:-none answers nvidia-smi}"
        nvcc --version | tail -n2 || echo "nvcc: none"
        cmake --version | head -n1
        echo "cores: $(nproc)"
    } >"$out/env.txt" 2>&1 || true
    cat "$out/env.txt"
    [[ -n $gpu ]] || failed=1
    # what CMake looks for (cmake/TesseraDependencies.cmake); a missing one must be carried,
    # as the machine cannot fetch
    local module header missing=()
    for module in hwloc openblas fftw3 fftw3f; do
        pkg-config --exists "$module" 2>/dev/null || missing+=("$module.pc")
    done
    for header in lapacke.h gtest/gtest.h; do
        echo "#include <$header>" | c++ -x c++ -fsyntax-only - 2>/dev/null || missing+=("$header")
    done
    # optional: GLPK (tessera-bound's area bound; CMAKE_ARGS may point at a carried copy) and
    # MAGMA (issue 35's GPU peer)
    note "env: optional: glpk $(echo '#include <glpk.h>' | c++ -x c++ -fsyntax-only ${CPATH:+-I$CPATH} - 2>/dev/null && echo found || echo absent)," \
        "magma $(ldconfig -p 2>/dev/null | grep -q 'libmagma\.so' && echo found || echo absent)"
    if ((${#missing[@]})); then
        note "env: missing: ${missing[*]}"
        failed=1
    else
        note "env: ${gpu:-no GPU}; nvcc $(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p'); libraries found"
    fi
}

step_build()
{
    local arch start=$SECONDS
    arch=$(gpu_architecture)
    if cmake -S . -B "$tree" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DTESSERA_ENABLE_CUDA=ON \
            -DTESSERA_CUDA_ARCHITECTURES="$arch" -DTESSERA_TEST_ACCURACY_ON_CUDA=ON ${CMAKE_ARGS:-} \
            >"$out/configure.log" 2>&1 &&
        cmake --build "$tree" -j "$jobs" ${TARGETS:+--target $TARGETS} >>"$out/build.log" 2>&1; then
        note "build: architectures $arch, ${TARGETS:-all targets}, $((SECONDS - start)) s"
    else
        tail -n 30 "$out/configure.log" "$out/build.log" 2>/dev/null || true
        note "build: FAILED (logs: $out/configure.log, $out/build.log)"
        failed=1
    fi
}

# ctest's line "N% tests passed, F tests failed out of T" and the number skipped
ctest_counts()
{
    local log=$1 skipped
    skipped=$(grep -c '\*\*\*Skipped' "$log" || true)
    echo "$(grep -E 'tests passed|tests failed' "$log" | tail -n1 || true), $skipped skipped"
}

# The reasons the skipped tests of ctest's last run gave (GTEST_SKIP's message, the line after
# "Skipped" in its full log), counted.
skip_reasons()
{
    grep -A1 -E ': Skipped$' "$tree/Testing/Temporary/LastTest.log" 2>/dev/null |
        grep -v -E ': Skipped$|^--$' | sort | uniq -c || true
}

# ctest_on_gpu <log name> <ctest selection...>: the selected tests; some skip on one GPU ("needs
# two GPUs", "no memory pools"), none may skip for want of a GPU: that would mean the CUDA
# workers never started
ctest_on_gpu()
{
    local name=$1; shift
    ctest --test-dir "$tree" "$@" -j "$jobs" --no-tests=error --output-on-failure \
        >"$out/ctest-$name.log" 2>&1 || failed=1
    note "test $*: $(ctest_counts "$out/ctest-$name.log")"
    skip_reasons | tee "$out/skipped-$name.txt" | sed 's/^/  skipped: /' | tee -a "$out/summary.txt"
    if grep -q 'no GPU' "$out/skipped-$name.txt"; then
        note "test $*: FAILED: tests skipped for want of a GPU"
        failed=1
    fi
    grep -A40 'The following tests FAILED' "$out/ctest-$name.log" || true
}

step_test()
{
    ctest_on_gpu cuda -L cuda
    ctest_on_gpu all -LE slow
}
step_cuda_tests() { ctest_on_gpu cuda-driver -R '^cuda_test_'; }
step_suite() { ctest_on_gpu suite -LE slow -E '^cuda_test_'; }

step_bus()
{
    if "$tree/bin/tessera-bus" --recalibrate >"$out/bus.txt" 2>&1; then
        cat "$out/bus.txt"
        note "bus: see $out/bus.txt"
    else
        tail -n 20 "$out/bus.txt"
        note "bus: FAILED (log: $out/bus.txt)"
        failed=1
    fi
}

# bench <name> <subcommand> [options]: JSON lines into $out/<name>.json; the table on stdout.
# A scaled residual of 60 or more (DESIGN.md's bound), or none, fails the step.
bench()
{
    local name=$1; shift
    if ! "$tree/bin/tessera-bench" "$@" --reps "$reps" --peer-reps "$peer_reps" --json --max-residual 60 >"$out/$name.json" 2>"$out/$name.err"; then
        tail -n 20 "$out/$name.err"
        note "$name: FAILED (log: $out/$name.err)"
        failed=1
        return
    fi
    # n, nb, Tessera's GFlop/s, its ratio to the CPU peer and to the GPU peer
    if ! python3 - "$out/$name.json" >"$out/$name.txt" 2>&1 <<'EOF'; then
import json, sys
def x(v):
    return "-" if v is None else f"{v:.3f}x"
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(f"{r['bench']:6} n={r.get('n', 0):<6.0f} nb={r.get('nb', 0):<5.0f} {r['gflops'] or 0:9.1f} GFlop/s"
          f"  vs {r['peer']}: {x(r.get('ratio'))}  vs {r.get('gpu_peer', '-')}: {x(r.get('gpu_ratio'))}"
          f"  residual {'-' if r.get('residual') is None else format(r['residual'], '.2e')}")
EOF
        note "$name: its JSON did not read (see $out/$name.txt, $out/$name.json)"
        failed=1
    fi
    tee -a "$out/summary.txt" <"$out/$name.txt"
}

step_gemm() { bench gemm gemm --n "${GEMM_N:-16384,32768}"; }
step_potrf() { bench potrf potrf --n "${POTRF_N:-40000}"; }
step_posv()
{
    bench posv posv --n 20000
    bench potrs potrs --n 20000
    bench potri potri --n 20000
    bench potrf-upper potrf --n 20000 --uplo U
}
step_lu()
{
    bench getrf getrf --n "${LU_N:-30000}"
    bench gesv gesv --n "${LU_N:-30000}"
    bench dsgesv dsgesv --n "${LU_N:-30000}"
}
step_qr()
{
    bench geqrf geqrf --n "${QR_N:-30000}"
    bench geqrf-tall geqrf --m 1000000 --n 200
}
step_fft()
{
    bench fft2d fft2d --n "${FFT_N:-16384}" --kind c2c --flags estimate
    bench fft1d fft1d --n 67108864 --flags estimate
    # out of core: the 4 GiB array (and its output) through a GPU allowed FFT_OOC_MEM of
    # replicas, so that its tiles stream by blocks of rows; cuFFT's own call has the whole GPU
    TESSERA_CUDA_MEM=${FFT_OOC_MEM:-2GB} bench fft2d-out-of-core fft2d --n "${FFT_N:-16384}" \
        --kind c2c --flags estimate
}
step_dropin()
{
    ctest --test-dir "$tree" -R '^dropin\.(test_dropin|lapacke_program)' -j "$jobs" --output-on-failure \
        >"$out/ctest-dropin.log" 2>&1 || failed=1
    note "test dropin: $(ctest_counts "$out/ctest-dropin.log")"
    TESSERA_NCUDA=${TESSERA_NCUDA:-1} REPS=$reps ROUTINES="${DROPIN_ROUTINES:-potrf gesv geqrf gemm getrf}" \
        scripts/dropin-crossover.sh "$tree" d "${DROPIN_ORDERS:-1024 2048 4096 8192}" \
        >"$out/dropin-crossover.txt" 2>&1 || failed=1
    cp "$tree/dropin-crossover.json" "$out/" 2>/dev/null || true
    tee -a "$out/summary.txt" <"$out/dropin-crossover.txt"
}
step_study()
{
    if "$tree/bin/tessera-bench" study --nemu 0 --ncpus "$(($(nproc) - 1))" --saxpy-n ${STUDY_SAXPY_N:-67108864} \
            --jacobi-n ${STUDY_JACOBI_N:-8192} --jacobi-tiles 8 --n "${STUDY_N:-16384}" --nb 1024 --reps "$reps" \
            --json >"$out/study.json" 2>"$out/study.err"; then
        note "study: see $out/study.json"
    else
        tail -n 20 "$out/study.err"
        note "study: FAILED (log: $out/study.err)"
        failed=1
    fi
}
step_trace()
{
    bench trace-potrf potrf --n "${TRACE_N:-20000}" --bound --trace "$out/potrf.trace"
    if [[ -f $out/potrf.trace ]]; then
        "$tree/bin/tessera-bound" "$out/potrf.trace" >"$out/potrf-bound.txt" 2>&1 || failed=1
        sed -n '1,8p' "$out/potrf-bound.txt"
        "$tree/bin/tessera-trace" "$out/potrf.trace" --gantt "$out/potrf-gantt.svg" --summary \
            >"$out/potrf-summary.txt" 2>&1 || failed=1
        sed -n '/^workers/,/^codelets/p' "$out/potrf-summary.txt"
    fi
}
step_nb()
{
    local nb
    for nb in 960 1280 1600 2048; do bench "potrf-nb$nb" potrf --n 40000 --nb "$nb"; done
}

# Whether page-locking the user's arrays while the GPU copies them pays
# (RuntimeConfig::cuda_pin_threshold): each call with the default threshold, then with "never".
step_pin()
{
    local threshold
    for threshold in default never; do
        note "pin: TESSERA_CUDA_PIN_THRESHOLD=$threshold"
        # in a subshell: the caller's setting stays as it was for the steps after this one
        (
            if [[ $threshold == never ]]; then export TESSERA_CUDA_PIN_THRESHOLD=never; else unset TESSERA_CUDA_PIN_THRESHOLD; fi
            bench "pin-$threshold-gemm" gemm --n 16384
            bench "pin-$threshold-potrf" potrf --n 20000
            exit "$failed"
        ) || failed=1
    done
}

(($#)) || { sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 2; }
for step in "$@"; do
    case $step in
        env | build | test | bus | gemm | potrf | posv | lu | qr | fft | dropin | study | trace | nb | pin | suite) "step_$step" ;;
        cuda-tests) step_cuda_tests ;;
        *) echo "gpu-validate: unknown step '$step'" >&2; exit 2 ;;
    esac
done
exit "$failed"
