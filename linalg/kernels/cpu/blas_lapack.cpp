// CBLAS and LAPACKE behind one template per routine (see blas_lapack.hpp). The complex types
// are std::complex, which LAPACKE accepts once lapack_complex_* name them; CBLAS takes
// complex scalars by address.
#include "linalg/kernels/cpu/blas_lapack.hpp"

#include <complex>
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <concepts>
#include <mutex>
#include <vector>

namespace tessera::la::kernels::cpu {
namespace {

using cf = std::complex<float>;
using cz = std::complex<double>;

CBLAS_TRANSPOSE cblas(Op o) noexcept
{
    return o == Op::notrans ? CblasNoTrans : o == Op::trans ? CblasTrans : CblasConjTrans;
}
CBLAS_UPLO cblas(Uplo u) noexcept
{
    return u == Uplo::upper ? CblasUpper : CblasLower;
}
CBLAS_SIDE cblas(Side s) noexcept
{
    return s == Side::left ? CblasLeft : CblasRight;
}
CBLAS_DIAG cblas(Diag d) noexcept
{
    return d == Diag::unit ? CblasUnit : CblasNonUnit;
}
constexpr auto col = CblasColMajor;
constexpr int lapack_col = LAPACK_COL_MAJOR;

/// The routine of T's precision among LAPACK's s, d, c and z ones.
template <Scalar T, class S, class D, class C, class Z>
constexpr auto pick(S s, D d, C c, Z z) noexcept
{
    if constexpr (std::same_as<T, float>)
        return s;
    else if constexpr (std::same_as<T, double>)
        return d;
    else if constexpr (std::same_as<T, cf>)
        return c;
    else
        return z;
}

/// A scalar as CBLAS takes it: by value in the real precisions, by address in the complex ones.
template <Scalar T> auto scalar(T const& x) noexcept
{
    if constexpr (is_complex_v<T>)
        return &x;
    else
        return x;
}

}  // namespace

template <Scalar T>
void gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha, T const* a, int64_t lda,
          T const* b, int64_t ldb, T beta, T* c, int64_t ldc)
{
    pick<T>(cblas_sgemm, cblas_dgemm, cblas_cgemm,
            cblas_zgemm)(col, cblas(ta), cblas(tb), int(m), int(n), int(k), scalar(alpha), a,
                         int(lda), b, int(ldb), scalar(beta), c, int(ldc));
}

template <Scalar T>
void symm(Side side, Uplo uplo, bool hermitian, int64_t m, int64_t n, T alpha, T const* a,
          int64_t lda, T const* b, int64_t ldb, T beta, T* c, int64_t ldc)
{
    // hermitian only means something in the complex precisions
    pick<T>(cblas_ssymm, cblas_dsymm, hermitian ? cblas_chemm : cblas_csymm,
            hermitian ? cblas_zhemm : cblas_zsymm)(col, cblas(side), cblas(uplo), int(m), int(n),
                                                   scalar(alpha), a, int(lda), b, int(ldb),
                                                   scalar(beta), c, int(ldc));
}

template <Scalar T>
void syrk(Uplo uplo, Op trans, bool hermitian, int64_t n, int64_t k, T alpha, T const* a,
          int64_t lda, T beta, T* c, int64_t ldc)
{
    if constexpr (is_complex_v<T>) {
        if (hermitian) {  // herk's alpha and beta are real
            pick<T>(nullptr, nullptr, cblas_cherk, cblas_zherk)(col, cblas(uplo), cblas(trans),
                                                                int(n), int(k), alpha.real(), a,
                                                                int(lda), beta.real(), c, int(ldc));
            return;
        }
    }
    pick<T>(cblas_ssyrk, cblas_dsyrk, cblas_csyrk,
            cblas_zsyrk)(col, cblas(uplo), cblas(trans), int(n), int(k), scalar(alpha), a, int(lda),
                         scalar(beta), c, int(ldc));
}

/// The triangular solve (trsm) or product (trmm): CBLAS gives both the same arguments.
template <Scalar T>
void triangular(bool solve, Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n,
                T alpha, T const* a, int64_t lda, T* b, int64_t ldb)
{
    pick<T>(solve ? cblas_strsm : cblas_strmm, solve ? cblas_dtrsm : cblas_dtrmm,
            solve ? cblas_ctrsm : cblas_ctrmm, solve ? cblas_ztrsm : cblas_ztrmm)(
        col, cblas(side), cblas(uplo), cblas(trans), cblas(diag), int(m), int(n), scalar(alpha), a,
        int(lda), b, int(ldb));
}

template <Scalar T>
void trsm_blas(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T alpha, T const* a,
               int64_t lda, T* b, int64_t ldb)
{
    triangular(true, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb);
}

template <Scalar T>
void trmm(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T alpha, T const* a,
          int64_t lda, T* b, int64_t ldb)
{
    triangular(false, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb);
}

template <Scalar T> int64_t potrf_lapack(Uplo uplo, int64_t n, T* a, int64_t lda)
{
    return pick<T>(LAPACKE_spotrf_work, LAPACKE_dpotrf_work, LAPACKE_cpotrf_work,
                   LAPACKE_zpotrf_work)(lapack_col, to_char(uplo), int(n), a, int(lda));
}

namespace {
/// LAPACK's letter for Q^H: 'T' in the real precisions (their 'C' is refused), 'C' in the
/// complex ones.
template <Scalar T> char reflector_op(Op op) noexcept
{
    return op == Op::notrans ? 'N' : is_complex_v<T> ? 'C' : 'T';
}
/// A thread's workspace of at least `count` elements (the kernels run once per task: no
/// allocation after the first tasks).
template <Scalar T> T* workspace(int64_t count)
{
    thread_local std::vector<T> work;
    if (work.size() < std::size_t(count)) work.resize(std::size_t(count));
    return work.data();
}
}  // namespace

template <Scalar T>
void geqrt(int64_t m, int64_t n, int64_t ib, T* a, int64_t lda, T* t, int64_t ldt)
{
    if (std::min(m, n) == 0) return;
    pick<T>(LAPACKE_sgeqrt_work, LAPACKE_dgeqrt_work, LAPACKE_cgeqrt_work, LAPACKE_zgeqrt_work)(
        lapack_col, int(m), int(n), int(ib), a, int(lda), t, int(ldt), workspace<T>(ib * n));
}

template <Scalar T>
void gemqrt(Side side, Op op, int64_t m, int64_t n, int64_t k, int64_t ib, T const* v, int64_t ldv,
            T const* t, int64_t ldt, T* c, int64_t ldc)
{
    if (m == 0 || n == 0 || k == 0) return;
    pick<T>(LAPACKE_sgemqrt_work, LAPACKE_dgemqrt_work, LAPACKE_cgemqrt_work, LAPACKE_zgemqrt_work)(
        lapack_col, to_char(side), reflector_op<T>(op), int(m), int(n), int(k), int(ib), v,
        int(ldv), t, int(ldt), c, int(ldc), workspace<T>(ib * (side == Side::left ? n : m)));
}

template <Scalar T>
void tpqrt(int64_t m, int64_t n, int64_t l, int64_t ib, T* a, int64_t lda, T* b, int64_t ldb, T* t,
           int64_t ldt)
{
    if (m == 0 || n == 0) return;
    pick<T>(LAPACKE_stpqrt_work, LAPACKE_dtpqrt_work, LAPACKE_ctpqrt_work,
            LAPACKE_ztpqrt_work)(lapack_col, int(m), int(n), int(l), int(ib), a, int(lda), b,
                                 int(ldb), t, int(ldt), workspace<T>(ib * n));
}

template <Scalar T>
void tpmqrt(Side side, Op op, int64_t m, int64_t n, int64_t k, int64_t l, int64_t ib, T const* v,
            int64_t ldv, T const* t, int64_t ldt, T* a, int64_t lda, T* b, int64_t ldb)
{
    if (m == 0 || n == 0 || k == 0) return;
    pick<T>(LAPACKE_stpmqrt_work, LAPACKE_dtpmqrt_work, LAPACKE_ctpmqrt_work,
            LAPACKE_ztpmqrt_work)(lapack_col, to_char(side), reflector_op<T>(op), int(m), int(n),
                                  int(k), int(l), int(ib), v, int(ldv), t, int(ldt), a, int(lda), b,
                                  int(ldb), workspace<T>(ib * (side == Side::left ? n : m)));
}

template <Scalar T> void geqrf(int64_t m, int64_t n, T* a, int64_t lda, T* tau)
{
    if (m == 0 || n == 0) return;
    const int64_t lwork = std::max<int64_t>(1, 64 * n);
    pick<T>(LAPACKE_sgeqrf_work, LAPACKE_dgeqrf_work, LAPACKE_cgeqrf_work, LAPACKE_zgeqrf_work)(
        lapack_col, int(m), int(n), a, int(lda), tau, workspace<T>(lwork), int(lwork));
}

template <Scalar T>
void unmqr(Side side, Op op, int64_t m, int64_t n, int64_t k, T const* a, int64_t lda, T const* tau,
           T* c, int64_t ldc)
{
    if (m == 0 || n == 0 || k == 0) return;
    const int64_t lwork = std::max<int64_t>(1, 64 * (side == Side::left ? n : m) + 64 * 65);
    pick<T>(LAPACKE_sormqr_work, LAPACKE_dormqr_work, LAPACKE_cunmqr_work, LAPACKE_zunmqr_work)(
        lapack_col, to_char(side), reflector_op<T>(op), int(m), int(n), int(k), a, int(lda), tau, c,
        int(ldc), workspace<T>(lwork), int(lwork));
}

template <Scalar T> void gelqf(int64_t m, int64_t n, T* a, int64_t lda, T* tau)
{
    if (m == 0 || n == 0) return;
    const int64_t lwork = std::max<int64_t>(1, 64 * m);
    pick<T>(LAPACKE_sgelqf_work, LAPACKE_dgelqf_work, LAPACKE_cgelqf_work, LAPACKE_zgelqf_work)(
        lapack_col, int(m), int(n), a, int(lda), tau, workspace<T>(lwork), int(lwork));
}

template <Scalar T>
void unmlq(Side side, Op op, int64_t m, int64_t n, int64_t k, T const* a, int64_t lda, T const* tau,
           T* c, int64_t ldc)
{
    if (m == 0 || n == 0 || k == 0) return;
    const int64_t lwork = std::max<int64_t>(1, 64 * (side == Side::left ? n : m) + 64 * 65);
    pick<T>(LAPACKE_sormlq_work, LAPACKE_dormlq_work, LAPACKE_cunmlq_work, LAPACKE_zunmlq_work)(
        lapack_col, to_char(side), reflector_op<T>(op), int(m), int(n), int(k), a, int(lda), tau, c,
        int(ldc), workspace<T>(lwork), int(lwork));
}

template <Scalar T> void unglq(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, T const* tau)
{
    if (m == 0 || n == 0) return;
    const int64_t lwork = std::max<int64_t>(1, 64 * m);
    pick<T>(LAPACKE_sorglq_work, LAPACKE_dorglq_work, LAPACKE_cunglq_work, LAPACKE_zunglq_work)(
        lapack_col, int(m), int(n), int(k), a, int(lda), tau, workspace<T>(lwork), int(lwork));
}

template <Scalar T>
int64_t gels(Op op, int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb)
{
    const int64_t lwork = std::max<int64_t>(1, std::min(m, n) + 64 * (std::max(m, n) + nrhs));
    return pick<T>(LAPACKE_sgels_work, LAPACKE_dgels_work, LAPACKE_cgels_work,
                   LAPACKE_zgels_work)(lapack_col, reflector_op<T>(op), int(m), int(n), int(nrhs),
                                       a, int(lda), b, int(ldb), workspace<T>(lwork), int(lwork));
}

template <Scalar T> void ungqr(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, T const* tau)
{
    if (m == 0 || n == 0) return;
    const int64_t lwork =
        std::max<int64_t>(1, 64 * n);  // LAPACK's blocked path wants n nb, nb = 32
    pick<T>(LAPACKE_sorgqr_work, LAPACKE_dorgqr_work, LAPACKE_cungqr_work, LAPACKE_zungqr_work)(
        lapack_col, int(m), int(n), int(k), a, int(lda), tau, workspace<T>(lwork), int(lwork));
}

template <Scalar T> int64_t trtri(Uplo uplo, Diag diag, int64_t n, T* a, int64_t lda)
{
    return pick<T>(LAPACKE_strtri_work, LAPACKE_dtrtri_work, LAPACKE_ctrtri_work,
                   LAPACKE_ztrtri_work)(lapack_col, to_char(uplo), to_char(diag), int(n), a,
                                        int(lda));
}

template <Scalar T> void lauum_lapack(Uplo uplo, int64_t n, T* a, int64_t lda)
{
    pick<T>(LAPACKE_slauum_work, LAPACKE_dlauum_work, LAPACKE_clauum_work,
            LAPACKE_zlauum_work)(lapack_col, to_char(uplo), int(n), a, int(lda));
}

template <Scalar T> void lauum(Uplo uplo, int64_t n, T* a, int64_t lda)
{
    if constexpr (is_complex_v<T>) {
        if (uplo == Uplo::upper && n > 0) {
            // OpenBLAS 0.3.21's clauum/zlauum('U') read past the end of the matrix (a guard page
            // after an n x n array faults for every n >= 2; 'L' and the real ones do not), which
            // crashes on a buffer that ends a mapping. U U^H = L^H L with L = U^H: the lower
            // product on a copy, conjugate-transposed back; the lower triangle stays untouched.
            thread_local std::vector<T> work;
            work.assign(std::size_t(n * n), T(0));
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i <= j; ++i)
                    work[std::size_t(j + i * n)] = std::conj(a[i + j * lda]);
            lauum_lapack(Uplo::lower, n, work.data(), n);
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i <= j; ++i)
                    a[i + j * lda] = std::conj(work[std::size_t(j + i * n)]);
            return;
        }
    }
    lauum_lapack(uplo, n, a, lda);
}

template <Scalar T> int64_t iamax(int64_t n, T const* x, int64_t incx)
{
    if (n <= 0) return -1;
    return int64_t(
        pick<T>(cblas_isamax, cblas_idamax, cblas_icamax, cblas_izamax)(int(n), x, int(incx)));
}

template <Scalar T> real_t<T> nrm2(int64_t n, T const* x, int64_t incx)
{
    return pick<T>(cblas_snrm2, cblas_dnrm2, cblas_scnrm2, cblas_dznrm2)(int(n), x, int(incx));
}

template <Scalar T> void swap(int64_t n, T* x, int64_t incx, T* y, int64_t incy)
{
    pick<T>(cblas_sswap, cblas_dswap, cblas_cswap, cblas_zswap)(int(n), x, int(incx), y, int(incy));
}

template <Scalar T> void scal(int64_t n, T alpha, T* x, int64_t incx)
{
    pick<T>(cblas_sscal, cblas_dscal, cblas_cscal, cblas_zscal)(int(n), scalar(alpha), x,
                                                                int(incx));
}

std::shared_ptr<void> single_threaded_blas()
{
    static std::mutex m;
    static int tokens = 0;
    static int threads_before = 1;
    std::lock_guard lock(m);
    if (tokens++ == 0) {
        threads_before = openblas_get_num_threads();
        if (threads_before != 1) openblas_set_num_threads(1);
    }
    return std::shared_ptr<void>(nullptr, [](void*) {
        std::lock_guard lock(m);
        if (--tokens == 0 && threads_before != 1) openblas_set_num_threads(threads_before);
    });
}

#define TESSERA_INSTANTIATE_KERNELS(T)                                                             \
    template void gemm<T>(Op, Op, int64_t, int64_t, int64_t, T, T const*, int64_t, T const*,       \
                          int64_t, T, T*, int64_t);                                                \
    template void symm<T>(Side, Uplo, bool, int64_t, int64_t, T, T const*, int64_t, T const*,      \
                          int64_t, T, T*, int64_t);                                                \
    template void syrk<T>(Uplo, Op, bool, int64_t, int64_t, T, T const*, int64_t, T, T*, int64_t); \
    template void trsm_blas<T>(Side, Uplo, Op, Diag, int64_t, int64_t, T, T const*, int64_t, T*,   \
                               int64_t);                                                           \
    template void trmm<T>(Side, Uplo, Op, Diag, int64_t, int64_t, T, T const*, int64_t, T*,        \
                          int64_t);                                                                \
    template int64_t potrf_lapack<T>(Uplo, int64_t, T*, int64_t);                                  \
    template int64_t trtri<T>(Uplo, Diag, int64_t, T*, int64_t);                                   \
    template void lauum<T>(Uplo, int64_t, T*, int64_t);                                            \
    template int64_t iamax<T>(int64_t, T const*, int64_t);                                         \
    template real_t<T> nrm2<T>(int64_t, T const*, int64_t);                                        \
    template void swap<T>(int64_t, T*, int64_t, T*, int64_t);                                      \
    template void scal<T>(int64_t, T, T*, int64_t);                                                \
    template void geqrt<T>(int64_t, int64_t, int64_t, T*, int64_t, T*, int64_t);                   \
    template void gemqrt<T>(Side, Op, int64_t, int64_t, int64_t, int64_t, T const*, int64_t,       \
                            T const*, int64_t, T*, int64_t);                                       \
    template void tpqrt<T>(int64_t, int64_t, int64_t, int64_t, T*, int64_t, T*, int64_t, T*,       \
                           int64_t);                                                               \
    template void tpmqrt<T>(Side, Op, int64_t, int64_t, int64_t, int64_t, int64_t, T const*,       \
                            int64_t, T const*, int64_t, T*, int64_t, T*, int64_t);                 \
    template void ungqr<T>(int64_t, int64_t, int64_t, T*, int64_t, T const*);                      \
    template void geqrf<T>(int64_t, int64_t, T*, int64_t, T*);                                     \
    template void unmqr<T>(Side, Op, int64_t, int64_t, int64_t, T const*, int64_t, T const*, T*,   \
                           int64_t);                                                               \
    template void gelqf<T>(int64_t, int64_t, T*, int64_t, T*);                                     \
    template void unmlq<T>(Side, Op, int64_t, int64_t, int64_t, T const*, int64_t, T const*, T*,   \
                           int64_t);                                                               \
    template void unglq<T>(int64_t, int64_t, int64_t, T*, int64_t, T const*);                      \
    template int64_t gels<T>(Op, int64_t, int64_t, int64_t, T*, int64_t, T*, int64_t);
TESSERA_INSTANTIATE_KERNELS(float)
TESSERA_INSTANTIATE_KERNELS(double)
TESSERA_INSTANTIATE_KERNELS(cf)
TESSERA_INSTANTIATE_KERNELS(cz)
#undef TESSERA_INSTANTIATE_KERNELS

}  // namespace tessera::la::kernels::cpu
