// LAPACK-style getri: U's diagonal is checked first (an exact zero returns its index with A
// untouched, as LAPACK's getri, whose trtri checks before it computes); then A is tiled in
// place, ipiv copied into registered pieces, and the tile inverse runs on the library's
// runtime. Inside a task, the same steps run inline on the whole array.
#include <tessera/la/context.hpp>
#include <tessera/la/lu.hpp>

#include "linalg/instantiate.hpp"
#include "linalg/kernels/cpu/blas_lapack.hpp"
#include "linalg/kernels/cpu/tile_column_lu.hpp"
#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"

#include <vector>

namespace tessera::inline la {

namespace {
/// getri on the calling thread: inv(U) in place, L moved out, A inv(L), columns swapped.
template <Scalar T> void getri_inline(int64_t n, T* a, int64_t lda, int64_t const* ipiv)
{
    (void)kernels::cpu::trtri<T>(Uplo::upper, Diag::nonunit, n, a,
                                 lda);  // U's diagonal was checked
    std::vector<T> l(static_cast<std::size_t>(n * n), T(0));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j + 1; i < n; ++i) {
            l[std::size_t(i + j * n)] = a[i + j * lda];
            a[i + j * lda] = T(0);
        }
    kernels::cpu::trsm<T>(Side::right, Uplo::lower, Op::notrans, Diag::unit, n, n, T(1), l.data(),
                          n, a, lda);
    const kernels::cpu::RowTile<T> whole{a, n, lda};
    kernels::cpu::apply_column_swaps<T>(std::span(&whole, 1), n, n, ipiv, n, 0,
                                        kernels::cpu::SwapOrder::backward);
}
}  // namespace

template <Scalar T> int64_t getri(int64_t n, T* a, int64_t lda, int64_t const* ipiv)
{
    constexpr char const* fn = "getri";
    detail::check_dimension(fn, 1, "n", n);
    detail::check_array(fn, 2, "A", a, n == 0);
    detail::check_leading(fn, 3, "lda", lda, n);
    detail::check_array(fn, 4, "ipiv", ipiv, n == 0);
    for (int64_t k = 0; k < n; ++k)
        if (a[k + k * lda] == T(0)) return k + 1;
    if (n == 0) return 0;
    if (detail::inside_task()) {
        detail::run_inline([&] { getri_inline(n, a, lda, ipiv); });
        return 0;
    }
    const detail::LibraryCall library_call{__func__};
    rt::Runtime& rt = library_call.runtime();
    const int64_t nb = tile_size(Routine::getri, precision_letter<T>(), n);
    auto A = TileMatrix<T>::wrap(rt, a, n, n, lda, nb);
    const auto P = Pivots::copy_of(rt, ipiv, n, nb);
    return getri(A, P);
}

#define TESSERA_INSTANTIATE(T) template int64_t getri<T>(int64_t, T*, int64_t, int64_t const*);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
