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
// tiled in place with cores alone, the gemm of a column is one task per stack of tiles.
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
    // On a LAPACK array tiled in place with cores alone, the tiles of a column lie one below
    // the other: each column's update is a few tall gemm calls (cl::gemm_stack), as many per
    // step as keep every worker busy twice over. Elsewhere, one gemm task per tile, which any
    // unit can run.
    const bool stacks = !A.owns_storage() && cores_alone(s.runtime());
    const auto wanted = int64_t(2 * s.runtime().worker_count());
    for (int64_t k = 0; k < kt; ++k) {
        const auto panel = tiles_below(A, k, k);
        s.submit(cl::getrf_panel<T>, rt::readwrite_all(panel), rt::write(ipiv.piece(k)), rt::value(k * nb),
                 rt::value(s.info_target(OnInfo::continues)), rt::value(std::make_shared<kernels::cpu::PivotSearch>()),
                 rt::priority(int(2 * (nt - k) + 1)));
        for (int64_t j = k + 1; j < nt; ++j) {
            s.submit(cl::swap_rows<T>, rt::readwrite_all(tiles_below(A, k, j)), rt::read(ipiv.piece(k)),
                     rt::value(k * nb), prio(k, j));
            s.submit(cl::trsm<T>, rt::value(Side::left), rt::value(Uplo::lower), rt::value(Op::notrans),
                     rt::value(Diag::unit), rt::value(T(1)), read(A(k, k)), readwrite(A(k, j)), prio(k, j));
            const int64_t below = mt - k - 1;  // tile rows under the panel (none at the last of a wide A)
            if (stacks && below > 0) {  // A(i..i+h-1, j) -= A(i..i+h-1, k) A(k, j), one task per stack of h tiles
                const int64_t chunks = std::clamp<int64_t>((wanted + nt - k - 2) / (nt - k - 1), 1, below);
                const int64_t h = (below + chunks - 1) / chunks;
                for (int64_t i = k + 1; i < mt; i += h) {
                    std::vector<typename TileMatrix<T>::Tile*> a, c;
                    for (int64_t r = i; r < std::min(mt, i + h); ++r) {
                        a.push_back(&A(r, k));
                        c.push_back(&A(r, j));
                    }
                    s.submit(cl::gemm_stack<T>, rt::read_all(a), read(A(k, j)), rt::readwrite_all(c), prio(k, j));
                }
            } else {
                for (int64_t i = k + 1; i < mt; ++i)
                    s.submit(cl::gemm<T>, rt::value(Op::notrans), rt::value(Op::notrans), rt::value(T(-1)),
                             read(A(i, k)), read(A(k, j)), rt::value(T(1)), readwrite(A(i, j)), prio(k, j));
            }
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
