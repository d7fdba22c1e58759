// The LU family's symbols: getrf, getrs, gesv, getri in their precisions, and the mixed
// precision dsgesv and zcgesv, with LAPACK's argument checks. LAPACK's pivots are int;
// Tessera's are int64_t.
#include "linalg/dropin/call.hpp"

#include <tessera/la/lu.hpp>

#include <complex>
#include <vector>

using namespace tessera;
using namespace tessera::dropin;
using std::size_t;

namespace {

std::vector<int64_t> pivots_in(int const* ipiv, int n)
{
    return std::vector<int64_t>(ipiv, ipiv + std::max(0, n));
}
void pivots_out(std::vector<int64_t> const& p, int* ipiv)
{
    std::copy(p.begin(), p.end(), ipiv);
}

template <class T, class Forward>
int getrf(Entry& e, Forward&& forward, int m, int n, T* a, int lda, int* ipiv)
{
    const int k = std::min(m, n);
    Serving s = e.serve(m, n, k);
    if (!s) return forward(), info_stored;
    const int bad = m < 0 ? 1 : n < 0 ? 2 : lda < max1(m) ? 4 : 0;
    return run(
        e, bad,
        [&] {
            std::vector<int64_t> p(std::size_t(std::max(1, k)));
            const int64_t info = la::getrf<T>(m, n, a, lda, p.data());
            p.resize(std::size_t(std::max(0, k)));
            pivots_out(p, ipiv);
            return info;
        },
        forward);
}

template <class T, class Forward>
int getrs(Entry& e, Forward&& forward, char const* tr, int n, int nrhs, T const* a, int lda,
          int const* ipiv, T* b, int ldb)
{
    Serving s = e.serve(n, n, nrhs);
    if (!s) return forward(), info_stored;
    const int bad = !is_op(tr)      ? 1
                    : n < 0         ? 2
                    : nrhs < 0      ? 3
                    : lda < max1(n) ? 5
                    : ldb < max1(n) ? 8
                                    : 0;
    return run(
        e, bad,
        [&] {
            const auto p = pivots_in(ipiv, n);
            return la::getrs<T>(op_of<T>(tr), n, nrhs, a, lda, p.data(), b, ldb);
        },
        forward);
}

template <class T, class Forward>
int gesv(Entry& e, Forward&& forward, int n, int nrhs, T* a, int lda, int* ipiv, T* b, int ldb)
{
    Serving s = e.serve(n, n, n);
    if (!s) return forward(), info_stored;
    const int bad = n < 0 ? 1 : nrhs < 0 ? 2 : lda < max1(n) ? 4 : ldb < max1(n) ? 7 : 0;
    return run(
        e, bad,
        [&] {
            std::vector<int64_t> p(std::size_t(std::max(1, n)));
            const int64_t info = la::gesv<T>(n, nrhs, a, lda, p.data(), b, ldb);
            p.resize(std::size_t(std::max(0, n)));
            pivots_out(p, ipiv);
            return info;
        },
        forward);
}

/// getri: Tessera needs no workspace; a workspace query (lwork = -1) gets the next library's
/// answer, so that a caller sizes WORK exactly as with LAPACK.
template <class T, class Forward>
int getri(Entry& e, Forward&& forward, int n, T* a, int lda, int const* ipiv, int lwork)
{
    Serving s = e.serve(n, n, n);
    if (!s) return forward(), info_stored;
    const bool query = lwork == -1;
    const int bad = n < 0 ? 1 : lda < max1(n) ? 3 : lwork < max1(n) && !query ? 6 : 0;
    if (!bad && query) return forward(), info_stored;
    return run(
        e, bad,
        [&] {
            const auto p = pivots_in(ipiv, n);
            return la::getri<T>(n, a, lda, p.data());
        },
        forward);
}

/// dsgesv and zcgesv; their workspaces are not used.
template <class T, class Forward>
int mixed_gesv(Entry& e, Forward&& forward, int n, int nrhs, T* a, int lda, int* ipiv, T const* b,
               int ldb, T* x, int ldx, int* iter)
{
    Serving s = e.serve(n, n, n);
    if (!s) return forward(), info_stored;
    const int bad = n < 0           ? 1
                    : nrhs < 0      ? 2
                    : lda < max1(n) ? 4
                    : ldb < max1(n) ? 7
                    : ldx < max1(n) ? 9
                                    : 0;
    return run(
        e, bad,
        [&] {
            std::vector<int64_t> p(std::size_t(std::max(1, n)));
            int64_t steps = 0;
            int64_t info = 0;
            if constexpr (std::is_same_v<T, double>)
                info = la::dsgesv(n, nrhs, a, lda, p.data(), b, ldb, x, ldx, &steps);
            else
                info = la::zcgesv(n, nrhs, a, lda, p.data(), b, ldb, x, ldx, &steps);
            p.resize(std::size_t(std::max(0, n)));
            pivots_out(p, ipiv);
            *iter = int(steps);
            return info;
        },
        forward);
}

}  // namespace

#define TESSERA_DROPIN_LU(p, T)                                                                    \
    TESSERA_DROPIN_SYMBOL(                                                                         \
        p##getrf_, getrf,                                                                          \
        (int const* m, int const* n, T* a, int const* lda, int* ipiv, int* info),                  \
        (m, n, a, lda, ipiv, info), (*m, *n, std::min(*m, *n)),                                    \
        (store_info(info, getrf<T>(entry, forward, *m, *n, a, *lda, ipiv))))                       \
    TESSERA_DROPIN_SYMBOL(                                                                         \
        p##getrs_, getrs,                                                                          \
        (char const* tr, int const* n, int const* nrhs, T const* a, int const* lda,                \
         int const* ipiv, T* b, int const* ldb, int* info, size_t ltr),                            \
        (tr, n, nrhs, a, lda, ipiv, b, ldb, info, ltr), (*n, *n, *nrhs),                           \
        (store_info(info, getrs<T>(entry, forward, tr, *n, *nrhs, a, *lda, ipiv, b, *ldb))))       \
    TESSERA_DROPIN_SYMBOL(                                                                         \
        p##gesv_, gesv,                                                                            \
        (int const* n, int const* nrhs, T* a, int const* lda, int* ipiv, T* b, int const* ldb,     \
         int* info),                                                                               \
        (n, nrhs, a, lda, ipiv, b, ldb, info), (*n, *n, *n),                                       \
        (store_info(info, gesv<T>(entry, forward, *n, *nrhs, a, *lda, ipiv, b, *ldb))))            \
    TESSERA_DROPIN_SYMBOL(p##getri_, getri,                                                        \
                          (int const* n, T* a, int const* lda, int const* ipiv, T* work,           \
                           int const* lwork, int* info),                                           \
                          (n, a, lda, ipiv, work, lwork, info), (*n, *n, *n),                      \
                          (store_info(info, getri<T>(entry, forward, *n, a, *lda, ipiv, *lwork))))
TESSERA_DROPIN_LU(s, float)
TESSERA_DROPIN_LU(d, double)
TESSERA_DROPIN_LU(c, cfloat)
TESSERA_DROPIN_LU(z, cdouble)

TESSERA_DROPIN_SYMBOL(dsgesv_, mixed_gesv,
                      (int const* n, int const* nrhs, double* a, int const* lda, int* ipiv,
                       double const* b, int const* ldb, double* x, int const* ldx, double* work,
                       float* swork, int* iter, int* info),
                      (n, nrhs, a, lda, ipiv, b, ldb, x, ldx, work, swork, iter, info),
                      (*n, *n, *n),
                      (store_info(info, mixed_gesv<double>(entry, forward, *n, *nrhs, a, *lda, ipiv,
                                                           b, *ldb, x, *ldx, iter))))
TESSERA_DROPIN_SYMBOL(zcgesv_, mixed_gesv,
                      (int const* n, int const* nrhs, cdouble* a, int const* lda, int* ipiv,
                       cdouble const* b, int const* ldb, cdouble* x, int const* ldx, cdouble* work,
                       cfloat* swork, double* rwork, int* iter, int* info),
                      (n, nrhs, a, lda, ipiv, b, ldb, x, ldx, work, swork, rwork, iter, info),
                      (*n, *n, *n),
                      (store_info(info, mixed_gesv<cdouble>(entry, forward, *n, *nrhs, a, *lda,
                                                            ipiv, b, *ldb, x, *ldx, iter))))
