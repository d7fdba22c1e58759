// `--grid PxQ`: a LAPACK-style routine distributed over the ranks of mpirun (bench/mpi/, built
// with MPI), against ScaLAPACK on the same grid.
#pragma once

#include "bench/bench.hpp"

#include <string>

namespace tessera::bench {

/// Runs `routine` with --grid (potrf only so far); throws InvalidArgument when tessera-bench
/// was built without MPI.
int run_distributed(std::string const& routine, Options const& o, Report& report);

}  // namespace tessera::bench
