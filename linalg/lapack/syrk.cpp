// LAPACK-style syrk and herk: A and C tiled in place on the library's runtime. Only the `uplo`
// triangle of C is read and written.
#include <tessera/la/blas.hpp>
#include <tessera/la/context.hpp>

#include "linalg/instantiate.hpp"
#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"

#include <algorithm>

namespace tessera::inline la {

namespace {

/// syrk (hermitian = false) or herk: BLAS's checks and numbering, then the tile form. BLAS's
/// trans: any of N, T, C for real T; N or T for csyrk/zsyrk; N or C for cherk/zherk.
template <Scalar T>
void syrk_or_herk(char const* fn, bool hermitian, Uplo uplo, Op trans, int64_t n, int64_t k,
                  T alpha, T const* a, int64_t lda, T beta, T* c, int64_t ldc)
{
    detail::check_option(uplo == Uplo::lower || uplo == Uplo::upper, fn, 1, "uplo", uplo);
    const bool valid_trans = trans == Op::notrans || (!is_complex_v<T> && trans == Op::trans) ||
                             (!is_complex_v<T> && trans == Op::conjtrans) ||
                             (trans == (hermitian ? Op::conjtrans : Op::trans));
    detail::check_option(valid_trans, fn, 2, "trans", trans);
    detail::check_dimension(fn, 3, "n", n);
    detail::check_dimension(fn, 4, "k", k);
    const bool notrans = trans == Op::notrans;
    const int64_t arows = notrans ? n : k, acols = notrans ? k : n;
    const bool uses_a = k > 0 && alpha != T(0) && n > 0;
    detail::check_array(fn, 6, "A", a, !uses_a);
    detail::check_leading(fn, 7, "lda", lda, arows);
    // BLAS's quick return, C not referenced (nor, for herk, its diagonal's imaginary parts
    // zeroed): nothing to add and beta = 1
    const bool quick = n == 0 || (!uses_a && beta == T(1));
    detail::check_array(fn, 9, "C", c, quick);
    detail::check_leading(fn, 10, "ldc", ldc, n);
    if (quick) return;
    if (detail::inside_task())
        return detail::run_inline([&] {
            kernels::cpu::syrk<T>(uplo, trans, hermitian, n, k, alpha, a, lda, beta, c, ldc);
        });
    const detail::LibraryCall library_call{
        __func__};  // finalize() on another thread waits for this call
    rt::Runtime& rt = library_call.runtime();
    const int64_t nb = tile_size(Routine::syrk, precision_letter<T>(), std::max(n, k));
    auto C = TileMatrix<T>::wrap(rt, c, n, n, ldc, nb);
    // A is only read. When it is not referenced (alpha = 0 or k = 0), an empty n x 0 op(A)
    // makes the tile form compute C = beta C on the triangle.
    const T* none = nullptr;
    const auto A = uses_a ? TileMatrix<T>::wrap(rt, a, arows, acols, lda, nb)
                          : TileMatrix<T>::wrap(rt, none, notrans ? n : 0, notrans ? 0 : n,
                                                std::max<int64_t>(1, n), nb);
    if (hermitian)
        herk(uplo, trans, std::real(alpha), A.matrix(), std::real(beta), C);
    else
        syrk(uplo, trans, alpha, A.matrix(), beta, C);
}

}  // namespace

template <Scalar T>
void syrk(Uplo uplo, Op trans, int64_t n, int64_t k, scalar_arg<T> alpha, T const* a, int64_t lda,
          scalar_arg<T> beta, T* c, int64_t ldc)
{
    syrk_or_herk<T>("syrk", false, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
}

template <Scalar T>
void herk(Uplo uplo, Op trans, int64_t n, int64_t k, real_t<T> alpha, T const* a, int64_t lda,
          real_t<T> beta, T* c, int64_t ldc)
{
    syrk_or_herk<T>("herk", true, uplo, trans, n, k, T(alpha), a, lda, T(beta), c, ldc);
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void syrk<T>(Uplo, Op, int64_t, int64_t, T, T const*, int64_t, T, T*, int64_t);       \
    template void herk<T>(Uplo, Op, int64_t, int64_t, real_t<T>, T const*, int64_t, real_t<T>, T*, \
                          int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
