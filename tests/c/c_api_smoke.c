/* Checks that tessera.h is a C header (compiled as C11 here) and that the C API works from C:
 * dposv on a small SPD system matches its solution to 1e-12, zpotrf of a Hermitian matrix
 * succeeds, a bad argument returns -i, and a matrix that is not positive definite returns
 * LAPACK's info. Exits 0 on success, 1 with a message otherwise. */
#include <tessera/tessera.h>

#include <math.h>
#include <stdio.h>

static int failures = 0;
static void check(int ok, const char* what)
{
    if (!ok) {
        fprintf(stderr, "c_api_smoke: FAILED: %s (%s)\n", what, tessera_last_error());
        ++failures;
    }
}

int main(void)
{
    enum { n = 37, nrhs = 2 };
    static double A[n * n], B[n * nrhs], X[n * nrhs];
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) A[i + j * n] = (i == j) ? 2.0 * n : 1.0 / (1.0 + i + j);
    for (int k = 0; k < n * nrhs; ++k) X[k] = (double)(k % 7) - 3.0;
    /* B = A X */
    for (int c = 0; c < nrhs; ++c)
        for (int i = 0; i < n; ++i) {
            double s = 0;
            for (int j = 0; j < n; ++j) s += A[i + j * n] * X[j + c * n];
            B[i + c * n] = s;
        }
    check(tessera_init() == 0, "tessera_init");
    check(tessera_set_tile_size(8) == 0, "tessera_set_tile_size");
    check(tessera_dposv('L', n, nrhs, A, n, B, n) == 0, "tessera_dposv info");
    double err = 0;
    for (int k = 0; k < n * nrhs; ++k) err = fmax(err, fabs(B[k] - X[k]));
    check(err < 1e-12, "tessera_dposv solution");

    static tessera_complex_double Z[4 * 4];
    for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 4; ++i) Z[i + j * 4] = (i == j) ? 8.0 : (i < j ? 1.0 * I : -1.0 * I);
    check(tessera_zpotrf('U', 4, Z, 4) == 0, "tessera_zpotrf");

    check(tessera_dpotrf('X', n, A, n) == -1, "bad uplo gives -1");
    check(tessera_dpotrf('L', -1, A, n) == -2, "negative n gives -2");
    check(tessera_dpotrf('L', n, A, n - 1) == -4, "lda < n gives -4");
    double D[3 * 3] = {4, 0, 0, 0, -1, 0, 0, 0, 4};
    check(tessera_dpotrf('L', 3, D, 3) == 2, "not positive definite gives info 2");
    tessera_finalize();
    if (failures == 0) printf("c_api_smoke: all checks passed\n");
    return failures == 0 ? 0 : 1;
}
