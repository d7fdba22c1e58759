// The LAPACK-style solvers' handling of B (posv, gesv): B is copied into a column-major array
// of the runtime's (page-locked when it has GPUs), tiled in place; the factorization and the
// solve run in one sequence on that copy, and only when the factorization succeeded is the
// solution copied back, so that a failed factorization leaves B untouched, as LAPACK's
// solvers do. The copies move O(n nrhs) elements against O(n^3) flops; they are host copies
// made before and after the sequence, so that no copy task waits behind the factorization's
// tasks of higher priority (gesv's forward solve needs B from the first step). The copy
// being one array, a task over several of its tiles makes one call on them. Internal.
#pragma once

#include <tessera/la/sequence.hpp>
#include <tessera/la/tile_matrix.hpp>
#include <tessera/rt/memory.hpp>

#include "linalg/kernels/cpu/blas_lapack.hpp"

#include <cstdint>
#include <memory>

namespace tessera::inline la::detail {

/// Runs solve(X, s), which submits the factorization and the solve of X, a copy of the
/// n x nrhs array b tiled in place, into sequence s; when the sequence's info is 0, runs
/// finish(copy) on the copy (ld n), X unregistered, and copies it back into b. Returns that
/// info.
template <Scalar T, class Solve, class Finish>
int64_t solve_on_copy_of_b(rt::Runtime& rt, int64_t n, int64_t nrhs, T* b, int64_t ldb, int64_t nb,
                           Solve&& solve, Finish&& finish)
{
    const std::unique_ptr<T, void (*)(void*) noexcept> copy{
        static_cast<T*>(rt.allocate_for_transfers(std::size_t(n) * std::size_t(nrhs) * sizeof(T))),
        &rt::free_pinned};
    kernels::cpu::lacpy(n, nrhs, b, ldb, copy.get(), n);
    int64_t info = 0;
    {
        auto X = TileMatrix<T>::wrap(rt, copy.get(), n, nrhs, n, nb);
        Sequence s{rt};
        solve(X, s);
        info = s.wait();
    }  // X unregistered: the copy holds the solution, wherever the tasks left it
    if (info != 0) return info;
    finish(copy.get());
    kernels::cpu::lacpy(n, nrhs, static_cast<T const*>(copy.get()), n, b, ldb);
    return 0;
}

}  // namespace tessera::inline la::detail
