/// @file cuda.hpp
/// What a codelet's CUDA implementation receives (only in builds with CUDA), and the checks
/// that turn CUDA, cuBLAS, cuSOLVER and cuFFT statuses into tessera::DeviceError.
///
///     void scal_cuda(rt::CudaContext const& cuda, rt::Vector<double> x, double alpha)
///     {
///         rt::cuda_check(cublasDscal(cuda.cublas, int(x.n), &alpha, x.ptr, 1), "cublasDscal");
///     }
///     const rt::Codelet<rt::Vector<double>, double> scal{.name = "scal", .cpu = &scal_cpu,
///                                                        .cuda = &scal_cuda};
///
/// Everything an implementation does goes on `cuda.stream`, which the library handles are
/// bound to (cuBLAS in host pointer mode). It never synchronizes: the worker records an event
/// after the call and completes the task once the event has passed, and meanwhile launches the
/// next task, whose data is copied in while this one's kernels run.
#pragma once

#if TESSERA_HAVE_CUDA

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cufft.h>
#include <cusolverDn.h>

#include <cstddef>
#include <functional>
#include <string_view>

namespace tessera::rt {

struct CudaContext;
namespace detail {
class CudaTaskSlot;
/// The worker's record of the task a context belongs to (the CUDA driver sets and reads it).
CudaTaskSlot*& cuda_task_slot(CudaContext& c) noexcept;
}  // namespace detail

/// A CUDA worker's stream and library handles, and what one task may ask of its worker.
struct CudaContext {
    int device = 0;                         ///< CUDA device ordinal of the worker
    cudaStream_t stream = nullptr;          ///< the worker's stream: queue everything here
    cublasHandle_t cublas = nullptr;        ///< bound to `stream`, host pointer mode
    cusolverDnHandle_t cusolver = nullptr;  ///< bound to `stream`

    /// Device memory of at least `bytes` for this task's kernels. Stream-ordered: the next
    /// task of the worker may reuse it once this task's kernels are done, so it never needs
    /// freeing. Not counted in the node's capacity (TESSERA_CUDA_MEM); where the GPU is full,
    /// the node evicts unused replicas to make room for it.
    void* workspace(std::size_t bytes) const;
    /// Page-locked host memory of at least `bytes` (at most host_scratch_bytes), this task's
    /// own until its completion functions have run: the target of a cudaMemcpyAsync of a
    /// small result, e.g. cuSOLVER's info, read in a function given to at_completion.
    void* host_scratch(std::size_t bytes) const;
    static constexpr std::size_t host_scratch_bytes = 4096;  ///< bytes host_scratch can give
    /// Runs `f` on the worker thread once everything this task queued on `stream` is done,
    /// before the task completes (an exception it throws fails the task).
    void at_completion(std::function<void()> f) const;
    /// A cuFFT plan (cufftMakePlanMany with contiguous data: `rank` dimensions `n`, slowest
    /// first, `batch` transforms of `type`), made once per worker and shape and bound to
    /// `stream`. Where its work area finds the GPU full, the node evicts unused replicas first.
    cufftHandle fft_plan(int rank, int const* n, int batch, cufftType type) const;

private:
    friend detail::CudaTaskSlot*& detail::cuda_task_slot(CudaContext& c) noexcept;
    detail::CudaTaskSlot* slot_ = nullptr;  // the worker's record of this task
};

/// @name Status checks
//@{
/// Each throws tessera::DeviceError naming `what` and the status when it is not a success.
void cuda_check(cudaError_t status, std::string_view what);
void cuda_check(cublasStatus_t status, std::string_view what);
void cuda_check(cusolverStatus_t status, std::string_view what);
void cuda_check(cufftResult status, std::string_view what);
//@}

}  // namespace tessera::rt

#endif  // TESSERA_HAVE_CUDA
