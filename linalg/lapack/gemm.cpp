// LAPACK-style gemm: A, B and C tiled in place on the library's runtime.
#include <tessera/la/blas.hpp>
#include <tessera/la/context.hpp>

#include "linalg/instantiate.hpp"
#include "linalg/lapack/arguments.hpp"

namespace tessera::inline la {

template <Scalar T>
void gemm(Op transa, Op transb, int64_t m, int64_t n, int64_t k, scalar_arg<T> alpha, T const* a, int64_t lda,
          T const* b, int64_t ldb, scalar_arg<T> beta, T* c, int64_t ldc)
{
    constexpr char const* fn = "gemm";
    auto valid = [](Op o) { return o == Op::notrans || o == Op::trans || o == Op::conjtrans; };
    detail::check_option(valid(transa), fn, 1, "transa", transa);
    detail::check_option(valid(transb), fn, 2, "transb", transb);
    detail::check_dimension(fn, 3, "m", m);
    detail::check_dimension(fn, 4, "n", n);
    detail::check_dimension(fn, 5, "k", k);
    const bool ta = transa != Op::notrans, tb = transb != Op::notrans;
    const int64_t arows = ta ? k : m, acols = ta ? m : k, brows = tb ? n : k, bcols = tb ? k : n;
    const bool uses_ab = k > 0 && alpha != T(0) && m > 0 && n > 0;
    detail::check_array(fn, 7, "A", a, !uses_ab);
    detail::check_leading(fn, 8, "lda", lda, arows);
    detail::check_array(fn, 9, "B", b, !uses_ab);
    detail::check_leading(fn, 10, "ldb", ldb, brows);
    detail::check_array(fn, 12, "C", c, m == 0 || n == 0);
    detail::check_leading(fn, 13, "ldc", ldc, m);
    if (m == 0 || n == 0) return;
    rt::Runtime& rt = runtime();
    const int64_t nb = tile_size(Routine::gemm, precision_letter<T>(), std::max({m, n, k}));
    auto C = TileMatrix<T>::wrap(rt, c, m, n, ldc, nb);
    if (!uses_ab) {  // C = beta C: A and B are not referenced
        if (beta != T(1)) scale(beta, C);
        return;
    }
    // A and B are only read: casting const away for the registration is safe.
    auto A = TileMatrix<T>::wrap(rt, const_cast<T*>(a), arows, acols, lda, nb);
    auto B = TileMatrix<T>::wrap(rt, const_cast<T*>(b), brows, bcols, ldb, nb);
    gemm(transa, transb, alpha, A, B, beta, C);
}

#define TESSERA_INSTANTIATE(T) \
    template void gemm<T>(Op, Op, int64_t, int64_t, int64_t, T, T const*, int64_t, T const*, int64_t, T, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::la
