// LAPACK-style getrf and getrf_nopiv: the column-major array is tiled in place
// (TileMatrix::wrap: no copy), ipiv registered in place, and the tile algorithm runs on the
// library's runtime. Inside a task, the recursive LU runs inline on the whole array.
#include <tessera/la/context.hpp>
#include <tessera/la/lu.hpp>

#include "linalg/instantiate.hpp"
#include "linalg/kernels/cpu/tile_column_lu.hpp"
#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"

namespace tessera::inline la {

namespace {
/// The whole m x n array as one tile column, factored on the calling thread.
template <Scalar T>
int64_t factor_inline(int64_t m, int64_t n, T* a, int64_t lda, int64_t* ipiv,
                      kernels::cpu::Pivoting pivoting)
{
    const kernels::cpu::ColumnTile<T> whole{a, m, lda};
    const int64_t info =
        kernels::cpu::getrf_panel<T>(std::span(&whole, 1), m, n, ipiv, pivoting, {});
    if (ipiv)
        for (int64_t i = 0; i < std::min(m, n); ++i) ++ipiv[i];  // LAPACK's rows from 1
    return info;
}

template <Scalar T> void check_getrf(char const* fn, int64_t m, int64_t n, T const* a, int64_t lda)
{
    detail::check_dimension(fn, 1, "m", m);
    detail::check_dimension(fn, 2, "n", n);
    detail::check_array(fn, 3, "A", a, m == 0 || n == 0);
    detail::check_leading(fn, 4, "lda", lda, m);
}
}  // namespace

template <Scalar T> int64_t getrf(int64_t m, int64_t n, T* a, int64_t lda, int64_t* ipiv)
{
    constexpr char const* fn = "getrf";
    check_getrf(fn, m, n, a, lda);
    detail::check_array(fn, 5, "ipiv", ipiv, m == 0 || n == 0);
    if (m == 0 || n == 0) return 0;
    if (detail::inside_task())
        return detail::run_inline(
            [&] { return factor_inline(m, n, a, lda, ipiv, kernels::cpu::Pivoting::partial); });
    const detail::LibraryCall library_call{
        __func__};  // started first: the tile size depends on its workers
    rt::Runtime& rt = library_call.runtime();
    const int64_t nb = tile_size(Routine::getrf, precision_letter<T>(), m, n);
    auto A = TileMatrix<T>::wrap(rt, a, m, n, lda, nb);
    auto P = Pivots::wrap(rt, ipiv, std::min(m, n), nb);
    return getrf(A, P);
}

template <Scalar T> int64_t getrf_nopiv(int64_t m, int64_t n, T* a, int64_t lda)
{
    check_getrf("getrf_nopiv", m, n, a, lda);
    if (m == 0 || n == 0) return 0;
    if (detail::inside_task())
        return detail::run_inline(
            [&] { return factor_inline<T>(m, n, a, lda, nullptr, kernels::cpu::Pivoting::none); });
    const detail::LibraryCall library_call{__func__};
    rt::Runtime& rt = library_call.runtime();
    auto A = TileMatrix<T>::wrap(rt, a, m, n, lda,
                                 tile_size(Routine::getrf, precision_letter<T>(), std::min(m, n)));
    return getrf_nopiv(A);
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template int64_t getrf<T>(int64_t, int64_t, T*, int64_t, int64_t*);                            \
    template int64_t getrf_nopiv<T>(int64_t, int64_t, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
