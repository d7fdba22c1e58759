// cuSOLVER (potrf, potrs, potri, getrf, getrs, geqrf, DSgesv, ZCgesv, Xtrtri, Xlarft) of the simulator (sim.hpp). The factorizations
// check their arguments as cuSOLVER does, ask for a workspace (so that the caller's carving of
// it is exercised), check that the matrix, the workspace and devInfo are device memory, and
// queue the LAPACKE call on the handle's stream; devInfo gets LAPACK's info there.
#include "tests/cudasim/sim.hpp"

#include <cublas_v2.h>
#include <cusolverDn.h>

#include <lapacke.h>

#include <algorithm>
#include <complex>
#include <concepts>
#include <cstring>
#include <tuple>

struct cusolverDnContext {
    cudaStream_t stream = nullptr;
};
struct cusolverDnParams {};  // the generic API's options: none is simulated

namespace tessera::cudasim {
namespace {

using cf = std::complex<float>;
using cz = std::complex<double>;

char lapack(cublasFillMode_t u)
{
    return u == CUBLAS_FILL_MODE_LOWER ? 'L' : 'U';
}
char lapack(cublasDiagType_t d)
{
    return d == CUBLAS_DIAG_UNIT ? 'U' : 'N';
}
bool valid(cublasFillMode_t u)
{
    return u == CUBLAS_FILL_MODE_LOWER || u == CUBLAS_FILL_MODE_UPPER;
}

/// Bytes of workspace the simulated factorizations ask for: enough to catch a caller that
/// places its own data (devInfo) over the workspace.
constexpr int workspace_elements = 64;

/// Checks the operands, then queues `op` (which returns LAPACK's info) and the store of its
/// info into devInfo on the handle's stream.
template <class Op>
cusolverStatus_t factor(cusolverDnHandle_t h, char const* routine, void const* a,
                        std::size_t a_bytes, void const* work, std::size_t work_bytes,
                        int* dev_info, Op op)
{
    Device& d = device_of(h->stream);
    if (d.fault.load() != cudaSuccess) return CUSOLVER_STATUS_EXECUTION_FAILED;
    for (auto [p, bytes, name] :
         {std::tuple{a, a_bytes, "A"}, std::tuple{work, work_bytes, "the workspace"},
          std::tuple{(void const*)dev_info, sizeof(int), "devInfo"}})
        if (!kernel_touches(d, p, bytes, std::string(routine) + ": " + name))
            return CUSOLVER_STATUS_SUCCESS;
    // devInfo must not lie inside the workspace, which the factorization may overwrite
    auto w = reinterpret_cast<std::uintptr_t>(work), i = reinterpret_cast<std::uintptr_t>(dev_info);
    if (work_bytes && i + sizeof(int) > w && i < w + work_bytes) {
        fault(d, cudaErrorIllegalAddress,
              std::string(routine) + ": devInfo lies inside the workspace");
        return CUSOLVER_STATUS_SUCCESS;
    }
    submit(h->stream, [op, dev_info, work, work_bytes] {
        if (work_bytes)
            std::memset(const_cast<void*>(work), 0xFF, work_bytes);  // the factorization's scratch
        *dev_info = int(op());
    });
    return CUSOLVER_STATUS_SUCCESS;
}

template <class T> int64_t potrf_lapack(char uplo, int n, T* a, int lda)
{
    if constexpr (std::same_as<T, float>)
        return LAPACKE_spotrf_work(LAPACK_COL_MAJOR, uplo, n, a, lda);
    else if constexpr (std::same_as<T, double>)
        return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, uplo, n, a, lda);
    else if constexpr (std::same_as<T, cf>)
        return LAPACKE_cpotrf_work(LAPACK_COL_MAJOR, uplo, n,
                                   reinterpret_cast<lapack_complex_float*>(a), lda);
    else
        return LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, uplo, n,
                                   reinterpret_cast<lapack_complex_double*>(a), lda);
}

template <class T>
int64_t potrs_lapack(char uplo, int n, int nrhs, T const* a, int lda, T* b, int ldb)
{
    if constexpr (std::same_as<T, float>)
        return LAPACKE_spotrs_work(LAPACK_COL_MAJOR, uplo, n, nrhs, a, lda, b, ldb);
    else if constexpr (std::same_as<T, double>)
        return LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, uplo, n, nrhs, a, lda, b, ldb);
    else if constexpr (std::same_as<T, cf>)
        return LAPACKE_cpotrs_work(LAPACK_COL_MAJOR, uplo, n, nrhs,
                                   reinterpret_cast<lapack_complex_float const*>(a), lda,
                                   reinterpret_cast<lapack_complex_float*>(b), ldb);
    else
        return LAPACKE_zpotrs_work(LAPACK_COL_MAJOR, uplo, n, nrhs,
                                   reinterpret_cast<lapack_complex_double const*>(a), lda,
                                   reinterpret_cast<lapack_complex_double*>(b), ldb);
}

template <class T> int64_t potri_lapack(char uplo, int n, T* a, int lda)
{
    if constexpr (std::same_as<T, float>)
        return LAPACKE_spotri_work(LAPACK_COL_MAJOR, uplo, n, a, lda);
    else if constexpr (std::same_as<T, double>)
        return LAPACKE_dpotri_work(LAPACK_COL_MAJOR, uplo, n, a, lda);
    else if constexpr (std::same_as<T, cf>)
        return LAPACKE_cpotri_work(LAPACK_COL_MAJOR, uplo, n,
                                   reinterpret_cast<lapack_complex_float*>(a), lda);
    else
        return LAPACKE_zpotri_work(LAPACK_COL_MAJOR, uplo, n,
                                   reinterpret_cast<lapack_complex_double*>(a), lda);
}

template <class T> int64_t trtri_lapack(char uplo, char diag, int64_t n, void* a, int64_t lda)
{
    auto* p = static_cast<T*>(a);
    if constexpr (std::same_as<T, float>)
        return LAPACKE_strtri_work(LAPACK_COL_MAJOR, uplo, diag, n, p, lda);
    else if constexpr (std::same_as<T, double>)
        return LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, uplo, diag, n, p, lda);
    else if constexpr (std::same_as<T, cf>)
        return LAPACKE_ctrtri_work(LAPACK_COL_MAJOR, uplo, diag, n,
                                   reinterpret_cast<lapack_complex_float*>(p), lda);
    else
        return LAPACKE_ztrtri_work(LAPACK_COL_MAJOR, uplo, diag, n,
                                   reinterpret_cast<lapack_complex_double*>(p), lda);
}

/// trtri_lapack, then ones on a unit diagonal (see cusolverDnXtrtri below).
template <class T>
int64_t trtri_writing_the_diagonal(char uplo, char diag, int64_t n, void* a, int64_t lda)
{
    const int64_t info = trtri_lapack<T>(uplo, diag, n, a, lda);
    if (diag == 'U')
        for (int64_t i = 0; i < n; ++i) static_cast<T*>(a)[i + i * lda] = T(1);
    return info;
}

template <class T>
cusolverStatus_t potrf_size(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, int lda, int* lwork)
{
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (!valid(uplo) || n < 0 || lda < std::max(1, n) || !lwork)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *lwork = workspace_elements;
    return CUSOLVER_STATUS_SUCCESS;
}

template <class T, class D>
cusolverStatus_t potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, D* a, int lda, D* work,
                       int lwork, int* dev_info)
{
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (!valid(uplo) || n < 0 || lda < std::max(1, n) || lwork < workspace_elements || !dev_info)
        return CUSOLVER_STATUS_INVALID_VALUE;
    auto* A = reinterpret_cast<T*>(a);
    return factor(h, "cusolverDn potrf", a, matrix_bytes(n, n, lda, sizeof(T)), work,
                  std::size_t(lwork) * sizeof(T), dev_info,
                  [=, u = lapack(uplo)] { return potrf_lapack<T>(u, n, A, lda); });
}

template <class T, class D>
cusolverStatus_t potrs(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, int nrhs, D const* a,
                       int lda, D* b, int ldb, int* dev_info)
{
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (!valid(uplo) || n < 0 || nrhs < 0 || lda < std::max(1, n) || ldb < std::max(1, n) ||
        !dev_info)
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (!kernel_touches(device_of(h->stream), b, matrix_bytes(n, nrhs, ldb, sizeof(T)),
                        "cusolverDn potrs: B"))
        return CUSOLVER_STATUS_SUCCESS;
    auto const* A = reinterpret_cast<T const*>(a);
    auto* B = reinterpret_cast<T*>(b);
    return factor(h, "cusolverDn potrs", a, matrix_bytes(n, n, lda, sizeof(T)), nullptr, 0,
                  dev_info,
                  [=, u = lapack(uplo)] { return potrs_lapack<T>(u, n, nrhs, A, lda, B, ldb); });
}

template <class T, class D>
cusolverStatus_t potri(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, D* a, int lda, D* work,
                       int lwork, int* dev_info)
{
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (!valid(uplo) || n < 0 || lda < std::max(1, n) || lwork < workspace_elements || !dev_info)
        return CUSOLVER_STATUS_INVALID_VALUE;
    auto* A = reinterpret_cast<T*>(a);
    return factor(h, "cusolverDn potri", a, matrix_bytes(n, n, lda, sizeof(T)), work,
                  std::size_t(lwork) * sizeof(T), dev_info,
                  [=, u = lapack(uplo)] { return potri_lapack<T>(u, n, A, lda); });
}

template <class T> int64_t getrf_lapack(int m, int n, T* a, int lda, int* ipiv)
{
    static_assert(sizeof(lapack_int) == sizeof(int));
    if constexpr (std::same_as<T, float>)
        return LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, m, n, a, lda, ipiv);
    else if constexpr (std::same_as<T, double>)
        return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, n, a, lda, ipiv);
    else if constexpr (std::same_as<T, cf>)
        return LAPACKE_cgetrf_work(LAPACK_COL_MAJOR, m, n,
                                   reinterpret_cast<lapack_complex_float*>(a), lda, ipiv);
    else
        return LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, n,
                                   reinterpret_cast<lapack_complex_double*>(a), lda, ipiv);
}

/// cuSOLVER's getrf without pivoting (devIpiv null), which LAPACK lacks: the unblocked
/// right-looking LU. A zero pivot is reported (the first one) and its column left unscaled.
template <class T> int64_t getrf_no_pivoting(int m, int n, T* a, int lda)
{
    int64_t info = 0;
    for (int k = 0; k < std::min(m, n); ++k) {
        const T pivot = a[k + std::size_t(k) * lda];
        if (pivot == T(0)) {
            if (info == 0) info = k + 1;
        } else {
            for (int i = k + 1; i < m; ++i) a[i + std::size_t(k) * lda] /= pivot;
        }
        for (int j = k + 1; j < n; ++j)
            for (int i = k + 1; i < m; ++i)
                a[i + std::size_t(j) * lda] -=
                    a[i + std::size_t(k) * lda] * a[k + std::size_t(j) * lda];
    }
    return info;
}

template <class T>
int64_t getrs_lapack(char trans, int n, int nrhs, T const* a, int lda, int const* ipiv, T* b,
                     int ldb)
{
    if constexpr (std::same_as<T, float>)
        return LAPACKE_sgetrs_work(LAPACK_COL_MAJOR, trans, n, nrhs, a, lda, ipiv, b, ldb);
    else if constexpr (std::same_as<T, double>)
        return LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, trans, n, nrhs, a, lda, ipiv, b, ldb);
    else if constexpr (std::same_as<T, cf>)
        return LAPACKE_cgetrs_work(LAPACK_COL_MAJOR, trans, n, nrhs,
                                   reinterpret_cast<lapack_complex_float const*>(a), lda, ipiv,
                                   reinterpret_cast<lapack_complex_float*>(b), ldb);
    else
        return LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, trans, n, nrhs,
                                   reinterpret_cast<lapack_complex_double const*>(a), lda, ipiv,
                                   reinterpret_cast<lapack_complex_double*>(b), ldb);
}

template <class T>
cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t op, int n, int nrhs, void const* a,
                       int lda, int const* dev_ipiv, void* b, int ldb, int* dev_info)
{
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if ((op != CUBLAS_OP_N && op != CUBLAS_OP_T && op != CUBLAS_OP_C) || n < 0 || nrhs < 0 ||
        lda < std::max(1, n) || ldb < std::max(1, n) || !dev_ipiv || !dev_info)
        return CUSOLVER_STATUS_INVALID_VALUE;
    Device& d = device_of(h->stream);
    if (!kernel_touches(d, b, matrix_bytes(n, nrhs, ldb, sizeof(T)), "cusolverDn getrs: B") ||
        !kernel_touches(d, dev_ipiv, std::size_t(n) * sizeof(int), "cusolverDn getrs: devIpiv"))
        return CUSOLVER_STATUS_SUCCESS;
    const char trans = op == CUBLAS_OP_N ? 'N' : op == CUBLAS_OP_T ? 'T' : 'C';
    auto const* A = static_cast<T const*>(a);
    auto* B = static_cast<T*>(b);
    return factor(h, "cusolverDn getrs", a, matrix_bytes(n, n, lda, sizeof(T)), nullptr, 0,
                  dev_info,
                  [=] { return getrs_lapack<T>(trans, n, nrhs, A, lda, dev_ipiv, B, ldb); });
}

/// cusolverDnDSgesv and ZCgesv: LAPACK's dsgesv and zcgesv (the same iterations and fall-back),
/// run on the stream; the call waits for it, as `iter` is host memory.
template <class T>
cusolverStatus_t mixed_gesv(cusolverDnHandle_t h, int n, int nrhs, void* a, int lda, int* dev_ipiv,
                            void* b, int ldb, void* x, int ldx, void* work, std::size_t work_bytes,
                            int* iter, int* dev_info)
{
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || nrhs < 0 || lda < std::max(1, n) || ldb < std::max(1, n) || ldx < std::max(1, n) ||
        !dev_ipiv || !iter || !dev_info || work_bytes < workspace_elements * sizeof(T))
        return CUSOLVER_STATUS_INVALID_VALUE;
    Device& d = device_of(h->stream);
    if (!kernel_touches(d, b, matrix_bytes(n, nrhs, ldb, sizeof(T)), "cusolverDn mixed gesv: B") ||
        !kernel_touches(d, x, matrix_bytes(n, nrhs, ldx, sizeof(T)), "cusolverDn mixed gesv: X") ||
        !kernel_touches(d, dev_ipiv, std::size_t(n) * sizeof(int), "cusolverDn mixed gesv: dipiv"))
        return CUSOLVER_STATUS_SUCCESS;
    const cusolverStatus_t st =
        factor(h, "cusolverDn mixed gesv", a, matrix_bytes(n, n, lda, sizeof(T)), work, work_bytes,
               dev_info, [=]() -> int64_t {
                   lapack_int it = 0;
                   int64_t info;
                   if constexpr (std::same_as<T, double>)
                       info = LAPACKE_dsgesv(LAPACK_COL_MAJOR, n, nrhs, static_cast<double*>(a),
                                             lda, dev_ipiv, static_cast<double*>(b), ldb,
                                             static_cast<double*>(x), ldx, &it);
                   else
                       info = LAPACKE_zcgesv(LAPACK_COL_MAJOR, n, nrhs,
                                             static_cast<lapack_complex_double*>(a), lda, dev_ipiv,
                                             static_cast<lapack_complex_double*>(b), ldb,
                                             static_cast<lapack_complex_double*>(x), ldx, &it);
                   *iter = it;
                   return info;
               });
    cudaStreamSynchronize(h->stream);
    return st;
}

template <class T>
cusolverStatus_t mixed_gesv_size(cusolverDnHandle_t h, int n, int nrhs, int lda, int ldb, int ldx,
                                 std::size_t* bytes)
{
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || nrhs < 0 || lda < std::max(1, n) || ldb < std::max(1, n) || ldx < std::max(1, n) ||
        !bytes)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *bytes = workspace_elements * sizeof(T);
    return CUSOLVER_STATUS_SUCCESS;
}

template <class T>
cusolverStatus_t getrf_size(cusolverDnHandle_t h, int m, int n, int lda, int* lwork)
{
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || lda < std::max(1, m) || !lwork) return CUSOLVER_STATUS_INVALID_VALUE;
    *lwork = workspace_elements;
    return CUSOLVER_STATUS_SUCCESS;
}

template <class T, class D>
cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, D* a, int lda, D* work, int* dev_ipiv,
                       int* dev_info)
{
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || lda < std::max(1, m) || !work || !dev_info)
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (dev_ipiv &&
        !kernel_touches(device_of(h->stream), dev_ipiv, std::size_t(std::min(m, n)) * sizeof(int),
                        "cusolverDn getrf: devIpiv"))
        return CUSOLVER_STATUS_SUCCESS;
    auto* A = reinterpret_cast<T*>(a);
    return factor(h, "cusolverDn getrf", a, matrix_bytes(m, n, lda, sizeof(T)), work,
                  std::size_t(workspace_elements) * sizeof(T), dev_info, [=]() -> int64_t {
                      return dev_ipiv ? getrf_lapack<T>(m, n, A, lda, dev_ipiv)
                                      : getrf_no_pivoting<T>(m, n, A, lda);
                  });
}

template <class T> int64_t geqrf_lapack(int m, int n, T* a, int lda, T* tau)
{
    if constexpr (std::same_as<T, float>)
        return LAPACKE_sgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau);
    else if constexpr (std::same_as<T, double>)
        return LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau);
    else if constexpr (std::same_as<T, cf>)
        return LAPACKE_cgeqrf(LAPACK_COL_MAJOR, m, n, reinterpret_cast<lapack_complex_float*>(a),
                              lda, reinterpret_cast<lapack_complex_float*>(tau));
    else
        return LAPACKE_zgeqrf(LAPACK_COL_MAJOR, m, n, reinterpret_cast<lapack_complex_double*>(a),
                              lda, reinterpret_cast<lapack_complex_double*>(tau));
}

template <class T, class D>
cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, D* a, int lda, D* tau, D* work,
                       int lwork, int* dev_info)
{
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || lda < std::max(1, m) || !tau || !work || lwork < workspace_elements ||
        !dev_info)
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (!kernel_touches(device_of(h->stream), tau,
                        std::size_t(std::max(1, std::min(m, n))) * sizeof(T),
                        "cusolverDn geqrf: TAU"))
        return CUSOLVER_STATUS_SUCCESS;
    auto* A = reinterpret_cast<T*>(a);
    auto* Tau = reinterpret_cast<T*>(tau);
    return factor(h, "cusolverDn geqrf", a, matrix_bytes(m, n, lda, sizeof(T)), work,
                  std::size_t(lwork) * sizeof(T), dev_info,
                  [=]() -> int64_t { return m && n ? geqrf_lapack<T>(m, n, A, lda, Tau) : 0; });
}

/// LAPACK's larft (forward, columnwise) on a's k reflectors, into t.
template <class T>
void larft_lapack(int64_t n, int64_t k, void const* v, int64_t ldv, void const* tau, void* t,
                  int64_t ldt)
{
    auto V = static_cast<T const*>(v), Tau = static_cast<T const*>(tau);
    auto* F = static_cast<T*>(t);
    const lapack_int N = lapack_int(n), K = lapack_int(k), LDV = lapack_int(ldv),
                     LDT = lapack_int(ldt);
    if constexpr (std::is_same_v<T, float>)
        LAPACKE_slarft_work(LAPACK_COL_MAJOR, 'F', 'C', N, K, V, LDV, Tau, F, LDT);
    else if constexpr (std::is_same_v<T, double>)
        LAPACKE_dlarft_work(LAPACK_COL_MAJOR, 'F', 'C', N, K, V, LDV, Tau, F, LDT);
    else if constexpr (std::is_same_v<T, cf>)
        LAPACKE_clarft_work(LAPACK_COL_MAJOR, 'F', 'C', N, K,
                            reinterpret_cast<lapack_complex_float const*>(V), LDV,
                            reinterpret_cast<lapack_complex_float const*>(Tau),
                            reinterpret_cast<lapack_complex_float*>(F), LDT);
    else
        LAPACKE_zlarft_work(LAPACK_COL_MAJOR, 'F', 'C', N, K,
                            reinterpret_cast<lapack_complex_double const*>(V), LDV,
                            reinterpret_cast<lapack_complex_double const*>(Tau),
                            reinterpret_cast<lapack_complex_double*>(F), LDT);
}

std::size_t element_bytes(cudaDataType t)
{
    switch (t) {
    case CUDA_R_32F:
        return 4;
    case CUDA_R_64F:
        return 8;
    case CUDA_C_32F:
        return 8;
    case CUDA_C_64F:
        return 16;
    default:
        return 0;
    }
}

}  // namespace
}  // namespace tessera::cudasim

using namespace tessera::cudasim;

extern "C" {

cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t* handle)
{
    if (!handle) return CUSOLVER_STATUS_INVALID_VALUE;
    if (State::get().device_count() == 0) return CUSOLVER_STATUS_NOT_INITIALIZED;
    *handle = new cusolverDnContext;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle)
{
    if (!handle) return CUSOLVER_STATUS_NOT_INITIALIZED;
    delete handle;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t stream)
{
    if (!handle) return CUSOLVER_STATUS_NOT_INITIALIZED;
    handle->stream = stream;
    return CUSOLVER_STATUS_SUCCESS;
}

#define TESSERA_CUDASIM_POTRF(t, D, T)                                                             \
    cusolverStatus_t cusolverDn##t##potrf_bufferSize(cusolverDnHandle_t h, cublasFillMode_t uplo,  \
                                                     int n, D*, int lda, int* lwork)               \
    {                                                                                              \
        return potrf_size<T>(h, uplo, n, lda, lwork);                                              \
    }                                                                                              \
    cusolverStatus_t cusolverDn##t##potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n,      \
                                          D* a, int lda, D* work, int lwork, int* dev_info)        \
    {                                                                                              \
        return potrf<T>(h, uplo, n, a, lda, work, lwork, dev_info);                                \
    }                                                                                              \
    cusolverStatus_t cusolverDn##t##potrs(cusolverDnHandle_t h, cublasFillMode_t uplo, int n,      \
                                          int nrhs, D const* a, int lda, D* b, int ldb,            \
                                          int* dev_info)                                           \
    {                                                                                              \
        return potrs<T>(h, uplo, n, nrhs, a, lda, b, ldb, dev_info);                               \
    }                                                                                              \
    cusolverStatus_t cusolverDn##t##potri_bufferSize(cusolverDnHandle_t h, cublasFillMode_t uplo,  \
                                                     int n, D*, int lda, int* lwork)               \
    {                                                                                              \
        return potrf_size<T>(h, uplo, n, lda, lwork);                                              \
    }                                                                                              \
    cusolverStatus_t cusolverDn##t##potri(cusolverDnHandle_t h, cublasFillMode_t uplo, int n,      \
                                          D* a, int lda, D* work, int lwork, int* dev_info)        \
    {                                                                                              \
        return potri<T>(h, uplo, n, a, lda, work, lwork, dev_info);                                \
    }
#define TESSERA_CUDASIM_GETRF(t, D, T)                                                             \
    cusolverStatus_t cusolverDn##t##getrf_bufferSize(cusolverDnHandle_t h, int m, int n, D*,       \
                                                     int lda, int* lwork)                          \
    {                                                                                              \
        return getrf_size<T>(h, m, n, lda, lwork);                                                 \
    }                                                                                              \
    cusolverStatus_t cusolverDn##t##getrf(cusolverDnHandle_t h, int m, int n, D* a, int lda,       \
                                          D* work, int* dev_ipiv, int* dev_info)                   \
    {                                                                                              \
        return getrf<T>(h, m, n, a, lda, work, dev_ipiv, dev_info);                                \
    }                                                                                              \
    cusolverStatus_t cusolverDn##t##getrs(cusolverDnHandle_t h, cublasOperation_t op, int n,       \
                                          int nrhs, D const* a, int lda, int const* dev_ipiv,      \
                                          D* b, int ldb, int* dev_info)                            \
    {                                                                                              \
        return getrs<T>(h, op, n, nrhs, a, lda, dev_ipiv, b, ldb, dev_info);                       \
    }

#define TESSERA_CUDASIM_GEQRF(t, D, T)                                                             \
    cusolverStatus_t cusolverDn##t##geqrf_bufferSize(cusolverDnHandle_t h, int m, int n, D*,       \
                                                     int lda, int* lwork)                          \
    {                                                                                              \
        return getrf_size<T>(h, m, n, lda, lwork);                                                 \
    }                                                                                              \
    cusolverStatus_t cusolverDn##t##geqrf(cusolverDnHandle_t h, int m, int n, D* a, int lda,       \
                                          D* tau, D* work, int lwork, int* dev_info)               \
    {                                                                                              \
        return geqrf<T>(h, m, n, a, lda, tau, work, lwork, dev_info);                              \
    }
TESSERA_CUDASIM_GEQRF(S, float, float)
TESSERA_CUDASIM_GEQRF(D, double, double)
TESSERA_CUDASIM_GEQRF(C, cuComplex, std::complex<float>)
TESSERA_CUDASIM_GEQRF(Z, cuDoubleComplex, std::complex<double>)

TESSERA_CUDASIM_GETRF(S, float, float)
TESSERA_CUDASIM_GETRF(D, double, double)
TESSERA_CUDASIM_GETRF(C, cuComplex, std::complex<float>)
TESSERA_CUDASIM_GETRF(Z, cuDoubleComplex, std::complex<double>)

#define TESSERA_CUDASIM_MIXED_GESV(name, D, T)                                                     \
    cusolverStatus_t cusolverDn##name##_bufferSize(                                                \
        cusolverDnHandle_t h, cusolver_int_t n, cusolver_int_t nrhs, D*, cusolver_int_t lda,       \
        cusolver_int_t*, D*, cusolver_int_t ldb, D*, cusolver_int_t ldx, void*, size_t* bytes)     \
    {                                                                                              \
        return mixed_gesv_size<T>(h, n, nrhs, lda, ldb, ldx, bytes);                               \
    }                                                                                              \
    cusolverStatus_t cusolverDn##name(                                                             \
        cusolverDnHandle_t h, cusolver_int_t n, cusolver_int_t nrhs, D* a, cusolver_int_t lda,     \
        cusolver_int_t* ipiv, D* b, cusolver_int_t ldb, D* x, cusolver_int_t ldx, void* work,      \
        size_t bytes, cusolver_int_t* iter, cusolver_int_t* dev_info)                              \
    {                                                                                              \
        return mixed_gesv<T>(h, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, work, bytes, iter,          \
                             dev_info);                                                            \
    }

TESSERA_CUDASIM_MIXED_GESV(DSgesv, double, double)
TESSERA_CUDASIM_MIXED_GESV(ZCgesv, cuDoubleComplex, std::complex<double>)

TESSERA_CUDASIM_POTRF(S, float, float)
TESSERA_CUDASIM_POTRF(D, double, double)
TESSERA_CUDASIM_POTRF(C, cuComplex, std::complex<float>)
TESSERA_CUDASIM_POTRF(Z, cuDoubleComplex, std::complex<double>)
#undef TESSERA_CUDASIM_POTRF

cusolverStatus_t cusolverDnXtrtri_bufferSize(cusolverDnHandle_t h, cublasFillMode_t uplo,
                                             cublasDiagType_t diag, int64_t n, cudaDataType type,
                                             void*, int64_t lda, size_t* device_bytes,
                                             size_t* host_bytes)
{
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (!valid(uplo) || (diag != CUBLAS_DIAG_UNIT && diag != CUBLAS_DIAG_NON_UNIT) || n < 0 ||
        lda < std::max<int64_t>(1, n) || !element_bytes(type) || !device_bytes || !host_bytes)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *device_bytes = workspace_elements * element_bytes(type);
    *host_bytes = 0;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXtrtri(cusolverDnHandle_t h, cublasFillMode_t uplo,
                                  cublasDiagType_t diag, int64_t n, cudaDataType type, void* a,
                                  int64_t lda, void* device_work, size_t device_bytes, void*,
                                  size_t, int* dev_info)
{
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    const std::size_t es = element_bytes(type);
    if (!valid(uplo) || (diag != CUBLAS_DIAG_UNIT && diag != CUBLAS_DIAG_NON_UNIT) || n < 0 ||
        lda < std::max<int64_t>(1, n) || !es || device_bytes < workspace_elements * es || !dev_info)
        return CUSOLVER_STATUS_INVALID_VALUE;
    const char u = lapack(uplo), d = lapack(diag);
    // With a unit diagonal, cuSOLVER 13.0 on an H200 wrote the diagonal, which LAPACK leaves
    // alone; this writes ones there (what the real one writes is undocumented), so that a
    // caller that relies on the diagonal being kept fails here too.
    return factor(h, "cusolverDnXtrtri", a, matrix_bytes(n, n, lda, es), device_work, device_bytes,
                  dev_info, [=]() -> int64_t {
                      switch (type) {
                      case CUDA_R_32F:
                          return trtri_writing_the_diagonal<float>(u, d, n, a, lda);
                      case CUDA_R_64F:
                          return trtri_writing_the_diagonal<double>(u, d, n, a, lda);
                      case CUDA_C_32F:
                          return trtri_writing_the_diagonal<std::complex<float>>(u, d, n, a, lda);
                      default:
                          return trtri_writing_the_diagonal<std::complex<double>>(u, d, n, a, lda);
                      }
                  });
}

cusolverStatus_t cusolverDnCreateParams(cusolverDnParams_t* params)
{
    if (!params) return CUSOLVER_STATUS_INVALID_VALUE;
    *params = new cusolverDnParams;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnDestroyParams(cusolverDnParams_t params)
{
    delete params;
    return CUSOLVER_STATUS_SUCCESS;
}

/// Xlarft's checks (as cuSOLVER documents them: forward, columnwise, n >= k, one data type).
static bool larft_arguments_valid(cusolverDnHandle_t h, cusolverDirectMode_t direct,
                                  cusolverStorevMode_t storev, int64_t n, int64_t k,
                                  cudaDataType tv, int64_t ldv, cudaDataType ttau, cudaDataType tt,
                                  int64_t ldt, cudaDataType compute)
{
    return h && direct == CUBLAS_DIRECT_FORWARD && storev == CUBLAS_STOREV_COLUMNWISE && k >= 0 &&
           n >= k && ldv >= std::max<int64_t>(1, n) && ldt >= std::max<int64_t>(1, k) &&
           element_bytes(tv) && tv == ttau && tv == tt && tv == compute;
}

cusolverStatus_t cusolverDnXlarft_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t,
                                             cusolverDirectMode_t direct,
                                             cusolverStorevMode_t storev, int64_t n, int64_t k,
                                             cudaDataType tv, void const*, int64_t ldv,
                                             cudaDataType ttau, void const*, cudaDataType tt, void*,
                                             int64_t ldt, cudaDataType compute,
                                             size_t* device_bytes, size_t* host_bytes)
{
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (!larft_arguments_valid(h, direct, storev, n, k, tv, ldv, ttau, tt, ldt, compute) ||
        !device_bytes || !host_bytes)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *device_bytes = workspace_elements * element_bytes(tv);
    *host_bytes = 0;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXlarft(cusolverDnHandle_t h, cusolverDnParams_t,
                                  cusolverDirectMode_t direct, cusolverStorevMode_t storev,
                                  int64_t n, int64_t k, cudaDataType tv, void const* v, int64_t ldv,
                                  cudaDataType ttau, void const* tau, cudaDataType tt, void* t,
                                  int64_t ldt, cudaDataType compute, void* device_work,
                                  size_t device_bytes, void*, size_t)
{
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    const std::size_t es = element_bytes(tv);
    if (!larft_arguments_valid(h, direct, storev, n, k, tv, ldv, ttau, tt, ldt, compute) ||
        device_bytes < workspace_elements * es)
        return CUSOLVER_STATUS_INVALID_VALUE;
    Device& d = device_of(h->stream);
    if (d.fault.load() != cudaSuccess) return CUSOLVER_STATUS_EXECUTION_FAILED;
    for (auto [p, bytes, name] :
         {std::tuple{v, matrix_bytes(n, k, ldv, es), "V"},
          std::tuple{tau, std::size_t(k) * es, "tau"},
          std::tuple{(void const*)t, matrix_bytes(k, k, ldt, es), "T"},
          std::tuple{(void const*)device_work, device_bytes, "the workspace"}})
        if (!kernel_touches(d, p, bytes, std::string("cusolverDnXlarft: ") + name))
            return CUSOLVER_STATUS_SUCCESS;
    if (k == 0) return CUSOLVER_STATUS_SUCCESS;
    submit(h->stream, [=] {
        switch (tv) {
        case CUDA_R_32F:
            return larft_lapack<float>(n, k, v, ldv, tau, t, ldt);
        case CUDA_R_64F:
            return larft_lapack<double>(n, k, v, ldv, tau, t, ldt);
        case CUDA_C_32F:
            return larft_lapack<cf>(n, k, v, ldv, tau, t, ldt);
        default:
            return larft_lapack<cz>(n, k, v, ldv, tau, t, ldt);
        }
    });
    return CUSOLVER_STATUS_SUCCESS;
}

}  // extern "C"
