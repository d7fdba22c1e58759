// LAPACK-style getrs: A (read only) and B are tiled in place, ipiv copied into registered
// pieces (n entries: nothing next to the O(n^2 nrhs) solve), and the tile solve runs on the
// library's runtime; on cores alone with many right-hand sides, by strips of B instead
// (lu_strips.hpp). Inside a task, the interchanges and the two triangular solves run inline.
#include <tessera/la/context.hpp>
#include <tessera/la/lu.hpp>

#include "linalg/instantiate.hpp"
#include "linalg/kernels/cpu/blas_lapack.hpp"
#include "linalg/kernels/cpu/tile_column_lu.hpp"
#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"
#include "linalg/lapack/lu_strips.hpp"
#include "linalg/lapack/strips.hpp"

namespace tessera::inline la {

namespace detail {
/// getrs on the calling thread: B = U^{-1} L^{-1} P^T B, or P L^{-op} U^{-op} B.
template <Scalar T>
void getrs_inline(Op trans, int64_t n, int64_t nrhs, T const* a, int64_t lda, int64_t const* ipiv,
                  T* b, int64_t ldb)
{
    using kernels::cpu::SwapOrder;
    const kernels::cpu::ColumnTile<T> whole{b, n, ldb};
    auto swaps = [&](SwapOrder order) {
        kernels::cpu::apply_row_swaps<T>(std::span(&whole, 1), n, nrhs, ipiv, n, 0, 0, order);
    };
    if (trans == Op::notrans) {
        swaps(SwapOrder::forward);
        kernels::cpu::trsm<T>(Side::left, Uplo::lower, Op::notrans, Diag::unit, n, nrhs, T(1), a,
                              lda, b, ldb);
        kernels::cpu::trsm<T>(Side::left, Uplo::upper, Op::notrans, Diag::nonunit, n, nrhs, T(1), a,
                              lda, b, ldb);
    } else {
        kernels::cpu::trsm<T>(Side::left, Uplo::upper, trans, Diag::nonunit, n, nrhs, T(1), a, lda,
                              b, ldb);
        kernels::cpu::trsm<T>(Side::left, Uplo::lower, trans, Diag::unit, n, nrhs, T(1), a, lda, b,
                              ldb);
        swaps(SwapOrder::backward);
    }
}
}  // namespace detail

template <Scalar T>
int64_t getrs(Op trans, int64_t n, int64_t nrhs, T const* a, int64_t lda, int64_t const* ipiv, T* b,
              int64_t ldb)
{
    constexpr char const* fn = "getrs";
    detail::check_option(detail::is_operation(trans), fn, 1, "trans", trans);
    detail::check_dimension(fn, 2, "n", n);
    detail::check_dimension(fn, 3, "nrhs", nrhs);
    detail::check_array(fn, 4, "A", a, n == 0);
    detail::check_leading(fn, 5, "lda", lda, n);
    detail::check_array(fn, 6, "ipiv", ipiv, n == 0);
    detail::check_array(fn, 7, "B", b, n == 0 || nrhs == 0);
    detail::check_leading(fn, 8, "ldb", ldb, n);
    if (n == 0 || nrhs == 0) return 0;
    if (detail::inside_task()) {
        detail::run_inline([&] { detail::getrs_inline(trans, n, nrhs, a, lda, ipiv, b, ldb); });
        return 0;
    }
    const detail::LibraryCall library_call{__func__};
    rt::Runtime& rt = library_call.runtime();
    if (const int64_t width = detail::strip_width(rt, nrhs)) {
        detail::lu_solve_in_strips(rt, detail::LuSolvePart::whole, trans, n, nrhs, a, lda, ipiv, b,
                                   ldb, width);
        return 0;
    }
    const int64_t nb = tile_size(Routine::getrs, precision_letter<T>(), n);
    auto A = TileMatrix<T>::wrap(rt, a, n, n, lda, nb);
    auto B = TileMatrix<T>::wrap(rt, b, n, nrhs, ldb, nb);
    const auto P = Pivots::copy_of(rt, ipiv, n, nb);
    getrs(trans, A.matrix(), P, B);
    return 0;
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void detail::getrs_inline<T>(Op, int64_t, int64_t, T const*, int64_t, int64_t const*, \
                                          T*, int64_t);                                            \
    template int64_t getrs<T>(Op, int64_t, int64_t, T const*, int64_t, int64_t const*, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
