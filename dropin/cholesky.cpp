// The Cholesky family's symbols: potrf, potrs, posv, potri in their precisions, with
// LAPACK's argument checks.
#include "dropin/call.hpp"

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
    Serving s = e.serve(order(n, n, n));
    if (!s) return forward(), info_stored;
    const int bad = !is_uplo(ul) ? 1 : n < 0 ? 2 : lda < max1(n) ? 4 : 0;
    return run(e, bad, [&] { return inverse ? la::potri<T>(uplo_of(ul), n, a, lda) : la::potrf<T>(uplo_of(ul), n, a, lda); },
               forward);
}

/// potrs and posv: (uplo, n, nrhs, a, lda, b, ldb).
template <class T, class Forward>
int solve(Entry& e, Forward&& forward, bool factor_too, char const* ul, int n, int nrhs, T* a, int lda, T* b, int ldb)
{
    Serving s = e.serve(factor_too ? order(n, n, n) : order(n, n, nrhs));
    if (!s) return forward(), info_stored;
    const int bad = !is_uplo(ul) ? 1 : n < 0 ? 2 : nrhs < 0 ? 3 : lda < max1(n) ? 5 : ldb < max1(n) ? 7 : 0;
    return run(e, bad, [&] {
        return factor_too ? la::posv<T>(uplo_of(ul), n, nrhs, a, lda, b, ldb)
                          : la::potrs<T>(uplo_of(ul), n, nrhs, a, lda, b, ldb);
    }, forward);
}

}  // namespace

#define TESSERA_DROPIN_FACTOR(p, T, name, routine, inverse)                                                        \
    TESSERA_DROPIN_EXPORT void p##name##_(char const* ul, int const* n, T* a, int const* lda, int* info, size_t lul)         \
    {                                                                                                              \
        static constinit Entry e{#p #name "_", Routine::routine};                                                  \
        store_info(info, factor<T>(e, [&] { e.forward<decltype(p##name##_)>(ul, n, a, lda, info, lul); }, inverse, \
                                   ul, *n, a, *lda));                                                              \
    }
#define TESSERA_DROPIN_SOLVE(p, T, name, routine, factor_too)                                                      \
    TESSERA_DROPIN_EXPORT void p##name##_(char const* ul, int const* n, int const* nrhs, T* a, int const* lda, T* b,          \
                               int const* ldb, int* info, size_t lul)                                              \
    {                                                                                                              \
        static constinit Entry e{#p #name "_", Routine::routine};                                                  \
        store_info(info, solve<T>(                                                                                 \
                             e, [&] { e.forward<decltype(p##name##_)>(ul, n, nrhs, a, lda, b, ldb, info, lul); }, \
                             factor_too, ul, *n, *nrhs, a, *lda, b, *ldb));                                        \
    }
#define TESSERA_DROPIN_CHOLESKY(p, T)                                                                              \
    TESSERA_DROPIN_FACTOR(p, T, potrf, potrf, false)                                                               \
    TESSERA_DROPIN_FACTOR(p, T, potri, potri, true)                                                                \
    TESSERA_DROPIN_SOLVE(p, T, potrs, potrs, false)                                                                \
    TESSERA_DROPIN_SOLVE(p, T, posv, posv, true)
TESSERA_DROPIN_CHOLESKY(s, float)
TESSERA_DROPIN_CHOLESKY(d, double)
TESSERA_DROPIN_CHOLESKY(c, cfloat)
TESSERA_DROPIN_CHOLESKY(z, cdouble)
