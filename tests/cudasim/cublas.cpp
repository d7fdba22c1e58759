// cuBLAS of the simulator (sim.hpp): each routine checks its arguments as cuBLAS does
// (CUBLAS_STATUS_INVALID_VALUE, nothing queued), checks that every matrix it touches lies in
// device memory (else the device faults, as a kernel reading a host pointer would), then queues
// the same CBLAS call on the handle's stream. Host pointer mode only: alpha and beta are read
// at the call. With alpha = 0 and k > 0, gemm and syrk/herk read A and B as cuBLAS may (a NaN
// there makes C NaN), where CBLAS would not.
#include "tests/cudasim/sim.hpp"

#include <cublas_v2.h>

#include <cblas.h>

#include <cmath>
#include <complex>
#include <concepts>
#include <cstring>
#include <limits>

struct cublasContext {
    cudaStream_t stream = nullptr;
    void* workspace = nullptr;  // cublasSetWorkspace's; reset by cublasSetStream, as cuBLAS does
    std::size_t workspace_bytes = 0;
};

namespace tessera::cudasim {
namespace {

using cf = std::complex<float>;
using cz = std::complex<double>;

/// The CBLAS element type of a cuBLAS one (cuComplex is laid out as std::complex<float>).
template <class D> struct Host {
    using type = D;
};
template <> struct Host<cuComplex> {
    using type = cf;
};
template <> struct Host<cuDoubleComplex> {
    using type = cz;
};
template <class D> using H = typename Host<D>::type;

template <class T> constexpr bool is_complex = std::same_as<T, cf> || std::same_as<T, cz>;

template <class D> H<D>* host(D* p)
{
    return reinterpret_cast<H<D>*>(p);
}
template <class D> H<D> const* host(D const* p)
{
    return reinterpret_cast<H<D> const*>(p);
}

bool valid(cublasOperation_t o)
{
    return o == CUBLAS_OP_N || o == CUBLAS_OP_T || o == CUBLAS_OP_C;
}
bool valid(cublasFillMode_t u)
{
    return u == CUBLAS_FILL_MODE_LOWER || u == CUBLAS_FILL_MODE_UPPER;
}
bool valid(cublasSideMode_t s)
{
    return s == CUBLAS_SIDE_LEFT || s == CUBLAS_SIDE_RIGHT;
}
bool valid(cublasDiagType_t d)
{
    return d == CUBLAS_DIAG_UNIT || d == CUBLAS_DIAG_NON_UNIT;
}

/// cuBLAS's op as CBLAS's; a real matrix's conjugate transpose is its transpose.
template <class T> CBLAS_TRANSPOSE cblas(cublasOperation_t o)
{
    if (o == CUBLAS_OP_N) return CblasNoTrans;
    return o == CUBLAS_OP_T || !is_complex<T> ? CblasTrans : CblasConjTrans;
}
CBLAS_UPLO cblas(cublasFillMode_t u)
{
    return u == CUBLAS_FILL_MODE_LOWER ? CblasLower : CblasUpper;
}
CBLAS_SIDE cblas(cublasSideMode_t s)
{
    return s == CUBLAS_SIDE_LEFT ? CblasLeft : CblasRight;
}
CBLAS_DIAG cblas(cublasDiagType_t d)
{
    return d == CUBLAS_DIAG_UNIT ? CblasUnit : CblasNonUnit;
}

int at_least_one(int x)
{
    return x > 1 ? x : 1;
}

/// An operand of a kernel: pointer, rows, columns, leading dimension.
struct Operand {
    void const* p;
    int rows, cols, ld;
    char const* name;
};

/// Checks that each operand lies in device memory of the handle's device; if one does not,
/// faults the device (naming `routine` and the operand) and returns false.
template <class T>
bool on_device(cublasHandle_t h, char const* routine, std::initializer_list<Operand> ops)
{
    for (Operand const& o : ops)
        if (!kernel_touches(
                device_of(h->stream), o.p, matrix_bytes(o.rows, o.cols, o.ld, sizeof(T)),
                std::string(routine) + ": " + o.name + " (" + std::to_string(o.rows) + " x " +
                    std::to_string(o.cols) + ", ld " + std::to_string(o.ld) + ")"))
            return false;
    return true;
}

/// The queue step shared by every routine: nothing to do for an empty operation, the device's
/// sticky fault, the operands' memory, then `op` on the handle's stream.
template <class T, class Op>
cublasStatus_t launch(cublasHandle_t h, char const* routine, std::initializer_list<Operand> ops,
                      Op op)
{
    if (device_of(h->stream).fault.load() != cudaSuccess) return CUBLAS_STATUS_EXECUTION_FAILED;
    if (!on_device<T>(h, routine, ops))
        return CUBLAS_STATUS_SUCCESS;  // the fault surfaces later, as on a GPU
    submit(h->stream, std::move(op));
    return CUBLAS_STATUS_SUCCESS;
}

// ---- the CBLAS calls, one overload set per routine -------------------------------------------------

#define TESSERA_CUDASIM_BLAS(T, prefix, by)                                                        \
    void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, T alpha, T const* a,    \
              int lda, T const* b, int ldb, T beta, T* c, int ldc)                                 \
    {                                                                                              \
        cblas_##prefix##gemm(CblasColMajor, ta, tb, m, n, k, by(alpha), a, lda, b, ldb, by(beta),  \
                             c, ldc);                                                              \
    }                                                                                              \
    void symm(CBLAS_SIDE s, CBLAS_UPLO u, int m, int n, T alpha, T const* a, int lda, T const* b,  \
              int ldb, T beta, T* c, int ldc)                                                      \
    {                                                                                              \
        cblas_##prefix##symm(CblasColMajor, s, u, m, n, by(alpha), a, lda, b, ldb, by(beta), c,    \
                             ldc);                                                                 \
    }                                                                                              \
    void syrk(CBLAS_UPLO u, CBLAS_TRANSPOSE t, int n, int k, T alpha, T const* a, int lda, T beta, \
              T* c, int ldc)                                                                       \
    {                                                                                              \
        cblas_##prefix##syrk(CblasColMajor, u, t, n, k, by(alpha), a, lda, by(beta), c, ldc);      \
    }                                                                                              \
    void trsm(CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, int m, int n, T alpha,  \
              T const* a, int lda, T* b, int ldb)                                                  \
    {                                                                                              \
        cblas_##prefix##trsm(CblasColMajor, s, u, t, d, m, n, by(alpha), a, lda, b, ldb);          \
    }                                                                                              \
    void trmm(CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, int m, int n, T alpha,  \
              T const* a, int lda, T* b, int ldb)                                                  \
    {                                                                                              \
        cblas_##prefix##trmm(CblasColMajor, s, u, t, d, m, n, by(alpha), a, lda, b, ldb);          \
    }
#define TESSERA_CUDASIM_BY_VALUE(x) (x)
#define TESSERA_CUDASIM_BY_ADDRESS(x) (&(x))
TESSERA_CUDASIM_BLAS(float, s, TESSERA_CUDASIM_BY_VALUE)
TESSERA_CUDASIM_BLAS(double, d, TESSERA_CUDASIM_BY_VALUE)
TESSERA_CUDASIM_BLAS(cf, c, TESSERA_CUDASIM_BY_ADDRESS)
TESSERA_CUDASIM_BLAS(cz, z, TESSERA_CUDASIM_BY_ADDRESS)
#undef TESSERA_CUDASIM_BLAS
#undef TESSERA_CUDASIM_BY_VALUE
#undef TESSERA_CUDASIM_BY_ADDRESS

void herk(CBLAS_UPLO u, CBLAS_TRANSPOSE t, int n, int k, float alpha, cf const* a, int lda,
          float beta, cf* c, int ldc)
{
    cblas_cherk(CblasColMajor, u, t, n, k, alpha, a, lda, beta, c, ldc);
}
void herk(CBLAS_UPLO u, CBLAS_TRANSPOSE t, int n, int k, double alpha, cz const* a, int lda,
          double beta, cz* c, int ldc)
{
    cblas_zherk(CblasColMajor, u, t, n, k, alpha, a, lda, beta, c, ldc);
}
void hemm(CBLAS_SIDE s, CBLAS_UPLO u, int m, int n, cf alpha, cf const* a, int lda, cf const* b,
          int ldb, cf beta, cf* c, int ldc)
{
    cblas_chemm(CblasColMajor, s, u, m, n, &alpha, a, lda, b, ldb, &beta, c, ldc);
}
void hemm(CBLAS_SIDE s, CBLAS_UPLO u, int m, int n, cz alpha, cz const* a, int lda, cz const* b,
          int ldb, cz beta, cz* c, int ldc)
{
    cblas_zhemm(CblasColMajor, s, u, m, n, &alpha, a, lda, b, ldb, &beta, c, ldc);
}

// ---- alpha = 0 ------------------------------------------------------------------------------------

/// Reference BLAS does not read A (or B) when alpha = 0; cuBLAS promises that only for k = 0.
/// With k > 0 the simulator reads them as a GPU may: a NaN or an Inf there makes C NaN.
template <class T> bool any_not_finite(T const* a, int rows, int cols, int ld)
{
    auto finite = [](T x) {
        if constexpr (is_complex<T>)
            return std::isfinite(x.real()) && std::isfinite(x.imag());
        else
            return std::isfinite(x);
    };
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i)
            if (!finite(a[std::size_t(j) * std::size_t(ld) + std::size_t(i)])) return true;
    return false;
}
/// C(i, j) = NaN where `in(i, j)`.
template <class T, class In> void fill_nan(T* c, int m, int n, int ldc, In in)
{
    using R = decltype(std::abs(T{}));
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i)
            if (in(i, j))
                c[std::size_t(j) * std::size_t(ldc) + std::size_t(i)] =
                    T(std::numeric_limits<R>::quiet_NaN());
}

// ---- the routines, generic over the element type ---------------------------------------------------

/// geam: C = alpha op(A) + beta op(B), elementwise; in place (C = A or C = B) only without a
/// transpose and with C's leading dimension, as cuBLAS documents.
template <class D>
cublasStatus_t geam_sim(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                        D const* alpha, D const* a, int lda, D const* beta, D const* b, int ldb,
                        D* c, int ldc)
{
    using T = H<D>;
    const int ra = ta == CUBLAS_OP_N ? m : n, ca = ta == CUBLAS_OP_N ? n : m;
    const int rb = tb == CUBLAS_OP_N ? m : n, cb = tb == CUBLAS_OP_N ? n : m;
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!valid(ta) || !valid(tb) || m < 0 || n < 0 || lda < at_least_one(ra) ||
        ldb < at_least_one(rb) || ldc < at_least_one(m) || !alpha || !beta)
        return CUBLAS_STATUS_INVALID_VALUE;
    if ((c == a && (ta != CUBLAS_OP_N || lda != ldc)) ||
        (c == b && (tb != CUBLAS_OP_N || ldb != ldc)))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    const T al = *host(alpha), be = *host(beta);
    return launch<T>(h, "cublas geam",
                     {{a, ra, ca, lda, "A"}, {b, rb, cb, ldb, "B"}, {c, m, n, ldc, "C"}},
                     [=, A = host(a), B = host(b), C = host(c)] {
                         auto at = [](T const* x, int ld, cublasOperation_t o, int i, int j) {
                             if (o == CUBLAS_OP_N)
                                 return x[std::size_t(j) * std::size_t(ld) + std::size_t(i)];
                             const T v = x[std::size_t(i) * std::size_t(ld) + std::size_t(j)];
                             if constexpr (is_complex<T>)
                                 return o == CUBLAS_OP_C ? std::conj(v) : v;
                             else
                                 return v;
                         };
                         for (int j = 0; j < n; ++j)
                             for (int i = 0; i < m; ++i)
                                 C[std::size_t(j) * std::size_t(ldc) + std::size_t(i)] =
                                     al * at(A, lda, ta, i, j) + be * at(B, ldb, tb, i, j);
                     });
}

template <class D>
cublasStatus_t gemm_sim(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                        int k, D const* alpha, D const* a, int lda, D const* b, int ldb,
                        D const* beta, D* c, int ldc)
{
    using T = H<D>;
    const int ra = ta == CUBLAS_OP_N ? m : k, ca = ta == CUBLAS_OP_N ? k : m;
    const int rb = tb == CUBLAS_OP_N ? k : n, cb = tb == CUBLAS_OP_N ? n : k;
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!valid(ta) || !valid(tb) || m < 0 || n < 0 || k < 0 || lda < at_least_one(ra) ||
        ldb < at_least_one(rb) || ldc < at_least_one(m) || !alpha || !beta)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    const T al = *host(alpha), be = *host(beta);
    return launch<T>(h, "cublas gemm",
                     {{a, ra, ca, lda, "A"}, {b, rb, cb, ldb, "B"}, {c, m, n, ldc, "C"}},
                     [=, A = host(a), B = host(b), C = host(c)] {
                         if (al == T(0) && k > 0 &&
                             (any_not_finite(A, ra, ca, lda) || any_not_finite(B, rb, cb, ldb)))
                             return fill_nan(C, m, n, ldc, [](int, int) { return true; });
                         gemm(cblas<T>(ta), cblas<T>(tb), m, n, k, al, A, lda, B, ldb, be, C, ldc);
                     });
}

template <class D>
cublasStatus_t symm_sim(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, int m,
                        int n, D const* alpha, D const* a, int lda, D const* b, int ldb,
                        D const* beta, D* c, int ldc, bool hermitian)
{
    using T = H<D>;
    const int na = side == CUBLAS_SIDE_LEFT ? m : n;
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!valid(side) || !valid(uplo) || m < 0 || n < 0 || lda < at_least_one(na) ||
        ldb < at_least_one(m) || ldc < at_least_one(m) || !alpha || !beta)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    const T al = *host(alpha), be = *host(beta);
    return launch<T>(h, hermitian ? "cublas hemm" : "cublas symm",
                     {{a, na, na, lda, "A"}, {b, m, n, ldb, "B"}, {c, m, n, ldc, "C"}},
                     [=, A = host(a), B = host(b), C = host(c)] {
                         if constexpr (is_complex<T>) {
                             if (hermitian)
                                 return hemm(cblas(side), cblas(uplo), m, n, al, A, lda, B, ldb, be,
                                             C, ldc);
                         }
                         symm(cblas(side), cblas(uplo), m, n, al, A, lda, B, ldb, be, C, ldc);
                     });
}

/// syrk (S = D) or herk (S = its real type, `hermitian`).
template <class D, class S>
cublasStatus_t syrk_sim(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, int n,
                        int k, S const* alpha, D const* a, int lda, S const* beta, D* c, int ldc,
                        bool hermitian)
{
    using T = H<D>;
    const int ra = trans == CUBLAS_OP_N ? n : k, ca = trans == CUBLAS_OP_N ? k : n;
    // complex syrk takes N or T, herk N or C (reference BLAS); real syrk any of the three
    const bool trans_ok =
        !is_complex<T> || trans == CUBLAS_OP_N || trans == (hermitian ? CUBLAS_OP_C : CUBLAS_OP_T);
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!valid(uplo) || !valid(trans) || !trans_ok || n < 0 || k < 0 || lda < at_least_one(ra) ||
        ldc < at_least_one(n) || !alpha || !beta)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (n == 0) return CUBLAS_STATUS_SUCCESS;
    const auto al = *host(alpha), be = *host(beta);
    return launch<T>(h, hermitian ? "cublas herk" : "cublas syrk",
                     {{a, ra, ca, lda, "A"}, {c, n, n, ldc, "C"}}, [=, A = host(a), C = host(c)] {
                         if (al == decltype(al)(0) && k > 0 && any_not_finite(A, ra, ca, lda)) {
                             const bool lower = uplo == CUBLAS_FILL_MODE_LOWER;
                             return fill_nan(C, n, n, ldc, [lower](int i, int j) {
                                 return lower ? i >= j : i <= j;
                             });
                         }
                         if constexpr (is_complex<T> && !std::same_as<S, D>)
                             herk(cblas(uplo), cblas<T>(trans), n, k, al, A, lda, be, C, ldc);
                         else
                             syrk(cblas(uplo), cblas<T>(trans), n, k, al, A, lda, be, C, ldc);
                     });
}

/// trsm (in place on B), or trmm (C = alpha op(A) B; in place when C is B).
template <class D>
cublasStatus_t triangular_sim(cublasHandle_t h, bool solve, cublasSideMode_t side,
                              cublasFillMode_t uplo, cublasOperation_t trans, cublasDiagType_t diag,
                              int m, int n, D const* alpha, D const* a, int lda, D* b, int ldb,
                              D* c, int ldc)
{
    using T = H<D>;
    const int na = side == CUBLAS_SIDE_LEFT ? m : n;
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!valid(side) || !valid(uplo) || !valid(trans) || !valid(diag) || m < 0 || n < 0 ||
        lda < at_least_one(na) || ldb < at_least_one(m) || ldc < at_least_one(m) || !alpha ||
        (c == b && ldc != ldb))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    const T al = *host(alpha);
    return launch<T>(h, solve ? "cublas trsm" : "cublas trmm",
                     {{a, na, na, lda, "A"}, {b, m, n, ldb, "B"}, {c, m, n, ldc, "C"}},
                     [=, A = host(a), B = host(b), C = host(c)] {
                         if (solve)
                             return trsm(cblas(side), cblas(uplo), cblas<T>(trans), cblas(diag), m,
                                         n, al, A, lda, B, ldb);
                         if (C != B)
                             for (int j = 0; j < n; ++j)
                                 std::memcpy(C + std::size_t(j) * ldc, B + std::size_t(j) * ldb,
                                             std::size_t(m) * sizeof(T));
                         trmm(cblas(side), cblas(uplo), cblas<T>(trans), cblas(diag), m, n, al, A,
                              lda, C, ldc);
                     });
}

}  // namespace
}  // namespace tessera::cudasim

using namespace tessera::cudasim;

extern "C" {

cublasStatus_t cublasCreate(cublasHandle_t* handle)
{
    if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
    if (State::get().device_count() == 0) return CUBLAS_STATUS_NOT_INITIALIZED;
    *handle = new cublasContext;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = stream;
    handle->workspace = nullptr;
    handle->workspace_bytes = 0;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetWorkspace(cublasHandle_t handle, void* workspace, size_t bytes)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (bytes > 0 && (!workspace || State::get().classify(workspace, bytes) != Memory::device))
        return CUBLAS_STATUS_INVALID_VALUE;  // the workspace must be device memory, all of it
    handle->workspace = workspace;
    handle->workspace_bytes = bytes;
    return CUBLAS_STATUS_SUCCESS;
}

const char* cublasGetStatusName(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS:
        return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
        return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_INVALID_VALUE:
        return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_EXECUTION_FAILED:
        return "CUBLAS_STATUS_EXECUTION_FAILED";
    default:
        return "CUBLAS_STATUS (simulated)";
    }
}

const char* cublasGetStatusString(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS:
        return "success";
    case CUBLAS_STATUS_INVALID_VALUE:
        return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_EXECUTION_FAILED:
        return "the device has faulted (simulated)";
    default:
        return "simulated cuBLAS status";
    }
}

cublasStatus_t cublasDscal(cublasHandle_t h, int n, const double* alpha, double* x, int incx)
{
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (n < 0 || incx <= 0 || !alpha) return CUBLAS_STATUS_INVALID_VALUE;
    if (n == 0) return CUBLAS_STATUS_SUCCESS;
    const double al = *alpha;
    return launch<double>(h, "cublasDscal", {{x, 1, n, incx, "x"}},
                          [=] { cblas_dscal(n, al, x, incx); });
}

// gemm, geam, symm, hemm, syrk, herk, trsm, trmm in the four precisions
#define TESSERA_CUDASIM_ROUTINES(t, D, R)                                                          \
    cublasStatus_t cublas##t##gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,   \
                                   int m, int n, int k, const D* alpha, const D* a, int lda,       \
                                   const D* b, int ldb, const D* beta, D* c, int ldc)              \
    {                                                                                              \
        return gemm_sim(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                  \
    }                                                                                              \
    cublasStatus_t cublas##t##geam(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,   \
                                   int m, int n, const D* alpha, const D* a, int lda,              \
                                   const D* beta, const D* b, int ldb, D* c, int ldc)              \
    {                                                                                              \
        return geam_sim(h, ta, tb, m, n, alpha, a, lda, beta, b, ldb, c, ldc);                     \
    }                                                                                              \
    cublasStatus_t cublas##t##symm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u,       \
                                   int m, int n, const D* alpha, const D* a, int lda, const D* b,  \
                                   int ldb, const D* beta, D* c, int ldc)                          \
    {                                                                                              \
        return symm_sim(h, s, u, m, n, alpha, a, lda, b, ldb, beta, c, ldc, false);                \
    }                                                                                              \
    cublasStatus_t cublas##t##syrk(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t o,      \
                                   int n, int k, const D* alpha, const D* a, int lda,              \
                                   const D* beta, D* c, int ldc)                                   \
    {                                                                                              \
        return syrk_sim(h, u, o, n, k, alpha, a, lda, beta, c, ldc, false);                        \
    }                                                                                              \
    cublasStatus_t cublas##t##trsm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u,       \
                                   cublasOperation_t o, cublasDiagType_t d, int m, int n,          \
                                   const D* alpha, const D* a, int lda, D* b, int ldb)             \
    {                                                                                              \
        return triangular_sim(h, true, s, u, o, d, m, n, alpha, a, lda, b, ldb, b, ldb);           \
    }                                                                                              \
    cublasStatus_t cublas##t##trmm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u,       \
                                   cublasOperation_t o, cublasDiagType_t d, int m, int n,          \
                                   const D* alpha, const D* a, int lda, const D* b, int ldb, D* c, \
                                   int ldc)                                                        \
    {                                                                                              \
        return triangular_sim(h, false, s, u, o, d, m, n, alpha, a, lda, const_cast<D*>(b), ldb,   \
                              c, ldc);                                                             \
    }
TESSERA_CUDASIM_ROUTINES(S, float, float)
TESSERA_CUDASIM_ROUTINES(D, double, double)
TESSERA_CUDASIM_ROUTINES(C, cuComplex, float)
TESSERA_CUDASIM_ROUTINES(Z, cuDoubleComplex, double)
#undef TESSERA_CUDASIM_ROUTINES

cublasStatus_t cublasChemm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, int m, int n,
                           const cuComplex* alpha, const cuComplex* a, int lda, const cuComplex* b,
                           int ldb, const cuComplex* beta, cuComplex* c, int ldc)
{
    return symm_sim(h, s, u, m, n, alpha, a, lda, b, ldb, beta, c, ldc, true);
}
cublasStatus_t cublasZhemm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, int m, int n,
                           const cuDoubleComplex* alpha, const cuDoubleComplex* a, int lda,
                           const cuDoubleComplex* b, int ldb, const cuDoubleComplex* beta,
                           cuDoubleComplex* c, int ldc)
{
    return symm_sim(h, s, u, m, n, alpha, a, lda, b, ldb, beta, c, ldc, true);
}
cublasStatus_t cublasCherk(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t o, int n, int k,
                           const float* alpha, const cuComplex* a, int lda, const float* beta,
                           cuComplex* c, int ldc)
{
    return syrk_sim(h, u, o, n, k, alpha, a, lda, beta, c, ldc, true);
}
cublasStatus_t cublasZherk(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t o, int n, int k,
                           const double* alpha, const cuDoubleComplex* a, int lda,
                           const double* beta, cuDoubleComplex* c, int ldc)
{
    return syrk_sim(h, u, o, n, k, alpha, a, lda, beta, c, ldc, true);
}

}  // extern "C"
