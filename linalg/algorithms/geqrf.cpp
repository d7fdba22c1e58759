// Tile QR with inner blocking (PLASMA's pzgeqrf and its trees). For each step k:
//     tile column k reduced to R(k,k) by its eliminations (qr_steps.hpp: geqrt, tsqrt, ttqrt)
//     each elimination's Q^H applied to the tile columns j > k (unmqr, tsmqr, ttmqr)
// Priorities follow the critical path: the eliminations first, then the next column's
// updates, then the others from left to right.
#include <tessera/la/qr.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/algorithms/qr_steps.hpp"
#include "linalg/instantiate.hpp"

namespace tessera::inline la {

template <Scalar T> void geqrf_async(TileMatrix<T>& A, QrFactors<T>& F, Sequence& s)
{
    detail::require_factors_of("geqrf", F, A);
    const auto call = detail::begin_call<T>(s, "geqrf", {{"A", A, true}});
    const int64_t mt = A.mt(), nt = A.nt(), kt = std::min(mt, nt);
    for (int64_t k = 0; k < kt; ++k) {
        const int factor_priority = int(2 * (nt - k) + 1);
        for (detail::Elimination const& e : detail::qr_eliminations(mt, k, F.domain())) {
            const auto ib = rt::value(F.ib());
            switch (e.kind) {
            case detail::Elimination::Kind::geqrt:
                s.submit(cl::geqrt<T>, readwrite(A(e.row, k)), write(F.square(e.row, k)), ib,
                         rt::priority(factor_priority));
                break;
            case detail::Elimination::Kind::square:
                s.submit(cl::tpqrt<T>, readwrite(A(e.pivot, k)), readwrite(A(e.row, k)),
                         write(F.square(e.row, k)), rt::value(cl::Eliminated::square), ib,
                         rt::priority(factor_priority));
                break;
            case detail::Elimination::Kind::triangle:
                s.submit(cl::tpqrt<T>, readwrite(A(e.pivot, k)), readwrite(A(e.row, k)),
                         write(F.triangle(e.row, k)), rt::value(cl::Eliminated::triangle), ib,
                         rt::priority(factor_priority));
                break;
            }
            for (int64_t j = k + 1; j < nt; ++j)
                detail::apply_elimination(Side::left, Op::conjtrans, A, F, k, e, A, j,
                                          int(2 * (nt - k) - (j - k)), s);
        }
    }
}

template <Scalar T> void geqrf(TileMatrix<T>& A, QrFactors<T>& F)
{
    if (!A || std::min(A.m(), A.n()) == 0) return;
    (void)synchronously(A.runtime(), [&](Sequence& s) { geqrf_async(A, F, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void geqrf_async<T>(TileMatrix<T>&, QrFactors<T>&, Sequence&);                        \
    template void geqrf<T>(TileMatrix<T>&, QrFactors<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
