/* @file tessera.h
 * Tessera's C API: the LAPACK-style routines in the four precisions s, d, c and z, computed as
 * tile algorithms on all the cores (and devices) of the machine.
 *
 *     int info = tessera_dpotrf('L', n, A, lda);
 *
 * Arguments follow LAPACKE's order without its layout argument (matrices are always
 * column-major) and use int like LAPACKE's LP64 interface; option letters are LAPACK's
 * ('N'/'T'/'C', 'L'/'U', 'L'/'R', 'N'/'U'), upper or lower case. Each routine returns
 * LAPACK's info: 0 on success, -i when argument i is invalid, k > 0 for a numerical failure
 * (potrf, posv: the leading minor of order k is not positive definite; potri: the k-th
 * diagonal entry of the factor is zero; getrf, gesv: U(k,k) is exactly zero, the factorization
 * completed; getri: U(k,k) is exactly zero; gels: the k-th diagonal entry of R or L is zero), or
 * TESSERA_ERROR for any other failure (a device
 * error, out of memory), whose message tessera_last_error() returns. i is the argument's
 * position in LAPACK's (and BLAS's) Fortran interface, as here (LAPACKE's i is one larger:
 * it counts the layout argument). A NULL array that the call would read or write is a bad
 * argument too, at its own position; arguments are checked in order, so the first bad one is
 * reported. As in Fortran LAPACK, the inputs are not checked for NaN (LAPACKE's optional
 * check): a NaN in A stops potrf with info k > 0.
 *
 * The library's runtime starts on the first call, configured by the TESSERA_* environment
 * variables (TESSERA_NCPU, TESSERA_SCHED, TESSERA_NEMU ...), or at tessera_init(); it stops at
 * tessera_finalize() or at exit. Complex scalars are passed by value, as in LAPACKE.
 */
#ifndef TESSERA_TESSERA_H
#define TESSERA_TESSERA_H

#ifdef __cplusplus
#include <complex>
typedef std::complex<float> tessera_complex_float;
typedef std::complex<double> tessera_complex_double;
extern "C" {
#else
#include <complex.h>
typedef float _Complex tessera_complex_float;
typedef double _Complex tessera_complex_double;
#endif

/* Returned for a failure that is neither a bad argument nor a numerical one. */
#define TESSERA_ERROR (-1000)

/* Starts the runtime (0 on success; TESSERA_ERROR if it is already running or cannot start). */
int tessera_init(void);
/* Waits for the calls running on other threads and for the runtime's tasks, then stops it (a
   later call starts it again). Calls from several threads may run at the same time. */
void tessera_finalize(void);
/* Tile size of the following calls (0: automatic, the default); -1 if nb < 0. */
int tessera_set_tile_size(int nb);
/* The message of this thread's last call (other than tessera_finalize and this one) if it
   returned TESSERA_ERROR or a bad argument, "" if it succeeded. */
const char* tessera_last_error(void);

/* C = alpha op(A) op(B) + beta C */
int tessera_sgemm(char transa, char transb, int m, int n, int k, float alpha, const float* A, int lda,
                  const float* B, int ldb, float beta, float* C, int ldc);
int tessera_dgemm(char transa, char transb, int m, int n, int k, double alpha, const double* A, int lda,
                  const double* B, int ldb, double beta, double* C, int ldc);
int tessera_cgemm(char transa, char transb, int m, int n, int k, tessera_complex_float alpha,
                  const tessera_complex_float* A, int lda, const tessera_complex_float* B, int ldb,
                  tessera_complex_float beta, tessera_complex_float* C, int ldc);
int tessera_zgemm(char transa, char transb, int m, int n, int k, tessera_complex_double alpha,
                  const tessera_complex_double* A, int lda, const tessera_complex_double* B, int ldb,
                  tessera_complex_double beta, tessera_complex_double* C, int ldc);

/* C = alpha A B + beta C (side 'L') or alpha B A + beta C (side 'R'), A symmetric */
int tessera_ssymm(char side, char uplo, int m, int n, float alpha, const float* A, int lda, const float* B,
                  int ldb, float beta, float* C, int ldc);
int tessera_dsymm(char side, char uplo, int m, int n, double alpha, const double* A, int lda, const double* B,
                  int ldb, double beta, double* C, int ldc);
int tessera_csymm(char side, char uplo, int m, int n, tessera_complex_float alpha, const tessera_complex_float* A,
                  int lda, const tessera_complex_float* B, int ldb, tessera_complex_float beta,
                  tessera_complex_float* C, int ldc);
int tessera_zsymm(char side, char uplo, int m, int n, tessera_complex_double alpha,
                  const tessera_complex_double* A, int lda, const tessera_complex_double* B, int ldb,
                  tessera_complex_double beta, tessera_complex_double* C, int ldc);
/* the same with A Hermitian */
int tessera_chemm(char side, char uplo, int m, int n, tessera_complex_float alpha, const tessera_complex_float* A,
                  int lda, const tessera_complex_float* B, int ldb, tessera_complex_float beta,
                  tessera_complex_float* C, int ldc);
int tessera_zhemm(char side, char uplo, int m, int n, tessera_complex_double alpha,
                  const tessera_complex_double* A, int lda, const tessera_complex_double* B, int ldb,
                  tessera_complex_double beta, tessera_complex_double* C, int ldc);

/* C = alpha op(A) op(A)^T + beta C on the uplo triangle of C */
int tessera_ssyrk(char uplo, char trans, int n, int k, float alpha, const float* A, int lda, float beta, float* C,
                  int ldc);
int tessera_dsyrk(char uplo, char trans, int n, int k, double alpha, const double* A, int lda, double beta,
                  double* C, int ldc);
int tessera_csyrk(char uplo, char trans, int n, int k, tessera_complex_float alpha, const tessera_complex_float* A,
                  int lda, tessera_complex_float beta, tessera_complex_float* C, int ldc);
int tessera_zsyrk(char uplo, char trans, int n, int k, tessera_complex_double alpha,
                  const tessera_complex_double* A, int lda, tessera_complex_double beta, tessera_complex_double* C,
                  int ldc);
/* C = alpha op(A) op(A)^H + beta C, real alpha and beta */
int tessera_cherk(char uplo, char trans, int n, int k, float alpha, const tessera_complex_float* A, int lda,
                  float beta, tessera_complex_float* C, int ldc);
int tessera_zherk(char uplo, char trans, int n, int k, double alpha, const tessera_complex_double* A, int lda,
                  double beta, tessera_complex_double* C, int ldc);

/* B = alpha op(A)^-1 B (side 'L') or alpha B op(A)^-1 (side 'R'), A triangular */
int tessera_strsm(char side, char uplo, char transa, char diag, int m, int n, float alpha, const float* A, int lda,
                  float* B, int ldb);
int tessera_dtrsm(char side, char uplo, char transa, char diag, int m, int n, double alpha, const double* A,
                  int lda, double* B, int ldb);
int tessera_ctrsm(char side, char uplo, char transa, char diag, int m, int n, tessera_complex_float alpha,
                  const tessera_complex_float* A, int lda, tessera_complex_float* B, int ldb);
int tessera_ztrsm(char side, char uplo, char transa, char diag, int m, int n, tessera_complex_double alpha,
                  const tessera_complex_double* A, int lda, tessera_complex_double* B, int ldb);
/* B = alpha op(A) B (side 'L') or alpha B op(A) (side 'R'), A triangular */
int tessera_strmm(char side, char uplo, char transa, char diag, int m, int n, float alpha, const float* A, int lda,
                  float* B, int ldb);
int tessera_dtrmm(char side, char uplo, char transa, char diag, int m, int n, double alpha, const double* A,
                  int lda, double* B, int ldb);
int tessera_ctrmm(char side, char uplo, char transa, char diag, int m, int n, tessera_complex_float alpha,
                  const tessera_complex_float* A, int lda, tessera_complex_float* B, int ldb);
int tessera_ztrmm(char side, char uplo, char transa, char diag, int m, int n, tessera_complex_double alpha,
                  const tessera_complex_double* A, int lda, tessera_complex_double* B, int ldb);

/* Cholesky factorization A = L L^H (uplo 'L') or U^H U (uplo 'U') */
int tessera_spotrf(char uplo, int n, float* A, int lda);
int tessera_dpotrf(char uplo, int n, double* A, int lda);
int tessera_cpotrf(char uplo, int n, tessera_complex_float* A, int lda);
int tessera_zpotrf(char uplo, int n, tessera_complex_double* A, int lda);
/* Solve A X = B with the factor from potrf */
int tessera_spotrs(char uplo, int n, int nrhs, const float* A, int lda, float* B, int ldb);
int tessera_dpotrs(char uplo, int n, int nrhs, const double* A, int lda, double* B, int ldb);
int tessera_cpotrs(char uplo, int n, int nrhs, const tessera_complex_float* A, int lda, tessera_complex_float* B,
                   int ldb);
int tessera_zpotrs(char uplo, int n, int nrhs, const tessera_complex_double* A, int lda, tessera_complex_double* B,
                   int ldb);
/* Factor and solve A X = B (B untouched when info > 0) */
int tessera_sposv(char uplo, int n, int nrhs, float* A, int lda, float* B, int ldb);
int tessera_dposv(char uplo, int n, int nrhs, double* A, int lda, double* B, int ldb);
int tessera_cposv(char uplo, int n, int nrhs, tessera_complex_float* A, int lda, tessera_complex_float* B, int ldb);
int tessera_zposv(char uplo, int n, int nrhs, tessera_complex_double* A, int lda, tessera_complex_double* B,
                  int ldb);
/* Inverse of A from the factor potrf left in it */
int tessera_spotri(char uplo, int n, float* A, int lda);
int tessera_dpotri(char uplo, int n, double* A, int lda);
int tessera_cpotri(char uplo, int n, tessera_complex_float* A, int lda);
int tessera_zpotri(char uplo, int n, tessera_complex_double* A, int lda);

/* LU factorization with partial pivoting A = P L U, m x n; ipiv: min(m, n) rows from 1 (info k > 0: U(k,k) is
   exactly zero, the factorization completed) */
int tessera_sgetrf(int m, int n, float* A, int lda, int* ipiv);
int tessera_dgetrf(int m, int n, double* A, int lda, int* ipiv);
int tessera_cgetrf(int m, int n, tessera_complex_float* A, int lda, int* ipiv);
int tessera_zgetrf(int m, int n, tessera_complex_double* A, int lda, int* ipiv);
/* LU factorization without pivoting A = L U, m x n (the tile LU of StarPU's examples: stable for matrices such as
   diagonally dominant ones; info k > 0: U(k,k) is exactly zero, the factorization stopped there) */
int tessera_sgetrf_nopiv(int m, int n, float* A, int lda);
int tessera_dgetrf_nopiv(int m, int n, double* A, int lda);
int tessera_cgetrf_nopiv(int m, int n, tessera_complex_float* A, int lda);
int tessera_zgetrf_nopiv(int m, int n, tessera_complex_double* A, int lda);
/* Solve op(A) X = B (trans 'N', 'T', 'C') with the factors from getrf */
int tessera_sgetrs(char trans, int n, int nrhs, const float* A, int lda, const int* ipiv, float* B, int ldb);
int tessera_dgetrs(char trans, int n, int nrhs, const double* A, int lda, const int* ipiv, double* B, int ldb);
int tessera_cgetrs(char trans, int n, int nrhs, const tessera_complex_float* A, int lda, const int* ipiv,
                   tessera_complex_float* B, int ldb);
int tessera_zgetrs(char trans, int n, int nrhs, const tessera_complex_double* A, int lda, const int* ipiv,
                   tessera_complex_double* B, int ldb);
/* Factor and solve A X = B (B untouched when info > 0) */
int tessera_sgesv(int n, int nrhs, float* A, int lda, int* ipiv, float* B, int ldb);
int tessera_dgesv(int n, int nrhs, double* A, int lda, int* ipiv, double* B, int ldb);
int tessera_cgesv(int n, int nrhs, tessera_complex_float* A, int lda, int* ipiv, tessera_complex_float* B, int ldb);
int tessera_zgesv(int n, int nrhs, tessera_complex_double* A, int lda, int* ipiv, tessera_complex_double* B,
                  int ldb);
/* Mixed precision: A factored in single precision, X refined in double (LAPACK's dsgesv, zcgesv); iter: the
   refinement steps, or negative when it fell back to double (-2 overflow, -3 single factorization failed, -31 no
   convergence) */
int tessera_dsgesv(int n, int nrhs, double* A, int lda, int* ipiv, const double* B, int ldb, double* X, int ldx,
                   int* iter);
int tessera_zcgesv(int n, int nrhs, tessera_complex_double* A, int lda, int* ipiv, const tessera_complex_double* B,
                   int ldb, tessera_complex_double* X, int ldx, int* iter);
/* Inverse of A from the factors getrf left in it (info k > 0: U(k,k) is exactly zero, A untouched) */
int tessera_sgetri(int n, float* A, int lda, const int* ipiv);
int tessera_dgetri(int n, double* A, int lda, const int* ipiv);
int tessera_cgetri(int n, tessera_complex_float* A, int lda, const int* ipiv);
int tessera_zgetri(int n, tessera_complex_double* A, int lda, const int* ipiv);

/* The QR family. geqrf: A = Q R, R on and above the diagonal, Q's reflectors below it and in tau
   (min(m, n) entries), in LAPACK's compact form (LAPACK's ormqr and orgqr accept it) */
int tessera_sgeqrf(int m, int n, float* A, int lda, float* tau);
int tessera_dgeqrf(int m, int n, double* A, int lda, double* tau);
int tessera_cgeqrf(int m, int n, tessera_complex_float* A, int lda, tessera_complex_float* tau);
int tessera_zgeqrf(int m, int n, tessera_complex_double* A, int lda, tessera_complex_double* tau);
/* C = op(Q) C (side 'L') or C op(Q) ('R'), op 'N' or Q^H ('T' real, 'C' complex), Q from geqrf's k reflectors */
int tessera_sormqr(char side, char trans, int m, int n, int k, const float* A, int lda, const float* tau, float* C,
                   int ldc);
int tessera_dormqr(char side, char trans, int m, int n, int k, const double* A, int lda, const double* tau,
                   double* C, int ldc);
int tessera_cunmqr(char side, char trans, int m, int n, int k, const tessera_complex_float* A, int lda,
                   const tessera_complex_float* tau, tessera_complex_float* C, int ldc);
int tessera_zunmqr(char side, char trans, int m, int n, int k, const tessera_complex_double* A, int lda,
                   const tessera_complex_double* tau, tessera_complex_double* C, int ldc);
/* The first n columns of Q (k <= n <= m) from geqrf's k reflectors in A, in place */
int tessera_sorgqr(int m, int n, int k, float* A, int lda, const float* tau);
int tessera_dorgqr(int m, int n, int k, double* A, int lda, const double* tau);
int tessera_cungqr(int m, int n, int k, tessera_complex_float* A, int lda, const tessera_complex_float* tau);
int tessera_zungqr(int m, int n, int k, tessera_complex_double* A, int lda, const tessera_complex_double* tau);
/* gelqf: A = L Q, L on and below the diagonal, Q's reflectors right of it and in tau (LAPACK's compact form) */
int tessera_sgelqf(int m, int n, float* A, int lda, float* tau);
int tessera_dgelqf(int m, int n, double* A, int lda, double* tau);
int tessera_cgelqf(int m, int n, tessera_complex_float* A, int lda, tessera_complex_float* tau);
int tessera_zgelqf(int m, int n, tessera_complex_double* A, int lda, tessera_complex_double* tau);
/* C = op(Q) C or C op(Q), Q from gelqf's k reflectors (the k rows of A) */
int tessera_sormlq(char side, char trans, int m, int n, int k, const float* A, int lda, const float* tau, float* C,
                   int ldc);
int tessera_dormlq(char side, char trans, int m, int n, int k, const double* A, int lda, const double* tau,
                   double* C, int ldc);
int tessera_cunmlq(char side, char trans, int m, int n, int k, const tessera_complex_float* A, int lda,
                   const tessera_complex_float* tau, tessera_complex_float* C, int ldc);
int tessera_zunmlq(char side, char trans, int m, int n, int k, const tessera_complex_double* A, int lda,
                   const tessera_complex_double* tau, tessera_complex_double* C, int ldc);
/* The first m rows of Q (k <= m <= n) from gelqf's k reflectors in A, in place */
int tessera_sorglq(int m, int n, int k, float* A, int lda, const float* tau);
int tessera_dorglq(int m, int n, int k, double* A, int lda, const double* tau);
int tessera_cunglq(int m, int n, int k, tessera_complex_float* A, int lda, const tessera_complex_float* tau);
int tessera_zunglq(int m, int n, int k, tessera_complex_double* A, int lda, const tessera_complex_double* tau);
/* Least squares (overdetermined) or minimum norm (underdetermined) solution of op(A) X = B, A of full rank,
   through its QR (m >= n) or LQ (m < n); B is max(m, n) x nrhs (info k > 0: the k-th diagonal entry of R or L
   is zero) */
int tessera_sgels(char trans, int m, int n, int nrhs, float* A, int lda, float* B, int ldb);
int tessera_dgels(char trans, int m, int n, int nrhs, double* A, int lda, double* B, int ldb);
int tessera_cgels(char trans, int m, int n, int nrhs, tessera_complex_float* A, int lda, tessera_complex_float* B,
                  int ldb);
int tessera_zgels(char trans, int m, int n, int nrhs, tessera_complex_double* A, int lda, tessera_complex_double* B,
                  int ldb);

/* ---- 2D discrete Fourier transforms, as FFTW's interface ------------------------------------
 * Plans over row-major arrays (as FFTW's), unnormalized: a forward transform then a backward
 * one multiplies by n0 n1. In place when in and out are the same array (for the real
 * transforms, FFTW's padded layout: rows of 2 (n1/2 + 1) reals). A plan creation with a bad
 * argument (n0 or n1 < 1, a null array, unknown flags, arrays that overlap without being the
 * same) returns NULL, and tessera_last_error() names the argument. Unlike FFTW's, planning
 * never touches the arrays, with TESSERA_FFT_MEASURE too. execute returns 0, or TESSERA_ERROR
 * (a device error, a new-array execute whose arrays differ from the plan's in kind or
 * in-placeness) with tessera_last_error()'s message. The tessera_fftf_ forms are the same in
 * single precision. */
#define TESSERA_FFT_FORWARD (-1)
#define TESSERA_FFT_BACKWARD (+1)
#define TESSERA_FFT_MEASURE (0U)
#define TESSERA_FFT_ESTIMATE (1U << 6)

typedef struct tessera_fft_plan_s* tessera_fft_plan;
typedef struct tessera_fftf_plan_s* tessera_fftf_plan;

/* out = DFT2(in), n0 x n1 complex, exponent sign TESSERA_FFT_FORWARD or TESSERA_FFT_BACKWARD */
tessera_fft_plan tessera_fft_plan_dft_2d(int n0, int n1, tessera_complex_double* in, tessera_complex_double* out,
                                         int sign, unsigned flags);
tessera_fftf_plan tessera_fftf_plan_dft_2d(int n0, int n1, tessera_complex_float* in, tessera_complex_float* out,
                                           int sign, unsigned flags);
/* out = DFT(in), n complex points (large n: as tasks, by the four-step algorithm) */
tessera_fft_plan tessera_fft_plan_dft_1d(int n, tessera_complex_double* in, tessera_complex_double* out, int sign,
                                         unsigned flags);
tessera_fftf_plan tessera_fftf_plan_dft_1d(int n, tessera_complex_float* in, tessera_complex_float* out, int sign,
                                           unsigned flags);
/* howmany transforms of rank 1 (n[0] points) or 2 (n[0] x n[1]), transform t from in + t idist to
   out + t odist (FFTW's plan_many_dft with contiguous elements; in place: idist == odist) */
tessera_fft_plan tessera_fft_plan_many_dft(int rank, const int* n, int howmany, tessera_complex_double* in, int idist,
                                           tessera_complex_double* out, int odist, int sign, unsigned flags);
tessera_fftf_plan tessera_fftf_plan_many_dft(int rank, const int* n, int howmany, tessera_complex_float* in, int idist,
                                             tessera_complex_float* out, int odist, int sign, unsigned flags);
/* out (n0 x (n1/2 + 1)) = the half-spectrum of the real n0 x n1 in, forward */
tessera_fft_plan tessera_fft_plan_dft_r2c_2d(int n0, int n1, double* in, tessera_complex_double* out, unsigned flags);
tessera_fftf_plan tessera_fftf_plan_dft_r2c_2d(int n0, int n1, float* in, tessera_complex_float* out, unsigned flags);
/* out (real n0 x n1) from its half-spectrum in (n0 x (n1/2 + 1), overwritten), backward */
tessera_fft_plan tessera_fft_plan_dft_c2r_2d(int n0, int n1, tessera_complex_double* in, double* out, unsigned flags);
tessera_fftf_plan tessera_fftf_plan_dft_c2r_2d(int n0, int n1, tessera_complex_float* in, float* out, unsigned flags);
/* Runs the plan on its arrays */
int tessera_fft_execute(tessera_fft_plan plan);
int tessera_fftf_execute(tessera_fftf_plan plan);
/* Runs the plan on other arrays of its kind, in place exactly when the plan is */
int tessera_fft_execute_dft(tessera_fft_plan plan, tessera_complex_double* in, tessera_complex_double* out);
int tessera_fftf_execute_dft(tessera_fftf_plan plan, tessera_complex_float* in, tessera_complex_float* out);
int tessera_fft_execute_dft_r2c(tessera_fft_plan plan, double* in, tessera_complex_double* out);
int tessera_fftf_execute_dft_r2c(tessera_fftf_plan plan, float* in, tessera_complex_float* out);
int tessera_fft_execute_dft_c2r(tessera_fft_plan plan, tessera_complex_double* in, double* out);
int tessera_fftf_execute_dft_c2r(tessera_fftf_plan plan, tessera_complex_float* in, float* out);
/* Frees the plan (NULL: nothing) */
void tessera_fft_destroy_plan(tessera_fft_plan plan);
void tessera_fftf_destroy_plan(tessera_fftf_plan plan);
/* FFTW's wisdom of both precisions as text, to free() (NULL when out of memory), and its
   import (1 when FFTW accepts it, 0 otherwise) */
char* tessera_fft_export_wisdom_to_string(void);
int tessera_fft_import_wisdom_from_string(const char* wisdom);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_TESSERA_H */
