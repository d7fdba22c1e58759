// The CBLAS symbols of the level-3 BLAS (cblas_dgemm, cblas_zherk ...). OpenBLAS's CBLAS runs
// its own kernels, not the Fortran symbols, so NumPy's matmul (cblas_dgemm from libblas.so.3)
// reached Tessera only through these. A row-major call is the column-major call on the same
// arrays, transposed: a row-major m x n array is the column-major n x m array of its transpose,
// so C = op(A) op(B) is C^T = op(B)^T op(A)^T (operands and dimensions swapped, the same
// op letters); a triangle, a side and syrk's trans flip. A call CBLAS would refuse goes to the
// next library, which reports it as it always does (cblas_xerbla's messages are its own).
#include "linalg/dropin/call.hpp"

#include <tessera/la/blas.hpp>

#include <utility>

using namespace tessera;
using namespace tessera::dropin;

namespace {

// CBLAS's enumerations (cblas.h), passed as int: an enum of these values has int's ABI
enum : int {
    row_major = 101,
    col_major = 102,
    no_trans = 111,
    trans = 112,
    conj_trans = 113,
    upper = 121,
    lower = 122,
    non_unit = 131,
    unit = 132,
    left = 141,
    right = 142,
};

bool is_layout(int l) noexcept
{
    return l == row_major || l == col_major;
}
bool is_op(int t) noexcept
{
    return t == no_trans || t == trans || t == conj_trans;
}
bool is_uplo(int u) noexcept
{
    return u == upper || u == lower;
}
bool is_side(int s) noexcept
{
    return s == left || s == right;
}
bool is_diag(int d) noexcept
{
    return d == unit || d == non_unit;
}
int flipped_uplo(int u) noexcept
{
    return u == upper ? lower : upper;
}
int flipped_side(int s) noexcept
{
    return s == left ? right : left;
}
/// CblasConjTrans is CblasTrans for the real types, as in BLAS.
template <class T> Op op_of(int t) noexcept
{
    return t == no_trans ? Op::notrans : t == trans || !is_complex<T> ? Op::trans : Op::conjtrans;
}

/// A scalar as CBLAS passes it: by value for the real types, by address for the complex ones.
template <class T> T scalar(T x) noexcept
{
    return x;
}
template <class T> T scalar(void const* x) noexcept
{
    return *static_cast<T const*>(x);
}

template <class T, class Forward>
void gemm(Entry& e, Forward&& forward, int layout, int ta, int tb, int m, int n, int k, T alpha,
          T const* a, int lda, T const* b, int ldb, T beta, T* c, int ldc)
{
    if (!is_layout(layout) || !is_op(ta) || !is_op(tb) || m < 0 || n < 0 || k < 0) return forward();
    if (layout == row_major) {  // C^T = op(B)^T op(A)^T
        std::swap(ta, tb);
        std::swap(m, n);
        std::swap(a, b);
        std::swap(lda, ldb);
    }
    const int rows_a = ta == no_trans ? m : k, rows_b = tb == no_trans ? k : n;
    if (lda < max1(rows_a) || ldb < max1(rows_b) || ldc < max1(m)) return forward();
    Serving s = e.serve(m, n, k);
    if (!s) return forward();
    run(
        e, 0,
        [&] {
            la::gemm<T>(op_of<T>(ta), op_of<T>(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        },
        forward);
}

/// symm and hemm: row-major, C^T = B^T A^T with A^T the stored array's other triangle (for a
/// Hermitian A, A^T = conj(A) is Hermitian too).
template <class T, class Forward>
void symm(Entry& e, Forward&& forward, bool hermitian, int layout, int side, int uplo, int m, int n,
          T alpha, T const* a, int lda, T const* b, int ldb, T beta, T* c, int ldc)
{
    if (!is_layout(layout) || !is_side(side) || !is_uplo(uplo) || m < 0 || n < 0) return forward();
    if (layout == row_major) {
        side = flipped_side(side);
        uplo = flipped_uplo(uplo);
        std::swap(m, n);
    }
    const int rows_a = side == left ? m : n;
    if (lda < max1(rows_a) || ldb < max1(m) || ldc < max1(m)) return forward();
    Serving s = e.serve(m, n, rows_a);
    if (!s) return forward();
    const Side sd = side == left ? Side::left : Side::right;
    const Uplo ul = uplo == upper ? Uplo::upper : Uplo::lower;
    run(
        e, 0,
        [&] {
            if (hermitian)
                la::hemm<T>(sd, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
            else
                la::symm<T>(sd, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
        },
        forward);
}

/// syrk (real: N, T, C; complex: N, T) and herk (N, C). Row-major, the stored A is A^T and
/// C's triangle flips: C = A A^T is X^T X for X = A^T (syrk), and the stored C^T = conj(C) is
/// X^H X (herk); the other trans the same way back.
template <class T, class S, class Forward>
void syrk(Entry& e, Forward&& forward, bool hermitian, int layout, int uplo, int tr, int n, int k,
          S alpha, T const* a, int lda, S beta, T* c, int ldc)
{
    const bool trans_ok =
        tr == no_trans ||
        (hermitian ? tr == conj_trans : tr == trans || (!is_complex<T> && tr == conj_trans));
    if (!is_layout(layout) || !is_uplo(uplo) || !trans_ok || n < 0 || k < 0) return forward();
    if (layout == row_major) {
        uplo = flipped_uplo(uplo);
        tr = tr != no_trans ? no_trans : hermitian ? conj_trans : trans;
    }
    const int rows_a = tr == no_trans ? n : k;
    if (lda < max1(rows_a) || ldc < max1(n)) return forward();
    Serving s = e.serve(n, n, k);
    if (!s) return forward();
    const Uplo ul = uplo == upper ? Uplo::upper : Uplo::lower;
    run(
        e, 0,
        [&] {
            if constexpr (is_complex<T> && !std::is_same_v<S, T>)
                la::herk<T>(ul, tr == no_trans ? Op::notrans : Op::conjtrans, n, k, alpha, a, lda,
                            beta, c, ldc);
            else
                la::syrk<T>(ul, op_of<T>(tr), n, k, alpha, a, lda, beta, c, ldc);
        },
        forward);
}

/// trsm (solve) and trmm. Row-major, op(A) X = alpha B is X^T op(A)^T = alpha B^T: the side and
/// A's triangle flip, op stays (op(A)^T is the same op of the stored A^T).
template <class T, class Forward>
void trsm(Entry& e, Forward&& forward, bool solve, int layout, int side, int uplo, int ta, int diag,
          int m, int n, T alpha, T const* a, int lda, T* b, int ldb)
{
    if (!is_layout(layout) || !is_side(side) || !is_uplo(uplo) || !is_op(ta) || !is_diag(diag) ||
        m < 0 || n < 0)
        return forward();
    if (layout == row_major) {
        side = flipped_side(side);
        uplo = flipped_uplo(uplo);
        std::swap(m, n);
    }
    const int rows_a = side == left ? m : n;
    if (lda < max1(rows_a) || ldb < max1(m)) return forward();
    Serving s = e.serve(m, n, rows_a);
    if (!s) return forward();
    const Side sd = side == left ? Side::left : Side::right;
    const Uplo ul = uplo == upper ? Uplo::upper : Uplo::lower;
    const Diag dg = diag == unit ? Diag::unit : Diag::nonunit;
    run(
        e, 0,
        [&] {
            if (solve)
                la::trsm<T>(sd, ul, op_of<T>(ta), dg, m, n, alpha, a, lda, b, ldb);
            else
                la::trmm<T>(sd, ul, op_of<T>(ta), dg, m, n, alpha, a, lda, b, ldb);
        },
        forward);
}

}  // namespace

// S: how CBLAS passes a scalar of T (T for the real types, void const* for the complex ones);
// P, CP: its pointers to T's arrays (void* for the complex ones).
#define TESSERA_CBLAS_GEMM(p, T, S, P, CP)                                                         \
    TESSERA_DROPIN_SYMBOL_OF(cblas_##p##gemm, #p[0], gemm,                                         \
                             (int layout, int ta, int tb, int m, int n, int k, S alpha, CP a,      \
                              int lda, CP b, int ldb, S beta, P c, int ldc),                       \
                             (layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc),       \
                             (m, n, k),                                                            \
                             (gemm<T>(entry, forward, layout, ta, tb, m, n, k, scalar<T>(alpha),   \
                                      static_cast<T const*>(a), lda, static_cast<T const*>(b),     \
                                      ldb, scalar<T>(beta), static_cast<T*>(c), ldc)))
TESSERA_CBLAS_GEMM(s, float, float, float*, float const*)
TESSERA_CBLAS_GEMM(d, double, double, double*, double const*)
TESSERA_CBLAS_GEMM(c, cfloat, void const*, void*, void const*)
TESSERA_CBLAS_GEMM(z, cdouble, void const*, void*, void const*)

#define TESSERA_CBLAS_SYMM(p, name, hermitian, T, S, P, CP)                                        \
    TESSERA_DROPIN_SYMBOL_OF(                                                                      \
        cblas_##p##name, #p[0], symm,                                                              \
        (int layout, int side, int uplo, int m, int n, S alpha, CP a, int lda, CP b, int ldb,      \
         S beta, P c, int ldc),                                                                    \
        (layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc),                           \
        (m, n, side == left ? m : n),                                                              \
        (symm<T>(entry, forward, hermitian, layout, side, uplo, m, n, scalar<T>(alpha),            \
                 static_cast<T const*>(a), lda, static_cast<T const*>(b), ldb, scalar<T>(beta),    \
                 static_cast<T*>(c), ldc)))
TESSERA_CBLAS_SYMM(s, symm, false, float, float, float*, float const*)
TESSERA_CBLAS_SYMM(d, symm, false, double, double, double*, double const*)
TESSERA_CBLAS_SYMM(c, symm, false, cfloat, void const*, void*, void const*)
TESSERA_CBLAS_SYMM(z, symm, false, cdouble, void const*, void*, void const*)
TESSERA_CBLAS_SYMM(c, hemm, true, cfloat, void const*, void*, void const*)
TESSERA_CBLAS_SYMM(z, hemm, true, cdouble, void const*, void*, void const*)

// S: syrk's alpha and beta as CBLAS passes them; R: as the routine takes them (herk: real)
#define TESSERA_CBLAS_SYRK(p, name, hermitian, T, S, R, P, CP)                                     \
    TESSERA_DROPIN_SYMBOL_OF(                                                                      \
        cblas_##p##name, #p[0], syrk,                                                              \
        (int layout, int uplo, int tr, int n, int k, S alpha, CP a, int lda, S beta, P c,          \
         int ldc),                                                                                 \
        (layout, uplo, tr, n, k, alpha, a, lda, beta, c, ldc), (n, n, k),                          \
        (syrk<T, R>(entry, forward, hermitian, layout, uplo, tr, n, k, scalar<R>(alpha),           \
                    static_cast<T const*>(a), lda, scalar<R>(beta), static_cast<T*>(c), ldc)))
TESSERA_CBLAS_SYRK(s, syrk, false, float, float, float, float*, float const*)
TESSERA_CBLAS_SYRK(d, syrk, false, double, double, double, double*, double const*)
TESSERA_CBLAS_SYRK(c, syrk, false, cfloat, void const*, cfloat, void*, void const*)
TESSERA_CBLAS_SYRK(z, syrk, false, cdouble, void const*, cdouble, void*, void const*)
TESSERA_CBLAS_SYRK(c, herk, true, cfloat, float, float, void*, void const*)
TESSERA_CBLAS_SYRK(z, herk, true, cdouble, double, double, void*, void const*)

#define TESSERA_CBLAS_TRSM(p, name, solve, T, S, P, CP)                                            \
    TESSERA_DROPIN_SYMBOL_OF(                                                                      \
        cblas_##p##name, #p[0], name,                                                              \
        (int layout, int side, int uplo, int ta, int diag, int m, int n, S alpha, CP a, int lda,   \
         P b, int ldb),                                                                            \
        (layout, side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb), (m, n, side == left ? m : n), \
        (trsm<T>(entry, forward, solve, layout, side, uplo, ta, diag, m, n, scalar<T>(alpha),      \
                 static_cast<T const*>(a), lda, static_cast<T*>(b), ldb)))
TESSERA_CBLAS_TRSM(s, trsm, true, float, float, float*, float const*)
TESSERA_CBLAS_TRSM(d, trsm, true, double, double, double*, double const*)
TESSERA_CBLAS_TRSM(c, trsm, true, cfloat, void const*, void*, void const*)
TESSERA_CBLAS_TRSM(z, trsm, true, cdouble, void const*, void*, void const*)
TESSERA_CBLAS_TRSM(s, trmm, false, float, float, float*, float const*)
TESSERA_CBLAS_TRSM(d, trmm, false, double, double, double*, double const*)
TESSERA_CBLAS_TRSM(c, trmm, false, cfloat, void const*, void*, void const*)
TESSERA_CBLAS_TRSM(z, trmm, false, cdouble, void const*, void*, void const*)
