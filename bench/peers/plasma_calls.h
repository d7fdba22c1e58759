/* The C shims over PLASMA that tessera-bench's PLASMA peer calls (plasma_calls.c): column-major
 * double precision, leading dimension m (or n), PLASMA's info returned. */
#ifndef TESSERA_BENCH_PLASMA_CALLS_H
#define TESSERA_BENCH_PLASMA_CALLS_H

#ifdef __cplusplus
extern "C" {
#endif

int tessera_plasma_init(int threads);
int tessera_plasma_finalize(void);
int tessera_plasma_set_tile_size(int nb, int ib);
int tessera_plasma_dgemm(int n, double const* a, double const* b, double* c);
int tessera_plasma_dpotrf(char uplo, int n, double* a);
int tessera_plasma_dposv(char uplo, int n, int nrhs, double* a, double* b);
int tessera_plasma_dgetrf(int m, int n, double* a, int* ipiv);
int tessera_plasma_dgesv(int n, int nrhs, double* a, int* ipiv, double* b);
int tessera_plasma_dgeqrf(int m, int n, double* a);

#ifdef __cplusplus
}
#endif

#endif
