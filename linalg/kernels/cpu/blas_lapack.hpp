// The thin precision layer over CBLAS and LAPACKE: the only place where the letters s, d, c
// and z appear (STYLE.md). One template per routine, defined for the four Scalar types in
// blas_lapack.cpp, with BLAS/LAPACK argument meanings on column-major arrays. Pure kernels:
// no runtime includes. Internal.
#pragma once

#include <tessera/la/enums.hpp>
#include <tessera/la/scalar.hpp>

#include <cstdint>
#include <memory>

namespace tessera::la::kernels::cpu {

/// C = alpha op(A) op(B) + beta C, C m x n, op(A) m x k.
template <Scalar T>
void gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha, T const* a, int64_t lda,
          T const* b, int64_t ldb, T beta, T* c, int64_t ldc);
/// C = alpha A B + beta C (left) or alpha B A + beta C (right), A symmetric (hermitian when
/// `hermitian`, complex only) stored in its `uplo` triangle.
template <Scalar T>
void symm(Side side, Uplo uplo, bool hermitian, int64_t m, int64_t n, T alpha, T const* a,
          int64_t lda, T const* b, int64_t ldb, T beta, T* c, int64_t ldc);
/// C = alpha op(A) op(A)^T + beta C (syrk) or, when `hermitian`, alpha op(A) op(A)^H + beta C
/// with real alpha and beta (herk), on the `uplo` triangle of the n x n C.
template <Scalar T>
void syrk(Uplo uplo, Op trans, bool hermitian, int64_t n, int64_t k, T alpha, T const* a,
          int64_t lda, T beta, T* c, int64_t ldc);
/// B = alpha op(A)^{-1} B (left) or alpha B op(A)^{-1} (right), A triangular: the BLAS call.
template <Scalar T>
void trsm_blas(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T alpha, T const* a,
               int64_t lda, T* b, int64_t ldb);
/// The same solve, recursive (trsm.cpp): most of its flops in gemm, which OpenBLAS runs twice as
/// fast as its trsm on one core.
template <Scalar T>
void trsm(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T alpha, T const* a,
          int64_t lda, T* b, int64_t ldb);
/// B = alpha op(A) B (left) or alpha B op(A) (right), A triangular.
template <Scalar T>
void trmm(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T alpha, T const* a,
          int64_t lda, T* b, int64_t ldb);
/// Cholesky factorization of the n x n A in place; LAPACK's info (k > 0: the minor of order k
/// is not positive definite). The LAPACKE call.
template <Scalar T> int64_t potrf_lapack(Uplo uplo, int64_t n, T* a, int64_t lda);
/// The same factorization, recursive (potrf.cpp) on the recursive trsm: 19% faster than the
/// LAPACKE call on a 768 tile on one core.
template <Scalar T> int64_t potrf(Uplo uplo, int64_t n, T* a, int64_t lda);
/// Inverse of the triangular A in place; LAPACK's info (k > 0: a_kk is exactly zero).
template <Scalar T> int64_t trtri(Uplo uplo, Diag diag, int64_t n, T* a, int64_t lda);
/// U U^H or L^H L of the triangle of A, in place.
template <Scalar T> void lauum(Uplo uplo, int64_t n, T* a, int64_t lda);

/// Householder QR of the m x n A with inner blocking ib, 1 <= ib <= min(m, n) (LAPACK's
/// geqrt): R on and above the diagonal, the reflectors' vectors V below it (unit diagonal not
/// stored), and in the ib x min(m, n) t the triangular factors of Q = I - V T V^H, one ib x ib
/// block per ib columns.
template <Scalar T>
void geqrt(int64_t m, int64_t n, int64_t ib, T* a, int64_t lda, T* t, int64_t ldt);
/// C = op(Q) C (left, C m x n) or C op(Q) (right), Q the product of the k reflectors geqrt left
/// in v and t with inner blocking ib (LAPACK's gemqrt). op is Op::notrans or Q^H (Op::trans
/// or Op::conjtrans, one meaning for the real types, Op::conjtrans for the complex ones).
template <Scalar T>
void gemqrt(Side side, Op op, int64_t m, int64_t n, int64_t k, int64_t ib, T const* v, int64_t ldv,
            T const* t, int64_t ldt, T* c, int64_t ldc);
/// QR of the (n + m) x n matrix [A; B], A n x n upper triangular, B m x n whose last l rows are
/// upper trapezoidal (LAPACK's tpqrt; l = 0: B a full rectangle, l = min(m, n): B a triangle):
/// R in A, the reflectors' V in B (in B's shape), their factors in the ib x n t.
template <Scalar T>
void tpqrt(int64_t m, int64_t n, int64_t l, int64_t ib, T* a, int64_t lda, T* b, int64_t ldb, T* t,
           int64_t ldt);
/// Applies tpqrt's Q (k reflectors, V m x k in v for the left side, n x k for the right):
/// [A; B] = op(Q) [A; B] (left: A k x n, B m x n) or [A B] = [A B] op(Q) (right: A m x k, B
/// m x n) (LAPACK's tpmqrt); op as in gemqrt.
template <Scalar T>
void tpmqrt(Side side, Op op, int64_t m, int64_t n, int64_t k, int64_t l, int64_t ib, T const* v,
            int64_t ldv, T const* t, int64_t ldt, T* a, int64_t lda, T* b, int64_t ldb);

/// The k x k upper triangular factor T of the block reflector H_1 H_2 ... H_k = I - V T V^H,
/// V (n x k, n >= k) unit lower trapezoidal with the reflectors' vectors, tau their scalars:
/// LAPACK's larft (forward, columnwise), with its products in level 3 (larft.cpp).
template <Scalar T>
void larft(int64_t n, int64_t k, T const* v, int64_t ldv, T const* tau, T* t, int64_t ldt);
/// LAPACK's geqrf on the m x n a: R and the reflectors in compact form, min(m, n) taus.
template <Scalar T> void geqrf(int64_t m, int64_t n, T* a, int64_t lda, T* tau);
/// C (m x n) = op(Q) C or C op(Q), Q = H_1 ... H_k of geqrf's compact form (LAPACK's
/// ormqr/unmqr); op as in gemqrt.
template <Scalar T>
void unmqr(Side side, Op op, int64_t m, int64_t n, int64_t k, T const* a, int64_t lda, T const* tau,
           T* c, int64_t ldc);
/// LAPACK's gelqf on the m x n a: L and the reflectors (conjugated, in the rows) in compact
/// form, min(m, n) taus.
template <Scalar T> void gelqf(int64_t m, int64_t n, T* a, int64_t lda, T* tau);
/// C = op(Q) C or C op(Q), Q of gelqf's compact form (LAPACK's ormlq/unmlq).
template <Scalar T>
void unmlq(Side side, Op op, int64_t m, int64_t n, int64_t k, T const* a, int64_t lda, T const* tau,
           T* c, int64_t ldc);
/// The first m rows of Q from gelqf's compact form in the m x n a (LAPACK's orglq/unglq), in
/// place.
template <Scalar T> void unglq(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, T const* tau);
/// LAPACK's gels: least squares or minimum norm solutions of op(A) X = B; its info.
template <Scalar T>
int64_t gels(Op op, int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb);
/// The first n columns of Q = H_1 ... H_k, from the reflectors of geqrf's compact form in the
/// m x n a (k of them, k <= n <= m), in place (LAPACK's orgqr/ungqr).
template <Scalar T> void ungqr(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, T const* tau);

/// The index (from 0) of the first entry of x (n entries, stride incx) of largest
/// |Re| + |Im| (BLAS i?amax: LAPACK's getrf picks its pivots by this measure); -1 when n = 0.
template <Scalar T> int64_t iamax(int64_t n, T const* x, int64_t incx);
/// ||x||_2 (n entries, stride incx), without overflow or underflow in the squares (BLAS nrm2).
template <Scalar T> real_t<T> nrm2(int64_t n, T const* x, int64_t incx);
/// Swaps x and y (n entries each, strides incx and incy).
template <Scalar T> void swap(int64_t n, T* x, int64_t incx, T* y, int64_t incy);
/// x = alpha x (n entries, stride incx).
template <Scalar T> void scal(int64_t n, T alpha, T* x, int64_t incx);

/// B = A, both m x n.
template <Scalar T>
void lacpy(int64_t m, int64_t n, T const* a, int64_t lda, T* b, int64_t ldb) noexcept
{
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) b[i + j * ldb] = a[i + j * lda];
}

/// B = A^H (A m x n, B n x m; the transpose for the real types).
template <Scalar T>
void conj_transpose(int64_t m, int64_t n, T const* a, int64_t lda, T* b, int64_t ldb) noexcept
{
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) b[j + i * ldb] = conj(a[i + j * lda]);
}

}  // namespace tessera::la::kernels::cpu

namespace tessera::la::kernels::cpu {
/// Makes OpenBLAS run each call on the calling thread while the returned token, or another
/// one, lives: the runtime owns the cores, one task per core (with OpenBLAS's own threads
/// inside tasks, tile algorithms lose half their speed). When the last token goes, OpenBLAS
/// gets back the thread count it had before the first: the caller's own BLAS calls after a
/// Tessera call keep their threads.
std::shared_ptr<void> single_threaded_blas();
}  // namespace tessera::la::kernels::cpu
