/// @file distributed.hpp
/// Tile matrices across the ranks of an MPI communicator (libtessera_mpi, thesis §5): tiles
/// owned 2D block-cyclically over a p x q process grid (ScaLAPACK's and SLATE's layout), a
/// matrix scattered from and gathered to a LAPACK array on one rank, and the LAPACK-style
/// calls on a distribution; or ScaLAPACK's local arrays wrapped in place (wrap_scalapack).
/// The tile algorithms themselves run unchanged: every rank submits
/// the whole task flow and rt::mpi::Context places each task on the owner of what it writes.
///
///     rt::Runtime rt;
///     rt::mpi::Context mpi{rt};
///     const auto grid = tessera::ProcessGrid::for_ranks(mpi.size());    // 2 ranks: 1 x 2
///     int64_t info = tessera::potrf(mpi, grid, Uplo::lower, n, a, lda); // a on rank 0
///
/// or, with the tiles in place on their owners:
///
///     auto A = tessera::distributed_matrix<double>(mpi, grid, n, n, nb);  // every rank
///     tessera::scatter(mpi, a, lda, /*root*/ 0, A);     // or each rank fills its own tiles
///     int64_t info = mpi.agree_on_info(tessera::potrf(Uplo::lower, A));
///     tessera::gather(mpi, A, a, lda, 0);
///
/// Every call here is a collective: every rank makes it, with the same arguments (the array
/// only on the root). Each rank has every tile's handle: the tiles it does not own hold the
/// copies it received (or nothing it reads). In a distributed_matrix they live in address
/// space reserved without memory, backed by pages only where a copy is written (and the
/// copies stay until the matrix is destroyed: a rank that receives a copy of every tile ends
/// with the whole matrix).
///
/// What the algorithms move: potrf, potrs and gemm move tiles as ScaLAPACK does (each tile a
/// task reads goes once to each rank that needs it). LU's and QR's panels and LU's row
/// interchanges are single tasks over a tile column: their runner (the owner of its top tile)
/// receives the column's tiles and sends them back, a whole column per panel where ScaLAPACK
/// exchanges rows only; they give the single-process result, more slowly.
#pragma once

#include <tessera/la.hpp>
#include <tessera/rt/mpi.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>

namespace tessera::inline la {

/// A p x q grid of the ranks of a communicator, ranks numbered row-major over it (BLACS'
/// default order): tile (i, j) belongs to rank (i mod p) q + (j mod q). p = size, q = 1 is a
/// 1D cyclic distribution by tile rows; p = 1, q = size by tile columns.
struct ProcessGrid {
    int p = 1;  ///< process rows
    int q = 1;  ///< process columns
    /// The rank that owns tile (i, j).
    int owner(int64_t i, int64_t j) const noexcept { return int(i % p) * q + int(j % q); }
    /// The grid for `ranks`: p the largest divisor of ranks at most sqrt(ranks), q = ranks / p.
    static ProcessGrid for_ranks(int ranks) noexcept
    {
        int p = 1;
        for (int d = 1; d * d <= ranks; ++d)
            if (ranks % d == 0) p = d;
        return {p, ranks / p};
    }
};

namespace detail {
inline void require_grid(char const* call, rt::mpi::Context const& mpi, ProcessGrid g)
{
    require(g.p >= 1 && g.q >= 1 && int64_t(g.p) * g.q == mpi.size(), [&] {
        return std::string(call) + ": grid: " + std::to_string(g.p) + " x " + std::to_string(g.q) +
               " is not a grid of the " + std::to_string(mpi.size()) + " ranks";
    });
}
inline void require_root(char const* call, rt::mpi::Context const& mpi, int root)
{
    require(root >= 0 && root < mpi.size(), [&] {
        return std::string(call) + ": root: " + std::to_string(root) + " is not a rank of the " +
               std::to_string(mpi.size());
    });
}
}  // namespace detail

/// Registers every tile of A with `mpi`, tile (i, j) owned by grid.owner(i, j), with tags the
/// Context picks. InvalidArgument when the grid is not a grid of the communicator's ranks.
template <Scalar T> void distribute(rt::mpi::Context& mpi, TileMatrix<T>& A, ProcessGrid grid)
{
    detail::require_grid("distribute", mpi, grid);
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = 0; i < A.mt(); ++i) mpi.register_data(A(i, j), grid.owner(i, j));
}

/// An m x n matrix of nb x nb tiles distributed over `grid`, every tile registered with
/// `mpi` (distribute): this rank's tiles in storage of the matrix's own, sized for them
/// alone, the other ranks' in address space that gets memory only where this rank receives a
/// copy (TileMatrix::with_local_tiles). A matrix larger than one node's memory is made this
/// way; `TileMatrix A(rt, m, n, nb)` on every rank allocates all of it on each (pinned, so
/// backed at once, when the runtime has GPUs). Every rank calls it alike. The content is
/// undefined until written.
template <Scalar T>
TileMatrix<T> distributed_matrix(rt::mpi::Context& mpi, ProcessGrid grid, int64_t m, int64_t n,
                                 int64_t nb)
{
    detail::require_grid("distributed_matrix", mpi, grid);
    const int rank = mpi.rank();
    auto A = TileMatrix<T>::with_local_tiles(
        mpi.runtime(), m, n, nb, [&](int64_t i, int64_t j) { return grid.owner(i, j) == rank; });
    distribute(mpi, A, grid);
    return A;
}

/// Registers the pieces of an LU's pivots: piece k goes with the panel that writes it, on the
/// owner of diagonal tile (k, k).
inline void distribute(rt::mpi::Context& mpi, Pivots& ipiv, ProcessGrid grid)
{
    detail::require_grid("distribute", mpi, grid);
    for (int64_t k = 0; k < ipiv.pieces(); ++k) mpi.register_data(ipiv.piece(k), grid.owner(k, k));
}

/// Registers the T factors of a QR of A (QrFactors{A}): those of the elimination of tile
/// (i, k) go with that tile.
template <Scalar T>
void distribute(rt::mpi::Context& mpi, QrFactors<T>& F, TileMatrix<T> const& A, ProcessGrid grid)
{
    detail::require_grid("distribute", mpi, grid);
    require(F.fits(A.m(), A.n(), A.nb()), "distribute: F: not the QR factors of A's shape");
    for (int64_t k = 0; k < std::min(A.mt(), A.nt()); ++k)
        for (int64_t i = k; i < A.mt(); ++i) {
            mpi.register_data(F.square(i, k), grid.owner(i, k));
            if (F.merges()) mpi.register_data(F.triangle(i, k), grid.owner(i, k));
        }
}

/// The number of rows (or columns) of an extent of `global` in blocks of nb, dealt cyclically
/// to `procs` processes, that process `proc` holds (ScaLAPACK's NUMROC, first block on 0).
constexpr int64_t local_extent(int64_t global, int64_t nb, int proc, int procs) noexcept
{
    const int64_t blocks = global / nb, extra = global % nb;
    int64_t local = blocks / procs * nb;
    if (proc < blocks % procs)
        local += nb;
    else if (proc == blocks % procs)
        local += extra;
    return local;
}

/// A TileMatrix over ScaLAPACK's local array, in place: the m x n matrix distributed
/// 2D block-cyclically over `grid` in nb x nb blocks from process (0, 0) (descriptor M = m,
/// N = n, MB = NB = nb, RSRC = CSRC = 0, LLD = lld, on a BLACS grid numbered row-major, as
/// ProcessGrid is), of which this rank holds `a`. Tile (i, j) is block (i, j): this rank's
/// tiles are its blocks of `a`, at local rows (i / p) nb and columns (j / q) nb; the tiles of
/// other ranks get storage of their own, for the copies this rank receives (pages the kernel
/// backs only once written). Registers every tile with `mpi`. `a` must outlive the matrix,
/// and holds the results once it is destroyed. Collective.
///
///     // a ScaLAPACK user's local array and descriptor desca, on grid p x q
///     auto A = tessera::wrap_scalapack(mpi, {p, q}, a, desca[2], desca[3], desca[4], desca[8]);
///     int64_t info = mpi.agree_on_info(tessera::potrf(Uplo::lower, A));
template <Scalar T>
TileMatrix<T> wrap_scalapack(rt::mpi::Context& mpi, ProcessGrid grid, T* a, int64_t m, int64_t n,
                             int64_t nb, int64_t lld)
{
    detail::require_grid("wrap_scalapack", mpi, grid);
    require(nb >= 1, "wrap_scalapack: nb = " + std::to_string(nb) + " must be >= 1");
    const int row = mpi.rank() / grid.q, column = mpi.rank() % grid.q;
    const int64_t local_m = m > 0 ? local_extent(m, nb, row, grid.p) : 0;
    const int64_t local_n = n > 0 ? local_extent(n, nb, column, grid.q) : 0;
    require(lld >= std::max<int64_t>(1, local_m), [&] {
        return "wrap_scalapack: lld = " + std::to_string(lld) + " is below this rank's " +
               std::to_string(local_m) + " local rows";
    });
    require(a != nullptr || local_m == 0 || local_n == 0, "wrap_scalapack: a is null");
    auto A = TileMatrix<T>::with_tiles_at(
        mpi.runtime(), m, n, nb, [&](int64_t i, int64_t j) -> typename TileMatrix<T>::TileHome {
            if (grid.owner(i, j) != mpi.rank()) return {};
            return {a + (i / grid.p) * nb + (j / grid.q) * nb * lld, lld};
        });
    distribute(mpi, A, grid);
    return A;
}

/// Copies the column-major A.m() x A.n() array `a` (leading dimension lda) of rank `root`
/// into the tiles of A, each on its owner (the other ranks pass any `a`, null included). The
/// tiles must be distributed. Waits for root's copies; the owners' receives join their flows.
/// Root gives back the memory of its copies of other ranks' tiles (reserved_for_copies) once
/// they are sent.
template <Scalar T>
void scatter(rt::mpi::Context& mpi, T const* a, int64_t lda, int root, TileMatrix<T>& A)
{
    detail::require_root("scatter", mpi, root);
    if (mpi.rank() == root) {
        const rt::mpi::Context::Local here{mpi};
        lapack_to_tiles(a, lda, A);  // checks a and lda
    }
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = 0; i < A.mt(); ++i) mpi.set_data_from(A(i, j), root);
    // root's copies of the other ranks' tiles, once sent (a distributed_matrix's, in reserve)
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = 0; i < A.mt(); ++i) mpi.release(A(i, j), A.reserved_for_copies(i, j));
}

/// Copies the tiles of A, from their owners, into the column-major array `a` (leading
/// dimension lda) of rank `root` (the other ranks pass any `a`). Waits until `a` holds them;
/// root then gives back the memory of its copies of other ranks' tiles (reserved_for_copies).
template <Scalar T>
void gather(rt::mpi::Context& mpi, TileMatrix<T> const& A, T* a, int64_t lda, int root)
{
    detail::require_root("gather", mpi, root);
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = 0; i < A.mt(); ++i) mpi.get_data_on(A(i, j), root);
    if (mpi.rank() == root) {
        const rt::mpi::Context::Local here{mpi};
        tiles_to_lapack(A, a, lda);  // after the receives, by data
    }
    // root's copies of the other ranks' tiles, once in `a` (a distributed_matrix's, in reserve)
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = 0; i < A.mt(); ++i) mpi.release(A(i, j), A.reserved_for_copies(i, j));
}

namespace detail {
/// Runs `compute` (a tile call returning info) on every rank, then waits for the whole flow
/// (Context::wait_all: a task that failed on any rank throws on every rank), and returns the
/// info of the ranks (the smallest positive one).
template <class Compute> int64_t info_over_ranks(rt::mpi::Context& mpi, Compute&& compute)
{
    int64_t info = 0;
    std::exception_ptr error;
    try {
        info = compute();
    } catch (...) {  // a receive failed because another rank failed: wait_all says which
        error = std::current_exception();
    }
    mpi.wait_all();
    if (error) std::rethrow_exception(error);
    return mpi.agree_on_info(info);
}

/// Root's m x n array `a` (leading dimension lda) in nb x nb tiles distributed over `grid`.
template <Scalar T>
TileMatrix<T> scattered(rt::mpi::Context& mpi, ProcessGrid grid, int root, int64_t m, int64_t n,
                        T const* a, int64_t lda, int64_t nb)
{
    auto A = distributed_matrix<T>(mpi, grid, m, n, nb);
    scatter(mpi, a, lda, root, A);
    return A;
}

/// Root's ipiv (P.size() entries, from 1) from the pieces of P.
inline void gather_pivots(rt::mpi::Context& mpi, Pivots const& P, int64_t* ipiv, int root)
{
    for (int64_t k = 0; k < P.pieces(); ++k) mpi.get_data_on(P.piece(k), root);
    if (mpi.rank() == root) {
        const rt::mpi::Context::Local here{mpi};
        std::copy_n(P.data(), P.size(), ipiv);
    }
}

/// The checks of the LAPACK-style calls on a distribution: the grid, the sizes, the root.
inline void require_call(char const* call, rt::mpi::Context const& mpi, ProcessGrid grid, int root,
                         std::initializer_list<std::pair<char const*, int64_t>> sizes)
{
    require_grid(call, mpi, grid);
    require_root(call, mpi, root);
    for (auto const& [name, value] : sizes)
        require(value >= 0, [&] {
            return std::string(call) + ": " + name + " = " + std::to_string(value) + " < 0";
        });
}
}  // namespace detail

// ---- LAPACK's calls on root's arrays, computed by every rank over a grid ----
// Each is a collective: every rank calls it with the same sizes, grid and root (the arrays
// only on root); it scatters root's arrays over the grid in nb x nb tiles (0: the library's
// choice), runs the tile algorithm on every rank, waits (a failure anywhere throws on every
// rank), gathers the results into root's arrays, and returns LAPACK's info on every rank.

/// potrf: root's a receives the Cholesky factor.
template <Scalar T>
[[nodiscard]] int64_t potrf(rt::mpi::Context& mpi, ProcessGrid grid, Uplo uplo, int64_t n, T* a,
                            int64_t lda, int root = 0, int64_t nb = 0)
{
    detail::require_call("potrf", mpi, grid, root, {{"n", n}});
    if (nb <= 0) nb = tile_size(Routine::potrf, precision_letter<T>(), n);
    auto A = detail::scattered(mpi, grid, root, n, n, a, lda, nb);
    const int64_t info = detail::info_over_ranks(mpi, [&] { return potrf(uplo, A); });
    gather(mpi, A, a, lda, root);
    mpi.wait_all();
    return info;
}

/// posv: root's a receives the factor and b (n x nrhs) the solution of A X = B.
template <Scalar T>
[[nodiscard]] int64_t posv(rt::mpi::Context& mpi, ProcessGrid grid, Uplo uplo, int64_t n,
                           int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb, int root = 0,
                           int64_t nb = 0)
{
    detail::require_call("posv", mpi, grid, root, {{"n", n}, {"nrhs", nrhs}});
    if (nb <= 0) nb = tile_size(Routine::posv, precision_letter<T>(), n);
    auto A = detail::scattered(mpi, grid, root, n, n, a, lda, nb);
    auto B = detail::scattered(mpi, grid, root, n, nrhs, b, ldb, nb);
    const int64_t info = detail::info_over_ranks(mpi, [&] { return posv(uplo, A, B); });
    gather(mpi, A, a, lda, root);
    gather(mpi, B, b, ldb, root);
    mpi.wait_all();
    return info;
}

/// getrf: root's a receives L and U, and ipiv min(m, n) row interchanges, from 1.
template <Scalar T>
[[nodiscard]] int64_t getrf(rt::mpi::Context& mpi, ProcessGrid grid, int64_t m, int64_t n, T* a,
                            int64_t lda, int64_t* ipiv, int root = 0, int64_t nb = 0)
{
    detail::require_call("getrf", mpi, grid, root, {{"m", m}, {"n", n}});
    require(mpi.rank() != root || ipiv || std::min(m, n) == 0, "getrf: ipiv is null on root");
    if (nb <= 0) nb = tile_size(Routine::getrf, precision_letter<T>(), m, n);
    auto A = detail::scattered(mpi, grid, root, m, n, a, lda, nb);
    Pivots P(A);
    distribute(mpi, P, grid);
    const int64_t info = detail::info_over_ranks(mpi, [&] { return getrf(A, P); });
    gather(mpi, A, a, lda, root);
    detail::gather_pivots(mpi, P, ipiv, root);
    mpi.wait_all();
    return info;
}

/// gesv: root's a receives L and U, ipiv n row interchanges (from 1), and b (n x nrhs) the
/// solution of A X = B.
template <Scalar T>
[[nodiscard]] int64_t gesv(rt::mpi::Context& mpi, ProcessGrid grid, int64_t n, int64_t nrhs, T* a,
                           int64_t lda, int64_t* ipiv, T* b, int64_t ldb, int root = 0,
                           int64_t nb = 0)
{
    detail::require_call("gesv", mpi, grid, root, {{"n", n}, {"nrhs", nrhs}});
    require(mpi.rank() != root || ipiv || n == 0, "gesv: ipiv is null on root");
    if (nb <= 0) nb = tile_size(Routine::gesv, precision_letter<T>(), n);
    auto A = detail::scattered(mpi, grid, root, n, n, a, lda, nb);
    auto B = detail::scattered(mpi, grid, root, n, nrhs, b, ldb, nb);
    Pivots P(A);
    distribute(mpi, P, grid);
    const int64_t info = detail::info_over_ranks(mpi, [&] { return gesv(A, P, B); });
    gather(mpi, A, a, lda, root);
    gather(mpi, B, b, ldb, root);
    detail::gather_pivots(mpi, P, ipiv, root);
    mpi.wait_all();
    return info;
}

/// gemm: root's c (m x n) receives alpha op(A) op(B) + beta C, op(A) m x k, op(B) k x n.
template <Scalar T>
void gemm(rt::mpi::Context& mpi, ProcessGrid grid, Op transa, Op transb, int64_t m, int64_t n,
          int64_t k, std::type_identity_t<T> alpha, T const* a, int64_t lda, T const* b,
          int64_t ldb, std::type_identity_t<T> beta, T* c, int64_t ldc, int root = 0,
          int64_t nb = 0)
{
    detail::require_call("gemm", mpi, grid, root, {{"m", m}, {"n", n}, {"k", k}});
    if (nb <= 0) nb = tile_size(Routine::gemm, precision_letter<T>(), std::min({m, n, k}));
    const bool ta = transa != Op::notrans, tb = transb != Op::notrans;
    auto A = detail::scattered(mpi, grid, root, ta ? k : m, ta ? m : k, a, lda, nb);
    auto B = detail::scattered(mpi, grid, root, tb ? n : k, tb ? k : n, b, ldb, nb);
    auto C = detail::scattered(mpi, grid, root, m, n, static_cast<T const*>(c), ldc, nb);
    detail::info_over_ranks(mpi, [&] {
        gemm(transa, transb, alpha, A, B, beta, C);
        return int64_t(0);
    });
    gather(mpi, C, c, ldc, root);
    mpi.wait_all();
}

}  // namespace tessera::inline la
