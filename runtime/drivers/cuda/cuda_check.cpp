// Statuses of the CUDA runtime, cuBLAS, cuSOLVER and cuFFT as tessera::DeviceError: the call
// that failed, the status's name and, where the library has one, its description.
#include <tessera/error.hpp>
#include <tessera/rt/cuda.hpp>

#include <string>

namespace tessera::rt {

namespace {
[[noreturn]] void fail(std::string_view what, std::string const& status)
{
    int device = -1;
    std::string where =
        cudaGetDevice(&device) == cudaSuccess ? " (device " + std::to_string(device) + ")" : "";
    throw DeviceError(std::string(what) + ": " + status + where);
}

char const* cusolver_name(cusolverStatus_t s)
{
    switch (s) {
    case CUSOLVER_STATUS_NOT_INITIALIZED:
        return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED:
        return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE:
        return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH:
        return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED:
        return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR:
        return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED:
        return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default:
        return "cuSOLVER status";
    }
}

char const* cufft_name(cufftResult s)
{
    switch (s) {
    case CUFFT_INVALID_PLAN:
        return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
        return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_VALUE:
        return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
        return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
        return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
        return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
        return "CUFFT_INVALID_SIZE";
    case CUFFT_NOT_SUPPORTED:
        return "CUFFT_NOT_SUPPORTED";
    default:
        return "cuFFT result";
    }
}
}  // namespace

void cuda_check(cudaError_t status, std::string_view what)
{
    if (status == cudaSuccess) [[likely]]
        return;
    (void)cudaGetLastError();  // clears a non-sticky error so that the next call starts clean
    fail(what, std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")");
}

void cuda_check(cublasStatus_t status, std::string_view what)
{
    if (status == CUBLAS_STATUS_SUCCESS) [[likely]]
        return;
    fail(what,
         std::string(cublasGetStatusName(status)) + " (" + cublasGetStatusString(status) + ")");
}

void cuda_check(cusolverStatus_t status, std::string_view what)
{
    if (status == CUSOLVER_STATUS_SUCCESS) [[likely]]
        return;
    fail(what, std::string(cusolver_name(status)) + " " + std::to_string(int(status)));
}

void cuda_check(cufftResult status, std::string_view what)
{
    if (status == CUFFT_SUCCESS) [[likely]]
        return;
    fail(what, std::string(cufft_name(status)) + " " + std::to_string(int(status)));
}

}  // namespace tessera::rt
