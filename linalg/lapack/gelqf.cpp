// LAPACK-style gelqf, unmlq (ormlq) and unglq (orglq) through the QR of A^H: if A^H = H_1 ...
// H_k R, H_i = I - tau_i v_i v_i^H, then A = R^H H_k^H ... H_1^H = L Q with L = R^H and
// Q = H_k^H ... H_1^H, which is LAPACK's LQ (its Q; H_k ... H_1 for the real types), with
// the same taus. LAPACK's gelqf stores conj(v_i) in row i of A right of the diagonal: row i
// of (A^H's compact form)^H. So the compact QR of the conjugate transpose, transposed back,
// is LAPACK's LQ, and Q = Q'^H for the Q' of that QR.
// The transposes read and write m n entries each, against the factorization's O(m n^2)
// flops. Inside a task, LAPACK's own routine runs inline.
#include <tessera/la/qr.hpp>

#include "linalg/instantiate.hpp"
#include "linalg/kernels/cpu/blas_lapack.hpp"
#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"

#include <vector>

namespace tessera::inline la {

namespace {
/// The m x n a's conjugate transpose, n x m.
template <Scalar T> std::vector<T> conj_transposed(int64_t m, int64_t n, T const* a, int64_t lda)
{
    std::vector<T> b(std::size_t(m * n));
    kernels::cpu::conj_transpose<T>(m, n, a, lda, b.data(), std::max<int64_t>(n, 1));
    return b;
}
}  // namespace

template <Scalar T> int64_t gelqf(int64_t m, int64_t n, T* a, int64_t lda, T* tau)
{
    constexpr char const* fn = "gelqf";
    detail::check_factorization_arguments(fn, m, n, a, lda, tau);
    if (m == 0 || n == 0) return 0;
    if (detail::inside_task()) {
        detail::run_inline([&] { kernels::cpu::gelqf<T>(m, n, a, lda, tau); });
        return 0;
    }
    std::vector<T> b = conj_transposed(m, n, a, lda);
    (void)geqrf<T>(n, m, b.data(), n, tau);
    kernels::cpu::conj_transpose<T>(n, m, b.data(), n, a, lda);
    return 0;
}

template <Scalar T>
int64_t unmlq(Side side, Op op, int64_t m, int64_t n, int64_t k, T const* a, int64_t lda,
              T const* tau, T* c, int64_t ldc)
{
    constexpr char const* fn = is_complex_v<T> ? "unmlq" : "ormlq";  // LAPACK's name
    const int64_t nq = detail::check_reflector_application<is_complex_v<T>>(
        fn, side, op, m, n, k, a, lda, true, tau, c, ldc);
    if (m == 0 || n == 0 || k == 0) return 0;
    if (detail::inside_task()) {
        detail::run_inline([&] { kernels::cpu::unmlq<T>(side, op, m, n, k, a, lda, tau, c, ldc); });
        return 0;
    }
    // Q = Q'^H, Q' from the reflectors v_i (the k x nq rows of a, conjugate-transposed)
    const std::vector<T> v = conj_transposed(k, nq, a, lda);
    const Op qr_op = op == Op::notrans ? Op::conjtrans : Op::notrans;
    return unmqr<T>(side, qr_op, m, n, k, v.data(), nq, tau, c, ldc);
}

template <Scalar T> int64_t unglq(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, T const* tau)
{
    constexpr char const* fn = is_complex_v<T> ? "unglq" : "orglq";  // LAPACK's name
    detail::check_reflector_forming(fn, m, n, k, a, lda, true, tau);
    if (m == 0) return 0;
    if (detail::inside_task()) {
        detail::run_inline([&] { kernels::cpu::unglq<T>(m, n, k, a, lda, tau); });
        return 0;
    }
    // rows of Q = columns of Q'^H: Q'(:, 0:m) from the QR form of A^H, transposed back
    std::vector<T> b = conj_transposed(m, n, a, lda);
    (void)ungqr<T>(n, m, k, b.data(), n, tau);
    kernels::cpu::conj_transpose<T>(n, m, b.data(), n, a, lda);
    return 0;
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template int64_t gelqf<T>(int64_t, int64_t, T*, int64_t, T*);                                  \
    template int64_t unmlq<T>(Side, Op, int64_t, int64_t, int64_t, T const*, int64_t, T const*,    \
                              T*, int64_t);                                                        \
    template int64_t unglq<T>(int64_t, int64_t, int64_t, T*, int64_t, T const*);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
