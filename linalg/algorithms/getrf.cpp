// Tile LU with partial pivoting (PLASMA's pzgetrf, SLATE's getrf). For each step k, with
// kb = the width of tile column k:
//     [A(k,k); ...; A(mt-1,k)] = P_k L_k U(k,k)     panel: one SPMD task over the tile column
//     A(k..mt-1, j) = P_k^T A(k..mt-1, j)   j != k  the panel's interchanges (laswp)
//     A(k,j) = L(k,k)^{-1} A(k,j)           j > k   trsm (left, lower, unit)
//     A(i,j) = A(i,j) - A(i,k) A(k,j)  i, j > k     gemm
// The interchanges reach the columns left of the panel too, so that L ends as LAPACK's (row
// i of L holds the multipliers of the row that ended in position i). Priorities follow the
// critical path: the panel first, then the column of the next panel, then the others from
// left to right; the swaps on the left, which nothing waits for, last. On a LAPACK array
// tiled in place with cores alone, a block of columns is updated by one task.
#include <tessera/la/lu.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/codelets/lu.hpp"
#include "linalg/instantiate.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace tessera::inline la {

namespace {
bool cores_alone(rt::Runtime const& rt)
{
    for (rt::WorkerId w = 0; w < rt.worker_count(); ++w)
        if (rt.worker(w).arch != rt::Arch::cpu) return false;
    return true;
}

template <Scalar T>
std::vector<typename TileMatrix<T>::Tile*> tiles_below(TileMatrix<T>& A, int64_t k, int64_t j)
{
    std::vector<typename TileMatrix<T>::Tile*> column;
    column.reserve(std::size_t(A.mt() - k));
    for (int64_t i = k; i < A.mt(); ++i) column.push_back(&A(i, j));
    return column;
}

/// Step k's update on a LAPACK array tiled in place with cores alone: the tiles of a row of
/// tile columns lie side by side, so that a block of columns is updated by one task
/// (cl::update_columns: interchanges, trsm and gemm, each one call over the block). Columns
/// k+1 and k+2, which the next two panels wait for, get a task each; the others are cut into
/// as many blocks as keep every worker busy twice over. The columns left of the panel get
/// their interchanges last, which nothing waits for.
template <Scalar T, class Priority>
void update_in_blocks(TileMatrix<T>& A, Pivots& ipiv, int64_t k, std::vector<typename TileMatrix<T>::Tile*> const& panel,
                      Sequence& s, int64_t wanted, Priority prio)
{
    const int64_t nt = A.nt(), offset = k * A.nb();
    auto submit = [&](int64_t j0, int64_t j1) {
        std::vector<typename TileMatrix<T>::Tile*> block;
        for (int64_t j = j0; j < j1; ++j)
            for (int64_t i = k; i < A.mt(); ++i) block.push_back(&A(i, j));
        s.submit(cl::update_columns<T>, rt::read_all(panel), rt::read(ipiv.piece(k)), rt::value(offset),
                 rt::readwrite_all(block), prio(k, j0));
    };
    for (int64_t j = k + 1; j < std::min(nt, k + 3); ++j) submit(j, j + 1);
    const int64_t rest = nt - (k + 3);
    if (rest > 0) {
        const int64_t width = (rest + wanted - 1) / wanted;
        for (int64_t j = k + 3; j < nt; j += width) submit(j, std::min(nt, j + width));
    }
    for (int64_t j = 0; j < k; ++j)
        s.submit(cl::swap_rows<T>, rt::readwrite_all(tiles_below(A, k, j)), rt::read(ipiv.piece(k)),
                 rt::value(offset), rt::priority(0));
}
}  // namespace

template <Scalar T>
void getrf_async(TileMatrix<T>& A, Pivots& ipiv, Sequence& s)
{
    const int64_t kmin = std::min(A.m(), A.n());
    require(ipiv.size() == kmin && (kmin == 0 || ipiv.nb() == A.nb()), [&] {
        return "getrf: ipiv has " + std::to_string(ipiv.size()) + " entries in pieces of " + std::to_string(ipiv.nb()) +
               "; A (" + std::to_string(A.m()) + " x " + std::to_string(A.n()) + ", nb " + std::to_string(A.nb()) +
               ") needs " + std::to_string(kmin) + " in pieces of " + std::to_string(A.nb()) + " (Pivots{A})";
    });
    require(kmin == 0 || &ipiv.runtime() == &s.runtime(), "getrf: ipiv lives on another runtime than the sequence");
    const auto call = detail::begin_call<T>(s, "getrf", {{"A", A, true}});
    const int64_t mt = A.mt(), nt = A.nt(), kt = std::min(mt, nt), nb = A.nb();
    auto prio = [nt](int64_t k, int64_t j) { return rt::priority(int(2 * (nt - k) - (j - k))); };
    // On a LAPACK array tiled in place with cores alone, blocks of columns (update_in_blocks).
    // Elsewhere, a task per tile, which any unit can run.
    const bool blocks = !A.owns_storage() && cores_alone(s.runtime());
    const auto wanted = int64_t(2 * s.runtime().worker_count());
    for (int64_t k = 0; k < kt; ++k) {
        const auto panel = tiles_below(A, k, k);
        s.submit(cl::getrf_panel<T>, rt::readwrite_all(panel), rt::write(ipiv.piece(k)), rt::value(k * nb),
                 rt::value(s.info_target(OnInfo::continues)), rt::value(std::make_shared<kernels::cpu::PivotSearch>()),
                 rt::priority(int(2 * (nt - k) + 1)));
        if (blocks) {
            update_in_blocks(A, ipiv, k, panel, s, wanted, prio);
            continue;
        }
        for (int64_t j = k + 1; j < nt; ++j) {
            s.submit(cl::swap_rows<T>, rt::readwrite_all(tiles_below(A, k, j)), rt::read(ipiv.piece(k)),
                     rt::value(k * nb), prio(k, j));
            s.submit(cl::trsm<T>, rt::value(Side::left), rt::value(Uplo::lower), rt::value(Op::notrans),
                     rt::value(Diag::unit), rt::value(T(1)), read(A(k, k)), readwrite(A(k, j)), prio(k, j));
            for (int64_t i = k + 1; i < mt; ++i)
                s.submit(cl::gemm<T>, rt::value(Op::notrans), rt::value(Op::notrans), rt::value(T(-1)),
                         read(A(i, k)), read(A(k, j)), rt::value(T(1)), readwrite(A(i, j)), prio(k, j));
        }
        for (int64_t j = 0; j < k; ++j)
            s.submit(cl::swap_rows<T>, rt::readwrite_all(tiles_below(A, k, j)), rt::read(ipiv.piece(k)),
                     rt::value(k * nb), rt::priority(0));
    }
}

template <Scalar T>
int64_t getrf(TileMatrix<T>& A, Pivots& ipiv)
{
    if (!A || std::min(A.m(), A.n()) == 0) return 0;
    return synchronously(A.runtime(), [&](Sequence& s) { getrf_async(A, ipiv, s); });
}

#define TESSERA_INSTANTIATE(T)                                             \
    template void getrf_async<T>(TileMatrix<T>&, Pivots&, Sequence&);     \
    template int64_t getrf<T>(TileMatrix<T>&, Pivots&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::la
