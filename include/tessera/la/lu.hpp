/// @file lu.hpp
/// The LU family on tile matrices, in the three forms of blas.hpp (asynchronous tile, tile,
/// LAPACK-style). getrf factors a general m x n A as A = P L U with partial pivoting (L unit
/// lower trapezoidal, U upper trapezoidal, P the interchanges of ipiv), exactly as LAPACK's:
/// the same ipiv convention (from 1: row i was swapped with row ipiv(i), in order) and the
/// same info, the first column (from 1) whose pivot is exactly zero, with the factorization
/// carried to the end (info is a result, not a failure).
///
/// The tile algorithm (PLASMA's pzgetrf, SLATE's getrf): at step k, the panel (tile column k
/// from the diagonal down) is one parallel task whose ranks share its tiles (a recursive LU,
/// LAPACK's getrf2); its interchanges are then applied to every other tile column, the row of
/// U right of the diagonal is solved (trsm) and the trailing matrix updated (gemm), the next
/// panel's column first (lookahead by priorities).
#pragma once

#include <tessera/la/enums.hpp>
#include <tessera/la/pivots.hpp>
#include <tessera/la/scalar.hpp>
#include <tessera/la/sequence.hpp>
#include <tessera/la/tile_matrix.hpp>

#include <complex>
#include <cstdint>

namespace tessera::inline la {

/// Factors A = P L U in place (LAPACK's getrf; L below the diagonal, its unit diagonal not
/// stored; U on and above it). ipiv must have min(m, n) entries in pieces of A.nb()
/// (Pivots{A}), else InvalidArgument. info = k > 0 when U(k, k) is exactly zero (the first
/// such k); the factorization is completed and the sequence does not fail. getrf_async
/// returns at once (s.wait() gives info); getrf waits and returns info.
///@{
template <Scalar T> void getrf_async(TileMatrix<T>& A, Pivots& ipiv, Sequence& s);
template <Scalar T> [[nodiscard]] int64_t getrf(TileMatrix<T>& A, Pivots& ipiv);
///@}
/// LAPACK's getrf on the column-major m x n array a (leading dimension lda): ipiv receives
/// min(m, n) entries, from 1. Waits; returns info as above.
template <Scalar T>
[[nodiscard]] int64_t getrf(int64_t m, int64_t n, T* a, int64_t lda, int64_t* ipiv);

/// Factors the m x n A = L U without pivoting (the tile LU of StarPU's and the thesis's
/// examples: stable only for matrices such as diagonally dominant ones), L and U stored as
/// getrf stores them. info = k when U(k, k) is exactly zero; the factorization stops there
/// (its next steps would divide by zero). getrf_nopiv_async returns at once; the others wait
/// and return info, the LAPACK-style form on the column-major array a (leading dimension lda).
///@{
template <Scalar T> void getrf_nopiv_async(TileMatrix<T>& A, Sequence& s);
template <Scalar T> [[nodiscard]] int64_t getrf_nopiv(TileMatrix<T>& A);
template <Scalar T> [[nodiscard]] int64_t getrf_nopiv(int64_t m, int64_t n, T* a, int64_t lda);
///@}

/// Solves op(A) X = B with the factors getrf left in A and ipiv (LAPACK's getrs; A n x n):
/// X = U^{-1} L^{-1} P^T B for Op::notrans, X = P L^{-op} U^{-op} B otherwise. A and ipiv are
/// only read; B (n x nrhs) is overwritten by X. getrs_async returns at once; the others wait.
/// The LAPACK-style form takes LAPACK's ipiv (n entries, from 1) and returns 0.
///@{
template <Scalar T>
void getrs_async(Op trans, TileMatrix<T> const& A, Pivots const& ipiv, TileMatrix<T>& B,
                 Sequence& s);
template <Scalar T>
void getrs(Op trans, TileMatrix<T> const& A, Pivots const& ipiv, TileMatrix<T>& B);
template <Scalar T>
[[nodiscard]] int64_t getrs(Op trans, int64_t n, int64_t nrhs, T const* a, int64_t lda,
                            int64_t const* ipiv, T* b, int64_t ldb);
///@}

/// Factors the n x n A and solves A X = B (LAPACK's gesv: getrf, then getrs); A and ipiv end
/// as getrf leaves them, and B (n x nrhs) holds X. When U is exactly singular (info = k > 0,
/// U(k, k) = 0), the factorization is complete but the tile forms leave B unspecified; the
/// LAPACK-style form leaves B untouched, as LAPACK's gesv. gesv_async returns at once; the
/// others wait and return info.
///@{
template <Scalar T> void gesv_async(TileMatrix<T>& A, Pivots& ipiv, TileMatrix<T>& B, Sequence& s);
template <Scalar T> [[nodiscard]] int64_t gesv(TileMatrix<T>& A, Pivots& ipiv, TileMatrix<T>& B);
template <Scalar T>
[[nodiscard]] int64_t gesv(int64_t n, int64_t nrhs, T* a, int64_t lda, int64_t* ipiv, T* b,
                           int64_t ldb);
///@}

/// Inverse of A from the factors getrf left in A and ipiv, in place (LAPACK's getri:
/// inv(A) = inv(U) inv(L) P^T). info = k when U(k, k) is exactly zero: the LAPACK-style form
/// then leaves A untouched, as LAPACK's; the tile forms stop and leave A unspecified.
/// getri_async returns at once; the others wait and return info.
///@{
template <Scalar T> void getri_async(TileMatrix<T>& A, Pivots const& ipiv, Sequence& s);
template <Scalar T> [[nodiscard]] int64_t getri(TileMatrix<T>& A, Pivots const& ipiv);
template <Scalar T> [[nodiscard]] int64_t getri(int64_t n, T* a, int64_t lda, int64_t const* ipiv);
///@}

/// Mixed precision (LAPACK's dsgesv and zcgesv): solves A X = B with A factored in single
/// precision and X refined in double until its residual is at double precision's level, with
/// LAPACK's stopping rule (every column: max|R| <= max|X| ||A||_inf u sqrt(n), u = 2^-53,
/// LAPACK's DLAMCH('Epsilon')). iter is the number of refinement steps when it converged (A
/// is then untouched and ipiv holds the single-precision pivots), or negative when it fell
/// back to the double-precision gesv (-1: called inside a task or with nrhs = 0; -2: an entry
/// beyond single's range; -3: the single-precision factorization found a zero pivot; -31: no
/// convergence in 30 steps); A and ipiv then hold the double factorization, and the returned
/// info is gesv's. B is only read; X (n x nrhs, leading dimension ldx) receives the solution.
/// Waits. A bad argument throws InvalidLapackArgument naming it (iter is argument 10).
[[nodiscard]] int64_t dsgesv(int64_t n, int64_t nrhs, double* a, int64_t lda, int64_t* ipiv,
                             double const* b, int64_t ldb, double* x, int64_t ldx, int64_t* iter);
/// The tile form: A (n x n), B and X (n x nrhs) of one tile size, ipiv Pivots{A}; B is only
/// read. Each refinement step is a sequence of tasks on any unit, and the test of convergence
/// reads X and R on the host, so there is no asynchronous form. iter as above (-1: nrhs = 0).
[[nodiscard]] int64_t dsgesv(TileMatrix<double>& A, Pivots& ipiv, TileMatrix<double> const& B,
                             TileMatrix<double>& X, int64_t& iter);
/// zcgesv's tile form: as dsgesv's, for complex A (factored in `std::complex<float>`).
[[nodiscard]] int64_t zcgesv(TileMatrix<std::complex<double>>& A, Pivots& ipiv,
                             TileMatrix<std::complex<double>> const& B,
                             TileMatrix<std::complex<double>>& X, int64_t& iter);
/// LAPACK's zcgesv: dsgesv's LAPACK-style form for complex A, factored in
/// `std::complex<float>`; the stopping rule measures entries as |Re| + |Im| (LAPACK's cabs1).
[[nodiscard]] int64_t zcgesv(int64_t n, int64_t nrhs, std::complex<double>* a, int64_t lda,
                             int64_t* ipiv, std::complex<double> const* b, int64_t ldb,
                             std::complex<double>* x, int64_t ldx, int64_t* iter);

}  // namespace tessera::inline la
