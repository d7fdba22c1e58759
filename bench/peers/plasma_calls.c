/* The PLASMA calls of tessera-bench's PLASMA peer, in C: PLASMA's headers are C (its complex
 * types are C99's _Complex), so the C++ side (plasma_peer.cpp) calls these few shims instead.
 * Compiled only when tessera-bench is built with PLASMA (bench/CMakeLists.txt). */
#include "bench/peers/plasma_calls.h"

#include <omp.h>
#include <plasma.h>

int tessera_plasma_init(int threads)
{
    omp_set_num_threads(threads); /* plasma_init takes omp_get_max_threads() */
    return plasma_init();
}
int tessera_plasma_finalize(void)
{
    return plasma_finalize();
}

int tessera_plasma_set_tile_size(int nb, int ib)
{
    int info = plasma_set(PlasmaNb, nb);
    return info != 0 ? info : plasma_set(PlasmaIb, ib);
}

static plasma_enum_t uplo_of(char uplo)
{
    return uplo == 'U' || uplo == 'u' ? PlasmaUpper : PlasmaLower;
}

int tessera_plasma_dgemm(int n, double const* a, double const* b, double* c)
{
    return plasma_dgemm(PlasmaNoTrans, PlasmaNoTrans, n, n, n, 1.0, (double*)a, n, (double*)b, n,
                        1.0, c, n);
}

int tessera_plasma_dpotrf(char uplo, int n, double* a)
{
    return plasma_dpotrf(uplo_of(uplo), n, a, n);
}

int tessera_plasma_dposv(char uplo, int n, int nrhs, double* a, double* b)
{
    return plasma_dposv(uplo_of(uplo), n, nrhs, a, n, b, n);
}

int tessera_plasma_dgetrf(int m, int n, double* a, int* ipiv)
{
    return plasma_dgetrf(m, n, a, m, ipiv);
}

int tessera_plasma_dgesv(int n, int nrhs, double* a, int* ipiv, double* b)
{
    return plasma_dgesv(n, nrhs, a, n, ipiv, b, n);
}

int tessera_plasma_dgeqrf(int m, int n, double* a)
{
    plasma_desc_t t; /* PLASMA allocates the T factors; the peer needs R alone */
    int info = plasma_dgeqrf(m, n, a, m, &t);
    if (info == 0) plasma_desc_destroy(&t);
    return info;
}
