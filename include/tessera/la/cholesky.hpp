/// @file cholesky.hpp
/// The Cholesky family on tile matrices, in the three forms of blas.hpp (asynchronous tile,
/// tile, LAPACK-style). The factorization is A = L L^H (Uplo::lower) or A = U^H U
/// (Uplo::upper) of a Hermitian (real: symmetric) positive definite A. The returned info is
/// LAPACK's: 0 on success, k > 0 when the leading minor of order k is not positive definite
/// (potrf, posv) or when the factor's k-th diagonal entry is zero (potri).
#pragma once

#include <tessera/la/enums.hpp>
#include <tessera/la/scalar.hpp>
#include <tessera/la/sequence.hpp>
#include <tessera/la/tile_matrix.hpp>

#include <cstdint>

namespace tessera::inline la {

/// Factors A in place: its `uplo` triangle becomes L or U; the other is not referenced.
template <Scalar T>
void potrf_async(Uplo uplo, TileMatrix<T>& A, Sequence& s);
template <Scalar T>
[[nodiscard]] int64_t potrf(Uplo uplo, TileMatrix<T>& A);
template <Scalar T>
[[nodiscard]] int64_t potrf(TileMatrix<T>& A) { return potrf(Uplo::lower, A); }
template <Scalar T>
[[nodiscard]] int64_t potrf(Uplo uplo, int64_t n, T* A, int64_t lda);

/// Solves A X = B with the factor potrf left in A; B (n x nrhs) is overwritten by X.
template <Scalar T>
void potrs_async(Uplo uplo, TileMatrix<T> const& A, TileMatrix<T>& B, Sequence& s);
template <Scalar T>
void potrs(Uplo uplo, TileMatrix<T> const& A, TileMatrix<T>& B);
template <Scalar T>
[[nodiscard]] int64_t potrs(Uplo uplo, int64_t n, int64_t nrhs, T const* A, int64_t lda, T* B, int64_t ldb);

/// Factors A and solves A X = B (potrf then potrs). On failure (info > 0) the LAPACK-style form
/// leaves B untouched; the tile forms leave B unspecified.
template <Scalar T>
void posv_async(Uplo uplo, TileMatrix<T>& A, TileMatrix<T>& B, Sequence& s);
template <Scalar T>
[[nodiscard]] int64_t posv(Uplo uplo, TileMatrix<T>& A, TileMatrix<T>& B);
template <Scalar T>
[[nodiscard]] int64_t posv(Uplo uplo, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb);

/// Inverse of the triangular A in place (info = k when a_kk is exactly zero).
template <Scalar T>
void trtri_async(Uplo uplo, Diag diag, TileMatrix<T>& A, Sequence& s);
/// The product U U^H or L^H L of the triangle of A, in place.
template <Scalar T>
void lauum_async(Uplo uplo, TileMatrix<T>& A, Sequence& s);

/// Inverse of A from the factor potrf left in it: trtri, then lauum. The `uplo` triangle of
/// A^{-1} overwrites the factor.
template <Scalar T>
void potri_async(Uplo uplo, TileMatrix<T>& A, Sequence& s);
template <Scalar T>
[[nodiscard]] int64_t potri(Uplo uplo, TileMatrix<T>& A);
template <Scalar T>
[[nodiscard]] int64_t potri(Uplo uplo, int64_t n, T* A, int64_t lda);

}  // namespace tessera::la
