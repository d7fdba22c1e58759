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

#include "linalg/algorithms/getrf_steps.hpp"
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

/// Step k's update of the tile columns [j0, j1) of M (A itself, or gesv's B beside it), rows
/// k and below: the panel's interchanges, L(k,k)^{-1} on tile row k, minus the panel's L
/// below times that row. In one task (cl::update_columns) when `block`; else a task per tile,
/// which any unit can run.
template <Scalar T>
void update_columns_of(TileMatrix<T>& M, TileMatrix<T>& A, Pivots& ipiv, int64_t k, int64_t j0,
                       int64_t j1, bool block, int priority, Sequence& s)
{
    const int64_t offset = k * A.nb();
    if (block) {
        std::vector<typename TileMatrix<T>::Tile*> tiles;
        for (int64_t j = j0; j < j1; ++j)
            for (int64_t i = k; i < M.mt(); ++i) tiles.push_back(&M(i, j));
        s.submit(cl::update_columns<T>, rt::read_all(tiles_below(A, k, k)), rt::read(ipiv.piece(k)),
                 rt::value(offset), rt::readwrite_all(tiles), rt::priority(priority));
        return;
    }
    for (int64_t j = j0; j < j1; ++j) {
        s.submit(cl::swap_rows<T>, rt::readwrite_all(tiles_below(M, k, j)), rt::read(ipiv.piece(k)),
                 rt::value(offset), rt::priority(priority));
        s.submit(cl::trsm<T>, rt::value(Side::left), rt::value(Uplo::lower), rt::value(Op::notrans),
                 rt::value(Diag::unit), rt::value(T(1)), read(A(k, k)), readwrite(M(k, j)),
                 rt::priority(priority));
        for (int64_t i = k + 1; i < M.mt(); ++i)
            s.submit(cl::gemm<T>, rt::value(Op::notrans), rt::value(Op::notrans), rt::value(T(-1)),
                     read(A(i, k)), read(M(k, j)), rt::value(T(1)), readwrite(M(i, j)),
                     rt::priority(priority));
    }
}
}  // namespace

namespace detail {

template <Scalar T>
void getrf_then_forward_solve_async(TileMatrix<T>& A, Pivots& ipiv, TileMatrix<T>* B, Sequence& s)
{
    const int64_t kmin = std::min(A.m(), A.n());
    detail::require_pivots_of("getrf", ipiv, A);
    require(kmin == 0 || &ipiv.runtime() == &s.runtime(),
            "getrf: ipiv lives on another runtime than the sequence");
    const auto call = detail::begin_call<T>(s, "getrf", {{"A", A, true}});
    const int64_t mt = A.mt(), nt = A.nt(), kt = std::min(mt, nt), nb = A.nb();
    const int64_t bt = B && B->m() > 0 ? B->nt() : 0;  // B's tile columns come after A's
    auto prio = [nt](int64_t k, int64_t j) { return int(2 * (nt - k) - (j - k)); };
    // On a LAPACK array tiled in place with cores alone, blocks of columns in one task each:
    // columns k+1 and k+2, which the next two panels wait for, alone; the others in as many
    // blocks as keep every worker busy twice over. Elsewhere, a task per tile.
    const bool blocks = !A.owns_storage() && cores_alone(s.runtime());
    const auto wanted = int64_t(2 * s.runtime().worker_count());
    auto in_blocks = [&](TileMatrix<T>& M, int64_t k, int64_t first, int64_t columns,
                         int64_t base) {
        const int64_t width =
            blocks ? std::max<int64_t>(1, (columns - first + wanted - 1) / wanted) : 1;
        for (int64_t j = first; j < columns; j += width)
            update_columns_of(M, A, ipiv, k, j, std::min(columns, j + width), blocks,
                              prio(k, base + j), s);
    };
    for (int64_t k = 0; k < kt; ++k) {
        s.submit(cl::getrf_panel<T>, rt::readwrite_all(tiles_below(A, k, k)),
                 rt::write(ipiv.piece(k)), rt::value(k * nb),
                 rt::value(s.info_target(OnInfo::continues)),
                 rt::value(std::make_shared<kernels::cpu::PivotSearch>()),
                 rt::priority(int(2 * (nt - k) + 1)));
        const int64_t alone = blocks ? std::min(nt, k + 3) : nt;
        for (int64_t j = k + 1; j < alone; ++j)
            update_columns_of(A, A, ipiv, k, j, j + 1, blocks, prio(k, j), s);
        in_blocks(A, k, alone, nt, 0);
        if (bt > 0)
            in_blocks(*B, k, 0, bt, k + 3);  // B beside the lookahead: its steps form a chain
        // the columns left of the panel, which nothing waits for, last
        for (int64_t j = 0; j < k; ++j)
            s.submit(cl::swap_rows<T>, rt::readwrite_all(tiles_below(A, k, j)),
                     rt::read(ipiv.piece(k)), rt::value(k * nb), rt::priority(0));
    }
}

}  // namespace detail

template <Scalar T> void getrf_async(TileMatrix<T>& A, Pivots& ipiv, Sequence& s)
{
    detail::getrf_then_forward_solve_async<T>(A, ipiv, nullptr, s);
}

template <Scalar T> int64_t getrf(TileMatrix<T>& A, Pivots& ipiv)
{
    if (!A || std::min(A.m(), A.n()) == 0) return 0;
    return synchronously(A.runtime(), [&](Sequence& s) { getrf_async(A, ipiv, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void detail::getrf_then_forward_solve_async<T>(TileMatrix<T>&, Pivots&,               \
                                                            TileMatrix<T>*, Sequence&);            \
    template void getrf_async<T>(TileMatrix<T>&, Pivots&, Sequence&);                              \
    template int64_t getrf<T>(TileMatrix<T>&, Pivots&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
