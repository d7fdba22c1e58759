/// @file blas.hpp
/// Level-3 BLAS on tile matrices, each in three forms:
///  - asynchronous tile form, `gemm_async(..., A, B, ..., C, s)`: submits the tasks into
///    sequence `s` and returns at once;
///  - tile form, `gemm(..., A, B, ..., C)`: the same, then waits;
///  - LAPACK-style form on column-major arrays, `gemm(transa, transb, m, n, k, alpha, a, lda,
///    ...)`, with BLAS's argument meanings, computed on the library's runtime (context.hpp)
///    with an automatic tile size. A bad argument throws InvalidLapackArgument naming it.
/// Scalars are std::type_identity_t<T> so that `gemm(..., 1.0, a, ...)` works for float too.
#pragma once

#include <tessera/la/enums.hpp>
#include <tessera/la/scalar.hpp>
#include <tessera/la/sequence.hpp>
#include <tessera/la/tile_matrix.hpp>

#include <cstdint>
#include <type_traits>

namespace tessera::inline la {

template <class T> using scalar_arg = std::type_identity_t<T>;

// ---- scale ---------------------------------------------------------------------------------------
/// A = alpha A (alpha = 0 sets A to zero, NaNs included, as BLAS's beta = 0 does).
template <Scalar T>
void scale_async(scalar_arg<T> alpha, TileMatrix<T>& A, Sequence& s);
template <Scalar T>
void scale(scalar_arg<T> alpha, TileMatrix<T>& A);

// ---- gemm ---------------------------------------------------------------------------------------
/// C = alpha op(A) op(B) + beta C; op(A) is m x k, op(B) k x n, C m x n, with equal tile sizes.
template <Scalar T>
void gemm_async(Op transa, Op transb, scalar_arg<T> alpha, TileMatrix<T> const& A, TileMatrix<T> const& B,
                scalar_arg<T> beta, TileMatrix<T>& C, Sequence& s);
template <Scalar T>
void gemm(Op transa, Op transb, scalar_arg<T> alpha, TileMatrix<T> const& A, TileMatrix<T> const& B,
          scalar_arg<T> beta, TileMatrix<T>& C);
template <Scalar T>
void gemm(Op transa, Op transb, int64_t m, int64_t n, int64_t k, scalar_arg<T> alpha, T const* A, int64_t lda,
          T const* B, int64_t ldb, scalar_arg<T> beta, T* C, int64_t ldc);

// ---- symm / hemm ----------------------------------------------------------------------------------
/// C = alpha A B + beta C (Side::left) or alpha B A + beta C (Side::right), A symmetric with
/// its `uplo` triangle referenced; C and B m x n.
template <Scalar T>
void symm_async(Side side, Uplo uplo, scalar_arg<T> alpha, TileMatrix<T> const& A, TileMatrix<T> const& B,
                scalar_arg<T> beta, TileMatrix<T>& C, Sequence& s);
template <Scalar T>
void symm(Side side, Uplo uplo, scalar_arg<T> alpha, TileMatrix<T> const& A, TileMatrix<T> const& B,
          scalar_arg<T> beta, TileMatrix<T>& C);
template <Scalar T>
void symm(Side side, Uplo uplo, int64_t m, int64_t n, scalar_arg<T> alpha, T const* A, int64_t lda, T const* B,
          int64_t ldb, scalar_arg<T> beta, T* C, int64_t ldc);
/// As symm with A Hermitian (the same as symm for real T).
template <Scalar T>
void hemm_async(Side side, Uplo uplo, scalar_arg<T> alpha, TileMatrix<T> const& A, TileMatrix<T> const& B,
                scalar_arg<T> beta, TileMatrix<T>& C, Sequence& s);
template <Scalar T>
void hemm(Side side, Uplo uplo, scalar_arg<T> alpha, TileMatrix<T> const& A, TileMatrix<T> const& B,
          scalar_arg<T> beta, TileMatrix<T>& C);
template <Scalar T>
void hemm(Side side, Uplo uplo, int64_t m, int64_t n, scalar_arg<T> alpha, T const* A, int64_t lda, T const* B,
          int64_t ldb, scalar_arg<T> beta, T* C, int64_t ldc);

// ---- syrk / herk ----------------------------------------------------------------------------------
/// C = alpha op(A) op(A)^T + beta C on the `uplo` triangle of the n x n C; op(A) is n x k
/// (trans: Op::notrans or Op::trans; Op::conjtrans is accepted for real T only).
template <Scalar T>
void syrk_async(Uplo uplo, Op trans, scalar_arg<T> alpha, TileMatrix<T> const& A, scalar_arg<T> beta,
                TileMatrix<T>& C, Sequence& s);
template <Scalar T>
void syrk(Uplo uplo, Op trans, scalar_arg<T> alpha, TileMatrix<T> const& A, scalar_arg<T> beta, TileMatrix<T>& C);
template <Scalar T>
void syrk(Uplo uplo, Op trans, int64_t n, int64_t k, scalar_arg<T> alpha, T const* A, int64_t lda,
          scalar_arg<T> beta, T* C, int64_t ldc);
/// C = alpha op(A) op(A)^H + beta C with real alpha and beta (trans: Op::notrans or
/// Op::conjtrans; Op::trans is accepted for real T only).
template <Scalar T>
void herk_async(Uplo uplo, Op trans, real_t<T> alpha, TileMatrix<T> const& A, real_t<T> beta, TileMatrix<T>& C,
                Sequence& s);
template <Scalar T>
void herk(Uplo uplo, Op trans, real_t<T> alpha, TileMatrix<T> const& A, real_t<T> beta, TileMatrix<T>& C);
template <Scalar T>
void herk(Uplo uplo, Op trans, int64_t n, int64_t k, real_t<T> alpha, T const* A, int64_t lda, real_t<T> beta, T* C,
          int64_t ldc);

// ---- trsm / trmm ----------------------------------------------------------------------------------
/// B = alpha op(A)^{-1} B (Side::left) or alpha B op(A)^{-1} (Side::right), A triangular.
template <Scalar T>
void trsm_async(Side side, Uplo uplo, Op trans, Diag diag, scalar_arg<T> alpha, TileMatrix<T> const& A,
                TileMatrix<T>& B, Sequence& s);
template <Scalar T>
void trsm(Side side, Uplo uplo, Op trans, Diag diag, scalar_arg<T> alpha, TileMatrix<T> const& A, TileMatrix<T>& B);
template <Scalar T>
void trsm(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, scalar_arg<T> alpha, T const* A,
          int64_t lda, T* B, int64_t ldb);
/// B = alpha op(A) B (Side::left) or alpha B op(A) (Side::right), A triangular.
template <Scalar T>
void trmm_async(Side side, Uplo uplo, Op trans, Diag diag, scalar_arg<T> alpha, TileMatrix<T> const& A,
                TileMatrix<T>& B, Sequence& s);
template <Scalar T>
void trmm(Side side, Uplo uplo, Op trans, Diag diag, scalar_arg<T> alpha, TileMatrix<T> const& A, TileMatrix<T>& B);
template <Scalar T>
void trmm(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, scalar_arg<T> alpha, T const* A,
          int64_t lda, T* B, int64_t ldb);

}  // namespace tessera::la
