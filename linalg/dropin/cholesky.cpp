// The Cholesky family's symbols: potrf, potrs, posv, potri in their precisions, with
// LAPACK's argument checks.
#include "linalg/dropin/call.hpp"

#include <tessera/la/cholesky.hpp>

#include <complex>

using namespace tessera;
using namespace tessera::dropin;
using std::size_t;

namespace {

/// potrf and potri: (uplo, n, a, lda).
template <class T, class Forward>
int factor(Entry& e, Forward&& forward, bool inverse, char const* ul, int n, T* a, int lda)
{
    Serving s = e.serve(n, n, n);
    if (!s) return forward(), info_stored;
    const int bad = !is_uplo(ul) ? 1 : n < 0 ? 2 : lda < max1(n) ? 4 : 0;
    return run(
        e, bad,
        [&] {
            return inverse ? la::potri<T>(uplo_of(ul), n, a, lda)
                           : la::potrf<T>(uplo_of(ul), n, a, lda);
        },
        forward);
}

/// potrs and posv: (uplo, n, nrhs, a, lda, b, ldb).
template <class T, class Forward>
int solve(Entry& e, Forward&& forward, bool factor_too, char const* ul, int n, int nrhs, T* a,
          int lda, T* b, int ldb)
{
    Serving s = e.serve(n, n, factor_too ? n : nrhs);
    if (!s) return forward(), info_stored;
    const int bad = !is_uplo(ul)    ? 1
                    : n < 0         ? 2
                    : nrhs < 0      ? 3
                    : lda < max1(n) ? 5
                    : ldb < max1(n) ? 7
                                    : 0;
    return run(
        e, bad,
        [&] {
            return factor_too ? la::posv<T>(uplo_of(ul), n, nrhs, a, lda, b, ldb)
                              : la::potrs<T>(uplo_of(ul), n, nrhs, a, lda, b, ldb);
        },
        forward);
}

}  // namespace

#define TESSERA_DROPIN_FACTOR(p, T, name, inverse)                                                 \
    TESSERA_DROPIN_SYMBOL(                                                                         \
        p##name##_, name,                                                                          \
        (char const* ul, int const* n, T* a, int const* lda, int* info, size_t lul),               \
        (ul, n, a, lda, info, lul), (*n, *n, *n),                                                  \
        (store_info(info, factor<T>(entry, forward, inverse, ul, *n, a, *lda))))
#define TESSERA_DROPIN_SOLVE(p, T, name, factor_too)                                               \
    TESSERA_DROPIN_SYMBOL(                                                                         \
        p##name##_, name,                                                                          \
        (char const* ul, int const* n, int const* nrhs, T* a, int const* lda, T* b,                \
         int const* ldb, int* info, size_t lul),                                                   \
        (ul, n, nrhs, a, lda, b, ldb, info, lul), (*n, *n, factor_too ? *n : *nrhs),               \
        (store_info(info, solve<T>(entry, forward, factor_too, ul, *n, *nrhs, a, *lda, b, *ldb))))
#define TESSERA_DROPIN_CHOLESKY(p, T)                                                              \
    TESSERA_DROPIN_FACTOR(p, T, potrf, false)                                                      \
    TESSERA_DROPIN_FACTOR(p, T, potri, true)                                                       \
    TESSERA_DROPIN_SOLVE(p, T, potrs, false)                                                       \
    TESSERA_DROPIN_SOLVE(p, T, posv, true)
TESSERA_DROPIN_CHOLESKY(s, float)
TESSERA_DROPIN_CHOLESKY(d, double)
TESSERA_DROPIN_CHOLESKY(c, cfloat)
TESSERA_DROPIN_CHOLESKY(z, cdouble)
