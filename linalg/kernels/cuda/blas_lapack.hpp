// The thin precision layer over cuBLAS and cuSOLVER: the CUDA twin of kernels/cpu/blas_lapack.hpp,
// with the same routines, argument order and meanings (column-major device pointers + ld), each
// taking first the CUDA worker's context. Everything is queued on ctx.stream and nothing waits:
// results that the host needs (LAPACK's info) come back through a function the worker calls
// once the stream work is done. Defined in blas_lapack.cpp for the four Scalar types, which is
// compiled only in CUDA builds; this header includes no CUDA header, so codelets may include it
// in every build. Internal.
#pragma once

#include <tessera/la/enums.hpp>
#include <tessera/la/scalar.hpp>
#include <tessera/rt/codelet.hpp>  // rt::CudaContext (declared)

#include <cstddef>
#include <cstdint>
#include <functional>

namespace tessera::la::kernels::cuda {

/// Receives LAPACK's info of a factorization (> 0 only: it is not called on success), on the
/// worker thread once the factorization's stream work is done.
using InfoReport = std::function<void(int64_t info)>;

/// C = alpha op(A) op(B) + beta C, C m x n, op(A) m x k (cublas<t>gemm).
template <Scalar T>
void gemm(rt::CudaContext const& ctx, Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha,
          T const* a, int64_t lda, T const* b, int64_t ldb, T beta, T* c, int64_t ldc);
/// C = alpha A + beta B, all m x n (cublas<t>geam, no transposes); C may be A or B itself
/// (in place, with its leading dimension).
template <Scalar T>
void geam(rt::CudaContext const& ctx, int64_t m, int64_t n, T alpha, T const* a, int64_t lda,
          T beta, T const* b, int64_t ldb, T* c, int64_t ldc);
/// C = alpha A B + beta C (left) or alpha B A + beta C (right), A symmetric (hermitian when
/// `hermitian`, complex only) stored in its `uplo` triangle (cublas<t>symm / hemm).
template <Scalar T>
void symm(rt::CudaContext const& ctx, Side side, Uplo uplo, bool hermitian, int64_t m, int64_t n,
          T alpha, T const* a, int64_t lda, T const* b, int64_t ldb, T beta, T* c, int64_t ldc);
/// C = alpha op(A) op(A)^T + beta C (syrk) or, when `hermitian`, alpha op(A) op(A)^H + beta C
/// with real alpha and beta (herk), on the `uplo` triangle of the n x n C.
template <Scalar T>
void syrk(rt::CudaContext const& ctx, Uplo uplo, Op trans, bool hermitian, int64_t n, int64_t k,
          T alpha, T const* a, int64_t lda, T beta, T* c, int64_t ldc);
/// B = alpha op(A)^{-1} B (left) or alpha B op(A)^{-1} (right), A triangular (cublas<t>trsm).
template <Scalar T>
void trsm(rt::CudaContext const& ctx, Side side, Uplo uplo, Op trans, Diag diag, int64_t m,
          int64_t n, T alpha, T const* a, int64_t lda, T* b, int64_t ldb);
/// B = alpha op(A) B (left) or alpha B op(A) (right), A triangular, in place (cublas<t>trmm
/// with C = B).
template <Scalar T>
void trmm(rt::CudaContext const& ctx, Side side, Uplo uplo, Op trans, Diag diag, int64_t m,
          int64_t n, T alpha, T const* a, int64_t lda, T* b, int64_t ldb);
/// Cholesky factorization of the n x n A in place (cusolverDn<t>potrf); `report` gets LAPACK's
/// info when it is k > 0 (the minor of order k is not positive definite).
template <Scalar T>
void potrf(rt::CudaContext const& ctx, Uplo uplo, int64_t n, T* a, int64_t lda, InfoReport report);
/// LU of the m x n A in place (cusolverDn<t>getrf): A = P L U with partial pivoting, ipiv
/// (GPU memory, min(m, n) int) receiving LAPACK's pivots (rows from 1); or A = L U without
/// pivoting when ipiv is null. `report` gets LAPACK's info when it is k > 0 (u_kk is exactly
/// zero). `workspace`: getrf_workspace_bytes of GPU memory from the caller's own request of
/// ctx.workspace (a caller that needs more of it for itself), or null to ask ctx for it.
template <Scalar T>
void getrf(rt::CudaContext const& ctx, int64_t m, int64_t n, T* a, int64_t lda, int* ipiv,
           InfoReport report, void* workspace = nullptr);
/// The workspace getrf needs for the m x n A, a multiple of 256 bytes.
template <Scalar T>
std::size_t getrf_workspace_bytes(rt::CudaContext const& ctx, int64_t m, int64_t n, T* a,
                                  int64_t lda);
/// QR of the m x n A in place (cusolverDn<t>geqrf): R on and above the diagonal, the
/// reflectors below it, their min(m, n) scalars in tau (GPU memory), LAPACK's compact form.
/// `workspace`: geqrf_workspace_bytes of GPU memory from the caller's own request of
/// ctx.workspace, or null to ask ctx for it.
template <Scalar T>
void geqrf(rt::CudaContext const& ctx, int64_t m, int64_t n, T* a, int64_t lda, T* tau,
           void* workspace = nullptr);
/// The workspace geqrf needs for the m x n A, a multiple of 256 bytes.
template <Scalar T>
std::size_t geqrf_workspace_bytes(rt::CudaContext const& ctx, int64_t m, int64_t n, T* a,
                                  int64_t lda);
/// The k x k upper triangular factor T of H_1 ... H_k = I - V T V^H from the k reflectors of
/// the n x k V (unit lower trapezoidal: its diagonal and above are not read) and their scalars
/// tau, all in GPU memory: LAPACK's larft, forward and columnwise (cusolverDnXlarft).
/// `workspace` as geqrf's, of larft_workspace_bytes.
template <Scalar T>
void larft(rt::CudaContext const& ctx, int64_t n, int64_t k, T const* v, int64_t ldv, T const* tau,
           T* t, int64_t ldt, void* workspace = nullptr);
/// The workspace larft needs for these operands, a multiple of 256 bytes.
template <Scalar T>
std::size_t larft_workspace_bytes(rt::CudaContext const& ctx, int64_t n, int64_t k, T const* v,
                                  int64_t ldv, T const* tau, T* t, int64_t ldt);
/// Inverse of the triangular A in place (cusolverDnXtrtri); `report` gets LAPACK's info when
/// it is k > 0 (a_kk is exactly zero).
template <Scalar T>
void trtri(rt::CudaContext const& ctx, Uplo uplo, Diag diag, int64_t n, T* a, int64_t lda,
           InfoReport report);
/// U U^H (upper) or L^H L (lower) of the `uplo` triangle of A, in place; the other triangle is
/// neither read nor written (cuBLAS herk and trmm, see blas_lapack.cpp).
template <Scalar T> void lauum(rt::CudaContext const& ctx, Uplo uplo, int64_t n, T* a, int64_t lda);

}  // namespace tessera::la::kernels::cuda
