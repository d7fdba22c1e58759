// The QR family's symbols: geqrf, ormqr/unmqr, orgqr/ungqr, gelqf, ormlq/unmlq, orglq/unglq
// and gels in their precisions, with LAPACK's argument checks. Tessera needs no workspace: a
// workspace query (lwork = -1) gets the next library's answer, so that a caller sizes WORK
// exactly as with LAPACK, and a WORK too small is still an error, as in LAPACK.
#include "linalg/dropin/call.hpp"

#include <tessera/la/qr.hpp>

#include <complex>

using namespace tessera;
using namespace tessera::dropin;
using std::size_t;

namespace {

/// geqrf (QR) and gelqf (LQ): (m, n, a, lda, tau, work, lwork).
template <class T, class Forward>
int factor(Entry& e, Forward&& forward, bool lq, int m, int n, T* a, int lda, T* tau, int lwork)
{
    Serving s = e.serve(m, n, std::min(m, n));
    if (!s) return forward(), info_stored;
    const bool query = lwork == -1;
    const int bad = m < 0                                ? 1
                    : n < 0                              ? 2
                    : lda < max1(m)                      ? 4
                    : lwork < max1(lq ? m : n) && !query ? 7
                                                         : 0;
    if (!bad && query) return forward(), info_stored;
    return run(
        e, bad,
        [&] { return lq ? la::gelqf<T>(m, n, a, lda, tau) : la::geqrf<T>(m, n, a, lda, tau); },
        forward);
}

/// ormqr/unmqr and ormlq/unmlq: (side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork).
template <class T, class Forward>
int apply_q(Entry& e, Forward&& forward, bool lq, char const* sd, char const* tr, int m, int n,
            int k, T const* a, int lda, T const* tau, T* c, int ldc, int lwork)
{
    Serving s = e.serve(m, n, k);
    if (!s) return forward(), info_stored;
    const bool left = lsame(sd, 'L'), query = lwork == -1;
    const int nq = left ? m : n, nw = max1(left ? n : m);
    const int bad = !is_side(sd)              ? 1
                    : !is_q_op<T>(tr)         ? 2
                    : m < 0                   ? 3
                    : n < 0                   ? 4
                    : k < 0 || k > nq         ? 5
                    : lda < max1(lq ? k : nq) ? 7
                    : ldc < max1(m)           ? 10
                    : lwork < nw && !query    ? 12
                                              : 0;
    if (!bad && query) return forward(), info_stored;
    return run(
        e, bad,
        [&] {
            const Op op = lsame(tr, 'N') ? Op::notrans : is_complex<T> ? Op::conjtrans : Op::trans;
            return lq ? la::unmlq<T>(side_of(sd), op, m, n, k, a, lda, tau, c, ldc)
                      : la::unmqr<T>(side_of(sd), op, m, n, k, a, lda, tau, c, ldc);
        },
        forward);
}

/// orgqr/ungqr (Q's first n columns, k <= n <= m) and orglq/unglq (its first m rows,
/// k <= m <= n): (m, n, k, a, lda, tau, work, lwork).
template <class T, class Forward>
int form_q(Entry& e, Forward&& forward, bool lq, int m, int n, int k, T* a, int lda, T const* tau,
           int lwork)
{
    Serving s = e.serve(m, n, k);
    if (!s) return forward(), info_stored;
    const bool query = lwork == -1;
    const int bad = m < 0                                ? 1
                    : (lq ? n < m : n < 0 || n > m)      ? 2
                    : k < 0 || k > (lq ? m : n)          ? 3
                    : lda < max1(m)                      ? 5
                    : lwork < max1(lq ? m : n) && !query ? 8
                                                         : 0;
    if (!bad && query) return forward(), info_stored;
    return run(
        e, bad,
        [&] {
            return lq ? la::unglq<T>(m, n, k, a, lda, tau) : la::ungqr<T>(m, n, k, a, lda, tau);
        },
        forward);
}

template <class T> bool all_zero(int m, int n, T const* a, int lda)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i)
            if (a[i + std::size_t(j) * lda] != T(0)) return false;
    return true;
}

/// gels: (trans, m, n, nrhs, a, lda, b, ldb, work, lwork). As LAPACK's: an empty problem or
/// A = 0 has the solution 0 (B's max(m, n) rows zeroed), info 0.
template <class T, class Forward>
int gels(Entry& e, Forward&& forward, char const* tr, int m, int n, int nrhs, T* a, int lda, T* b,
         int ldb, int lwork)
{
    const int mn = std::min(m, n);
    Serving s = e.serve(m, n, mn);
    if (!s) return forward(), info_stored;
    const bool query = lwork == -1;
    const int bad = !is_q_op<T>(tr)                                   ? 1
                    : m < 0                                           ? 2
                    : n < 0                                           ? 3
                    : nrhs < 0                                        ? 4
                    : lda < max1(m)                                   ? 6
                    : ldb < std::max({1, m, n})                       ? 8
                    : lwork < max1(mn + std::max(mn, nrhs)) && !query ? 10
                                                                      : 0;
    if (!bad && query) return forward(), info_stored;
    return run(
        e, bad,
        [&]() -> int64_t {
            if (std::min({m, n, nrhs}) == 0 || all_zero(m, n, a, lda)) {
                for (int j = 0; j < nrhs; ++j)
                    for (int i = 0; i < std::max(m, n); ++i) b[i + std::size_t(j) * ldb] = T(0);
                return 0;
            }
            const Op op = lsame(tr, 'N') ? Op::notrans : is_complex<T> ? Op::conjtrans : Op::trans;
            return la::gels<T>(op, m, n, nrhs, a, lda, b, ldb);
        },
        forward);
}

}  // namespace

#define TESSERA_DROPIN_FACTOR(p, T, name, lq)                                                      \
    TESSERA_DROPIN_SYMBOL(                                                                         \
        p##name##_, name,                                                                          \
        (int const* m, int const* n, T* a, int const* lda, T* tau, T* work, int const* lwork,      \
         int* info),                                                                               \
        (m, n, a, lda, tau, work, lwork, info), (*m, *n, std::min(*m, *n)),                        \
        (store_info(info, factor<T>(entry, forward, lq, *m, *n, a, *lda, tau, *lwork))))
#define TESSERA_DROPIN_APPLY_Q(p, T, name, routine, lq)                                            \
    TESSERA_DROPIN_SYMBOL(                                                                         \
        p##name##_, routine,                                                                       \
        (char const* sd, char const* tr, int const* m, int const* n, int const* k, T const* a,     \
         int const* lda, T const* tau, T* c, int const* ldc, T* work, int const* lwork, int* info, \
         size_t lsd, size_t ltr),                                                                  \
        (sd, tr, m, n, k, a, lda, tau, c, ldc, work, lwork, info, lsd, ltr), (*m, *n, *k),         \
        (store_info(info, apply_q<T>(entry, forward, lq, sd, tr, *m, *n, *k, a, *lda, tau, c,      \
                                     *ldc, *lwork))))
#define TESSERA_DROPIN_FORM_Q(p, T, name, routine, lq)                                             \
    TESSERA_DROPIN_SYMBOL(                                                                         \
        p##name##_, routine,                                                                       \
        (int const* m, int const* n, int const* k, T* a, int const* lda, T const* tau, T* work,    \
         int const* lwork, int* info),                                                             \
        (m, n, k, a, lda, tau, work, lwork, info), (*m, *n, *k),                                   \
        (store_info(info, form_q<T>(entry, forward, lq, *m, *n, *k, a, *lda, tau, *lwork))))
#define TESSERA_DROPIN_GELS(p, T)                                                                  \
    TESSERA_DROPIN_SYMBOL(                                                                         \
        p##gels_, gels,                                                                            \
        (char const* tr, int const* m, int const* n, int const* nrhs, T* a, int const* lda, T* b,  \
         int const* ldb, T* work, int const* lwork, int* info, size_t ltr),                        \
        (tr, m, n, nrhs, a, lda, b, ldb, work, lwork, info, ltr), (*m, *n, std::min(*m, *n)),      \
        (store_info(info, gels<T>(entry, forward, tr, *m, *n, *nrhs, a, *lda, b, *ldb, *lwork))))
#define TESSERA_DROPIN_QR(p, T, q)                                                                 \
    TESSERA_DROPIN_FACTOR(p, T, geqrf, false)                                                      \
    TESSERA_DROPIN_FACTOR(p, T, gelqf, true)                                                       \
    TESSERA_DROPIN_APPLY_Q(p, T, q##mqr, unmqr, false)                                             \
    TESSERA_DROPIN_APPLY_Q(p, T, q##mlq, unmlq, true)                                              \
    TESSERA_DROPIN_FORM_Q(p, T, q##gqr, ungqr, false)                                              \
    TESSERA_DROPIN_FORM_Q(p, T, q##glq, unglq, true)                                               \
    TESSERA_DROPIN_GELS(p, T)
TESSERA_DROPIN_QR(s, float, or)
TESSERA_DROPIN_QR(d, double, or)
TESSERA_DROPIN_QR(c, cfloat, un)
TESSERA_DROPIN_QR(z, cdouble, un)
