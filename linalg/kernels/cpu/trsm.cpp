// A recursive triangular solve (Elmroth, Gustavson, Jonsson and Kagstrom's recursive BLAS):
// OpenBLAS's single-threaded trsm runs at about half its gemm speed (30-37 against 73-80
// GFlop/s for a 512 tile here), so the triangle is halved until it is small and most of the
// flops become gemm. With op(A) = [O11 O12; O21 O22] (one off-diagonal block zero), the left
// solve op(A) X = alpha B is, when op(A) is lower,
//     O11 X1 = alpha B1,   B2 = alpha B2 - O21 X1,   O22 X2 = B2,
// and from the bottom (X2 first, B1 -= O12 X2) when op(A) is upper; the right solve
// X op(A) = alpha B is the same on columns. The off-diagonal block of op(A) is the stored block
// of A, itself transposed by op when trans.
#include "linalg/kernels/cpu/blas_lapack.hpp"

#include "linalg/instantiate.hpp"

namespace tessera::la::kernels::cpu {

namespace {
/// Below this order the BLAS trsm itself is as fast as the recursion (measured: 16 gives 58
/// GFlop/s on a 512 tile in double, against 33 for the BLAS call and 39 with 128).
constexpr int64_t base_order = 16;
}  // namespace

template <Scalar T>
void trsm(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T alpha, T const* a,
          int64_t lda, T* b, int64_t ldb)
{
    const bool left = side == Side::left;
    const int64_t k = left ? m : n;  // order of A
    if (k <= 2 * base_order || (left ? n : m) < base_order / 2) {
        trsm_blas(side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb);
        return;
    }
    const int64_t k1 = (k / 2 + 15) / 16 * 16, k2 = k - k1;
    T const* a11 = a;
    T const* a22 = a + k1 + k1 * lda;
    // The stored off-diagonal block: A21 (lower) or A12 (upper); op applies trans to it.
    T const* off = uplo == Uplo::lower ? a + k1 : a + k1 * lda;
    const bool op_lower = (uplo == Uplo::lower) == (trans == Op::notrans);
    if (left) {
        T* b1 = b;
        T* b2 = b + k1;
        if (op_lower) {  // O21 = op(off) is k2 x k1
            trsm(side, uplo, trans, diag, k1, n, alpha, a11, lda, b1, ldb);
            gemm(trans, Op::notrans, k2, n, k1, T(-1), off, lda, b1, ldb, alpha, b2, ldb);
            trsm(side, uplo, trans, diag, k2, n, T(1), a22, lda, b2, ldb);
        } else {  // O12 = op(off) is k1 x k2
            trsm(side, uplo, trans, diag, k2, n, alpha, a22, lda, b2, ldb);
            gemm(trans, Op::notrans, k1, n, k2, T(-1), off, lda, b2, ldb, alpha, b1, ldb);
            trsm(side, uplo, trans, diag, k1, n, T(1), a11, lda, b1, ldb);
        }
    } else {
        T* b1 = b;
        T* b2 = b + k1 * ldb;
        if (!op_lower) {  // op(A) upper: X1 first; O12 = op(off) is k1 x k2
            trsm(side, uplo, trans, diag, m, k1, alpha, a11, lda, b1, ldb);
            gemm(Op::notrans, trans, m, k2, k1, T(-1), b1, ldb, off, lda, alpha, b2, ldb);
            trsm(side, uplo, trans, diag, m, k2, T(1), a22, lda, b2, ldb);
        } else {  // op(A) lower: X2 first; O21 = op(off) is k2 x k1
            trsm(side, uplo, trans, diag, m, k2, alpha, a22, lda, b2, ldb);
            gemm(Op::notrans, trans, m, k1, k2, T(-1), b2, ldb, off, lda, alpha, b1, ldb);
            trsm(side, uplo, trans, diag, m, k1, T(1), a11, lda, b1, ldb);
        }
    }
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void trsm<T>(Side, Uplo, Op, Diag, int64_t, int64_t, T, T const*, int64_t, T*,        \
                          int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::la::kernels::cpu
