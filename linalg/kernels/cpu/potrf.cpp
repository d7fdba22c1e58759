// A recursive Cholesky factorization (Gustavson's recursive formulation, LAPACK's xPOTRF2):
// OpenBLAS's single-threaded potrf calls its own trsm, which runs at half its gemm speed, so the
// matrix is halved until it is small and most of the flops go to the recursive trsm and to
// herk (one core, a 768 tile in double: 53 GFlop/s against 45 for the LAPACKE call). Lower,
// with A = [A11 .; A21 A22]:
//     A11 = L11 L11^H,   L21 = A21 L11^{-H},   A22 = A22 - L21 L21^H = L22 L22^H;
// upper, A = U^H U, is its conjugate transpose. A failure in A22 at its order k is the minor of
// order n1 + k of A.
//
// LAPACK's xPOTRF2 stops at a pivot that is not positive *or is NaN* (ajj <= 0 .or.
// disnan(ajj)); OpenBLAS's potrf tests only ajj <= 0 and goes on with NaN. A NaN pivot at j
// makes L(j,j) = sqrt(ajj) NaN and every later pivot NaN, so the first NaN on the factor's
// diagonal is LAPACK's info; a failure found by OpenBLAS before it comes first.
#include "linalg/kernels/cpu/blas_lapack.hpp"

#include "linalg/instantiate.hpp"

#include <cmath>
#include <complex>

namespace tessera::la::kernels::cpu {

namespace {
/// Below this order the LAPACKE call is as fast as the recursion (measured on a 768 tile:
/// 32, 64 and 128 all give 53-54 GFlop/s).
constexpr int64_t base_order = 64;

/// LAPACK's info for the base case: OpenBLAS's, or the first NaN pivot before it.
template <Scalar T> int64_t potrf_base(Uplo uplo, int64_t n, T* a, int64_t lda)
{
    const int64_t info = potrf_lapack(uplo, n, a, lda);
    const int64_t factored = info > 0 ? info - 1 : n;
    for (int64_t j = 0; j < factored; ++j)
        if (std::isnan(std::real(a[j + j * lda]))) return j + 1;
    return info;
}
}  // namespace

template <Scalar T> int64_t potrf(Uplo uplo, int64_t n, T* a, int64_t lda)
{
    if (n <= base_order) return potrf_base(uplo, n, a, lda);
    const int64_t n1 = (n / 2 + 15) / 16 * 16, n2 = n - n1;
    const Op conjtrans = is_complex_v<T> ? Op::conjtrans : Op::trans;
    using R = real_t<T>;
    if (const int64_t info = potrf(uplo, n1, a, lda); info != 0) return info;
    T* a22 = a + n1 + n1 * lda;
    if (uplo == Uplo::lower) {
        T* a21 = a + n1;
        trsm(Side::right, uplo, conjtrans, Diag::nonunit, n2, n1, T(1), a, lda, a21, lda);
        syrk(uplo, Op::notrans, true, n2, n1, T(R(-1)), a21, lda, T(R(1)), a22, lda);
    } else {
        T* a12 = a + n1 * lda;
        trsm(Side::left, uplo, conjtrans, Diag::nonunit, n1, n2, T(1), a, lda, a12, lda);
        syrk(uplo, conjtrans, true, n2, n1, T(R(-1)), a12, lda, T(R(1)), a22, lda);
    }
    const int64_t info = potrf(uplo, n2, a22, lda);
    return info != 0 ? n1 + info : 0;
}

#define TESSERA_INSTANTIATE(T) template int64_t potrf<T>(Uplo, int64_t, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::la::kernels::cpu
