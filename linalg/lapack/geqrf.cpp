// LAPACK-style geqrf, unmqr (ormqr) and ungqr (orgqr): the column-major arrays are tiled in
// place, tau registered in place in pieces of nb, and the QR in LAPACK's compact form
// (algorithms/qr_compact.cpp) runs on the library's runtime. Inside a task, LAPACK's own
// routine runs inline.
#include <tessera/la/context.hpp>
#include <tessera/la/qr.hpp>

#include "linalg/algorithms/qr_compact.hpp"
#include "linalg/instantiate.hpp"
#include "linalg/kernels/cpu/blas_lapack.hpp"
#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"

namespace tessera::inline la {

template <Scalar T> int64_t geqrf(int64_t m, int64_t n, T* a, int64_t lda, T* tau)
{
    constexpr char const* fn = "geqrf";
    detail::check_factorization_arguments(fn, m, n, a, lda, tau);
    if (m == 0 || n == 0) return 0;
    if (detail::inside_task()) {
        detail::run_inline([&] { kernels::cpu::geqrf<T>(m, n, a, lda, tau); });
        return 0;
    }
    const detail::LibraryCall library_call{__func__};
    rt::Runtime& rt = library_call.runtime();
    const int64_t nb = tile_size(Routine::geqrf, precision_letter<T>(), m, n);
    auto A = TileMatrix<T>::wrap(rt, a, m, n, lda, nb);
    detail::TauPieces<T> pieces{rt, tau, std::min(m, n), nb};
    auto factors = detail::panel_factors<T>(rt, std::min(A.mt(), A.nt()), nb);
    return synchronously(rt,
                         [&](Sequence& s) { detail::geqrf_compact_async(A, pieces, factors, s); });
}

template <Scalar T>
int64_t unmqr(Side side, Op op, int64_t m, int64_t n, int64_t k, T const* a, int64_t lda,
              T const* tau, T* c, int64_t ldc)
{
    constexpr char const* fn = is_complex_v<T> ? "unmqr" : "ormqr";  // LAPACK's name
    const int64_t nq = detail::check_reflector_application<is_complex_v<T>>(
        fn, side, op, m, n, k, a, lda, false, tau, c, ldc);
    if (m == 0 || n == 0 || k == 0) return 0;
    if (detail::inside_task()) {
        detail::run_inline([&] { kernels::cpu::unmqr<T>(side, op, m, n, k, a, lda, tau, c, ldc); });
        return 0;
    }
    const detail::LibraryCall library_call{__func__};
    rt::Runtime& rt = library_call.runtime();
    const int64_t nb = tile_size(Routine::geqrf, precision_letter<T>(), nq, k);
    const auto V = TileMatrix<T>::wrap(rt, a, nq, k, lda, nb);
    auto C = TileMatrix<T>::wrap(rt, c, m, n, ldc, nb);
    // tau is only read (tasks take its pieces with read access)
    detail::TauPieces<T> pieces{rt, const_cast<T*>(tau), k, nb};
    auto factors = detail::panel_factors<T>(rt, V.matrix().nt(), nb);
    return synchronously(rt, [&](Sequence& s) {
        detail::unmqr_compact_async(side, op, V.matrix(), pieces, factors, C, s);
    });
}

template <Scalar T> int64_t ungqr(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, T const* tau)
{
    constexpr char const* fn = is_complex_v<T> ? "ungqr" : "orgqr";  // LAPACK's name
    detail::check_reflector_forming(fn, m, n, k, a, lda, false, tau);
    if (n == 0) return 0;
    if (detail::inside_task()) {
        detail::run_inline([&] { kernels::cpu::ungqr<T>(m, n, k, a, lda, tau); });
        return 0;
    }
    const detail::LibraryCall library_call{__func__};
    rt::Runtime& rt = library_call.runtime();
    const int64_t nb = tile_size(Routine::geqrf, precision_letter<T>(), m, n);
    auto A = TileMatrix<T>::wrap(rt, a, m, n, lda, nb);
    detail::TauPieces<T> pieces{rt, const_cast<T*>(tau), k, nb};  // only read
    auto factors = detail::panel_factors<T>(rt, (k + nb - 1) / nb, nb);
    return synchronously(
        rt, [&](Sequence& s) { detail::ungqr_compact_async(A, k, pieces, factors, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template int64_t geqrf<T>(int64_t, int64_t, T*, int64_t, T*);                                  \
    template int64_t unmqr<T>(Side, Op, int64_t, int64_t, int64_t, T const*, int64_t, T const*,    \
                              T*, int64_t);                                                        \
    template int64_t ungqr<T>(int64_t, int64_t, int64_t, T*, int64_t, T const*);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
