// CBLAS and LAPACKE behind one template per routine (see blas_lapack.hpp). The complex types
// are std::complex, which LAPACKE accepts once lapack_complex_* name them; CBLAS takes
// complex scalars by address.
#include "linalg/kernels/cpu/blas_lapack.hpp"

#include <complex>
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <cblas.h>
#include <lapacke.h>

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
CBLAS_UPLO cblas(Uplo u) noexcept { return u == Uplo::upper ? CblasUpper : CblasLower; }
CBLAS_SIDE cblas(Side s) noexcept { return s == Side::left ? CblasLeft : CblasRight; }
CBLAS_DIAG cblas(Diag d) noexcept { return d == Diag::unit ? CblasUnit : CblasNonUnit; }
constexpr auto col = CblasColMajor;
constexpr int lapack_col = LAPACK_COL_MAJOR;

}  // namespace

template <Scalar T>
void gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha, T const* a, int64_t lda, T const* b,
          int64_t ldb, T beta, T* c, int64_t ldc)
{
    auto A = cblas(ta), B = cblas(tb);
    if constexpr (std::same_as<T, float>)
        cblas_sgemm(col, A, B, int(m), int(n), int(k), alpha, a, int(lda), b, int(ldb), beta, c, int(ldc));
    else if constexpr (std::same_as<T, double>)
        cblas_dgemm(col, A, B, int(m), int(n), int(k), alpha, a, int(lda), b, int(ldb), beta, c, int(ldc));
    else if constexpr (std::same_as<T, cf>)
        cblas_cgemm(col, A, B, int(m), int(n), int(k), &alpha, a, int(lda), b, int(ldb), &beta, c, int(ldc));
    else
        cblas_zgemm(col, A, B, int(m), int(n), int(k), &alpha, a, int(lda), b, int(ldb), &beta, c, int(ldc));
}

template <Scalar T>
void symm(Side side, Uplo uplo, bool hermitian, int64_t m, int64_t n, T alpha, T const* a, int64_t lda, T const* b,
          int64_t ldb, T beta, T* c, int64_t ldc)
{
    auto S = cblas(side);
    auto U = cblas(uplo);
    if constexpr (std::same_as<T, float>)
        cblas_ssymm(col, S, U, int(m), int(n), alpha, a, int(lda), b, int(ldb), beta, c, int(ldc));
    else if constexpr (std::same_as<T, double>)
        cblas_dsymm(col, S, U, int(m), int(n), alpha, a, int(lda), b, int(ldb), beta, c, int(ldc));
    else if constexpr (std::same_as<T, cf>)
        (hermitian ? cblas_chemm : cblas_csymm)(col, S, U, int(m), int(n), &alpha, a, int(lda), b, int(ldb), &beta, c,
                                                int(ldc));
    else
        (hermitian ? cblas_zhemm : cblas_zsymm)(col, S, U, int(m), int(n), &alpha, a, int(lda), b, int(ldb), &beta, c,
                                                int(ldc));
}

template <Scalar T>
void syrk(Uplo uplo, Op trans, bool hermitian, int64_t n, int64_t k, T alpha, T const* a, int64_t lda, T beta, T* c,
          int64_t ldc)
{
    auto U = cblas(uplo);
    auto O = cblas(trans);
    if constexpr (std::same_as<T, float>)
        cblas_ssyrk(col, U, O, int(n), int(k), alpha, a, int(lda), beta, c, int(ldc));
    else if constexpr (std::same_as<T, double>)
        cblas_dsyrk(col, U, O, int(n), int(k), alpha, a, int(lda), beta, c, int(ldc));
    else if constexpr (std::same_as<T, cf>) {
        if (hermitian)
            cblas_cherk(col, U, O, int(n), int(k), alpha.real(), a, int(lda), beta.real(), c, int(ldc));
        else
            cblas_csyrk(col, U, O, int(n), int(k), &alpha, a, int(lda), &beta, c, int(ldc));
    } else {
        if (hermitian)
            cblas_zherk(col, U, O, int(n), int(k), alpha.real(), a, int(lda), beta.real(), c, int(ldc));
        else
            cblas_zsyrk(col, U, O, int(n), int(k), &alpha, a, int(lda), &beta, c, int(ldc));
    }
}

/// The triangular solve (trsm) or product (trmm): CBLAS gives both the same arguments.
template <Scalar T>
void triangular(bool solve, Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T alpha, T const* a,
                int64_t lda, T* b, int64_t ldb)
{
    auto S = cblas(side);
    auto U = cblas(uplo);
    auto O = cblas(trans);
    auto D = cblas(diag);
    if constexpr (std::same_as<T, float>)
        (solve ? cblas_strsm : cblas_strmm)(col, S, U, O, D, int(m), int(n), alpha, a, int(lda), b, int(ldb));
    else if constexpr (std::same_as<T, double>)
        (solve ? cblas_dtrsm : cblas_dtrmm)(col, S, U, O, D, int(m), int(n), alpha, a, int(lda), b, int(ldb));
    else if constexpr (std::same_as<T, cf>)
        (solve ? cblas_ctrsm : cblas_ctrmm)(col, S, U, O, D, int(m), int(n), &alpha, a, int(lda), b, int(ldb));
    else
        (solve ? cblas_ztrsm : cblas_ztrmm)(col, S, U, O, D, int(m), int(n), &alpha, a, int(lda), b, int(ldb));
}

template <Scalar T>
void trsm_blas(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T alpha, T const* a, int64_t lda, T* b,
               int64_t ldb)
{
    triangular(true, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb);
}

template <Scalar T>
void trmm(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T alpha, T const* a, int64_t lda, T* b,
          int64_t ldb)
{
    triangular(false, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb);
}

template <Scalar T>
int64_t potrf_lapack(Uplo uplo, int64_t n, T* a, int64_t lda)
{
    char u = to_char(uplo);
    if constexpr (std::same_as<T, float>) return LAPACKE_spotrf_work(lapack_col, u, int(n), a, int(lda));
    else if constexpr (std::same_as<T, double>) return LAPACKE_dpotrf_work(lapack_col, u, int(n), a, int(lda));
    else if constexpr (std::same_as<T, cf>) return LAPACKE_cpotrf_work(lapack_col, u, int(n), a, int(lda));
    else return LAPACKE_zpotrf_work(lapack_col, u, int(n), a, int(lda));
}

template <Scalar T>
int64_t trtri(Uplo uplo, Diag diag, int64_t n, T* a, int64_t lda)
{
    char u = to_char(uplo), d = to_char(diag);
    if constexpr (std::same_as<T, float>) return LAPACKE_strtri_work(lapack_col, u, d, int(n), a, int(lda));
    else if constexpr (std::same_as<T, double>) return LAPACKE_dtrtri_work(lapack_col, u, d, int(n), a, int(lda));
    else if constexpr (std::same_as<T, cf>) return LAPACKE_ctrtri_work(lapack_col, u, d, int(n), a, int(lda));
    else return LAPACKE_ztrtri_work(lapack_col, u, d, int(n), a, int(lda));
}

template <Scalar T>
void lauum_lapack(Uplo uplo, int64_t n, T* a, int64_t lda)
{
    char u = to_char(uplo);
    if constexpr (std::same_as<T, float>) LAPACKE_slauum_work(lapack_col, u, int(n), a, int(lda));
    else if constexpr (std::same_as<T, double>) LAPACKE_dlauum_work(lapack_col, u, int(n), a, int(lda));
    else if constexpr (std::same_as<T, cf>) LAPACKE_clauum_work(lapack_col, u, int(n), a, int(lda));
    else LAPACKE_zlauum_work(lapack_col, u, int(n), a, int(lda));
}

template <Scalar T>
void lauum(Uplo uplo, int64_t n, T* a, int64_t lda)
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
                for (int64_t i = 0; i <= j; ++i) work[std::size_t(j + i * n)] = std::conj(a[i + j * lda]);
            lauum_lapack(Uplo::lower, n, work.data(), n);
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i <= j; ++i) a[i + j * lda] = std::conj(work[std::size_t(j + i * n)]);
            return;
        }
    }
    lauum_lapack(uplo, n, a, lda);
}

template <Scalar T>
int64_t iamax(int64_t n, T const* x, int64_t incx)
{
    if (n <= 0) return -1;
    if constexpr (std::same_as<T, float>) return int64_t(cblas_isamax(int(n), x, int(incx)));
    else if constexpr (std::same_as<T, double>) return int64_t(cblas_idamax(int(n), x, int(incx)));
    else if constexpr (std::same_as<T, cf>) return int64_t(cblas_icamax(int(n), x, int(incx)));
    else return int64_t(cblas_izamax(int(n), x, int(incx)));
}

template <Scalar T>
void swap(int64_t n, T* x, int64_t incx, T* y, int64_t incy)
{
    if constexpr (std::same_as<T, float>) cblas_sswap(int(n), x, int(incx), y, int(incy));
    else if constexpr (std::same_as<T, double>) cblas_dswap(int(n), x, int(incx), y, int(incy));
    else if constexpr (std::same_as<T, cf>) cblas_cswap(int(n), x, int(incx), y, int(incy));
    else cblas_zswap(int(n), x, int(incx), y, int(incy));
}

template <Scalar T>
void scal(int64_t n, T alpha, T* x, int64_t incx)
{
    if constexpr (std::same_as<T, float>) cblas_sscal(int(n), alpha, x, int(incx));
    else if constexpr (std::same_as<T, double>) cblas_dscal(int(n), alpha, x, int(incx));
    else if constexpr (std::same_as<T, cf>) cblas_cscal(int(n), &alpha, x, int(incx));
    else cblas_zscal(int(n), &alpha, x, int(incx));
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

#define TESSERA_INSTANTIATE_KERNELS(T)                                                                           \
    template void gemm<T>(Op, Op, int64_t, int64_t, int64_t, T, T const*, int64_t, T const*, int64_t, T, T*,    \
                          int64_t);                                                                               \
    template void symm<T>(Side, Uplo, bool, int64_t, int64_t, T, T const*, int64_t, T const*, int64_t, T, T*,   \
                          int64_t);                                                                               \
    template void syrk<T>(Uplo, Op, bool, int64_t, int64_t, T, T const*, int64_t, T, T*, int64_t);              \
    template void trsm_blas<T>(Side, Uplo, Op, Diag, int64_t, int64_t, T, T const*, int64_t, T*, int64_t);      \
    template void trmm<T>(Side, Uplo, Op, Diag, int64_t, int64_t, T, T const*, int64_t, T*, int64_t);           \
    template int64_t potrf_lapack<T>(Uplo, int64_t, T*, int64_t);                                                \
    template int64_t trtri<T>(Uplo, Diag, int64_t, T*, int64_t);                                                 \
    template void lauum<T>(Uplo, int64_t, T*, int64_t);                                                          \
    template int64_t iamax<T>(int64_t, T const*, int64_t);                                                       \
    template void swap<T>(int64_t, T*, int64_t, T*, int64_t);                                                    \
    template void scal<T>(int64_t, T, T*, int64_t);
TESSERA_INSTANTIATE_KERNELS(float)
TESSERA_INSTANTIATE_KERNELS(double)
TESSERA_INSTANTIATE_KERNELS(cf)
TESSERA_INSTANTIATE_KERNELS(cz)
#undef TESSERA_INSTANTIATE_KERNELS

}  // namespace tessera::la::kernels::cpu
