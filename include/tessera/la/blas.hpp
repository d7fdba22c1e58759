/// @file blas.hpp
/// Level-3 BLAS on tile matrices, each in three forms:
///  - asynchronous tile form, `gemm_async(..., A, B, ..., C, s)`: submits the tasks into
///    sequence `s` and returns at once;
///  - tile form, `gemm(..., A, B, ..., C)`: the same, then waits;
///  - LAPACK-style form on column-major arrays, `gemm(transa, transb, m, n, k, alpha, a, lda,
///    ...)`, with BLAS's argument meanings, computed on the library's runtime (context.hpp)
///    with an automatic tile size. A bad argument throws InvalidLapackArgument naming it,
///    position() its place in BLAS's argument list; a null array is bad only where the call
///    would read or write it. Called inside a task, it runs on the calling thread.
///
/// The tile forms throw InvalidArgument before they submit anything: for an option out of
/// range, sizes or tile sizes that do not match, a matrix on another runtime than the
/// sequence's, a tile unregistered or partitioned, or a matrix written that overlaps another
/// of the call's. The tile form rethrows a task's exception after waiting. Scalars are
/// `std::type_identity_t<T>` so that `gemm(..., 1.0, a, ...)` works for float too.
#pragma once

#include <tessera/la/enums.hpp>
#include <tessera/la/scalar.hpp>
#include <tessera/la/sequence.hpp>
#include <tessera/la/tile_matrix.hpp>

#include <cstdint>
#include <type_traits>

namespace tessera::inline la {

/// The type of a scalar argument: T in a non-deduced context, so that the matrices alone
/// deduce T.
template <class T> using scalar_arg = std::type_identity_t<T>;

// ---- scale ---------------------------------------------------------------------------------------
/// A = alpha A (alpha = 0 sets A to zero, NaNs included, as BLAS's beta = 0 does), one task
/// per tile. scale_async submits them into `s` and returns at once; scale waits for them.
///@{
template <Scalar T> void scale_async(scalar_arg<T> alpha, TileMatrix<T>& A, Sequence& s);
template <Scalar T> void scale(scalar_arg<T> alpha, TileMatrix<T>& A);
///@}

// ---- gemm ---------------------------------------------------------------------------------------
/// C = alpha op(A) op(B) + beta C (BLAS's gemm); op(A) is m x k, op(B) k x n, C m x n, with
/// equal tile sizes; op(X) is X, X^T or X^H for Op::notrans, Op::trans or Op::conjtrans. When
/// k = 0 or alpha = 0, A and B are not read. gemm_async returns at once; the others wait. The
/// LAPACK-style form takes BLAS's arguments: column-major a (m x k, or k x m when transa is
/// not Op::notrans), b (k x n, or n x k) and c (m x n), leading dimensions lda, ldb, ldc.
///@{
template <Scalar T>
void gemm_async(Op transa, Op transb, scalar_arg<T> alpha, TileMatrix<T> const& A,
                TileMatrix<T> const& B, scalar_arg<T> beta, TileMatrix<T>& C, Sequence& s);
template <Scalar T>
void gemm(Op transa, Op transb, scalar_arg<T> alpha, TileMatrix<T> const& A, TileMatrix<T> const& B,
          scalar_arg<T> beta, TileMatrix<T>& C);
template <Scalar T>
void gemm(Op transa, Op transb, int64_t m, int64_t n, int64_t k, scalar_arg<T> alpha, T const* A,
          int64_t lda, T const* B, int64_t ldb, scalar_arg<T> beta, T* C, int64_t ldc);
///@}

// ---- symm / hemm ----------------------------------------------------------------------------------
/// C = alpha A B + beta C (Side::left) or alpha B A + beta C (Side::right), A symmetric with
/// its `uplo` triangle referenced (BLAS's symm); B and C m x n, A of order m (left) or n
/// (right), with equal tile sizes. symm_async returns at once; the others wait. The
/// LAPACK-style form takes BLAS's arguments on column-major arrays.
///@{
template <Scalar T>
void symm_async(Side side, Uplo uplo, scalar_arg<T> alpha, TileMatrix<T> const& A,
                TileMatrix<T> const& B, scalar_arg<T> beta, TileMatrix<T>& C, Sequence& s);
template <Scalar T>
void symm(Side side, Uplo uplo, scalar_arg<T> alpha, TileMatrix<T> const& A, TileMatrix<T> const& B,
          scalar_arg<T> beta, TileMatrix<T>& C);
template <Scalar T>
void symm(Side side, Uplo uplo, int64_t m, int64_t n, scalar_arg<T> alpha, T const* A, int64_t lda,
          T const* B, int64_t ldb, scalar_arg<T> beta, T* C, int64_t ldc);
///@}
/// As symm with A Hermitian (BLAS's hemm; the same as symm for real T).
///@{
template <Scalar T>
void hemm_async(Side side, Uplo uplo, scalar_arg<T> alpha, TileMatrix<T> const& A,
                TileMatrix<T> const& B, scalar_arg<T> beta, TileMatrix<T>& C, Sequence& s);
template <Scalar T>
void hemm(Side side, Uplo uplo, scalar_arg<T> alpha, TileMatrix<T> const& A, TileMatrix<T> const& B,
          scalar_arg<T> beta, TileMatrix<T>& C);
template <Scalar T>
void hemm(Side side, Uplo uplo, int64_t m, int64_t n, scalar_arg<T> alpha, T const* A, int64_t lda,
          T const* B, int64_t ldb, scalar_arg<T> beta, T* C, int64_t ldc);
///@}

// ---- syrk / herk ----------------------------------------------------------------------------------
/// C = alpha op(A) op(A)^T + beta C on the `uplo` triangle of the n x n C (BLAS's syrk; the
/// other triangle is not referenced); op(A) is n x k (trans: Op::notrans or Op::trans;
/// Op::conjtrans is accepted for real T only). syrk_async returns at once; the others wait.
/// The LAPACK-style form takes BLAS's arguments on column-major arrays.
///@{
template <Scalar T>
void syrk_async(Uplo uplo, Op trans, scalar_arg<T> alpha, TileMatrix<T> const& A,
                scalar_arg<T> beta, TileMatrix<T>& C, Sequence& s);
template <Scalar T>
void syrk(Uplo uplo, Op trans, scalar_arg<T> alpha, TileMatrix<T> const& A, scalar_arg<T> beta,
          TileMatrix<T>& C);
template <Scalar T>
void syrk(Uplo uplo, Op trans, int64_t n, int64_t k, scalar_arg<T> alpha, T const* A, int64_t lda,
          scalar_arg<T> beta, T* C, int64_t ldc);
///@}
/// C = alpha op(A) op(A)^H + beta C with real alpha and beta, on the `uplo` triangle of C
/// (BLAS's herk; trans: Op::notrans or Op::conjtrans; Op::trans is accepted for real T only).
/// herk_async returns at once; the others wait.
///@{
template <Scalar T>
void herk_async(Uplo uplo, Op trans, real_t<T> alpha, TileMatrix<T> const& A, real_t<T> beta,
                TileMatrix<T>& C, Sequence& s);
template <Scalar T>
void herk(Uplo uplo, Op trans, real_t<T> alpha, TileMatrix<T> const& A, real_t<T> beta,
          TileMatrix<T>& C);
template <Scalar T>
void herk(Uplo uplo, Op trans, int64_t n, int64_t k, real_t<T> alpha, T const* A, int64_t lda,
          real_t<T> beta, T* C, int64_t ldc);
///@}

// ---- trsm / trmm ----------------------------------------------------------------------------------
/// B = alpha op(A)^{-1} B (Side::left) or alpha B op(A)^{-1} (Side::right), A triangular
/// (BLAS's trsm): the solution X of op(A) X = alpha B (or X op(A) = alpha B) overwrites the
/// m x n B. A is of order m (left) or n (right), its `uplo` triangle referenced, its
/// diagonal taken as ones for Diag::unit; no test for singularity is made. trsm_async returns
/// at once; the others wait. The LAPACK-style form takes BLAS's arguments.
///@{
template <Scalar T>
void trsm_async(Side side, Uplo uplo, Op trans, Diag diag, scalar_arg<T> alpha,
                TileMatrix<T> const& A, TileMatrix<T>& B, Sequence& s);
template <Scalar T>
void trsm(Side side, Uplo uplo, Op trans, Diag diag, scalar_arg<T> alpha, TileMatrix<T> const& A,
          TileMatrix<T>& B);
template <Scalar T>
void trsm(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, scalar_arg<T> alpha,
          T const* A, int64_t lda, T* B, int64_t ldb);
///@}
/// B = alpha op(A) B (Side::left) or alpha B op(A) (Side::right), A triangular (BLAS's trmm),
/// with A and diag as in trsm. trmm_async returns at once; the others wait.
///@{
template <Scalar T>
void trmm_async(Side side, Uplo uplo, Op trans, Diag diag, scalar_arg<T> alpha,
                TileMatrix<T> const& A, TileMatrix<T>& B, Sequence& s);
template <Scalar T>
void trmm(Side side, Uplo uplo, Op trans, Diag diag, scalar_arg<T> alpha, TileMatrix<T> const& A,
          TileMatrix<T>& B);
template <Scalar T>
void trmm(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, scalar_arg<T> alpha,
          T const* A, int64_t lda, T* B, int64_t ldb);
///@}

}  // namespace tessera::inline la
