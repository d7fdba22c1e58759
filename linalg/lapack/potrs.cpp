// LAPACK-style potrs: the factor A and the right-hand sides B are tiled in place
// (TileMatrix::wrap: no copy) on the library's runtime and solved by the tile algorithm.
//
// On cores alone, the columns of B are cut into one strip per worker (strips.hpp), and each
// strip is solved by two tasks, one whole triangular solve each (the recursive trsm, most of
// whose flops are tall gemm calls): the tile algorithm's many small steps leave the cores
// waiting on each other.
#include <tessera/la/cholesky.hpp>
#include <tessera/la/context.hpp>

#include "linalg/codelets/blas3.hpp"
#include "linalg/instantiate.hpp"
#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"
#include "linalg/lapack/strips.hpp"

#include <array>
#include <vector>

namespace tessera::inline la {

namespace {
/// A X = B with A = L L^H (L Y = B, then L^H X = Y) or A = U^H U (U^H Y = B, then U X = Y),
/// one strip of `width` columns of B per task pair.
template <Scalar T>
void potrs_in_strips(rt::Runtime& rt, Uplo uplo, int64_t n, int64_t nrhs, T const* a, int64_t lda,
                     T* b, int64_t ldb, int64_t width)
{
    const Op conjtrans = is_complex_v<T> ? Op::conjtrans : Op::trans;
    const Op first = uplo == Uplo::lower ? Op::notrans : conjtrans;
    const Op second = uplo == Uplo::lower ? conjtrans : Op::notrans;
    const rt::ReadOnlyHandle factor(rt, rt::Matrix<T const>{a, n, n, lda});
    std::vector<rt::Handle<rt::Matrix<T>>> strips;
    strips.reserve(std::size_t((nrhs + width - 1) / width));
    for (int64_t j0 = 0; j0 < nrhs; j0 += width)
        strips.emplace_back(rt, rt::Matrix<T>{b + j0 * ldb, n, std::min(width, nrhs - j0), ldb});
    Sequence s{rt};
    const auto call = s.call("potrs");  // one call, not one per task
    for (auto& strip : strips)
        for (Op op : {first, second})
            s.submit(cl::trsm<T>, rt::value(Side::left), rt::value(uplo), rt::value(op),
                     rt::value(Diag::nonunit), rt::value(T(1)), read(factor), readwrite(strip));
    s.wait();
}
}  // namespace

template <Scalar T>
int64_t potrs(Uplo uplo, int64_t n, int64_t nrhs, T const* a, int64_t lda, T* b, int64_t ldb)
{
    constexpr char const* fn = "potrs";
    detail::check_option(uplo == Uplo::lower || uplo == Uplo::upper, fn, 1, "uplo", uplo);
    detail::check_dimension(fn, 2, "n", n);
    detail::check_dimension(fn, 3, "nrhs", nrhs);
    detail::check_array(fn, 4, "A", a, n == 0 || nrhs == 0);
    detail::check_leading(fn, 5, "lda", lda, n);
    detail::check_array(fn, 6, "B", b, n == 0 || nrhs == 0);
    detail::check_leading(fn, 7, "ldb", ldb, n);
    if (n == 0 || nrhs == 0) return 0;
    if (detail::inside_task())
        return detail::run_inline([&] {
            const Op conjtrans = is_complex_v<T> ? Op::conjtrans : Op::trans;
            for (Op op : uplo == Uplo::lower ? std::array{Op::notrans, conjtrans}
                                             : std::array{conjtrans, Op::notrans})
                kernels::cpu::trsm<T>(Side::left, uplo, op, Diag::nonunit, n, nrhs, T(1), a, lda, b,
                                      ldb);
            return int64_t{0};
        });
    const detail::LibraryCall library_call{
        __func__};  // finalize() on another thread waits for this call
    rt::Runtime& rt = library_call.runtime();
    if (const int64_t width = detail::strip_width(rt, nrhs)) {
        potrs_in_strips(rt, uplo, n, nrhs, a, lda, b, ldb, width);
        return 0;
    }
    const int64_t nb = tile_size(Routine::potrs, precision_letter<T>(), n);
    const auto A = TileMatrix<T>::wrap(rt, a, n, n, lda, nb);  // read only
    auto B = TileMatrix<T>::wrap(rt, b, n, nrhs, ldb, nb);
    potrs(uplo, A.matrix(), B);
    return 0;
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template int64_t potrs<T>(Uplo, int64_t, int64_t, T const*, int64_t, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
