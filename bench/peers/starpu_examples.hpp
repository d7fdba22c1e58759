// StarPU's own dense examples as peers of the LAPACK-style benchmarks: the same tile algorithms
// on StarPU's runtime, run as the processes Debian's starpu-examples ships, with their size
// and block-count options. Runtime against runtime, as the seeds invite: cholesky_implicit
// (single precision) beside spotrf, lu_implicit_example_double -piv beside dgetrf.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::bench::peers {

/// The directory of StarPU's example programs (TESSERA_STARPU_EXAMPLES, else Debian's
/// /usr/lib/<multiarch>/starpu/examples), or "" when none is found.
std::string starpu_examples_dir();

/// The example program that computes `routine` in precision `letter` ("cholesky_implicit" for
/// potrf in s, "lu_implicit_example_double" for getrf in d), or "" when StarPU has none.
std::string starpu_example_for(std::string const& routine, char letter);

/// Block counts worth trying for order n: divisors of n (the examples need equal blocks) whose
/// blocks are closest to 256, 384 and 512.
std::vector<int64_t> starpu_block_counts(int64_t n);

/// One run of an example.
struct StarpuExampleRun {
    double seconds = 0;    ///< the factorization alone, as the example times it
    double residual = -1;  ///< the LU example's ||PA - LU|| / (||A|| n eps) with -check; -1: none
};

/// Runs `program` -size n -nblocks nblocks on `ncpus` CPU workers (no GPU, scheduler dmdas,
/// models under STARPU_HOME = `models`), with -check when `check`. Throws Error with the
/// program's output when it fails or prints no timing.
StarpuExampleRun run_starpu_example(std::string const& program, int64_t n, int64_t nblocks,
                                    int ncpus, bool check, std::string const& models);

}  // namespace tessera::bench::peers
