// The independent oracle of the tests: CBLAS and LAPACKE called directly, in the four
// precisions, never through the library's own kernel layer (linalg/kernels), so that a wrong
// mapping there (a swapped transpose, a lost conjugate, a wrong precision letter) cannot pass
// its own tests. The signatures follow BLAS's and LAPACK's argument order, with the library's
// enums, whose values are LAPACK's letters.
//
//     namespace blas = tessera::test::oracle;
//     blas::gemm<T>(Op::notrans, Op::conjtrans, n, n, n, T(1), L.data(), L.ld, L.data(), L.ld, T(0), C.data(), C.ld);
//     EXPECT_EQ(tessera::potrf(uplo, A), blas::potrf<T>(uplo, n, ref.data(), ref.ld));
#pragma once

#include <tessera/la/enums.hpp>
#include <tessera/la/scalar.hpp>

#include <complex>
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <cblas.h>
#include <lapacke.h>

#include <cstdint>
#include <type_traits>

namespace tessera::test::oracle {

using tessera::Diag;
using tessera::Op;
using tessera::Side;
using tessera::Uplo;
using tessera::la::is_complex_v;
using tessera::la::real_t;
using tessera::la::Scalar;

/// The one of the four functions s, d, c, z for precision T.
template <Scalar T, class S, class D, class C, class Z>
constexpr auto pick(S s, D d, C c, Z z) noexcept
{
    if constexpr (std::is_same_v<T, float>)
        return s;
    else if constexpr (std::is_same_v<T, double>)
        return d;
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return c;
    else
        return z;
}
/// A scalar argument as CBLAS takes it: by value when real, by address when complex.
template <Scalar T> auto scalar(T const& x) noexcept
{
    if constexpr (is_complex_v<T>)
        return static_cast<void const*>(&x);
    else
        return x;
}

// CBLAS's enums, from the letters the library's enums hold.
inline CBLAS_TRANSPOSE cblas_op(Op o) noexcept
{
    return char(o) == 'N' ? CblasNoTrans : char(o) == 'T' ? CblasTrans : CblasConjTrans;
}
inline CBLAS_UPLO cblas_uplo(Uplo u) noexcept
{
    return char(u) == 'U' ? CblasUpper : CblasLower;
}
inline CBLAS_SIDE cblas_side(Side s) noexcept
{
    return char(s) == 'L' ? CblasLeft : CblasRight;
}
inline CBLAS_DIAG cblas_diag(Diag d) noexcept
{
    return char(d) == 'U' ? CblasUnit : CblasNonUnit;
}
constexpr auto col = CblasColMajor;

/// C = alpha op(A) op(B) + beta C.
template <Scalar T>
void gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha, T const* a, int64_t lda,
          T const* b, int64_t ldb, T beta, T* c, int64_t ldc)
{
    pick<T>(cblas_sgemm, cblas_dgemm, cblas_cgemm,
            cblas_zgemm)(col, cblas_op(ta), cblas_op(tb), int(m), int(n), int(k), scalar(alpha), a,
                         int(lda), b, int(ldb), scalar(beta), c, int(ldc));
}

/// C = alpha A B + beta C or alpha B A + beta C, A symmetric (hermitian: hemm, complex only).
template <Scalar T>
void symm(Side side, Uplo uplo, bool hermitian, int64_t m, int64_t n, T alpha, T const* a,
          int64_t lda, T const* b, int64_t ldb, T beta, T* c, int64_t ldc)
{
    auto f = pick<T>(cblas_ssymm, cblas_dsymm, hermitian ? cblas_chemm : cblas_csymm,
                     hermitian ? cblas_zhemm : cblas_zsymm);
    f(col, cblas_side(side), cblas_uplo(uplo), int(m), int(n), scalar(alpha), a, int(lda), b,
      int(ldb), scalar(beta), c, int(ldc));
}

/// C = alpha op(A) op(A)^T + beta C (syrk), or with ^H and real alpha, beta (herk).
template <Scalar T>
void syrk(Uplo uplo, Op trans, bool hermitian, int64_t n, int64_t k, T alpha, T const* a,
          int64_t lda, T beta, T* c, int64_t ldc)
{
    // real precisions: T and C both mean A^T A
    const CBLAS_TRANSPOSE t = trans == Op::notrans           ? CblasNoTrans
                              : is_complex_v<T> && hermitian ? CblasConjTrans
                                                             : CblasTrans;
    if constexpr (is_complex_v<T>) {
        if (hermitian) {
            pick<T>(nullptr, nullptr, cblas_cherk,
                    cblas_zherk)(col, cblas_uplo(uplo), t, int(n), int(k), std::real(alpha), a,
                                 int(lda), std::real(beta), c, int(ldc));
            return;
        }
    }
    pick<T>(cblas_ssyrk, cblas_dsyrk, cblas_csyrk, cblas_zsyrk)(col, cblas_uplo(uplo), t, int(n),
                                                                int(k), scalar(alpha), a, int(lda),
                                                                scalar(beta), c, int(ldc));
}

/// B = alpha op(A)^{-1} B or alpha B op(A)^{-1}.
template <Scalar T>
void trsm(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T alpha, T const* a,
          int64_t lda, T* b, int64_t ldb)
{
    pick<T>(cblas_strsm, cblas_dtrsm, cblas_ctrsm,
            cblas_ztrsm)(col, cblas_side(side), cblas_uplo(uplo), cblas_op(trans), cblas_diag(diag),
                         int(m), int(n), scalar(alpha), a, int(lda), b, int(ldb));
}

/// B = alpha op(A) B or alpha B op(A).
template <Scalar T>
void trmm(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T alpha, T const* a,
          int64_t lda, T* b, int64_t ldb)
{
    pick<T>(cblas_strmm, cblas_dtrmm, cblas_ctrmm,
            cblas_ztrmm)(col, cblas_side(side), cblas_uplo(uplo), cblas_op(trans), cblas_diag(diag),
                         int(m), int(n), scalar(alpha), a, int(lda), b, int(ldb));
}

/// LAPACK's potrf: the Cholesky factor in place; info.
template <Scalar T> int64_t potrf(Uplo uplo, int64_t n, T* a, int64_t lda)
{
    return pick<T>(LAPACKE_spotrf, LAPACKE_dpotrf, LAPACKE_cpotrf,
                   LAPACKE_zpotrf)(LAPACK_COL_MAJOR, char(uplo), int(n), a, int(lda));
}
/// LAPACK's posv; info.
template <Scalar T>
int64_t posv(Uplo uplo, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb)
{
    return pick<T>(LAPACKE_sposv, LAPACKE_dposv, LAPACKE_cposv, LAPACKE_zposv)(
        LAPACK_COL_MAJOR, char(uplo), int(n), int(nrhs), a, int(lda), b, int(ldb));
}
/// LAPACK's potri (from the factor); info.
template <Scalar T> int64_t potri(Uplo uplo, int64_t n, T* a, int64_t lda)
{
    return pick<T>(LAPACKE_spotri, LAPACKE_dpotri, LAPACKE_cpotri,
                   LAPACKE_zpotri)(LAPACK_COL_MAJOR, char(uplo), int(n), a, int(lda));
}
/// LAPACK's trtri: the inverse of a triangular matrix in place; info.
template <Scalar T> int64_t trtri(Uplo uplo, Diag diag, int64_t n, T* a, int64_t lda)
{
    return pick<T>(LAPACKE_strtri, LAPACKE_dtrtri, LAPACKE_ctrtri,
                   LAPACKE_ztrtri)(LAPACK_COL_MAJOR, char(uplo), char(diag), int(n), a, int(lda));
}
/// LAPACK's lauum: U U^H or L^H L in place.
template <Scalar T> void lauum(Uplo uplo, int64_t n, T* a, int64_t lda)
{
    pick<T>(LAPACKE_slauum, LAPACKE_dlauum, LAPACKE_clauum,
            LAPACKE_zlauum)(LAPACK_COL_MAJOR, char(uplo), int(n), a, int(lda));
}

/// LAPACK's getrf: P L U in place, ipiv (min(m, n) entries, from 1); info.
template <Scalar T> int64_t getrf(int64_t m, int64_t n, T* a, int64_t lda, lapack_int* ipiv)
{
    return pick<T>(LAPACKE_sgetrf, LAPACKE_dgetrf, LAPACKE_cgetrf,
                   LAPACKE_zgetrf)(LAPACK_COL_MAJOR, int(m), int(n), a, int(lda), ipiv);
}
/// LAPACK's laswp: the interchanges ipiv[k1-1 .. k2-1] (rows from 1) applied to the n columns
/// of a, forward (incx = 1) or backward (incx = -1).
template <Scalar T>
void laswp(int64_t n, T* a, int64_t lda, int64_t k1, int64_t k2, lapack_int const* ipiv, int incx)
{
    pick<T>(LAPACKE_slaswp, LAPACKE_dlaswp, LAPACKE_claswp,
            LAPACKE_zlaswp)(LAPACK_COL_MAJOR, int(n), a, int(lda), int(k1), int(k2), ipiv, incx);
}
/// LAPACK's getrs with getrf's factors; info.
template <Scalar T>
int64_t getrs(Op trans, int64_t n, int64_t nrhs, T const* a, int64_t lda, lapack_int const* ipiv,
              T* b, int64_t ldb)
{
    return pick<T>(LAPACKE_sgetrs, LAPACKE_dgetrs, LAPACKE_cgetrs, LAPACKE_zgetrs)(
        LAPACK_COL_MAJOR, char(trans), int(n), int(nrhs), a, int(lda), ipiv, b, int(ldb));
}
/// LAPACK's gesv; info.
template <Scalar T>
int64_t gesv(int64_t n, int64_t nrhs, T* a, int64_t lda, lapack_int* ipiv, T* b, int64_t ldb)
{
    return pick<T>(LAPACKE_sgesv, LAPACKE_dgesv, LAPACKE_cgesv, LAPACKE_zgesv)(
        LAPACK_COL_MAJOR, int(n), int(nrhs), a, int(lda), ipiv, b, int(ldb));
}

/// LAPACK's geqrf: R and the reflectors in compact form, min(m, n) taus.
template <Scalar T> int64_t geqrf(int64_t m, int64_t n, T* a, int64_t lda, T* tau)
{
    return pick<T>(LAPACKE_sgeqrf, LAPACKE_dgeqrf, LAPACKE_cgeqrf,
                   LAPACKE_zgeqrf)(LAPACK_COL_MAJOR, int(m), int(n), a, int(lda), tau);
}
/// LAPACK's ormqr (real) or unmqr (complex): C = op(Q) C or C op(Q); Q^H is 'T' for the real
/// types and 'C' for the complex ones, whichever of Op::trans and Op::conjtrans names it.
template <Scalar T>
int64_t unmqr(Side side, Op op, int64_t m, int64_t n, int64_t k, T const* a, int64_t lda,
              T const* tau, T* c, int64_t ldc)
{
    const char trans = op == Op::notrans ? 'N' : is_complex_v<T> ? 'C' : 'T';
    return pick<T>(LAPACKE_sormqr, LAPACKE_dormqr, LAPACKE_cunmqr, LAPACKE_zunmqr)(
        LAPACK_COL_MAJOR, char(side), trans, int(m), int(n), int(k), a, int(lda), tau, c, int(ldc));
}
/// LAPACK's orgqr (real) or ungqr (complex): the first n columns of Q in place.
template <Scalar T> int64_t ungqr(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, T const* tau)
{
    return pick<T>(LAPACKE_sorgqr, LAPACKE_dorgqr, LAPACKE_cungqr,
                   LAPACKE_zungqr)(LAPACK_COL_MAJOR, int(m), int(n), int(k), a, int(lda), tau);
}

/// LAPACK's gelqf.
template <Scalar T> int64_t gelqf(int64_t m, int64_t n, T* a, int64_t lda, T* tau)
{
    return pick<T>(LAPACKE_sgelqf, LAPACKE_dgelqf, LAPACKE_cgelqf,
                   LAPACKE_zgelqf)(LAPACK_COL_MAJOR, int(m), int(n), a, int(lda), tau);
}
/// LAPACK's ormlq (real) or unmlq (complex), trans as in unmqr.
template <Scalar T>
int64_t unmlq(Side side, Op op, int64_t m, int64_t n, int64_t k, T const* a, int64_t lda,
              T const* tau, T* c, int64_t ldc)
{
    const char trans = op == Op::notrans ? 'N' : is_complex_v<T> ? 'C' : 'T';
    return pick<T>(LAPACKE_sormlq, LAPACKE_dormlq, LAPACKE_cunmlq, LAPACKE_zunmlq)(
        LAPACK_COL_MAJOR, char(side), trans, int(m), int(n), int(k), a, int(lda), tau, c, int(ldc));
}
/// LAPACK's orglq (real) or unglq (complex): the first m rows of Q in place.
template <Scalar T> int64_t unglq(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, T const* tau)
{
    return pick<T>(LAPACKE_sorglq, LAPACKE_dorglq, LAPACKE_cunglq,
                   LAPACKE_zunglq)(LAPACK_COL_MAJOR, int(m), int(n), int(k), a, int(lda), tau);
}
/// LAPACK's gels; its info. trans as in unmqr.
template <Scalar T>
int64_t gels(Op op, int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb)
{
    const char trans = op == Op::notrans ? 'N' : is_complex_v<T> ? 'C' : 'T';
    return pick<T>(LAPACKE_sgels, LAPACKE_dgels, LAPACKE_cgels, LAPACKE_zgels)(
        LAPACK_COL_MAJOR, trans, int(m), int(n), int(nrhs), a, int(lda), b, int(ldb));
}

}  // namespace tessera::test::oracle
