/// @file tessera.h
/// Tessera's C API: the LAPACK-style routines in the four precisions s, d, c and z, computed as
/// tile algorithms on all the cores (and devices) of the machine, and 2D FFTs with FFTW's
/// interface.
///
///     int info = tessera_dpotrf('L', n, A, lda);
///
/// Arguments follow LAPACKE's order without its layout argument (matrices are always
/// column-major) and use int like LAPACKE's LP64 interface; option letters are LAPACK's
/// ('N'/'T'/'C', 'L'/'U', 'L'/'R', 'N'/'U'), upper or lower case. Each routine waits for its
/// result and returns LAPACK's info: 0 on success, -i when argument i is invalid, k > 0 for a
/// numerical failure (potrf, posv: the leading minor of order k is not positive definite;
/// potri: the k-th diagonal entry of the factor is zero; getrf, gesv: U(k,k) is exactly zero,
/// the factorization completed; getrf_nopiv: U(k,k) is exactly zero, the factorization
/// stopped; getri: U(k,k) is exactly zero; gels: the k-th diagonal entry of R or L is zero),
/// or TESSERA_ERROR for any other failure (a device error, out of memory). After -i or
/// TESSERA_ERROR, tessera_last_error() returns the message (for -i, naming the argument). i is
/// the argument's position in LAPACK's (and BLAS's) Fortran interface, as here (LAPACKE's i is
/// one larger: it counts the layout argument). A NULL array that the call would read or write
/// is a bad argument too, at its own position; arguments are checked in order, so the first
/// bad one is reported. As in Fortran LAPACK, the inputs are not checked for NaN (LAPACKE's
/// optional check): a NaN in A stops potrf with info k > 0.
///
/// The library's runtime starts on the first call, configured by the TESSERA_* environment
/// variables (TESSERA_NCPU, TESSERA_SCHED, TESSERA_NEMU ...), or at tessera_init(); it stops at
/// tessera_finalize() or at exit. Calls from several threads may run at the same time. Complex
/// scalars are passed by value, as in LAPACKE.
///
/// The FFTs are plans over row-major arrays (as FFTW's), unnormalized: a forward transform
/// then a backward one multiplies by n0 n1. In place when in and out are the same array (for
/// the real transforms, FFTW's padded layout: rows of 2 (n1/2 + 1) reals). A plan creation
/// with a bad argument (n0 or n1 < 1, a null array, a bad sign, unknown flags, arrays that
/// overlap without being the same) returns NULL, and tessera_last_error() names the argument.
/// Unlike FFTW's, planning never touches the arrays, with TESSERA_FFT_MEASURE too. An execute
/// returns 0, or TESSERA_ERROR (a device error, a new-array execute whose arrays differ from
/// the plan's in kind or in-placeness) with tessera_last_error()'s message. The tessera_fftf_
/// functions are the same in single precision.
#ifndef TESSERA_TESSERA_H
#define TESSERA_TESSERA_H

#ifdef __cplusplus
#include <complex>
/// A single-precision complex number: `std::complex<float>` in C++, float _Complex in C.
typedef std::complex<float> tessera_complex_float;
/// A double-precision complex number: `std::complex<double>` in C++, double _Complex in C.
typedef std::complex<double> tessera_complex_double;
extern "C" {
#else
#include <complex.h>
/// A single-precision complex number: float _Complex in C, `std::complex<float>` in C++.
typedef float _Complex tessera_complex_float;
/// A double-precision complex number: double _Complex in C, `std::complex<double>` in C++.
typedef double _Complex tessera_complex_double;
#endif

/// Returned for a failure that is neither a bad argument nor a numerical one (a device error,
/// out of memory); tessera_last_error() gives its message.
#define TESSERA_ERROR (-1000)

/// Starts the library's runtime, configured by the TESSERA_* environment variables (optional:
/// the first call starts it otherwise). Returns 0, or TESSERA_ERROR if it is already running
/// or cannot start.
int tessera_init(void);
/// Waits for the calls running on other threads and for the runtime's tasks, then stops the
/// runtime (nothing when it is not running); calls made meanwhile wait for it, and a later
/// call starts it again.
void tessera_finalize(void);
/// Sets the tile size of the linear algebra calls that follow, on every thread (0: automatic,
/// the default). Returns 0, or -1 if nb < 0.
int tessera_set_tile_size(int nb);
/// The message of this thread's last call if it failed (it returned -i, TESSERA_ERROR or NULL,
/// or an import was given NULL), or "" if it succeeded (info > 0 included). tessera_finalize,
/// the destroy_plan functions and this one leave it as it is. The string stays valid until
/// the thread's next call.
const char* tessera_last_error(void);

/// C = alpha op(A) op(B) + beta C (BLAS's sgemm, dgemm, cgemm, zgemm): op(A) is m x k, op(B)
/// k x n, C m x n; transa and transb give op(X) = X ('N'), X^T ('T') or X^H ('C'). When k = 0
/// or alpha = 0, A and B are not read. Returns 0, -i (bad argument i) or TESSERA_ERROR.
///@{
int tessera_sgemm(char transa, char transb, int m, int n, int k, float alpha, const float* A,
                  int lda, const float* B, int ldb, float beta, float* C, int ldc);
int tessera_dgemm(char transa, char transb, int m, int n, int k, double alpha, const double* A,
                  int lda, const double* B, int ldb, double beta, double* C, int ldc);
int tessera_cgemm(char transa, char transb, int m, int n, int k, tessera_complex_float alpha,
                  const tessera_complex_float* A, int lda, const tessera_complex_float* B, int ldb,
                  tessera_complex_float beta, tessera_complex_float* C, int ldc);
int tessera_zgemm(char transa, char transb, int m, int n, int k, tessera_complex_double alpha,
                  const tessera_complex_double* A, int lda, const tessera_complex_double* B,
                  int ldb, tessera_complex_double beta, tessera_complex_double* C, int ldc);
///@}

/// C = alpha A B + beta C (side 'L') or alpha B A + beta C (side 'R'), A symmetric of order m
/// ('L') or n ('R') with its uplo ('L' or 'U') triangle referenced, B and C m x n (BLAS's
/// ssymm, dsymm, csymm, zsymm). Returns 0, -i (bad argument i) or TESSERA_ERROR.
///@{
int tessera_ssymm(char side, char uplo, int m, int n, float alpha, const float* A, int lda,
                  const float* B, int ldb, float beta, float* C, int ldc);
int tessera_dsymm(char side, char uplo, int m, int n, double alpha, const double* A, int lda,
                  const double* B, int ldb, double beta, double* C, int ldc);
int tessera_csymm(char side, char uplo, int m, int n, tessera_complex_float alpha,
                  const tessera_complex_float* A, int lda, const tessera_complex_float* B, int ldb,
                  tessera_complex_float beta, tessera_complex_float* C, int ldc);
int tessera_zsymm(char side, char uplo, int m, int n, tessera_complex_double alpha,
                  const tessera_complex_double* A, int lda, const tessera_complex_double* B,
                  int ldb, tessera_complex_double beta, tessera_complex_double* C, int ldc);
///@}
/// The same as symm with A Hermitian (BLAS's chemm, zhemm).
///@{
int tessera_chemm(char side, char uplo, int m, int n, tessera_complex_float alpha,
                  const tessera_complex_float* A, int lda, const tessera_complex_float* B, int ldb,
                  tessera_complex_float beta, tessera_complex_float* C, int ldc);
int tessera_zhemm(char side, char uplo, int m, int n, tessera_complex_double alpha,
                  const tessera_complex_double* A, int lda, const tessera_complex_double* B,
                  int ldb, tessera_complex_double beta, tessera_complex_double* C, int ldc);
///@}

/// C = alpha op(A) op(A)^T + beta C on the uplo ('L' or 'U') triangle of the n x n C, the
/// other not referenced; op(A) is n x k, A ('N') or A^T ('T'; 'C' too for the real types)
/// (BLAS's ssyrk, dsyrk, csyrk, zsyrk). Returns 0, -i (bad argument i) or TESSERA_ERROR.
///@{
int tessera_ssyrk(char uplo, char trans, int n, int k, float alpha, const float* A, int lda,
                  float beta, float* C, int ldc);
int tessera_dsyrk(char uplo, char trans, int n, int k, double alpha, const double* A, int lda,
                  double beta, double* C, int ldc);
int tessera_csyrk(char uplo, char trans, int n, int k, tessera_complex_float alpha,
                  const tessera_complex_float* A, int lda, tessera_complex_float beta,
                  tessera_complex_float* C, int ldc);
int tessera_zsyrk(char uplo, char trans, int n, int k, tessera_complex_double alpha,
                  const tessera_complex_double* A, int lda, tessera_complex_double beta,
                  tessera_complex_double* C, int ldc);
///@}
/// C = alpha op(A) op(A)^H + beta C with real alpha and beta, on the uplo triangle of the n x n
/// C; op(A) is n x k, A ('N') or A^H ('C') (BLAS's cherk, zherk). Returns 0, -i (bad argument
/// i) or TESSERA_ERROR.
///@{
int tessera_cherk(char uplo, char trans, int n, int k, float alpha, const tessera_complex_float* A,
                  int lda, float beta, tessera_complex_float* C, int ldc);
int tessera_zherk(char uplo, char trans, int n, int k, double alpha,
                  const tessera_complex_double* A, int lda, double beta, tessera_complex_double* C,
                  int ldc);
///@}

/// B = alpha op(A)^-1 B (side 'L') or alpha B op(A)^-1 (side 'R'): the m x n B is overwritten
/// by the solution X of op(A) X = alpha B (or X op(A) = alpha B). A is triangular of order m
/// ('L') or n ('R'), its uplo ('L' or 'U') triangle referenced, its diagonal taken as ones
/// (and not read) when diag is 'U'; transa gives op(A) = A ('N'), A^T ('T') or A^H ('C'). No test
/// for singularity is made (BLAS's strsm, dtrsm, ctrsm, ztrsm). Returns 0, -i (bad argument i)
/// or TESSERA_ERROR.
///@{
int tessera_strsm(char side, char uplo, char transa, char diag, int m, int n, float alpha,
                  const float* A, int lda, float* B, int ldb);
int tessera_dtrsm(char side, char uplo, char transa, char diag, int m, int n, double alpha,
                  const double* A, int lda, double* B, int ldb);
int tessera_ctrsm(char side, char uplo, char transa, char diag, int m, int n,
                  tessera_complex_float alpha, const tessera_complex_float* A, int lda,
                  tessera_complex_float* B, int ldb);
int tessera_ztrsm(char side, char uplo, char transa, char diag, int m, int n,
                  tessera_complex_double alpha, const tessera_complex_double* A, int lda,
                  tessera_complex_double* B, int ldb);
///@}
/// B = alpha op(A) B (side 'L') or alpha B op(A) (side 'R'), A triangular, with the arguments
/// of trsm (BLAS's strmm, dtrmm, ctrmm, ztrmm). Returns 0, -i (bad argument i) or
/// TESSERA_ERROR.
///@{
int tessera_strmm(char side, char uplo, char transa, char diag, int m, int n, float alpha,
                  const float* A, int lda, float* B, int ldb);
int tessera_dtrmm(char side, char uplo, char transa, char diag, int m, int n, double alpha,
                  const double* A, int lda, double* B, int ldb);
int tessera_ctrmm(char side, char uplo, char transa, char diag, int m, int n,
                  tessera_complex_float alpha, const tessera_complex_float* A, int lda,
                  tessera_complex_float* B, int ldb);
int tessera_ztrmm(char side, char uplo, char transa, char diag, int m, int n,
                  tessera_complex_double alpha, const tessera_complex_double* A, int lda,
                  tessera_complex_double* B, int ldb);
///@}

/// Cholesky factorization A = L L^H (uplo 'L') or U^H U (uplo 'U') of the Hermitian (real:
/// symmetric) positive definite n x n A, in place (LAPACK's spotrf, dpotrf, cpotrf, zpotrf):
/// the uplo triangle becomes L or U; the other is not referenced. Returns 0; k > 0 when the
/// leading minor of order k is not positive definite (the factorization stops there, A
/// part-way); -i (bad argument i); or TESSERA_ERROR.
///@{
int tessera_spotrf(char uplo, int n, float* A, int lda);
int tessera_dpotrf(char uplo, int n, double* A, int lda);
int tessera_cpotrf(char uplo, int n, tessera_complex_float* A, int lda);
int tessera_zpotrf(char uplo, int n, tessera_complex_double* A, int lda);
///@}
/// Solves A X = B with the factor potrf left in the uplo triangle of A, which is only read;
/// B (n x nrhs) is overwritten by X (LAPACK's spotrs, dpotrs, cpotrs, zpotrs). Returns 0, -i
/// (bad argument i) or TESSERA_ERROR.
///@{
int tessera_spotrs(char uplo, int n, int nrhs, const float* A, int lda, float* B, int ldb);
int tessera_dpotrs(char uplo, int n, int nrhs, const double* A, int lda, double* B, int ldb);
int tessera_cpotrs(char uplo, int n, int nrhs, const tessera_complex_float* A, int lda,
                   tessera_complex_float* B, int ldb);
int tessera_zpotrs(char uplo, int n, int nrhs, const tessera_complex_double* A, int lda,
                   tessera_complex_double* B, int ldb);
///@}
/// Factors A as potrf does and solves A X = B, B (n x nrhs) overwritten by X (LAPACK's sposv,
/// dposv, cposv, zposv). Returns potrf's info (B untouched when k > 0), -i (bad argument i)
/// or TESSERA_ERROR.
///@{
int tessera_sposv(char uplo, int n, int nrhs, float* A, int lda, float* B, int ldb);
int tessera_dposv(char uplo, int n, int nrhs, double* A, int lda, double* B, int ldb);
int tessera_cposv(char uplo, int n, int nrhs, tessera_complex_float* A, int lda,
                  tessera_complex_float* B, int ldb);
int tessera_zposv(char uplo, int n, int nrhs, tessera_complex_double* A, int lda,
                  tessera_complex_double* B, int ldb);
///@}
/// Inverse of A from the factor potrf left in it: the uplo triangle of A^-1 overwrites the
/// factor (LAPACK's spotri, dpotri, cpotri, zpotri). Returns 0; k > 0 when the factor's k-th
/// diagonal entry is exactly zero (A untouched); -i (bad argument i); or TESSERA_ERROR.
///@{
int tessera_spotri(char uplo, int n, float* A, int lda);
int tessera_dpotri(char uplo, int n, double* A, int lda);
int tessera_cpotri(char uplo, int n, tessera_complex_float* A, int lda);
int tessera_zpotri(char uplo, int n, tessera_complex_double* A, int lda);
///@}

/// LU factorization with partial pivoting A = P L U of the m x n A, in place (LAPACK's
/// sgetrf, dgetrf, cgetrf, zgetrf): L unit lower trapezoidal below the diagonal (its unit
/// diagonal not stored), U upper trapezoidal on and above it. ipiv receives min(m, n) rows
/// from 1: row i was interchanged with row ipiv[i - 1], for i = 1, ..., min(m, n) in order.
/// Returns 0; k > 0 when U(k,k) is exactly zero (the first such k; the factorization is
/// completed); -i (bad argument i); or TESSERA_ERROR.
///@{
int tessera_sgetrf(int m, int n, float* A, int lda, int* ipiv);
int tessera_dgetrf(int m, int n, double* A, int lda, int* ipiv);
int tessera_cgetrf(int m, int n, tessera_complex_float* A, int lda, int* ipiv);
int tessera_zgetrf(int m, int n, tessera_complex_double* A, int lda, int* ipiv);
///@}
/// LU factorization without pivoting A = L U of the m x n A, in place, L and U stored as getrf
/// stores them (the tile LU of StarPU's examples: stable for matrices such as diagonally
/// dominant ones; LAPACK has no such routine). Returns 0; k > 0 when U(k,k) is exactly zero
/// (the factorization stops there); -i (bad argument i); or TESSERA_ERROR.
///@{
int tessera_sgetrf_nopiv(int m, int n, float* A, int lda);
int tessera_dgetrf_nopiv(int m, int n, double* A, int lda);
int tessera_cgetrf_nopiv(int m, int n, tessera_complex_float* A, int lda);
int tessera_zgetrf_nopiv(int m, int n, tessera_complex_double* A, int lda);
///@}
/// Solves op(A) X = B, op(A) = A ('N'), A^T ('T') or A^H ('C'), with the factors getrf left in
/// the n x n A and ipiv (n entries, from 1), which are only read; B (n x nrhs) is overwritten
/// by X (LAPACK's sgetrs, dgetrs, cgetrs, zgetrs). Returns 0, -i (bad argument i) or
/// TESSERA_ERROR.
///@{
int tessera_sgetrs(char trans, int n, int nrhs, const float* A, int lda, const int* ipiv, float* B,
                   int ldb);
int tessera_dgetrs(char trans, int n, int nrhs, const double* A, int lda, const int* ipiv,
                   double* B, int ldb);
int tessera_cgetrs(char trans, int n, int nrhs, const tessera_complex_float* A, int lda,
                   const int* ipiv, tessera_complex_float* B, int ldb);
int tessera_zgetrs(char trans, int n, int nrhs, const tessera_complex_double* A, int lda,
                   const int* ipiv, tessera_complex_double* B, int ldb);
///@}
/// Factors the n x n A as getrf does (ipiv: n entries) and solves A X = B, B (n x nrhs)
/// overwritten by X (LAPACK's sgesv, dgesv, cgesv, zgesv). Returns getrf's info: when k > 0,
/// A and ipiv hold the completed factorization and B is untouched; -i (bad argument i) or
/// TESSERA_ERROR.
///@{
int tessera_sgesv(int n, int nrhs, float* A, int lda, int* ipiv, float* B, int ldb);
int tessera_dgesv(int n, int nrhs, double* A, int lda, int* ipiv, double* B, int ldb);
int tessera_cgesv(int n, int nrhs, tessera_complex_float* A, int lda, int* ipiv,
                  tessera_complex_float* B, int ldb);
int tessera_zgesv(int n, int nrhs, tessera_complex_double* A, int lda, int* ipiv,
                  tessera_complex_double* B, int ldb);
///@}
/// Mixed precision (LAPACK's dsgesv, zcgesv): solves A X = B with A factored in single
/// precision and X refined in double to double precision's accuracy, by LAPACK's stopping
/// rule. B (n x nrhs) is only read; X receives the solution. *iter is the number of refinement
/// steps when it converged (A is then untouched and ipiv holds the single-precision pivots),
/// or negative when it fell back to the double-precision gesv, whose factorization A and ipiv
/// then hold (-1: called inside a task or with nrhs = 0; -2: an entry beyond single's range;
/// -3: the single-precision factorization found a zero pivot; -31: no convergence in 30
/// steps). Returns gesv's info, -i (bad argument i; a NULL iter is argument 10) or
/// TESSERA_ERROR.
///@{
int tessera_dsgesv(int n, int nrhs, double* A, int lda, int* ipiv, const double* B, int ldb,
                   double* X, int ldx, int* iter);
int tessera_zcgesv(int n, int nrhs, tessera_complex_double* A, int lda, int* ipiv,
                   const tessera_complex_double* B, int ldb, tessera_complex_double* X, int ldx,
                   int* iter);
///@}
/// Inverse of A from the factors getrf left in the n x n A and ipiv, in place: inv(A) =
/// inv(U) inv(L) P^T (LAPACK's sgetri, dgetri, cgetri, zgetri). Returns 0; k > 0 when U(k,k)
/// is exactly zero (A untouched); -i (bad argument i); or TESSERA_ERROR.
///@{
int tessera_sgetri(int n, float* A, int lda, const int* ipiv);
int tessera_dgetri(int n, double* A, int lda, const int* ipiv);
int tessera_cgetri(int n, tessera_complex_float* A, int lda, const int* ipiv);
int tessera_zgetri(int n, tessera_complex_double* A, int lda, const int* ipiv);
///@}

/// QR factorization A = Q R of the m x n A, in place (LAPACK's sgeqrf, dgeqrf, cgeqrf,
/// zgeqrf): R on and above the diagonal; below it, Q's reflectors H_i = I - tau_i v_i v_i^H
/// (v_i(i) = 1 not stored), with tau_i in tau (min(m, n) entries): Q = H_1 ... H_k,
/// k = min(m, n), LAPACK's compact form (LAPACK's ormqr and orgqr accept it). Returns 0, -i
/// (bad argument i) or TESSERA_ERROR.
///@{
int tessera_sgeqrf(int m, int n, float* A, int lda, float* tau);
int tessera_dgeqrf(int m, int n, double* A, int lda, double* tau);
int tessera_cgeqrf(int m, int n, tessera_complex_float* A, int lda, tessera_complex_float* tau);
int tessera_zgeqrf(int m, int n, tessera_complex_double* A, int lda, tessera_complex_double* tau);
///@}
/// C (m x n) = op(Q) C (side 'L') or C op(Q) (side 'R'), Q = H_1 ... H_k from geqrf's k
/// reflectors in the columns of A (m x k for 'L', n x k for 'R') and tau; trans 'N' (Q) or
/// Q^H ('C'; 'T' too for the real types) (LAPACK's sormqr, dormqr, cunmqr, zunmqr). Returns
/// 0, -i (bad argument i) or TESSERA_ERROR.
///@{
int tessera_sormqr(char side, char trans, int m, int n, int k, const float* A, int lda,
                   const float* tau, float* C, int ldc);
int tessera_dormqr(char side, char trans, int m, int n, int k, const double* A, int lda,
                   const double* tau, double* C, int ldc);
int tessera_cunmqr(char side, char trans, int m, int n, int k, const tessera_complex_float* A,
                   int lda, const tessera_complex_float* tau, tessera_complex_float* C, int ldc);
int tessera_zunmqr(char side, char trans, int m, int n, int k, const tessera_complex_double* A,
                   int lda, const tessera_complex_double* tau, tessera_complex_double* C, int ldc);
///@}
/// The m x n A (k <= n <= m) becomes the first n columns of Q = H_1 ... H_k, from geqrf's k
/// reflectors in its first k columns and tau (LAPACK's sorgqr, dorgqr, cungqr, zungqr).
/// Returns 0, -i (bad argument i) or TESSERA_ERROR.
///@{
int tessera_sorgqr(int m, int n, int k, float* A, int lda, const float* tau);
int tessera_dorgqr(int m, int n, int k, double* A, int lda, const double* tau);
int tessera_cungqr(int m, int n, int k, tessera_complex_float* A, int lda,
                   const tessera_complex_float* tau);
int tessera_zungqr(int m, int n, int k, tessera_complex_double* A, int lda,
                   const tessera_complex_double* tau);
///@}
/// LQ factorization A = L Q of the m x n A, in place (LAPACK's sgelqf, dgelqf, cgelqf,
/// zgelqf): L on and below the diagonal; Q's reflectors right of it, conj(v_i) in row i, with
/// tau (min(m, n) entries), in LAPACK's compact form. Returns 0, -i (bad argument i) or
/// TESSERA_ERROR.
///@{
int tessera_sgelqf(int m, int n, float* A, int lda, float* tau);
int tessera_dgelqf(int m, int n, double* A, int lda, double* tau);
int tessera_cgelqf(int m, int n, tessera_complex_float* A, int lda, tessera_complex_float* tau);
int tessera_zgelqf(int m, int n, tessera_complex_double* A, int lda, tessera_complex_double* tau);
///@}
/// C (m x n) = op(Q) C (side 'L') or C op(Q) (side 'R'), Q from gelqf's k reflectors in the
/// rows of A (k x m for 'L', k x n for 'R') and tau; trans as in ormqr (LAPACK's sormlq,
/// dormlq, cunmlq, zunmlq). Returns 0, -i (bad argument i) or TESSERA_ERROR.
///@{
int tessera_sormlq(char side, char trans, int m, int n, int k, const float* A, int lda,
                   const float* tau, float* C, int ldc);
int tessera_dormlq(char side, char trans, int m, int n, int k, const double* A, int lda,
                   const double* tau, double* C, int ldc);
int tessera_cunmlq(char side, char trans, int m, int n, int k, const tessera_complex_float* A,
                   int lda, const tessera_complex_float* tau, tessera_complex_float* C, int ldc);
int tessera_zunmlq(char side, char trans, int m, int n, int k, const tessera_complex_double* A,
                   int lda, const tessera_complex_double* tau, tessera_complex_double* C, int ldc);
///@}
/// The m x n A (k <= m <= n) becomes the first m rows of gelqf's Q, from its k reflectors in
/// the first k rows of A and tau (LAPACK's sorglq, dorglq, cunglq, zunglq). Returns 0, -i
/// (bad argument i) or TESSERA_ERROR.
///@{
int tessera_sorglq(int m, int n, int k, float* A, int lda, const float* tau);
int tessera_dorglq(int m, int n, int k, double* A, int lda, const double* tau);
int tessera_cunglq(int m, int n, int k, tessera_complex_float* A, int lda,
                   const tessera_complex_float* tau);
int tessera_zunglq(int m, int n, int k, tessera_complex_double* A, int lda,
                   const tessera_complex_double* tau);
///@}
/// Least-squares (overdetermined: min ||B - op(A) X||_2) or minimum-norm (underdetermined)
/// solution of op(A) X = B for the m x n A of full rank, through its QR (m >= n) or LQ
/// (m < n); op(A) is A ('N') or A^H ('C'; 'T' too for the real types) (LAPACK's sgels, dgels,
/// cgels, zgels). B is max(m, n) x nrhs: the right-hand sides in, the solutions out; A ends
/// holding its factorization. Returns 0; k > 0 when the k-th diagonal entry of R or L is
/// exactly zero (A is not of full rank; no solution is computed); -i (bad argument i); or
/// TESSERA_ERROR.
///@{
int tessera_sgels(char trans, int m, int n, int nrhs, float* A, int lda, float* B, int ldb);
int tessera_dgels(char trans, int m, int n, int nrhs, double* A, int lda, double* B, int ldb);
int tessera_cgels(char trans, int m, int n, int nrhs, tessera_complex_float* A, int lda,
                  tessera_complex_float* B, int ldb);
int tessera_zgels(char trans, int m, int n, int nrhs, tessera_complex_double* A, int lda,
                  tessera_complex_double* B, int ldb);
///@}

/* ---- 2D discrete Fourier transforms, as FFTW's interface (see the file's comment) ---------- */
/// The sign of the forward transform's exponent (FFTW_FORWARD).
#define TESSERA_FFT_FORWARD (-1)
/// The sign of the backward transform's exponent (FFTW_BACKWARD).
#define TESSERA_FFT_BACKWARD (+1)
/// Planner flag: time FFTW's candidate kernels for each shape the plan will run, on scratch
/// arrays (FFTW_MEASURE; seconds for large sizes).
#define TESSERA_FFT_MEASURE (0U)
/// Planner flag: plan by heuristics, at once (FFTW_ESTIMATE).
#define TESSERA_FFT_ESTIMATE (1U << 6)

/// A double-precision plan (opaque); tessera_fft_destroy_plan frees it.
typedef struct tessera_fft_plan_s* tessera_fft_plan;
/// A single-precision plan (opaque); tessera_fftf_destroy_plan frees it.
typedef struct tessera_fftf_plan_s* tessera_fftf_plan;

/// Plans out = DFT2(in) for the n0 x n1 complex arrays, with exponent sign TESSERA_FFT_FORWARD
/// or TESSERA_FFT_BACKWARD: out[k0 n1 + k1] = sum over j0 < n0, j1 < n1 of
/// in[j0 n1 + j1] exp(sign 2 pi i (j0 k0 / n0 + j1 k1 / n1)). flags: TESSERA_FFT_ESTIMATE or
/// TESSERA_FFT_MEASURE. Returns the plan, or NULL for a bad argument (tessera_last_error()
/// names it).
///@{
tessera_fft_plan tessera_fft_plan_dft_2d(int n0, int n1, tessera_complex_double* in,
                                         tessera_complex_double* out, int sign, unsigned flags);
tessera_fftf_plan tessera_fftf_plan_dft_2d(int n0, int n1, tessera_complex_float* in,
                                           tessera_complex_float* out, int sign, unsigned flags);
///@}
/// Plans out = DFT(in) for n complex points: out[k] = sum over j < n of
/// in[j] exp(sign 2 pi i j k / n); a large n runs as tasks, by the four-step algorithm. Sign,
/// flags and the result as in tessera_fft_plan_dft_2d.
///@{
tessera_fft_plan tessera_fft_plan_dft_1d(int n, tessera_complex_double* in,
                                         tessera_complex_double* out, int sign, unsigned flags);
tessera_fftf_plan tessera_fftf_plan_dft_1d(int n, tessera_complex_float* in,
                                           tessera_complex_float* out, int sign, unsigned flags);
///@}
/// Plans howmany transforms of rank 1 (n[0] points) or 2 (n[0] x n[1], row-major), transform t
/// from in + t idist to out + t odist (FFTW's plan_many_dft with contiguous elements; in
/// place when in == out, then with idist == odist); idist and odist are at least a transform's
/// points. Sign, flags and the result as in tessera_fft_plan_dft_2d.
///@{
tessera_fft_plan tessera_fft_plan_many_dft(int rank, const int* n, int howmany,
                                           tessera_complex_double* in, int idist,
                                           tessera_complex_double* out, int odist, int sign,
                                           unsigned flags);
tessera_fftf_plan tessera_fftf_plan_many_dft(int rank, const int* n, int howmany,
                                             tessera_complex_float* in, int idist,
                                             tessera_complex_float* out, int odist, int sign,
                                             unsigned flags);
///@}
/// Plans the forward transform of the real n0 x n1 in to its half-spectrum out, n0 x (n1/2 + 1):
/// the coefficients k1 <= n1/2 of tessera_fft_plan_dft_2d's forward transform (the others are
/// their conjugates). Flags and the result as in tessera_fft_plan_dft_2d.
///@{
tessera_fft_plan tessera_fft_plan_dft_r2c_2d(int n0, int n1, double* in,
                                             tessera_complex_double* out, unsigned flags);
tessera_fftf_plan tessera_fftf_plan_dft_r2c_2d(int n0, int n1, float* in,
                                               tessera_complex_float* out, unsigned flags);
///@}
/// Plans the backward transform of the half-spectrum in, n0 x (n1/2 + 1), to the real n0 x n1
/// out: n0 n1 times the inverse of r2c. An execute overwrites in (as FFTW's c2r). Flags and the
/// result as in tessera_fft_plan_dft_2d.
///@{
tessera_fft_plan tessera_fft_plan_dft_c2r_2d(int n0, int n1, tessera_complex_double* in,
                                             double* out, unsigned flags);
tessera_fftf_plan tessera_fftf_plan_dft_c2r_2d(int n0, int n1, tessera_complex_float* in,
                                               float* out, unsigned flags);
///@}
/// Computes the plan's transform on its arrays and waits for it. Returns 0, or TESSERA_ERROR
/// (a NULL plan, a device error, out of memory) with tessera_last_error()'s message.
///@{
int tessera_fft_execute(tessera_fft_plan plan);
int tessera_fftf_execute(tessera_fftf_plan plan);
///@}
/// Computes the plan's transform on other arrays of its kind (dft for the complex plans, r2c
/// or c2r for the real ones), in place exactly when the plan is (FFTW's new-array execute),
/// and waits for it. Returns 0, or TESSERA_ERROR with tessera_last_error()'s message: a NULL
/// plan or array, a plan of another kind, in-placeness unlike the plan's, arrays that overlap
/// without being the same, a device error.
///@{
int tessera_fft_execute_dft(tessera_fft_plan plan, tessera_complex_double* in,
                            tessera_complex_double* out);
int tessera_fftf_execute_dft(tessera_fftf_plan plan, tessera_complex_float* in,
                             tessera_complex_float* out);
int tessera_fft_execute_dft_r2c(tessera_fft_plan plan, double* in, tessera_complex_double* out);
int tessera_fftf_execute_dft_r2c(tessera_fftf_plan plan, float* in, tessera_complex_float* out);
int tessera_fft_execute_dft_c2r(tessera_fft_plan plan, tessera_complex_double* in, double* out);
int tessera_fftf_execute_dft_c2r(tessera_fftf_plan plan, tessera_complex_float* in, float* out);
///@}
/// Frees the plan (NULL: nothing).
///@{
void tessera_fft_destroy_plan(tessera_fft_plan plan);
void tessera_fftf_destroy_plan(tessera_fftf_plan plan);
///@}
/// FFTW's wisdom of both precisions (the measurements of the plans made so far) as text, to
/// free(); NULL when out of memory.
char* tessera_fft_export_wisdom_to_string(void);
/// Imports wisdom from the text tessera_fft_export_wisdom_to_string made: TESSERA_FFT_MEASURE
/// plans then cost nothing for the shapes it measured. Returns 1 when FFTW accepts it, 0
/// otherwise (a NULL wisdom included, tessera_last_error() naming it).
int tessera_fft_import_wisdom_from_string(const char* wisdom);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_TESSERA_H */
