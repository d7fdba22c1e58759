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

template <la::Scalar T> double potrf_seconds(int64_t n, T const* a, int64_t reps)
{
    const int N = to_int(n);
    const std::size_t nn = std::size_t(n) * std::size_t(n);
    Session s;
    DeviceArray<T> A0(a, nn), A(nn);
    const auto L = CUBLAS_FILL_MODE_LOWER;
    int lwork = 0;
    cusolverStatus_t st;
    if constexpr (std::same_as<T, float>)
        st = cusolverDnSpotrf_bufferSize(s.solver, L, N, A.get(), N, &lwork);
    else if constexpr (std::same_as<T, double>)
        st = cusolverDnDpotrf_bufferSize(s.solver, L, N, A.get(), N, &lwork);
    else if constexpr (std::same_as<T, cf>)
        st = cusolverDnCpotrf_bufferSize(s.solver, L, N, A.get(), N, &lwork);
    else
        st = cusolverDnZpotrf_bufferSize(s.solver, L, N, A.get(), N, &lwork);
    cuda_check(st, "cusolverDn<t>potrf_bufferSize");
    DeviceArray<T> work(std::size_t(std::max(lwork, 1)));
    DeviceArray<int> info(1);
    const double seconds = s.median_seconds(
        reps, [&] { s.copy(A.get(), A0.get(), nn); },
        [&] {
            cusolverStatus_t r;
            if constexpr (std::same_as<T, float>)
                r = cusolverDnSpotrf(s.solver, L, N, A.get(), N, work.get(), lwork, info.get());
            else if constexpr (std::same_as<T, double>)
                r = cusolverDnDpotrf(s.solver, L, N, A.get(), N, work.get(), lwork, info.get());
            else if constexpr (std::same_as<T, cf>)
                r = cusolverDnCpotrf(s.solver, L, N, A.get(), N, work.get(), lwork, info.get());
            else
                r = cusolverDnZpotrf(s.solver, L, N, A.get(), N, work.get(), lwork, info.get());
            cuda_check(r, la::by_precision<T>("cusolverDnSpotrf", "cusolverDnDpotrf",
                                              "cusolverDnCpotrf", "cusolverDnZpotrf"));
        });
    int host_info = -1;
    cuda_check(cudaMemcpy(&host_info, info.get(), sizeof(int), cudaMemcpyDeviceToHost),
               "cudaMemcpy (info)");
    if (host_info != 0) throw Error("cusolverDn potrf peer: info = " + std::to_string(host_info));
    return seconds;
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template double gemm_seconds<T>(int64_t, T const*, T const*, T const*, int64_t);               \
    template double potrf_seconds<T>(int64_t, T const*, int64_t);
TESSERA_INSTANTIATE(float)
TESSERA_INSTANTIATE(double)
TESSERA_INSTANTIATE(cf)
TESSERA_INSTANTIATE(cz)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::bench::gpu
