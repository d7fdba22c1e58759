// The level-3 BLAS symbols: gemm, symm, hemm, syrk, herk, trsm, trmm in their precisions,
// with the reference BLAS's argument checks (xerbla_ positions as in BLAS).
#include "linalg/dropin/call.hpp"

#include <tessera/la/blas.hpp>

#include <complex>

using namespace tessera;
using namespace tessera::dropin;
using std::size_t;

namespace {

template <class T, class Forward>
void gemm(Entry& e, Forward&& forward, char const* ta, char const* tb, int m, int n, int k, T alpha,
          T const* a, int lda, T const* b, int ldb, T beta, T* c, int ldc)
{
    Serving s = e.serve(m, n, k);
    if (!s) return forward();
    const int nrowa = lsame(ta, 'N') ? m : k, nrowb = lsame(tb, 'N') ? k : n;
    const int bad = !is_op(ta)          ? 1
                    : !is_op(tb)        ? 2
                    : m < 0             ? 3
                    : n < 0             ? 4
                    : k < 0             ? 5
                    : lda < max1(nrowa) ? 8
                    : ldb < max1(nrowb) ? 10
                    : ldc < max1(m)     ? 13
                                        : 0;
    run(
        e, bad,
        [&] {
            la::gemm<T>(op_of<T>(ta), op_of<T>(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        },
        forward);
}

template <class T, class Forward>
void symm(Entry& e, Forward&& forward, bool hermitian, char const* sd, char const* ul, int m, int n,
          T alpha, T const* a, int lda, T const* b, int ldb, T beta, T* c, int ldc)
{
    const int nrowa = lsame(sd, 'L') ? m : n;
    Serving s = e.serve(m, n, nrowa);
    if (!s) return forward();
    const int bad = !is_side(sd)        ? 1
                    : !is_uplo(ul)      ? 2
                    : m < 0             ? 3
                    : n < 0             ? 4
                    : lda < max1(nrowa) ? 7
                    : ldb < max1(m)     ? 9
                    : ldc < max1(m)     ? 12
                                        : 0;
    run(
        e, bad,
        [&] {
            if (hermitian)
                la::hemm<T>(side_of(sd), uplo_of(ul), m, n, alpha, a, lda, b, ldb, beta, c, ldc);
            else
                la::symm<T>(side_of(sd), uplo_of(ul), m, n, alpha, a, lda, b, ldb, beta, c, ldc);
        },
        forward);
}

/// syrk (the real types: 'N', 'T', 'C'; complex: 'N', 'T') and herk ('N', 'C').
template <class T, class S, class Forward>
void syrk(Entry& e, Forward&& forward, bool hermitian, char const* ul, char const* tr, int n, int k,
          S alpha, T const* a, int lda, S beta, T* c, int ldc)
{
    Serving s = e.serve(n, n, k);
    if (!s) return forward();
    const bool trans_ok =
        lsame(tr, 'N') ||
        (hermitian ? lsame(tr, 'C') : lsame(tr, 'T') || (!is_complex<T> && lsame(tr, 'C')));
    const int nrowa = lsame(tr, 'N') ? n : k;
    const int bad = !is_uplo(ul)        ? 1
                    : !trans_ok         ? 2
                    : n < 0             ? 3
                    : k < 0             ? 4
                    : lda < max1(nrowa) ? 7
                    : ldc < max1(n)     ? 10
                                        : 0;
    run(
        e, bad,
        [&] {
            if constexpr (is_complex<T> && !std::is_same_v<S, T>)
                la::herk<T>(uplo_of(ul), lsame(tr, 'N') ? Op::notrans : Op::conjtrans, n, k, alpha,
                            a, lda, beta, c, ldc);
            else
                la::syrk<T>(uplo_of(ul), op_of<T>(tr), n, k, alpha, a, lda, beta, c, ldc);
        },
        forward);
}

/// trsm (solve) and trmm.
template <class T, class Forward>
void trsm(Entry& e, Forward&& forward, bool solve, char const* sd, char const* ul, char const* ta,
          char const* dg, int m, int n, T alpha, T const* a, int lda, T* b, int ldb)
{
    const int nrowa = lsame(sd, 'L') ? m : n;
    Serving s = e.serve(m, n, nrowa);
    if (!s) return forward();
    const int bad = !is_side(sd)        ? 1
                    : !is_uplo(ul)      ? 2
                    : !is_op(ta)        ? 3
                    : !is_diag(dg)      ? 4
                    : m < 0             ? 5
                    : n < 0             ? 6
                    : lda < max1(nrowa) ? 9
                    : ldb < max1(m)     ? 11
                                        : 0;
    run(
        e, bad,
        [&] {
            if (solve)
                la::trsm<T>(side_of(sd), uplo_of(ul), op_of<T>(ta), diag_of(dg), m, n, alpha, a,
                            lda, b, ldb);
            else
                la::trmm<T>(side_of(sd), uplo_of(ul), op_of<T>(ta), diag_of(dg), m, n, alpha, a,
                            lda, b, ldb);
        },
        forward);
}

}  // namespace

// gemm's gate: below the crossover, a few instructions in front of the next library (gate.hpp).
#define TESSERA_DROPIN_GEMM(p, T, volume_offset)                                                   \
    TESSERA_DROPIN_GATED_SYMBOL(                                                                   \
        p##gemm_, gemm, volume_offset,                                                             \
        (char const* ta, char const* tb, int const* m, int const* n, int const* k, T const* alpha, \
         T const* a, int const* lda, T const* b, int const* ldb, T const* beta, T* c,              \
         int const* ldc, size_t lta, size_t ltb),                                                  \
        (ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, lta, ltb), (*m, *n, *k),            \
        (gemm<T>(entry, forward, ta, tb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc)))
TESSERA_DROPIN_GEMM(s, float, 0)
TESSERA_DROPIN_GEMM(d, double, 8)
TESSERA_DROPIN_GEMM(c, cfloat, 16)
TESSERA_DROPIN_GEMM(z, cdouble, 24)

#define TESSERA_DROPIN_SYMM(p, T, name, hermitian)                                                 \
    TESSERA_DROPIN_SYMBOL(p##name##_, symm,                                                        \
                          (char const* sd, char const* ul, int const* m, int const* n,             \
                           T const* alpha, T const* a, int const* lda, T const* b, int const* ldb, \
                           T const* beta, T* c, int const* ldc, size_t lsd, size_t lul),           \
                          (sd, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc, lsd, lul),           \
                          (*m, *n, lsame(sd, 'L') ? *m : *n),                                      \
                          (symm<T>(entry, forward, hermitian, sd, ul, *m, *n, *alpha, a, *lda, b,  \
                                   *ldb, *beta, c, *ldc)))
TESSERA_DROPIN_SYMM(s, float, symm, false)
TESSERA_DROPIN_SYMM(d, double, symm, false)
TESSERA_DROPIN_SYMM(c, cfloat, symm, false)
TESSERA_DROPIN_SYMM(z, cdouble, symm, false)
TESSERA_DROPIN_SYMM(c, cfloat, hemm, true)
TESSERA_DROPIN_SYMM(z, cdouble, hemm, true)

#define TESSERA_DROPIN_SYRK(p, T, S, name, hermitian)                                              \
    TESSERA_DROPIN_SYMBOL(                                                                         \
        p##name##_, syrk,                                                                          \
        (char const* ul, char const* tr, int const* n, int const* k, S const* alpha, T const* a,   \
         int const* lda, S const* beta, T* c, int const* ldc, size_t lul, size_t ltr),             \
        (ul, tr, n, k, alpha, a, lda, beta, c, ldc, lul, ltr), (*n, *n, *k),                       \
        (syrk<T, S>(entry, forward, hermitian, ul, tr, *n, *k, *alpha, a, *lda, *beta, c, *ldc)))
TESSERA_DROPIN_SYRK(s, float, float, syrk, false)
TESSERA_DROPIN_SYRK(d, double, double, syrk, false)
TESSERA_DROPIN_SYRK(c, cfloat, cfloat, syrk, false)
TESSERA_DROPIN_SYRK(z, cdouble, cdouble, syrk, false)
TESSERA_DROPIN_SYRK(c, cfloat, float, herk, true)
TESSERA_DROPIN_SYRK(z, cdouble, double, herk, true)

#define TESSERA_DROPIN_TRSM(p, T, name, routine, solve)                                            \
    TESSERA_DROPIN_SYMBOL(                                                                         \
        p##name##_, routine,                                                                       \
        (char const* sd, char const* ul, char const* ta, char const* dg, int const* m,             \
         int const* n, T const* alpha, T const* a, int const* lda, T* b, int const* ldb,           \
         size_t lsd, size_t lul, size_t lta, size_t ldg),                                          \
        (sd, ul, ta, dg, m, n, alpha, a, lda, b, ldb, lsd, lul, lta, ldg),                         \
        (*m, *n, lsame(sd, 'L') ? *m : *n),                                                        \
        (trsm<T>(entry, forward, solve, sd, ul, ta, dg, *m, *n, *alpha, a, *lda, b, *ldb)))
TESSERA_DROPIN_TRSM(s, float, trsm, trsm, true)
TESSERA_DROPIN_TRSM(d, double, trsm, trsm, true)
TESSERA_DROPIN_TRSM(c, cfloat, trsm, trsm, true)
TESSERA_DROPIN_TRSM(z, cdouble, trsm, trsm, true)
TESSERA_DROPIN_TRSM(s, float, trmm, trmm, false)
TESSERA_DROPIN_TRSM(d, double, trmm, trmm, false)
TESSERA_DROPIN_TRSM(c, cfloat, trmm, trmm, false)
TESSERA_DROPIN_TRSM(z, cdouble, trmm, trmm, false)
