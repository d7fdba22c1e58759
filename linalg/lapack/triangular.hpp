// The LAPACK-style trmm and trsm (trmm.cpp, trsm.cpp): the same arguments, BLAS's checks of
// them with their positions, and the same way to the tile form. Internal.
#pragma once

#include <tessera/la/blas.hpp>
#include <tessera/la/context.hpp>

#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"

#include <algorithm>

namespace tessera::la::detail {

/// BLAS's checks of trmm's and trsm's arguments, numbered as BLAS does (side 1, uplo 2,
/// transa 3, diag 4, m 5, n 6, alpha 7, A 8, lda 9, B 10, ldb 11). A may be null where it is
/// not referenced (`uses_a` false), B where it is empty.
inline void check_triangular_arguments(char const* fn, Side side, Uplo uplo, Op transa, Diag diag,
                                       int64_t m, int64_t n, bool uses_a, void const* a,
                                       int64_t lda, void const* b, int64_t ldb)
{
    check_option(side == Side::left || side == Side::right, fn, 1, "side", side);
    check_option(uplo == Uplo::lower || uplo == Uplo::upper, fn, 2, "uplo", uplo);
    check_option(is_operation(transa), fn, 3, "transa", transa);
    check_option(diag == Diag::nonunit || diag == Diag::unit, fn, 4, "diag", diag);
    check_dimension(fn, 5, "m", m);
    check_dimension(fn, 6, "n", n);
    check_array(fn, 8, "A", a, !uses_a);
    check_leading(fn, 9, "lda", lda,
                  side == Side::left ? m : n);  // A is of order m (left) or n (right)
    check_array(fn, 10, "B", b, m == 0 || n == 0);
    check_leading(fn, 11, "ldb", ldb, m);
}

/// The LAPACK-style form of trmm or trsm (`fn`, whose tile size `routine` picks): checks the
/// arguments, then calls tile_form(A, B) with A and B tiled in place on the library's runtime,
/// or, inside a task, kernel(a, b) on the arrays (inside_task). With alpha = 0, B = 0 and A is
/// not referenced (BLAS).
template <Scalar T, class TileForm, class Kernel>
void triangular_in_place(char const* fn, Routine routine, Side side, Uplo uplo, Op transa,
                         Diag diag, int64_t m, int64_t n, T alpha, T const* a, int64_t lda, T* b,
                         int64_t ldb, TileForm&& tile_form, Kernel&& kernel)
{
    const bool uses_a = alpha != T(0) && m > 0 && n > 0;
    check_triangular_arguments(fn, side, uplo, transa, diag, m, n, uses_a, a, lda, b, ldb);
    if (m == 0 || n == 0) return;
    if (inside_task()) {
        run_inline([&] {
            if (uses_a)
                kernel();
            else
                for (int64_t j = 0; j < n; ++j) std::fill_n(b + j * ldb, m, T(0));
        });
        return;
    }
    const detail::LibraryCall library_call{fn};  // finalize() on another thread waits for this call
    rt::Runtime& rt = library_call.runtime();
    const int64_t nb = tile_size(routine, precision_letter<T>(), std::max(m, n));
    auto B = TileMatrix<T>::wrap(rt, b, m, n, ldb, nb);
    if (!uses_a) {  // B = 0: A is not referenced
        scale(T(0), B);
        return;
    }
    const int64_t ka = side == Side::left ? m : n;               // the order of A
    const auto A = TileMatrix<T>::wrap(rt, a, ka, ka, lda, nb);  // read only
    tile_form(A.matrix(), B);
}

}  // namespace tessera::la::detail
