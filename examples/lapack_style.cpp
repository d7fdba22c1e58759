// Solve A x = b with A symmetric positive definite, as LAPACK's dposv, on every core.
#include <tessera/tessera.hpp>

#include <cstdio>
#include <vector>

int main()
{
    int64_t n = 2000;
    std::vector<double> a(n * n), b(n, 1.0);  // column-major, as in LAPACK
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) a[i + j * n] = i == j ? 2.0 * n : 1.0 / (1 + i + j);
    int64_t info = tessera::posv(tessera::Uplo::lower, n, 1, a.data(), n, b.data(), n);
    std::printf("dposv: info %lld, x[0] = %.6e\n", (long long)info, b[0]);  // b holds x
    return info != 0;
}
