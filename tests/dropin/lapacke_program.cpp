// A LAPACKE program as users write them (linked against -llapacke, run with the drop-in
// preloaded by tests/dropin/run_with_dropin.sh): LAPACKE_dpotrf, LAPACKE_dgesv,
// LAPACKE_dgeqrf + LAPACKE_dorgqr and LAPACKE_zgetrf + LAPACKE_zgetrs, in both layouts,
// each checked by its own residual computed with naive loops. Exit status 1 on a failure.
#include <lapacke.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <random>
#include <vector>

namespace {

int failures = 0;
void report(char const* name, lapack_int info, double residual)
{
    const bool ok = info == 0 && residual <= 30;
    std::printf("%s %s: info %d, residual %.3e\n", ok ? "ok  " : "FAIL", name, int(info), residual);
    failures += !ok;
}

constexpr double eps = 0x1p-52;

/// ||A||_1 of the n x n column-major a.
template <class T> double norm1(int m, int n, std::vector<T> const& a)
{
    double best = 0;
    for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int i = 0; i < m; ++i) s += std::abs(a[i + std::size_t(j) * m]);
        best = std::max(best, s);
    }
    return best;
}

}  // namespace

int main()
{
    const int n = 256, m = 384;
    std::mt19937_64 gen(11);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> g(std::size_t(m) * n);
    for (double& x : g) x = u(gen);

    // LAPACKE_dpotrf, column-major: A = L L^T
    std::vector<double> a(std::size_t(n) * n);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            double s = i == j ? n : 0;
            for (int k = 0; k < m; ++k)
                s += g[k + std::size_t(i) * m] * g[k + std::size_t(j) * m] / m;
            a[i + std::size_t(j) * n] = s;
        }
    std::vector<double> l = a;
    lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, l.data(), n);
    double worst = 0;
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) {
            double s = 0;
            for (int k = 0; k <= j; ++k) s += l[i + std::size_t(k) * n] * l[j + std::size_t(k) * n];
            worst = std::max(worst, std::abs(s - a[i + std::size_t(j) * n]));
        }
    report("LAPACKE_dpotrf", info, worst / (norm1(n, n, a) * n * eps));

    // LAPACKE_dgesv, row-major: A X = b
    std::vector<double> r(std::size_t(n) * n), b(n), x;
    for (double& v : r) v = u(gen);
    for (double& v : b) v = u(gen);
    std::vector<double> lu = r;
    x = b;
    std::vector<lapack_int> ipiv(n);
    info = LAPACKE_dgesv(LAPACK_ROW_MAJOR, n, 1, lu.data(), n, ipiv.data(), x.data(), 1);
    double rmax = 0, xsum = 0;
    for (int i = 0; i < n; ++i) {
        double s = -b[i];
        for (int j = 0; j < n; ++j) s += r[std::size_t(i) * n + j] * x[j];
        rmax += std::abs(s);
        xsum += std::abs(x[i]);
    }
    report("LAPACKE_dgesv (row-major)", info, rmax / (norm1(n, n, r) * xsum * n * eps));

    // LAPACKE_dgeqrf + LAPACKE_dorgqr: Q^T Q = I and Q R = A
    std::vector<double> q = g, tau(n);
    info = LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, q.data(), m, tau.data());
    std::vector<double> rr(std::size_t(n) * n, 0.0);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i <= j; ++i) rr[i + std::size_t(j) * n] = q[i + std::size_t(j) * m];
    const lapack_int info2 = LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, n, n, q.data(), m, tau.data());
    worst = 0;
    double orth = 0;
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < m; ++i) {
            double s = 0;
            for (int k = 0; k <= j; ++k)
                s += q[i + std::size_t(k) * m] * rr[k + std::size_t(j) * n];
            worst = std::max(worst, std::abs(s - g[i + std::size_t(j) * m]));
        }
        for (int i = 0; i < n; ++i) {
            double s = i == j ? -1 : 0;
            for (int k = 0; k < m; ++k) s += q[k + std::size_t(i) * m] * q[k + std::size_t(j) * m];
            orth = std::max(orth, std::abs(s));
        }
    }
    report("LAPACKE_dgeqrf: Q R = A", info, worst / (norm1(m, n, g) * m * eps));
    report("LAPACKE_dorgqr: Q^T Q = I", info2, orth / (m * eps));

    // LAPACKE_zgetrf + LAPACKE_zgetrs, A^H X = b
    using z = std::complex<double>;
    std::vector<z> c(std::size_t(n) * n), cb(n);
    for (z& v : c) v = {u(gen), u(gen)};
    for (z& v : cb) v = {u(gen), u(gen)};
    std::vector<z> cf = c, cx = cb;
    info = LAPACKE_zgetrf(LAPACK_COL_MAJOR, n, n,
                          reinterpret_cast<lapack_complex_double*>(cf.data()), n, ipiv.data());
    const lapack_int info3 = LAPACKE_zgetrs(
        LAPACK_COL_MAJOR, 'C', n, 1, reinterpret_cast<lapack_complex_double*>(cf.data()), n,
        ipiv.data(), reinterpret_cast<lapack_complex_double*>(cx.data()), n);
    rmax = 0;
    xsum = 0;
    for (int i = 0; i < n; ++i) {  // (A^H x)_i = sum_k conj(a_ki) x_k
        z s = -cb[i];
        for (int k = 0; k < n; ++k) s += std::conj(c[k + std::size_t(i) * n]) * cx[k];
        rmax += std::abs(s);
        xsum += std::abs(cx[i]);
    }
    report("LAPACKE_zgetrf + zgetrs ('C')", info | info3, rmax / (norm1(n, n, c) * xsum * n * eps));

    if (failures) return 1;
    std::printf("lapacke_program: all residuals below 30\n");
    return 0;
}
