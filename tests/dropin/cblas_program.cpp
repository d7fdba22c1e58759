// A CBLAS program as NumPy and C users write them (linked against OpenBLAS's CBLAS, run with
// the drop-in preloaded by tests/dropin/run_with_dropin.sh): the level-3 calls in both
// layouts, every op, side, triangle and diagonal, on rectangular shapes with padded leading
// dimensions, each checked against naive loops. Exit status 1 on a failure.
#include <cblas.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

namespace {

using zdouble = std::complex<double>;
int failures = 0, checks = 0;

template <class T> T conj_of(T x)
{
    if constexpr (std::is_same_v<T, zdouble>)
        return std::conj(x);
    else
        return x;
}

template <class T> std::vector<T> random_array(std::size_t n, unsigned seed)
{
    std::mt19937 g(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<T> v(n);
    for (T& x : v) {
        if constexpr (std::is_same_v<T, zdouble>)
            x = {u(g), u(g)};
        else
            x = T(u(g));
    }
    return v;
}

/// An m x n matrix stored in `layout` with leading dimension ld.
template <class T> struct View {
    T* p;
    int ld;
    CBLAS_ORDER layout;
    T& operator()(int i, int j) const
    {
        return layout == CblasRowMajor ? p[std::size_t(i) * ld + j] : p[i + std::size_t(j) * ld];
    }
};

/// op(X)(i, j) for X stored as `v`.
template <class T> T op_at(View<T> v, CBLAS_TRANSPOSE t, int i, int j)
{
    return t == CblasNoTrans ? v(i, j) : t == CblasTrans ? v(j, i) : conj_of(v(j, i));
}

/// Checks one call, named by its routine, layout and CBLAS options ("syrk row 121 111").
void check(char const* routine, CBLAS_ORDER layout, std::initializer_list<int> options,
           double error, double tolerance)
{
    ++checks;
    if (error <= tolerance) return;
    ++failures;
    std::string what = std::string(routine) + (layout == CblasRowMajor ? " row" : " col");
    for (int o : options) what += " " + std::to_string(o);
    std::printf("FAIL %s: error %.3e > %.1e\n", what.c_str(), error, tolerance);
}

template <class T> double max_difference(std::vector<T> const& a, std::vector<T> const& b)
{
    double d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, double(std::abs(a[i] - b[i])));
    return d;
}

constexpr CBLAS_ORDER layouts[] = {CblasRowMajor, CblasColMajor};
constexpr CBLAS_TRANSPOSE ops[] = {CblasNoTrans, CblasTrans, CblasConjTrans};

template <class T>
void call_gemm(CBLAS_ORDER l, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, T alpha,
               T const* a, int lda, T const* b, int ldb, T beta, T* c, int ldc)
{
    if constexpr (std::is_same_v<T, double>)
        cblas_dgemm(l, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else if constexpr (std::is_same_v<T, float>)
        cblas_sgemm(l, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else
        cblas_zgemm(l, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}

template <class T> void gemms(double tolerance)
{
    const int m = 37, n = 29, k = 23, pad = 3;
    const T alpha = T(1.5), beta = T(-0.5);
    for (CBLAS_ORDER l : layouts)
        for (CBLAS_TRANSPOSE ta : ops)
            for (CBLAS_TRANSPOSE tb : ops) {
                // stored shapes: op(A) is m x k, op(B) k x n
                const int ar = ta == CblasNoTrans ? m : k, ac = ta == CblasNoTrans ? k : m;
                const int br = tb == CblasNoTrans ? k : n, bc = tb == CblasNoTrans ? n : k;
                const int lda = (l == CblasRowMajor ? ac : ar) + pad;
                const int ldb = (l == CblasRowMajor ? bc : br) + pad;
                const int ldc = (l == CblasRowMajor ? n : m) + pad;
                auto a = random_array<T>(std::size_t(lda) * std::max(ar, ac), 1);
                auto b = random_array<T>(std::size_t(ldb) * std::max(br, bc), 2);
                auto c = random_array<T>(std::size_t(ldc) * std::max(m, n), 3);
                auto expected = c;
                View<T> va{a.data(), lda, l}, vb{b.data(), ldb, l}, ve{expected.data(), ldc, l};
                for (int i = 0; i < m; ++i)
                    for (int j = 0; j < n; ++j) {
                        T s = 0;
                        for (int p = 0; p < k; ++p) s += op_at(va, ta, i, p) * op_at(vb, tb, p, j);
                        ve(i, j) = alpha * s + beta * ve(i, j);
                    }
                call_gemm<T>(l, ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta,
                             c.data(), ldc);
                check("gemm", l, {ta, tb}, max_difference(c, expected), tolerance);
            }
}

/// syrk (real) and herk (complex): the triangle asked for, the other one untouched.
template <class T> void rank_k_updates(double tolerance)
{
    const int n = 31, k = 19, pad = 2;
    for (CBLAS_ORDER l : layouts)
        for (CBLAS_UPLO u : {CblasUpper, CblasLower})
            for (CBLAS_TRANSPOSE t :
                 {CblasNoTrans, std::is_same_v<T, zdouble> ? CblasConjTrans : CblasTrans}) {
                const int ar = t == CblasNoTrans ? n : k, ac = t == CblasNoTrans ? k : n;
                const int lda = (l == CblasRowMajor ? ac : ar) + pad, ldc = n + pad;
                auto a = random_array<T>(std::size_t(lda) * std::max(ar, ac), 4);
                auto c = random_array<T>(std::size_t(ldc) * n, 5);
                View<T> vc0{c.data(), ldc, l};
                for (int i = 0; i < n; ++i)
                    if constexpr (std::is_same_v<T, zdouble>) vc0(i, i) = vc0(i, i).real();
                auto expected = c;
                View<T> va{a.data(), lda, l}, ve{expected.data(), ldc, l};
                const double alpha = 0.75, beta = 1.25;
                for (int i = 0; i < n; ++i)
                    for (int j = 0; j < n; ++j) {
                        if (u == CblasUpper ? i > j : i < j) continue;
                        T s = 0;
                        for (int p = 0; p < k; ++p)
                            s += t == CblasNoTrans ? va(i, p) * conj_of(va(j, p))
                                                   : conj_of(va(p, i)) * va(p, j);
                        ve(i, j) = alpha * s + beta * ve(i, j);
                    }
                if constexpr (std::is_same_v<T, zdouble>)
                    cblas_zherk(l, u, t, n, k, alpha, a.data(), lda, beta, c.data(), ldc);
                else
                    cblas_dsyrk(l, u, t, n, k, alpha, a.data(), lda, beta, c.data(), ldc);
                check(std::is_same_v<T, zdouble> ? "herk" : "syrk", l, {u, t},
                      max_difference(c, expected), tolerance);
            }
}

/// symm (real) and hemm (complex).
template <class T> void symmetric_products(double tolerance)
{
    const int m = 27, n = 33, pad = 1;
    const T alpha = T(0.5), beta = T(2.0);
    for (CBLAS_ORDER l : layouts)
        for (CBLAS_SIDE s : {CblasLeft, CblasRight})
            for (CBLAS_UPLO u : {CblasUpper, CblasLower}) {
                const int na = s == CblasLeft ? m : n, lda = na + pad;
                const int ldb = (l == CblasRowMajor ? n : m) + pad, ldc = ldb;
                auto a = random_array<T>(std::size_t(lda) * na, 6);
                auto b = random_array<T>(std::size_t(ldb) * std::max(m, n), 7);
                auto c = random_array<T>(std::size_t(ldc) * std::max(m, n), 8);
                View<T> va{a.data(), lda, l}, vb{b.data(), ldb, l};
                // the full symmetric (Hermitian) matrix that the triangle u of a stands for
                auto full = [&](int i, int j) {
                    const bool stored = u == CblasUpper ? i <= j : i >= j;
                    if (i == j) {
                        if constexpr (std::is_same_v<T, zdouble>)
                            return T(va(i, i).real());
                        else
                            return va(i, i);
                    }
                    return stored ? va(i, j) : conj_of(va(j, i));
                };
                auto expected = c;
                View<T> ve{expected.data(), ldc, l};
                for (int i = 0; i < m; ++i)
                    for (int j = 0; j < n; ++j) {
                        T sum = 0;
                        if (s == CblasLeft)
                            for (int p = 0; p < m; ++p) sum += full(i, p) * vb(p, j);
                        else
                            for (int p = 0; p < n; ++p) sum += vb(i, p) * full(p, j);
                        ve(i, j) = alpha * sum + beta * ve(i, j);
                    }
                if constexpr (std::is_same_v<T, zdouble>)
                    cblas_zhemm(l, s, u, m, n, &alpha, a.data(), lda, b.data(), ldb, &beta,
                                c.data(), ldc);
                else
                    cblas_dsymm(l, s, u, m, n, alpha, a.data(), lda, b.data(), ldb, beta, c.data(),
                                ldc);
                check(std::is_same_v<T, zdouble> ? "hemm" : "symm", l, {s, u},
                      max_difference(c, expected), tolerance);
            }
}

/// trmm, then trsm on its result gives the input back (trsm's oracle: trmm's naive product).
template <class T> void triangular(double tolerance)
{
    const int m = 25, n = 21, pad = 2;
    const T alpha = T(1.25);
    for (CBLAS_ORDER l : layouts)
        for (CBLAS_SIDE s : {CblasLeft, CblasRight})
            for (CBLAS_UPLO u : {CblasUpper, CblasLower})
                for (CBLAS_TRANSPOSE t : ops)
                    for (CBLAS_DIAG d : {CblasNonUnit, CblasUnit}) {
                        const int na = s == CblasLeft ? m : n, lda = na + pad;
                        const int ldb = (l == CblasRowMajor ? n : m) + pad;
                        auto a = random_array<T>(std::size_t(lda) * na, 9);
                        View<T> va{a.data(), lda, l};
                        for (int i = 0; i < na; ++i) va(i, i) += T(4);  // well conditioned
                        auto tri = [&](int i, int j) {  // the triangular matrix a stands for
                            if (i == j) return d == CblasUnit ? T(1) : va(i, i);
                            return (u == CblasUpper ? i < j : i > j) ? va(i, j) : T(0);
                        };
                        auto op_tri = [&](int i, int j) {
                            return t == CblasNoTrans ? tri(i, j)
                                   : t == CblasTrans ? tri(j, i)
                                                     : conj_of(tri(j, i));
                        };
                        auto b = random_array<T>(std::size_t(ldb) * std::max(m, n), 10);
                        const auto b0 = b;
                        auto expected = b;
                        View<T> vb0{const_cast<T*>(b0.data()), ldb, l}, ve{expected.data(), ldb, l};
                        for (int i = 0; i < m; ++i)
                            for (int j = 0; j < n; ++j) {
                                T sum = 0;
                                if (s == CblasLeft)
                                    for (int p = 0; p < m; ++p) sum += op_tri(i, p) * vb0(p, j);
                                else
                                    for (int p = 0; p < n; ++p) sum += vb0(i, p) * op_tri(p, j);
                                ve(i, j) = alpha * sum;
                            }
                        const std::initializer_list<int> options{s, u, t, d};
                        const T inverse = T(1) / alpha;
                        if constexpr (std::is_same_v<T, zdouble>) {
                            cblas_ztrmm(l, s, u, t, d, m, n, &alpha, a.data(), lda, b.data(), ldb);
                            check("trmm", l, options, max_difference(b, expected), tolerance);
                            cblas_ztrsm(l, s, u, t, d, m, n, &inverse, a.data(), lda, b.data(),
                                        ldb);
                        } else {
                            cblas_dtrmm(l, s, u, t, d, m, n, alpha, a.data(), lda, b.data(), ldb);
                            check("trmm", l, options, max_difference(b, expected), tolerance);
                            cblas_dtrsm(l, s, u, t, d, m, n, inverse, a.data(), lda, b.data(), ldb);
                        }
                        // trsm undoes trmm's product
                        check("trsm", l, options, max_difference(b, b0), tolerance);
                    }
}

}  // namespace

int main()
{
    gemms<double>(1e-12);
    gemms<zdouble>(1e-12);
    gemms<float>(1e-4);
    rank_k_updates<double>(1e-12);
    rank_k_updates<zdouble>(1e-12);
    symmetric_products<double>(1e-12);
    symmetric_products<zdouble>(1e-12);
    triangular<double>(1e-11);
    triangular<zdouble>(1e-11);
    std::printf("%d of %d checks passed\n", checks - failures, checks);
    return failures == 0 ? 0 : 1;
}
