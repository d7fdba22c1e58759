// cuBLAS and cuSOLVER behind one template per routine (see blas_lapack.hpp). The choices:
//
// - Asynchrony. Every call is queued on ctx.stream (the handles are bound to it, cuBLAS in host
//   pointer mode, so alpha and beta are read at the call) and nothing here synchronizes: the
//   worker completes the task once the stream has passed its work.
// - Complex scalars. std::complex<R> and cuComplex / cuDoubleComplex have the same layout
//   (two R, real first), so pointers are reinterpret_cast (dev()).
// - Sizes. cuBLAS and cuSOLVER's legacy API take int: each size and leading dimension is
//   checked (to_int) and a larger one throws InvalidArgument rather than wrapping around.
// - Scratch. ctx.workspace() and ctx.host_scratch() are asked once per call, for everything
//   that call needs (a second request may hand back the same bytes), and carved up here.
// - Info (potrf, trtri). cuSOLVER writes LAPACK's info to device memory (the first bytes of the
//   workspace); it is copied with cudaMemcpyAsync on the stream into pinned host_scratch and
//   read by a function given to ctx.at_completion, which runs on the worker once that copy is
//   done: info > 0 goes to the caller's InfoReport (the codelet records it, shifted by the
//   tile's offset), info < 0 (a bad argument, a bug of ours) throws DeviceError and fails the
//   task.
// - potrf: cusolverDn<t>potrf with its lwork from <t>potrf_bufferSize, then find_nan_pivot
//   (nan_pivot.cu) on its info: LAPACK stops at a NaN pivot too, which cuSOLVER is not
//   documented to do.
// - trtri: cusolverDnXtrtri (the only trtri of cuSOLVER 11+), which asks for device and host
//   workspaces. With a unit diagonal it writes the diagonal (seen with cuSOLVER 13.0 on an
//   H200; its documentation says nothing of it), which LAPACK never references: the diagonal
//   is saved to the workspace before and copied back after, two strided copies on the stream.
//   The host workspace goes into host_scratch beside the info when it fits (it is small or
//   empty: trtri runs on the GPU); otherwise into a heap buffer that the completion function
//   keeps alive, since cuSOLVER may still use it from the stream after the call has returned.
//   Pinned memory is not needed for it.
// - geqrf and larft (the QR's panels on a GPU): cusolverDn<t>geqrf, whose info is read only
//   to catch a bad argument (it has no failure of its own), and cusolverDnXlarft with this
//   thread's cusolverDnParams_t (defaults, made once). Each takes the workspace its caller
//   carved for it; larft's host workspace (none on cuSOLVER 13) goes on the heap, kept until
//   the stream is done, since the caller may hold host_scratch for geqrf's info.
// - lauum has no documented cuSOLVER routine (cusolverDn<t>lauum is in the header, undocumented,
//   and its behaviour on the other triangle is not specified), so it is built from cuBLAS,
//   recursively as LAPACK's blocked lauum, with [L11 0; L21 L22] (lower):
//       L^H L = [L11^H L11 + L21^H L21    .        ]
//               [L22^H L21                L22^H L22]
//   i.e. lauum(A11); A11 += A21^H A21 (herk); A21 := A22^H A21 (trmm); lauum(A22), the order
//   in which every block is read before it is overwritten. At n <= lauum_base the product is
//   one herk on a zero-padded copy W of the triangle (copy_triangle, triangle.cu): A := W^H W
//   with beta = 0, which writes only the `uplo` triangle of A. herk on W wastes 2/3 of its
//   flops on zeros, which the recursion confines to the small diagonal blocks. No step reads
//   or writes the other triangle of A (which may hold anything, NaN included).
#include "linalg/kernels/cuda/blas_lapack.hpp"

#include "linalg/instantiate.hpp"
#include "linalg/kernels/cuda/nan_pivot.hpp"
#include "linalg/kernels/cuda/triangle.hpp"

#include <tessera/error.hpp>
#include <tessera/rt/cuda.hpp>

#include <cuComplex.h>
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <climits>
#include <concepts>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace tessera::la::kernels::cuda {
namespace {

using cf = std::complex<float>;
using cz = std::complex<double>;

cublasOperation_t cublas(Op o) noexcept
{
    return o == Op::notrans ? CUBLAS_OP_N : o == Op::trans ? CUBLAS_OP_T : CUBLAS_OP_C;
}
cublasFillMode_t cublas(Uplo u) noexcept
{
    return u == Uplo::upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
}
cublasSideMode_t cublas(Side s) noexcept
{
    return s == Side::left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
}
cublasDiagType_t cublas(Diag d) noexcept
{
    return d == Diag::unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
}

/// The cuBLAS/cuSOLVER type of T, layout-compatible with it.
template <Scalar T>
using Dev = std::conditional_t<std::same_as<T, cf>, cuComplex,
                               std::conditional_t<std::same_as<T, cz>, cuDoubleComplex, T>>;
template <Scalar T> Dev<T>* dev(T* p) noexcept
{
    return reinterpret_cast<Dev<T>*>(p);
}
template <Scalar T> Dev<T> const* dev(T const* p) noexcept
{
    return reinterpret_cast<Dev<T> const*>(p);
}
static_assert(sizeof(cuComplex) == sizeof(cf) && sizeof(cuDoubleComplex) == sizeof(cz));

/// cudaDataType of T for the generic (X) cuSOLVER API.
template <Scalar T> constexpr cudaDataType data_type() noexcept
{
    if constexpr (std::same_as<T, float>)
        return CUDA_R_32F;
    else if constexpr (std::same_as<T, double>)
        return CUDA_R_64F;
    else if constexpr (std::same_as<T, cf>)
        return CUDA_C_32F;
    else
        return CUDA_C_64F;
}

/// A size or leading dimension as the int cuBLAS takes; throws beyond INT_MAX.
int to_int(int64_t x, char const* what)
{
    if (x < 0 || x > INT_MAX) [[unlikely]]
        throw InvalidArgument(std::string(what) + " = " + std::to_string(x) +
                              " is out of cuBLAS's int range");
    return int(x);
}
/// The same, naming the argument as "<fn>: <arg>" (the message is built only on failure).
int to_int(int64_t x, char const* fn, char const* arg)
{
    if (x < 0 || x > INT_MAX) [[unlikely]]
        return to_int(x, (std::string(fn) + ": " + arg).c_str());
    return int(x);
}

/// Bytes before cuSOLVER's workspace in ctx.workspace(): the device info, padded to keep the
/// workspace as aligned as the allocation.
constexpr std::size_t info_bytes = 256;
/// `bytes` rounded up to a multiple of info_bytes, so that what follows stays aligned.
constexpr std::size_t in_whole_infos(std::size_t bytes)
{
    return (bytes + info_bytes - 1) / info_bytes * info_bytes;
}
/// The same in host_scratch, before trtri's host workspace.
constexpr std::size_t host_info_bytes = 64;

/// Brings cuSOLVER's device info back to `host` and hands it to `report` once the stream is
/// done (see the top of the file); `keep` stays alive until then.
void report_info(rt::CudaContext const& ctx, int const* device, int* host, InfoReport report,
                 char const* what, std::shared_ptr<void> keep = {})
{
    if (const cudaError_t e =
            cudaMemcpyAsync(host, device, sizeof(int), cudaMemcpyDeviceToHost, ctx.stream)) {
        ctx.at_completion([keep = std::move(keep)] {});  // what the stream still runs may use it
        rt::cuda_check(e, "cudaMemcpyAsync (info)");
    }
    ctx.at_completion([host, report = std::move(report), what, keep = std::move(keep)] {
        const int info = *host;
        if (info < 0)
            throw DeviceError(std::string(what) + " reports argument " + std::to_string(-info) +
                              " as invalid");
        if (info > 0 && report) report(info);
    });
}

}  // namespace

template <Scalar T>
void gemm(rt::CudaContext const& ctx, Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha,
          T const* a, int64_t lda, T const* b, int64_t ldb, T beta, T* c, int64_t ldc)
{
    if (m == 0 || n == 0) return;
    // BLAS does not reference A and B when alpha = 0; cuBLAS promises it only for k = 0
    const int M = to_int(m, "gemm: m"), N = to_int(n, "gemm: n"),
              K = alpha == T(0) ? 0 : to_int(k, "gemm: k");
    const int LDA = to_int(lda, "gemm: lda"), LDB = to_int(ldb, "gemm: ldb"),
              LDC = to_int(ldc, "gemm: ldc");
    auto A = cublas(ta), B = cublas(tb);
    cublasStatus_t st;
    if constexpr (std::same_as<T, float>)
        st = cublasSgemm(ctx.cublas, A, B, M, N, K, &alpha, a, LDA, b, LDB, &beta, c, LDC);
    else if constexpr (std::same_as<T, double>)
        st = cublasDgemm(ctx.cublas, A, B, M, N, K, &alpha, a, LDA, b, LDB, &beta, c, LDC);
    else if constexpr (std::same_as<T, cf>)
        st = cublasCgemm(ctx.cublas, A, B, M, N, K, dev(&alpha), dev(a), LDA, dev(b), LDB,
                         dev(&beta), dev(c), LDC);
    else
        st = cublasZgemm(ctx.cublas, A, B, M, N, K, dev(&alpha), dev(a), LDA, dev(b), LDB,
                         dev(&beta), dev(c), LDC);
    rt::cuda_check(st, by_precision<T>("cublasSgemm", "cublasDgemm", "cublasCgemm", "cublasZgemm"));
}

template <Scalar T>
void geam(rt::CudaContext const& ctx, int64_t m, int64_t n, T alpha, T const* a, int64_t lda,
          T beta, T const* b, int64_t ldb, T* c, int64_t ldc)
{
    if (m == 0 || n == 0) return;
    const int M = to_int(m, "geam: m"), N = to_int(n, "geam: n"), LDA = to_int(lda, "geam: lda"),
              LDB = to_int(ldb, "geam: ldb"), LDC = to_int(ldc, "geam: ldc");
    constexpr auto no = CUBLAS_OP_N;
    cublasStatus_t st;
    if constexpr (std::same_as<T, float>)
        st = cublasSgeam(ctx.cublas, no, no, M, N, &alpha, a, LDA, &beta, b, LDB, c, LDC);
    else if constexpr (std::same_as<T, double>)
        st = cublasDgeam(ctx.cublas, no, no, M, N, &alpha, a, LDA, &beta, b, LDB, c, LDC);
    else if constexpr (std::same_as<T, cf>)
        st = cublasCgeam(ctx.cublas, no, no, M, N, dev(&alpha), dev(a), LDA, dev(&beta), dev(b),
                         LDB, dev(c), LDC);
    else
        st = cublasZgeam(ctx.cublas, no, no, M, N, dev(&alpha), dev(a), LDA, dev(&beta), dev(b),
                         LDB, dev(c), LDC);
    rt::cuda_check(st, by_precision<T>("cublasSgeam", "cublasDgeam", "cublasCgeam", "cublasZgeam"));
}

template <Scalar T>
void symm(rt::CudaContext const& ctx, Side side, Uplo uplo, bool hermitian, int64_t m, int64_t n,
          T alpha, T const* a, int64_t lda, T const* b, int64_t ldb, T beta, T* c, int64_t ldc)
{
    if (m == 0 || n == 0) return;
    const int M = to_int(m, "symm: m"), N = to_int(n, "symm: n");
    const int LDA = to_int(lda, "symm: lda"), LDB = to_int(ldb, "symm: ldb"),
              LDC = to_int(ldc, "symm: ldc");
    auto S = cublas(side);
    auto U = cublas(uplo);
    cublasStatus_t st;
    char const* what = by_precision<T>("cublasSsymm", "cublasDsymm", "cublasCsymm", "cublasZsymm");
    if constexpr (std::same_as<T, float>) {
        st = cublasSsymm(ctx.cublas, S, U, M, N, &alpha, a, LDA, b, LDB, &beta, c, LDC);
    } else if constexpr (std::same_as<T, double>) {
        st = cublasDsymm(ctx.cublas, S, U, M, N, &alpha, a, LDA, b, LDB, &beta, c, LDC);
    } else if constexpr (std::same_as<T, cf>) {
        if (hermitian) what = "cublasChemm";
        st = (hermitian ? cublasChemm : cublasCsymm)(ctx.cublas, S, U, M, N, dev(&alpha), dev(a),
                                                     LDA, dev(b), LDB, dev(&beta), dev(c), LDC);
    } else {
        if (hermitian) what = "cublasZhemm";
        st = (hermitian ? cublasZhemm : cublasZsymm)(ctx.cublas, S, U, M, N, dev(&alpha), dev(a),
                                                     LDA, dev(b), LDB, dev(&beta), dev(c), LDC);
    }
    rt::cuda_check(st, what);
}

template <Scalar T>
void syrk(rt::CudaContext const& ctx, Uplo uplo, Op trans, bool hermitian, int64_t n, int64_t k,
          T alpha, T const* a, int64_t lda, T beta, T* c, int64_t ldc)
{
    if (n == 0) return;
    // BLAS does not reference A when alpha = 0 (the tile algorithm then passes C itself as A);
    // cuBLAS promises it only for k = 0
    const int N = to_int(n, "syrk: n"), K = alpha == T(0) ? 0 : to_int(k, "syrk: k");
    const int LDA = to_int(lda, "syrk: lda"), LDC = to_int(ldc, "syrk: ldc");
    auto U = cublas(uplo);
    auto O = cublas(trans);
    cublasStatus_t st;
    char const* what = by_precision<T>("cublasSsyrk", "cublasDsyrk", "cublasCsyrk", "cublasZsyrk");
    if constexpr (std::same_as<T, float>) {
        st = cublasSsyrk(ctx.cublas, U, O, N, K, &alpha, a, LDA, &beta, c, LDC);
    } else if constexpr (std::same_as<T, double>) {
        st = cublasDsyrk(ctx.cublas, U, O, N, K, &alpha, a, LDA, &beta, c, LDC);
    } else if (hermitian) {  // herk: real alpha and beta
        const real_t<T> ra = alpha.real(), rb = beta.real();
        if constexpr (std::same_as<T, cf>) {
            what = "cublasCherk";
            st = cublasCherk(ctx.cublas, U, O, N, K, &ra, dev(a), LDA, &rb, dev(c), LDC);
        } else {
            what = "cublasZherk";
            st = cublasZherk(ctx.cublas, U, O, N, K, &ra, dev(a), LDA, &rb, dev(c), LDC);
        }
    } else if constexpr (std::same_as<T, cf>) {
        st = cublasCsyrk(ctx.cublas, U, O, N, K, dev(&alpha), dev(a), LDA, dev(&beta), dev(c), LDC);
    } else {
        st = cublasZsyrk(ctx.cublas, U, O, N, K, dev(&alpha), dev(a), LDA, dev(&beta), dev(c), LDC);
    }
    rt::cuda_check(st, what);
}

/// The arguments of trsm and trmm as cuBLAS takes them, sizes checked against int.
struct TriangularArgs {
    cublasSideMode_t side;
    cublasFillMode_t uplo;
    cublasOperation_t trans;
    cublasDiagType_t diag;
    int m, n, lda, ldb;
};
TriangularArgs triangular_args(char const* fn, Side side, Uplo uplo, Op trans, Diag diag, int64_t m,
                               int64_t n, int64_t lda, int64_t ldb)
{
    return {cublas(side),       cublas(uplo),       cublas(trans),          cublas(diag),
            to_int(m, fn, "m"), to_int(n, fn, "n"), to_int(lda, fn, "lda"), to_int(ldb, fn, "ldb")};
}

template <Scalar T>
void trsm(rt::CudaContext const& ctx, Side side, Uplo uplo, Op trans, Diag diag, int64_t m,
          int64_t n, T alpha, T const* a, int64_t lda, T* b, int64_t ldb)
{
    if (m == 0 || n == 0) return;
    const auto [S, U, O, D, M, N, LDA, LDB] =
        triangular_args("trsm", side, uplo, trans, diag, m, n, lda, ldb);
    cublasStatus_t st;
    if constexpr (std::same_as<T, float>)
        st = cublasStrsm(ctx.cublas, S, U, O, D, M, N, &alpha, a, LDA, b, LDB);
    else if constexpr (std::same_as<T, double>)
        st = cublasDtrsm(ctx.cublas, S, U, O, D, M, N, &alpha, a, LDA, b, LDB);
    else if constexpr (std::same_as<T, cf>)
        st = cublasCtrsm(ctx.cublas, S, U, O, D, M, N, dev(&alpha), dev(a), LDA, dev(b), LDB);
    else
        st = cublasZtrsm(ctx.cublas, S, U, O, D, M, N, dev(&alpha), dev(a), LDA, dev(b), LDB);
    rt::cuda_check(st, by_precision<T>("cublasStrsm", "cublasDtrsm", "cublasCtrsm", "cublasZtrsm"));
}

template <Scalar T>
void trmm(rt::CudaContext const& ctx, Side side, Uplo uplo, Op trans, Diag diag, int64_t m,
          int64_t n, T alpha, T const* a, int64_t lda, T* b, int64_t ldb)
{
    if (m == 0 || n == 0) return;
    const auto [S, U, O, D, M, N, LDA, LDB] =
        triangular_args("trmm", side, uplo, trans, diag, m, n, lda, ldb);
    // cuBLAS's trmm is out of place, C = alpha op(A) B; C = B (same ld) makes it in place.
    cublasStatus_t st;
    if constexpr (std::same_as<T, float>)
        st = cublasStrmm(ctx.cublas, S, U, O, D, M, N, &alpha, a, LDA, b, LDB, b, LDB);
    else if constexpr (std::same_as<T, double>)
        st = cublasDtrmm(ctx.cublas, S, U, O, D, M, N, &alpha, a, LDA, b, LDB, b, LDB);
    else if constexpr (std::same_as<T, cf>)
        st = cublasCtrmm(ctx.cublas, S, U, O, D, M, N, dev(&alpha), dev(a), LDA, dev(b), LDB,
                         dev(b), LDB);
    else
        st = cublasZtrmm(ctx.cublas, S, U, O, D, M, N, dev(&alpha), dev(a), LDA, dev(b), LDB,
                         dev(b), LDB);
    rt::cuda_check(st, by_precision<T>("cublasStrmm", "cublasDtrmm", "cublasCtrmm", "cublasZtrmm"));
}

template <Scalar T>
void potrf(rt::CudaContext const& ctx, Uplo uplo, int64_t n, T* a, int64_t lda, InfoReport report)
{
    if (n == 0) return;
    const int N = to_int(n, "potrf: n"), LDA = to_int(lda, "potrf: lda");
    auto U = cublas(uplo);
    char const* what = by_precision<T>("cusolverDnSpotrf", "cusolverDnDpotrf", "cusolverDnCpotrf",
                                       "cusolverDnZpotrf");
    int lwork = 0;
    cusolverStatus_t st;
    if constexpr (std::same_as<T, float>)
        st = cusolverDnSpotrf_bufferSize(ctx.cusolver, U, N, a, LDA, &lwork);
    else if constexpr (std::same_as<T, double>)
        st = cusolverDnDpotrf_bufferSize(ctx.cusolver, U, N, a, LDA, &lwork);
    else if constexpr (std::same_as<T, cf>)
        st = cusolverDnCpotrf_bufferSize(ctx.cusolver, U, N, dev(a), LDA, &lwork);
    else
        st = cusolverDnZpotrf_bufferSize(ctx.cusolver, U, N, dev(a), LDA, &lwork);
    rt::cuda_check(st,
                   by_precision<T>("cusolverDnSpotrf_bufferSize", "cusolverDnDpotrf_bufferSize",
                                   "cusolverDnCpotrf_bufferSize", "cusolverDnZpotrf_bufferSize"));

    // workspace: [device info | lwork elements]
    auto* ws = static_cast<std::byte*>(ctx.workspace(info_bytes + std::size_t(lwork) * sizeof(T)));
    int* info = reinterpret_cast<int*>(ws);
    auto* work = reinterpret_cast<Dev<T>*>(ws + info_bytes);
    if constexpr (std::same_as<T, float>)
        st = cusolverDnSpotrf(ctx.cusolver, U, N, a, LDA, work, lwork, info);
    else if constexpr (std::same_as<T, double>)
        st = cusolverDnDpotrf(ctx.cusolver, U, N, a, LDA, work, lwork, info);
    else if constexpr (std::same_as<T, cf>)
        st = cusolverDnCpotrf(ctx.cusolver, U, N, dev(a), LDA, work, lwork, info);
    else
        st = cusolverDnZpotrf(ctx.cusolver, U, N, dev(a), LDA, work, lwork, info);
    rt::cuda_check(st, what);
    rt::cuda_check(find_nan_pivot(ctx.stream, n, sizeof(real_t<T>), is_complex_v<T>, a, lda, info),
                   "find_nan_pivot_kernel");
    report_info(ctx, info, static_cast<int*>(ctx.host_scratch(sizeof(int))), std::move(report),
                what);
}

template <Scalar T>
std::size_t getrf_workspace_bytes(rt::CudaContext const& ctx, int64_t m, int64_t n, T* a,
                                  int64_t lda)
{
    const int M = to_int(m, "getrf: m"), N = to_int(n, "getrf: n"), LDA = to_int(lda, "getrf: lda");
    int lwork = 0;
    cusolverStatus_t st;
    if constexpr (std::same_as<T, float>)
        st = cusolverDnSgetrf_bufferSize(ctx.cusolver, M, N, a, LDA, &lwork);
    else if constexpr (std::same_as<T, double>)
        st = cusolverDnDgetrf_bufferSize(ctx.cusolver, M, N, a, LDA, &lwork);
    else if constexpr (std::same_as<T, cf>)
        st = cusolverDnCgetrf_bufferSize(ctx.cusolver, M, N, dev(a), LDA, &lwork);
    else
        st = cusolverDnZgetrf_bufferSize(ctx.cusolver, M, N, dev(a), LDA, &lwork);
    rt::cuda_check(st,
                   by_precision<T>("cusolverDnSgetrf_bufferSize", "cusolverDnDgetrf_bufferSize",
                                   "cusolverDnCgetrf_bufferSize", "cusolverDnZgetrf_bufferSize"));
    // [device info | lwork elements], rounded up so that what a caller puts after stays aligned
    return in_whole_infos(info_bytes + std::size_t(lwork) * sizeof(T));
}

template <Scalar T>
void getrf(rt::CudaContext const& ctx, int64_t m, int64_t n, T* a, int64_t lda, int* ipiv,
           InfoReport report, void* workspace)
{
    if (m == 0 || n == 0) return;
    const int M = to_int(m, "getrf: m"), N = to_int(n, "getrf: n"), LDA = to_int(lda, "getrf: lda");
    char const* what = by_precision<T>("cusolverDnSgetrf", "cusolverDnDgetrf", "cusolverDnCgetrf",
                                       "cusolverDnZgetrf");
    auto* ws = static_cast<std::byte*>(
        workspace ? workspace : ctx.workspace(getrf_workspace_bytes<T>(ctx, m, n, a, lda)));
    int* info = reinterpret_cast<int*>(ws);
    auto* work = reinterpret_cast<Dev<T>*>(ws + info_bytes);
    cusolverStatus_t st;
    if constexpr (std::same_as<T, float>)
        st = cusolverDnSgetrf(ctx.cusolver, M, N, a, LDA, work, ipiv, info);
    else if constexpr (std::same_as<T, double>)
        st = cusolverDnDgetrf(ctx.cusolver, M, N, a, LDA, work, ipiv, info);
    else if constexpr (std::same_as<T, cf>)
        st = cusolverDnCgetrf(ctx.cusolver, M, N, dev(a), LDA, work, ipiv, info);
    else
        st = cusolverDnZgetrf(ctx.cusolver, M, N, dev(a), LDA, work, ipiv, info);
    rt::cuda_check(st, what);
    report_info(ctx, info, static_cast<int*>(ctx.host_scratch(sizeof(int))), std::move(report),
                what);
}

template <Scalar T>
std::size_t geqrf_workspace_bytes(rt::CudaContext const& ctx, int64_t m, int64_t n, T* a,
                                  int64_t lda)
{
    const int M = to_int(m, "geqrf: m"), N = to_int(n, "geqrf: n"), LDA = to_int(lda, "geqrf: lda");
    int lwork = 0;
    cusolverStatus_t st;
    if constexpr (std::same_as<T, float>)
        st = cusolverDnSgeqrf_bufferSize(ctx.cusolver, M, N, a, LDA, &lwork);
    else if constexpr (std::same_as<T, double>)
        st = cusolverDnDgeqrf_bufferSize(ctx.cusolver, M, N, a, LDA, &lwork);
    else if constexpr (std::same_as<T, cf>)
        st = cusolverDnCgeqrf_bufferSize(ctx.cusolver, M, N, dev(a), LDA, &lwork);
    else
        st = cusolverDnZgeqrf_bufferSize(ctx.cusolver, M, N, dev(a), LDA, &lwork);
    rt::cuda_check(st,
                   by_precision<T>("cusolverDnSgeqrf_bufferSize", "cusolverDnDgeqrf_bufferSize",
                                   "cusolverDnCgeqrf_bufferSize", "cusolverDnZgeqrf_bufferSize"));
    return in_whole_infos(info_bytes + std::size_t(lwork) * sizeof(T));
}

template <Scalar T>
void geqrf(rt::CudaContext const& ctx, int64_t m, int64_t n, T* a, int64_t lda, T* tau,
           void* workspace)
{
    if (m == 0 || n == 0) return;
    const int M = to_int(m, "geqrf: m"), N = to_int(n, "geqrf: n"), LDA = to_int(lda, "geqrf: lda");
    char const* what = by_precision<T>("cusolverDnSgeqrf", "cusolverDnDgeqrf", "cusolverDnCgeqrf",
                                       "cusolverDnZgeqrf");
    const std::size_t bytes = geqrf_workspace_bytes<T>(ctx, m, n, a, lda);
    auto* ws = static_cast<std::byte*>(workspace ? workspace : ctx.workspace(bytes));
    int* info = reinterpret_cast<int*>(ws);
    auto* work = reinterpret_cast<Dev<T>*>(ws + info_bytes);
    const int lwork = int((bytes - info_bytes) / sizeof(T));
    cusolverStatus_t st;
    if constexpr (std::same_as<T, float>)
        st = cusolverDnSgeqrf(ctx.cusolver, M, N, a, LDA, tau, work, lwork, info);
    else if constexpr (std::same_as<T, double>)
        st = cusolverDnDgeqrf(ctx.cusolver, M, N, a, LDA, tau, work, lwork, info);
    else if constexpr (std::same_as<T, cf>)
        st = cusolverDnCgeqrf(ctx.cusolver, M, N, dev(a), LDA, dev(tau), work, lwork, info);
    else
        st = cusolverDnZgeqrf(ctx.cusolver, M, N, dev(a), LDA, dev(tau), work, lwork, info);
    rt::cuda_check(st, what);
    // geqrf cannot fail: its info is only ever negative (a bad argument, a bug of ours)
    report_info(ctx, info, static_cast<int*>(ctx.host_scratch(sizeof(int))), {}, what);
}

namespace {
/// The generic API's options object of this thread (defaults), made once.
cusolverDnParams_t generic_params()
{
    struct Owned {
        cusolverDnParams_t params = nullptr;
        ~Owned()
        {
            if (params) cusolverDnDestroyParams(params);
        }
    };
    thread_local Owned owned;
    if (!owned.params)
        rt::cuda_check(cusolverDnCreateParams(&owned.params), "cusolverDnCreateParams");
    return owned.params;
}

/// Xlarft's device and host workspaces for these operands.
template <Scalar T>
std::pair<std::size_t, std::size_t> larft_sizes(rt::CudaContext const& ctx, int64_t n, int64_t k,
                                                T const* v, int64_t ldv, T const* tau, T* t,
                                                int64_t ldt)
{
    constexpr cudaDataType type = data_type<T>();
    std::size_t device_bytes = 0, host_bytes = 0;
    rt::cuda_check(cusolverDnXlarft_bufferSize(ctx.cusolver, generic_params(),
                                               CUBLAS_DIRECT_FORWARD, CUBLAS_STOREV_COLUMNWISE, n,
                                               k, type, v, ldv, type, tau, type, t, ldt, type,
                                               &device_bytes, &host_bytes),
                   "cusolverDnXlarft_bufferSize");
    return {device_bytes, host_bytes};
}
}  // namespace

template <Scalar T>
std::size_t larft_workspace_bytes(rt::CudaContext const& ctx, int64_t n, int64_t k, T const* v,
                                  int64_t ldv, T const* tau, T* t, int64_t ldt)
{
    const std::size_t device_bytes = larft_sizes<T>(ctx, n, k, v, ldv, tau, t, ldt).first;
    return in_whole_infos(device_bytes);
}

template <Scalar T>
void larft(rt::CudaContext const& ctx, int64_t n, int64_t k, T const* v, int64_t ldv, T const* tau,
           T* t, int64_t ldt, void* workspace)
{
    if (k == 0) return;
    constexpr cudaDataType type = data_type<T>();
    const auto [device_bytes, host_bytes] = larft_sizes<T>(ctx, n, k, v, ldv, tau, t, ldt);
    void* device_work = device_bytes == 0 ? nullptr
                        : workspace       ? workspace
                                          : ctx.workspace(device_bytes);
    // the host workspace (small or none: larft runs on the GPU) on the heap, not host_scratch,
    // which the caller may hold for an info; kept until the stream is done with it
    std::shared_ptr<std::byte[]> host;
    if (host_bytes) host = std::make_shared<std::byte[]>(host_bytes);
    rt::cuda_check(cusolverDnXlarft(ctx.cusolver, generic_params(), CUBLAS_DIRECT_FORWARD,
                                    CUBLAS_STOREV_COLUMNWISE, n, k, type, v, ldv, type, tau, type,
                                    t, ldt, type, device_work, device_bytes, host.get(),
                                    host_bytes),
                   "cusolverDnXlarft");
    if (host) ctx.at_completion([host] {});
}

template <Scalar T>
void trtri(rt::CudaContext const& ctx, Uplo uplo, Diag diag, int64_t n, T* a, int64_t lda,
           InfoReport report)
{
    if (n == 0) return;
    auto U = cublas(uplo);
    auto D = cublas(diag);
    std::size_t device_bytes = 0, host_bytes = 0;
    rt::cuda_check(cusolverDnXtrtri_bufferSize(ctx.cusolver, U, D, n, data_type<T>(), a, lda,
                                               &device_bytes, &host_bytes),
                   "cusolverDnXtrtri_bufferSize");

    // device workspace: [info | device_bytes | the unit diagonal]; host: [info | host_bytes] in
    // host_scratch when it fits, else the host workspace on the heap, kept until the stream is
    // done.
    const bool unit = diag == Diag::unit;
    const std::size_t work_bytes = in_whole_infos(device_bytes);
    const std::size_t diagonal_bytes = unit ? std::size_t(n) * sizeof(T) : 0;
    auto* ws = static_cast<std::byte*>(ctx.workspace(info_bytes + work_bytes + diagonal_bytes));
    int* info = reinterpret_cast<int*>(ws);
    std::byte* saved_diagonal = ws + info_bytes + work_bytes;
    // A(i, i) is sizeof(T) bytes every (lda + 1) entries
    auto copy_diagonal = [&](void* to, std::size_t to_pitch, void const* from,
                             std::size_t from_pitch) {
        rt::cuda_check(cudaMemcpy2DAsync(to, to_pitch, from, from_pitch, sizeof(T), std::size_t(n),
                                         cudaMemcpyDeviceToDevice, ctx.stream),
                       "cudaMemcpy2DAsync (trtri's unit diagonal)");
    };
    const std::size_t diagonal_pitch = std::size_t(lda + 1) * sizeof(T);
    if (unit) copy_diagonal(saved_diagonal, sizeof(T), a, diagonal_pitch);
    std::shared_ptr<std::byte[]> heap;
    std::byte* host;
    void* host_work = nullptr;
    if (host_info_bytes + host_bytes <= rt::CudaContext::host_scratch_bytes) {
        host = static_cast<std::byte*>(ctx.host_scratch(host_info_bytes + host_bytes));
        if (host_bytes) host_work = host + host_info_bytes;
    } else {
        host = static_cast<std::byte*>(ctx.host_scratch(sizeof(int)));
        heap = std::make_shared<std::byte[]>(host_bytes);
        host_work = heap.get();
    }
    rt::cuda_check(cusolverDnXtrtri(ctx.cusolver, U, D, n, data_type<T>(), a, lda,
                                    device_bytes ? ws + info_bytes : nullptr, device_bytes,
                                    host_work, host_bytes, info),
                   "cusolverDnXtrtri");
    if (unit) copy_diagonal(a, diagonal_pitch, saved_diagonal, sizeof(T));
    report_info(ctx, info, reinterpret_cast<int*>(host), std::move(report), "cusolverDnXtrtri",
                std::move(heap));
}

namespace {

/// Below this order, lauum is one herk on a zero-padded copy (see the top of the file).
constexpr int64_t lauum_base = 128;

/// lauum of the n x n A with `w`, room for min(n, lauum_base)^2 entries, as scratch.
template <Scalar T>
void lauum_recursive(rt::CudaContext const& ctx, Uplo uplo, int64_t n, T* a, int64_t lda, T* w)
{
    const Op ct = is_complex_v<T> ? Op::conjtrans : Op::trans;  // cuBLAS's real syrk takes 'T'
    if (n <= lauum_base) {
        // W = the triangle of A, zeros elsewhere; A := W^H W (lower) or W W^H (upper) into
        // A's `uplo` triangle only, beta = 0: A's old entries are not read.
        rt::cuda_check(copy_triangle(ctx.stream, uplo == Uplo::lower, n, sizeof(T), a, lda, w, n),
                       "copy_triangle_kernel launch");
        syrk(ctx, uplo, uplo == Uplo::lower ? ct : Op::notrans, true, n, n, T(1), w, n, T(0), a,
             lda);
        return;
    }
    // n > lauum_base: 64 <= n1 <= n2, n1 a multiple of 32
    const int64_t n1 = n / 2 / 32 * 32, n2 = n - n1;
    T* a11 = a;
    T* a22 = a + n1 + n1 * lda;
    lauum_recursive(ctx, uplo, n1, a11, lda, w);
    if (uplo == Uplo::lower) {
        T* a21 = a + n1;
        // A11 += L21^H L21, then A21 = L22^H L21
        syrk(ctx, uplo, ct, true, n1, n2, T(1), a21, lda, T(1), a11, lda);
        trmm(ctx, Side::left, uplo, ct, Diag::nonunit, n2, n1, T(1), a22, lda, a21, lda);
    } else {
        T* a12 = a + n1 * lda;
        // A11 += U12 U12^H, then A12 = U12 U22^H
        syrk(ctx, uplo, Op::notrans, true, n1, n2, T(1), a12, lda, T(1), a11, lda);
        trmm(ctx, Side::right, uplo, ct, Diag::nonunit, n1, n2, T(1), a22, lda, a12, lda);
    }
    lauum_recursive(ctx, uplo, n2, a22, lda, w);
}

}  // namespace

template <Scalar T> void lauum(rt::CudaContext const& ctx, Uplo uplo, int64_t n, T* a, int64_t lda)
{
    if (n == 0) return;
    (void)to_int(n, "lauum: n");
    (void)to_int(lda, "lauum: lda");
    const int64_t nw = std::min(n, lauum_base);
    T* w = static_cast<T*>(ctx.workspace(std::size_t(nw * nw) * sizeof(T)));
    lauum_recursive(ctx, uplo, n, a, lda, w);
}

#define TESSERA_INSTANTIATE_KERNELS(T)                                                             \
    template void gemm<T>(rt::CudaContext const&, Op, Op, int64_t, int64_t, int64_t, T, T const*,  \
                          int64_t, T const*, int64_t, T, T*, int64_t);                             \
    template void geam<T>(rt::CudaContext const&, int64_t, int64_t, T, T const*, int64_t, T,       \
                          T const*, int64_t, T*, int64_t);                                         \
    template void symm<T>(rt::CudaContext const&, Side, Uplo, bool, int64_t, int64_t, T, T const*, \
                          int64_t, T const*, int64_t, T, T*, int64_t);                             \
    template void syrk<T>(rt::CudaContext const&, Uplo, Op, bool, int64_t, int64_t, T, T const*,   \
                          int64_t, T, T*, int64_t);                                                \
    template void trsm<T>(rt::CudaContext const&, Side, Uplo, Op, Diag, int64_t, int64_t, T,       \
                          T const*, int64_t, T*, int64_t);                                         \
    template void trmm<T>(rt::CudaContext const&, Side, Uplo, Op, Diag, int64_t, int64_t, T,       \
                          T const*, int64_t, T*, int64_t);                                         \
    template void potrf<T>(rt::CudaContext const&, Uplo, int64_t, T*, int64_t, InfoReport);        \
    template void trtri<T>(rt::CudaContext const&, Uplo, Diag, int64_t, T*, int64_t, InfoReport);  \
    template void getrf<T>(rt::CudaContext const&, int64_t, int64_t, T*, int64_t, int*,            \
                           InfoReport, void*);                                                     \
    template std::size_t getrf_workspace_bytes<T>(rt::CudaContext const&, int64_t, int64_t, T*,    \
                                                  int64_t);                                        \
    template void lauum<T>(rt::CudaContext const&, Uplo, int64_t, T*, int64_t);                    \
    template void geqrf<T>(rt::CudaContext const&, int64_t, int64_t, T*, int64_t, T*, void*);      \
    template std::size_t geqrf_workspace_bytes<T>(rt::CudaContext const&, int64_t, int64_t, T*,    \
                                                  int64_t);                                        \
    template void larft<T>(rt::CudaContext const&, int64_t, int64_t, T const*, int64_t, T const*,  \
                           T*, int64_t, void*);                                                    \
    template std::size_t larft_workspace_bytes<T>(rt::CudaContext const&, int64_t, int64_t,        \
                                                  T const*, int64_t, T const*, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE_KERNELS)
#undef TESSERA_INSTANTIATE_KERNELS

}  // namespace tessera::la::kernels::cuda
