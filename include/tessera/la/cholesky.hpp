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

/// Factors the n x n A in place (LAPACK's potrf): its `uplo` triangle becomes L or U; the
/// other is not referenced. info = k > 0 when the leading minor of order k is not positive
/// definite: the factorization stops there (OnInfo::stops), leaving A part-way. potrf_async
/// returns at once (s.wait() gives info); the tile potrf (Uplo::lower when uplo is omitted)
/// waits and returns info, as does the LAPACK-style form on the column-major array A
/// (leading dimension lda). A non-square A or an uplo other than lower or upper throws
/// InvalidArgument (InvalidLapackArgument in the LAPACK-style form).
///@{
template <Scalar T> void potrf_async(Uplo uplo, TileMatrix<T>& A, Sequence& s);
template <Scalar T> [[nodiscard]] int64_t potrf(Uplo uplo, TileMatrix<T>& A);
template <Scalar T> [[nodiscard]] int64_t potrf(TileMatrix<T>& A)
{
    return potrf(Uplo::lower, A);
}
template <Scalar T> [[nodiscard]] int64_t potrf(Uplo uplo, int64_t n, T* A, int64_t lda);
///@}

/// Solves A X = B with the factor potrf left in A (LAPACK's potrs): L Y = B, then L^H X = Y
/// (Uplo::lower), or U^H Y = B, then U X = Y (Uplo::upper). A is only read; B (n x nrhs, A's
/// tile size) is overwritten by X. potrs_async returns at once; the others wait. The
/// LAPACK-style form returns 0 (LAPACK's info).
///@{
template <Scalar T>
void potrs_async(Uplo uplo, TileMatrix<T> const& A, TileMatrix<T>& B, Sequence& s);
template <Scalar T> void potrs(Uplo uplo, TileMatrix<T> const& A, TileMatrix<T>& B);
template <Scalar T>
[[nodiscard]] int64_t potrs(Uplo uplo, int64_t n, int64_t nrhs, T const* A, int64_t lda, T* B,
                            int64_t ldb);
///@}

/// Factors A and solves A X = B (LAPACK's posv: potrf, then potrs); A ends as potrf leaves
/// it, and B (n x nrhs) holds X. info as potrf's: on failure (info > 0) the LAPACK-style form
/// leaves B untouched; the tile forms leave B unspecified. posv_async returns at once; the
/// others wait and return info.
///@{
template <Scalar T> void posv_async(Uplo uplo, TileMatrix<T>& A, TileMatrix<T>& B, Sequence& s);
template <Scalar T> [[nodiscard]] int64_t posv(Uplo uplo, TileMatrix<T>& A, TileMatrix<T>& B);
template <Scalar T>
[[nodiscard]] int64_t posv(Uplo uplo, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B,
                           int64_t ldb);
///@}

/// Inverse of the triangular A in place (LAPACK's trtri; info = k when a_kk is exactly zero,
/// which stops the sequence). Submits into `s` and returns at once.
template <Scalar T> void trtri_async(Uplo uplo, Diag diag, TileMatrix<T>& A, Sequence& s);
/// The product U U^H or L^H L of the `uplo` triangle of A, in place (LAPACK's lauum).
/// Submits into `s` and returns at once.
template <Scalar T> void lauum_async(Uplo uplo, TileMatrix<T>& A, Sequence& s);

/// Inverse of A from the factor potrf left in it (LAPACK's potri): trtri, then lauum. The
/// `uplo` triangle of A^{-1} overwrites the factor. info = k > 0 when the factor's k-th
/// diagonal entry is exactly zero: the LAPACK-style form, which checks the diagonal first,
/// then leaves A untouched; the tile forms stop and leave A unspecified. potri_async returns
/// at once; the others wait and return info.
///@{
template <Scalar T> void potri_async(Uplo uplo, TileMatrix<T>& A, Sequence& s);
template <Scalar T> [[nodiscard]] int64_t potri(Uplo uplo, TileMatrix<T>& A);
template <Scalar T> [[nodiscard]] int64_t potri(Uplo uplo, int64_t n, T* A, int64_t lda);
///@}

}  // namespace tessera::inline la
