// gpu_peers.hpp: device-resident inputs, copied in once; each repetition restores the output
// from a device copy (untimed), then times the one library call between two CUDA events on the
// peer's stream. The peer has its own stream and handles, so it runs alone on the GPU: the
// bench calls it while no Tessera runtime holds the device.
#include "bench/cuda/gpu_peers.hpp"

#include "bench/bench.hpp"

#include <tessera/error.hpp>
#include <tessera/rt/cuda.hpp>

#include <cuComplex.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <concepts>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace tessera::bench::gpu {
namespace {

using cf = std::complex<float>;
using cz = std::complex<double>;
using rt::cuda_check;

/// cuBLAS's type of T (the layouts are the same).
template <class T>
using Dev = std::conditional_t<std::same_as<T, cf>, cuComplex,
                               std::conditional_t<std::same_as<T, cz>, cuDoubleComplex, T>>;

/// count T's of device memory, freed with the object.
template <class T> class DeviceArray {
public:
    explicit DeviceArray(std::size_t count)
    {
        cuda_check(cudaMalloc(reinterpret_cast<void**>(&p_), count * sizeof(T)), "cudaMalloc");
    }
    /// A device copy of count T's at host address `from`.
    DeviceArray(T const* from, std::size_t count) : DeviceArray(count)
    {
        cuda_check(cudaMemcpy(p_, from, count * sizeof(T), cudaMemcpyHostToDevice),
                   "cudaMemcpy (to the device)");
    }
    ~DeviceArray() { cudaFree(p_); }
    DeviceArray(DeviceArray const&) = delete;
    DeviceArray& operator=(DeviceArray const&) = delete;
    Dev<T>* get() const noexcept { return reinterpret_cast<Dev<T>*>(p_); }

private:
    T* p_ = nullptr;
};

/// The peer's stream, its cuBLAS and cuSOLVER handles on it, and the two timing events.
class Session {
public:
    Session()
    {
        cuda_check(cudaStreamCreate(&stream_), "cudaStreamCreate");
        cuda_check(cudaEventCreate(&start_), "cudaEventCreate");
        cuda_check(cudaEventCreate(&stop_), "cudaEventCreate");
        cuda_check(cublasCreate(&blas), "cublasCreate");
        cuda_check(cublasSetStream(blas, stream_), "cublasSetStream");
        cuda_check(cusolverDnCreate(&solver), "cusolverDnCreate");
        cuda_check(cusolverDnSetStream(solver, stream_), "cusolverDnSetStream");
    }
    ~Session()
    {
        cudaStreamSynchronize(stream_);
        if (solver) cusolverDnDestroy(solver);
        if (blas) cublasDestroy(blas);
        cudaEventDestroy(stop_);
        cudaEventDestroy(start_);
        cudaStreamDestroy(stream_);
    }
    Session(Session const&) = delete;
    Session& operator=(Session const&) = delete;

    /// Median seconds of `reps` timed runs of call(), after one warm-up; reset() before each,
    /// outside the events.
    template <class Reset, class Call> double median_seconds(int64_t reps, Reset reset, Call call)
    {
        std::vector<double> times;
        for (int64_t r = 0; r <= reps; ++r) {
            reset();
            cuda_check(cudaEventRecord(start_, stream_), "cudaEventRecord");
            call();
            cuda_check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
            cuda_check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
            float ms = 0;
            cuda_check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
            if (r > 0) times.push_back(double(ms) * 1e-3);  // r = 0 warms up
        }
        return median(times);
    }
    /// Copies count T's from device `from` to device `to` on the stream.
    template <class D> void copy(D* to, D const* from, std::size_t count)
    {
        cuda_check(cudaMemcpyAsync(to, from, count * sizeof(D), cudaMemcpyDeviceToDevice, stream_),
                   "cudaMemcpyAsync (device to device)");
    }

    cudaStream_t stream() const noexcept { return stream_; }
    cublasHandle_t blas = nullptr;
    cusolverDnHandle_t solver = nullptr;

private:
    cudaStream_t stream_ = nullptr;
    cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

int to_int(int64_t n)
{
    require(n >= 0 && n <= INT_MAX, "the GPU peers take n <= INT_MAX, not " + std::to_string(n));
    return int(n);
}

}  // namespace

template <la::Scalar T>
double gemm_seconds(int64_t n, T const* a, T const* b, T const* c, int64_t reps)
{
    const int N = to_int(n);
    const std::size_t nn = std::size_t(n) * std::size_t(n);
    Session s;
    DeviceArray<T> A(a, nn), B(b, nn), C0(c, nn), C(nn);
    const T one(1);
    auto alpha = reinterpret_cast<Dev<T> const*>(&one);
    return s.median_seconds(
        reps, [&] { s.copy(C.get(), C0.get(), nn); },
        [&] {
            cublasStatus_t st;
            if constexpr (std::same_as<T, float>)
                st = cublasSgemm(s.blas, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, alpha, A.get(), N,
                                 B.get(), N, alpha, C.get(), N);
            else if constexpr (std::same_as<T, double>)
                st = cublasDgemm(s.blas, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, alpha, A.get(), N,
                                 B.get(), N, alpha, C.get(), N);
            else if constexpr (std::same_as<T, cf>)
                st = cublasCgemm(s.blas, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, alpha, A.get(), N,
                                 B.get(), N, alpha, C.get(), N);
            else
                st = cublasZgemm(s.blas, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, alpha, A.get(), N,
                                 B.get(), N, alpha, C.get(), N);
            cuda_check(st, la::by_precision<T>("cublasSgemm", "cublasDgemm", "cublasCgemm",
                                               "cublasZgemm"));
        });
}

namespace {

/// The s, d, c or z variant of a cuSOLVER routine, for T.
template <class T, class S, class D, class C, class Z, class... Args>
cusolverStatus_t by_type(S s, D d, C c, Z z, Args... args)
{
    if constexpr (std::same_as<T, float>)
        return s(args...);
    else if constexpr (std::same_as<T, double>)
        return d(args...);
    else if constexpr (std::same_as<T, cf>)
        return c(args...);
    else
        return z(args...);
}

/// cuBLAS's fill mode for uplo.
cublasFillMode_t fill(la::Uplo uplo)
{
    return uplo == la::Uplo::lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
}

/// cusolverDn<t>potrf's workspace for the n x n a, and the call.
template <la::Scalar T> class Potrf {
public:
    Potrf(Session& s, la::Uplo uplo, int n, Dev<T>* a) : s_(s), fill_(fill(uplo)), n_(n), a_(a)
    {
        int lwork = 0;
        cuda_check(by_type<T>(cusolverDnSpotrf_bufferSize, cusolverDnDpotrf_bufferSize,
                              cusolverDnCpotrf_bufferSize, cusolverDnZpotrf_bufferSize, s.solver,
                              fill_, n, a, n, &lwork),
                   "cusolverDn<t>potrf_bufferSize");
        lwork_ = std::max(lwork, 1);
        work_ = std::make_unique<DeviceArray<T>>(std::size_t(lwork_));
    }
    void operator()(int* info)
    {
        cuda_check(by_type<T>(cusolverDnSpotrf, cusolverDnDpotrf, cusolverDnCpotrf,
                              cusolverDnZpotrf, s_.solver, fill_, n_, a_, n_, work_->get(), lwork_,
                              info),
                   la::by_precision<T>("cusolverDnSpotrf", "cusolverDnDpotrf", "cusolverDnCpotrf",
                                       "cusolverDnZpotrf"));
    }

private:
    Session& s_;
    cublasFillMode_t fill_;
    int n_;
    Dev<T>* a_;
    int lwork_ = 0;
    std::unique_ptr<DeviceArray<T>> work_;
};

/// cusolverDn<t>potrs with the n x n factor l on the n x nrhs b.
template <la::Scalar T>
void potrs(Session& s, la::Uplo uplo, int n, int nrhs, Dev<T> const* l, Dev<T>* b, int* info)
{
    cuda_check(by_type<T>(cusolverDnSpotrs, cusolverDnDpotrs, cusolverDnCpotrs, cusolverDnZpotrs,
                          s.solver, fill(uplo), n, nrhs, l, n, b, n, info),
               la::by_precision<T>("cusolverDnSpotrs", "cusolverDnDpotrs", "cusolverDnCpotrs",
                                   "cusolverDnZpotrs"));
}

/// Throws unless the peer's last info (device memory) is 0.
void expect_info_zero(DeviceArray<int> const& info, std::string const& routine)
{
    int host = -1;
    cuda_check(cudaMemcpy(&host, info.get(), sizeof(int), cudaMemcpyDeviceToHost),
               "cudaMemcpy (info)");
    if (host != 0) throw Error("cuSOLVER " + routine + " peer: info = " + std::to_string(host));
}

}  // namespace

template <la::Scalar T> double potrf_seconds(la::Uplo uplo, int64_t n, T const* a, int64_t reps)
{
    const int N = to_int(n);
    const std::size_t nn = std::size_t(n) * std::size_t(n);
    Session s;
    DeviceArray<T> A0(a, nn), A(nn);
    DeviceArray<int> info(1);
    Potrf<T> potrf(s, uplo, N, A.get());
    const double seconds = s.median_seconds(
        reps, [&] { s.copy(A.get(), A0.get(), nn); }, [&] { potrf(info.get()); });
    expect_info_zero(info, "potrf");
    return seconds;
}

template <la::Scalar T>
double potrs_seconds(la::Uplo uplo, int64_t n, int64_t nrhs, T const* l, T const* b, int64_t reps)
{
    const int N = to_int(n), NRHS = to_int(nrhs);
    const std::size_t nn = std::size_t(n) * std::size_t(n), nk = std::size_t(n) * std::size_t(nrhs);
    Session s;
    DeviceArray<T> L(l, nn), B0(b, nk), B(nk);
    DeviceArray<int> info(1);
    const double seconds = s.median_seconds(
        reps, [&] { s.copy(B.get(), B0.get(), nk); },
        [&] { potrs<T>(s, uplo, N, NRHS, L.get(), B.get(), info.get()); });
    expect_info_zero(info, "potrs");
    return seconds;
}

template <la::Scalar T>
double posv_seconds(la::Uplo uplo, int64_t n, int64_t nrhs, T const* a, T const* b, int64_t reps)
{
    const int N = to_int(n), NRHS = to_int(nrhs);
    const std::size_t nn = std::size_t(n) * std::size_t(n), nk = std::size_t(n) * std::size_t(nrhs);
    Session s;
    DeviceArray<T> A0(a, nn), A(nn), B0(b, nk), B(nk);
    DeviceArray<int> factor_info(1), solve_info(1);
    Potrf<T> potrf(s, uplo, N, A.get());
    const double seconds = s.median_seconds(
        reps,
        [&] {
            s.copy(A.get(), A0.get(), nn);
            s.copy(B.get(), B0.get(), nk);
        },
        [&] {  // potrs after a failed potrf solves with garbage: the checks below catch it
            potrf(factor_info.get());
            potrs<T>(s, uplo, N, NRHS, A.get(), B.get(), solve_info.get());
        });
    expect_info_zero(factor_info, "potrf (of posv)");
    expect_info_zero(solve_info, "potrs (of posv)");
    return seconds;
}

template <la::Scalar T> double potri_seconds(la::Uplo uplo, int64_t n, T const* l, int64_t reps)
{
    const int N = to_int(n);
    const std::size_t nn = std::size_t(n) * std::size_t(n);
    Session s;
    DeviceArray<T> L0(l, nn), A(nn);
    DeviceArray<int> info(1);
    int lwork = 0;
    cuda_check(by_type<T>(cusolverDnSpotri_bufferSize, cusolverDnDpotri_bufferSize,
                          cusolverDnCpotri_bufferSize, cusolverDnZpotri_bufferSize, s.solver,
                          fill(uplo), N, A.get(), N, &lwork),
               "cusolverDn<t>potri_bufferSize");
    lwork = std::max(lwork, 1);
    DeviceArray<T> work{std::size_t(lwork)};
    const double seconds = s.median_seconds(
        reps, [&] { s.copy(A.get(), L0.get(), nn); },
        [&] {
            cuda_check(by_type<T>(cusolverDnSpotri, cusolverDnDpotri, cusolverDnCpotri,
                                  cusolverDnZpotri, s.solver, fill(uplo), N, A.get(), N, work.get(),
                                  lwork, info.get()),
                       la::by_precision<T>("cusolverDnSpotri", "cusolverDnDpotri",
                                           "cusolverDnCpotri", "cusolverDnZpotri"));
        });
    expect_info_zero(info, "potri");
    return seconds;
}

namespace {

/// cusolverDn<t>getrf's workspace for the m x n a, and the call (pivots to ipiv).
template <la::Scalar T> class Getrf {
public:
    Getrf(Session& s, int m, int n, Dev<T>* a) : s_(s), m_(m), n_(n), a_(a)
    {
        int lwork = 0;
        cuda_check(by_type<T>(cusolverDnSgetrf_bufferSize, cusolverDnDgetrf_bufferSize,
                              cusolverDnCgetrf_bufferSize, cusolverDnZgetrf_bufferSize, s.solver, m,
                              n, a, m, &lwork),
                   "cusolverDn<t>getrf_bufferSize");
        work_ = std::make_unique<DeviceArray<T>>(std::size_t(std::max(lwork, 1)));
    }
    void operator()(int* ipiv, int* info)
    {
        cuda_check(by_type<T>(cusolverDnSgetrf, cusolverDnDgetrf, cusolverDnCgetrf,
                              cusolverDnZgetrf, s_.solver, m_, n_, a_, m_, work_->get(), ipiv,
                              info),
                   la::by_precision<T>("cusolverDnSgetrf", "cusolverDnDgetrf", "cusolverDnCgetrf",
                                       "cusolverDnZgetrf"));
    }

private:
    Session& s_;
    int m_, n_;
    Dev<T>* a_;
    std::unique_ptr<DeviceArray<T>> work_;
};

/// cusolverDn<t>getrs (no transpose) with the n x n factors lu and pivots ipiv on the n x nrhs b.
template <la::Scalar T>
void getrs(Session& s, int n, int nrhs, Dev<T> const* lu, int const* ipiv, Dev<T>* b, int* info)
{
    cuda_check(by_type<T>(cusolverDnSgetrs, cusolverDnDgetrs, cusolverDnCgetrs, cusolverDnZgetrs,
                          s.solver, CUBLAS_OP_N, n, nrhs, lu, n, ipiv, b, n, info),
               la::by_precision<T>("cusolverDnSgetrs", "cusolverDnDgetrs", "cusolverDnCgetrs",
                                   "cusolverDnZgetrs"));
}

}  // namespace

template <la::Scalar T> double getrf_seconds(int64_t m, int64_t n, T const* a, int64_t reps)
{
    const int M = to_int(m), N = to_int(n);
    const std::size_t mn = std::size_t(m) * std::size_t(n);
    Session s;
    DeviceArray<T> A0(a, mn), A(mn);
    DeviceArray<int> ipiv(std::size_t(std::max(1, std::min(M, N)))), info(1);
    Getrf<T> getrf(s, M, N, A.get());
    const double seconds = s.median_seconds(
        reps, [&] { s.copy(A.get(), A0.get(), mn); }, [&] { getrf(ipiv.get(), info.get()); });
    expect_info_zero(info, "getrf");
    return seconds;
}

template <la::Scalar T> double geqrf_seconds(int64_t m, int64_t n, T const* a, int64_t reps)
{
    const int M = to_int(m), N = to_int(n);
    const std::size_t mn = std::size_t(m) * std::size_t(n);
    Session s;
    DeviceArray<T> A0(a, mn), A(mn), tau(std::size_t(std::max(1, std::min(M, N))));
    DeviceArray<int> info(1);
    int lwork = 0;
    cuda_check(by_type<T>(cusolverDnSgeqrf_bufferSize, cusolverDnDgeqrf_bufferSize,
                          cusolverDnCgeqrf_bufferSize, cusolverDnZgeqrf_bufferSize, s.solver, M, N,
                          A.get(), M, &lwork),
               "cusolverDn<t>geqrf_bufferSize");
    DeviceArray<T> work(std::size_t(std::max(lwork, 1)));
    const double seconds = s.median_seconds(
        reps, [&] { s.copy(A.get(), A0.get(), mn); },
        [&] {
            cuda_check(by_type<T>(cusolverDnSgeqrf, cusolverDnDgeqrf, cusolverDnCgeqrf,
                                  cusolverDnZgeqrf, s.solver, M, N, A.get(), M, tau.get(),
                                  work.get(), std::max(lwork, 1), info.get()),
                       la::by_precision<T>("cusolverDnSgeqrf", "cusolverDnDgeqrf",
                                           "cusolverDnCgeqrf", "cusolverDnZgeqrf"));
        });
    expect_info_zero(info, "geqrf");
    return seconds;
}

template <la::Scalar T>
double getrs_seconds(int64_t n, int64_t nrhs, T const* lu, int const* ipiv, T const* b,
                     int64_t reps)
{
    const int N = to_int(n), NRHS = to_int(nrhs);
    const std::size_t nn = std::size_t(n) * std::size_t(n), nk = std::size_t(n) * std::size_t(nrhs);
    Session s;
    DeviceArray<T> LU(lu, nn), B0(b, nk), B(nk);
    DeviceArray<int> pivots(std::size_t(std::max(N, 1))), info(1);
    cuda_check(cudaMemcpy(pivots.get(), ipiv, std::size_t(n) * sizeof(int), cudaMemcpyHostToDevice),
               "cudaMemcpy (the pivots)");
    const double seconds = s.median_seconds(
        reps, [&] { s.copy(B.get(), B0.get(), nk); },
        [&] { getrs<T>(s, N, NRHS, LU.get(), pivots.get(), B.get(), info.get()); });
    expect_info_zero(info, "getrs");
    return seconds;
}

template <la::Scalar T>
double gesv_seconds(int64_t n, int64_t nrhs, T const* a, T const* b, int64_t reps)
{
    const int N = to_int(n), NRHS = to_int(nrhs);
    const std::size_t nn = std::size_t(n) * std::size_t(n), nk = std::size_t(n) * std::size_t(nrhs);
    Session s;
    DeviceArray<T> A0(a, nn), A(nn), B0(b, nk), B(nk);
    DeviceArray<int> ipiv(std::size_t(std::max(N, 1))), factor_info(1), solve_info(1);
    Getrf<T> getrf(s, N, N, A.get());
    const double seconds = s.median_seconds(
        reps,
        [&] {
            s.copy(A.get(), A0.get(), nn);
            s.copy(B.get(), B0.get(), nk);
        },
        [&] {
            getrf(ipiv.get(), factor_info.get());
            getrs<T>(s, N, NRHS, A.get(), ipiv.get(), B.get(), solve_info.get());
        });
    expect_info_zero(factor_info, "getrf (of gesv)");
    expect_info_zero(solve_info, "getrs (of gesv)");
    return seconds;
}

template <la::Scalar T>
double mixed_gesv_seconds(int64_t n, int64_t nrhs, T const* a, T const* b, int64_t reps, int* iter)
{
    if constexpr (!std::same_as<T, double> && !std::same_as<T, cz>) {
        throw InvalidArgument("the mixed-precision GPU peer is in double or complex<double> only");
    } else {
        const int N = to_int(n), NRHS = to_int(nrhs);
        const std::size_t nn = std::size_t(n) * std::size_t(n),
                          nk = std::size_t(n) * std::size_t(nrhs);
        Session s;
        DeviceArray<T> A0(a, nn), A(nn), B(b, nk), X(nk);
        DeviceArray<int> ipiv(std::size_t(std::max(N, 1))), info(1);
        constexpr bool real = std::same_as<T, double>;
        std::size_t bytes = 0;
        if constexpr (real)
            cuda_check(cusolverDnDSgesv_bufferSize(s.solver, N, NRHS, A.get(), N, ipiv.get(),
                                                   B.get(), N, X.get(), N, nullptr, &bytes),
                       "cusolverDnDSgesv_bufferSize");
        else
            cuda_check(cusolverDnZCgesv_bufferSize(s.solver, N, NRHS, A.get(), N, ipiv.get(),
                                                   B.get(), N, X.get(), N, nullptr, &bytes),
                       "cusolverDnZCgesv_bufferSize");
        DeviceArray<std::byte> work(std::max<std::size_t>(bytes, 1));
        const double seconds = s.median_seconds(
            reps, [&] { s.copy(A.get(), A0.get(), nn); },
            [&] {
                if constexpr (real)
                    cuda_check(cusolverDnDSgesv(s.solver, N, NRHS, A.get(), N, ipiv.get(), B.get(),
                                                N, X.get(), N, work.get(), bytes, iter, info.get()),
                               "cusolverDnDSgesv");
                else
                    cuda_check(cusolverDnZCgesv(s.solver, N, NRHS, A.get(), N, ipiv.get(), B.get(),
                                                N, X.get(), N, work.get(), bytes, iter, info.get()),
                               "cusolverDnZCgesv");
            });
        expect_info_zero(info, real ? "DSgesv" : "ZCgesv");
        return seconds;
    }
}

template <class R>
double fft2d_seconds(int64_t n0, int64_t n1, std::complex<R> const* x, int64_t reps)
{
    int n[2] = {to_int(n0), to_int(n1)};
    const std::size_t nn = std::size_t(n0) * std::size_t(n1);
    Session s;
    DeviceArray<std::complex<R>> X(x, nn), Y(nn);
    constexpr bool single = std::same_as<R, float>;
    cufftHandle plan = 0;
    cuda_check(
        cufftPlanMany(&plan, 2, n, nullptr, 1, 0, nullptr, 1, 0, single ? CUFFT_C2C : CUFFT_Z2Z, 1),
        "cufftPlanMany");
    double seconds = 0;
    try {
        cuda_check(cufftSetStream(plan, s.stream()), "cufftSetStream");
        seconds = s.median_seconds(
            reps, [] {},
            [&] {
                if constexpr (single)
                    cuda_check(cufftExecC2C(plan, X.get(), Y.get(), CUFFT_FORWARD), "cufftExecC2C");
                else
                    cuda_check(cufftExecZ2Z(plan, X.get(), Y.get(), CUFFT_FORWARD), "cufftExecZ2Z");
            });
    } catch (...) {
        cufftDestroy(plan);
        throw;
    }
    cufftDestroy(plan);
    return seconds;
}

template double fft2d_seconds<float>(int64_t, int64_t, std::complex<float> const*, int64_t);
template double fft2d_seconds<double>(int64_t, int64_t, std::complex<double> const*, int64_t);

#define TESSERA_INSTANTIATE(T)                                                                     \
    template double gemm_seconds<T>(int64_t, T const*, T const*, T const*, int64_t);               \
    template double potrf_seconds<T>(la::Uplo, int64_t, T const*, int64_t);                        \
    template double potrs_seconds<T>(la::Uplo, int64_t, int64_t, T const*, T const*, int64_t);     \
    template double posv_seconds<T>(la::Uplo, int64_t, int64_t, T const*, T const*, int64_t);      \
    template double potri_seconds<T>(la::Uplo, int64_t, T const*, int64_t);                        \
    template double getrf_seconds<T>(int64_t, int64_t, T const*, int64_t);                         \
    template double geqrf_seconds<T>(int64_t, int64_t, T const*, int64_t);                         \
    template double getrs_seconds<T>(int64_t, int64_t, T const*, int const*, T const*, int64_t);   \
    template double gesv_seconds<T>(int64_t, int64_t, T const*, T const*, int64_t);                \
    template double mixed_gesv_seconds<T>(int64_t, int64_t, T const*, T const*, int64_t, int*);
TESSERA_INSTANTIATE(float)
TESSERA_INSTANTIATE(double)
TESSERA_INSTANTIATE(cf)
TESSERA_INSTANTIATE(cz)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::bench::gpu
