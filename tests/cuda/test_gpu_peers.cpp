// The GPU peers of tessera-bench (bench/cuda/gpu_peers.cpp): each one's cuBLAS / cuSOLVER
// calls run on the inputs the bench gives them, in the four precisions and with either
// triangle (Cholesky), LU's and QR's square and tall, the 2D FFT's (cuFFT), and a peer whose factorization fails says so
// instead of timing garbage. On a real
// GPU, or on the CUDA simulator, which checks that every pointer handed to cuBLAS and
// cuSOLVER is device memory of the right extent; skipped without either.
#include "accuracy/accuracy.hpp"
#include "bench/cuda/gpu_peers.hpp"

#include <cuda_runtime_api.h>

#include <cmath>
#include <concepts>
#include <vector>

namespace tessera::test {
namespace {

namespace gpu = tessera::bench::gpu;

class GpuPeers : public PrecisionSweep {
protected:
    void SetUp() override
    {
        PrecisionSweep::SetUp();  // the oracles' OpenBLAS on one thread (TSan cannot see its own)
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
            (void)cudaGetLastError();
            GTEST_SKIP() << "no GPU: the GPU peers need one";
        }
    }
};

bool timed(double seconds)
{
    return std::isfinite(seconds) && seconds >= 0;
}

TEST_P(GpuPeers, EachPeerRunsOnTheBenchInputs)
{
    with_precision([&]<class T>() {
        constexpr int64_t n = 100, nrhs = 5, reps = 2;
        const Dense<T> A = random_dense<T>(n, n, 1), BC = random_dense<T>(n, 2 * n, 2);
        const Dense<T> H = hpd_dense<T>(n, 3), B = random_dense<T>(n, nrhs, 4);
        EXPECT_TRUE(timed(gpu::gemm_seconds<T>(n, A.data(), BC.data(), BC.data() + n * n, reps)));
        for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
            Dense<T> F = H;  // the factor
            ASSERT_EQ(blas::potrf<T>(uplo, n, F.data(), F.ld), 0);
            EXPECT_TRUE(timed(gpu::potrf_seconds<T>(uplo, n, H.data(), reps)));
            EXPECT_TRUE(timed(gpu::potrs_seconds<T>(uplo, n, nrhs, F.data(), B.data(), reps)));
            EXPECT_TRUE(timed(gpu::posv_seconds<T>(uplo, n, nrhs, H.data(), B.data(), reps)));
            EXPECT_TRUE(timed(gpu::potri_seconds<T>(uplo, n, F.data(), reps)));
        }
        // the LU peers: getrf of a tall A too, getrs from LAPACK's factors, gesv, the mixed one
        Dense<T> LU = A;
        std::vector<lapack_int> ipiv(static_cast<std::size_t>(n));
        ASSERT_EQ(blas::getrf<T>(n, n, LU.data(), LU.ld, ipiv.data()), 0);
        const Dense<T> tall = random_dense<T>(2 * n, n, 5);
        EXPECT_TRUE(timed(gpu::getrf_seconds<T>(n, n, A.data(), reps)));
        EXPECT_TRUE(timed(gpu::getrf_seconds<T>(2 * n, n, tall.data(), reps)));
        EXPECT_TRUE(timed(gpu::geqrf_seconds<T>(n, n, A.data(), reps)));
        EXPECT_TRUE(timed(gpu::geqrf_seconds<T>(2 * n, n, tall.data(), reps)));
        EXPECT_TRUE(timed(gpu::getrs_seconds<T>(n, nrhs, LU.data(), ipiv.data(), B.data(), reps)));
        EXPECT_TRUE(timed(gpu::gesv_seconds<T>(n, nrhs, A.data(), B.data(), reps)));
        if constexpr (std::same_as<T, double> || std::same_as<T, std::complex<double>>) {
            int iter = -100;
            EXPECT_TRUE(
                timed(gpu::mixed_gesv_seconds<T>(n, nrhs, H.data(), B.data(), reps, &iter)));
            EXPECT_GE(iter, 0)
                << "a well-conditioned system converges without falling back to double";
        } else {
            int iter = 0;
            EXPECT_THROW((void)gpu::mixed_gesv_seconds<T>(n, nrhs, H.data(), B.data(), reps, &iter),
                         tessera::InvalidArgument);
        }
    });
}

TEST_P(GpuPeers, TheFftPeerRunsOnTheBenchInputs)
{
    with_precision([&]<class T>() {
        if constexpr (is_complex_v<T>) {
            const Dense<T> X = random_dense<T>(48, 40, 6);  // 40 x 48 row-major
            EXPECT_TRUE(timed(gpu::fft2d_seconds<real_t<T>>(40, 48, X.data(), 2)));
        }
    });
}

TEST_P(GpuPeers, AFailedFactorizationIsAnError)
{
    with_precision([&]<class T>() {
        constexpr int64_t n = 50;
        Dense<T> H = hpd_dense<T>(n, 3);
        H(20, 20) = T(-1);
        const Dense<T> B = random_dense<T>(n, 2, 4);
        for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
            EXPECT_THROW((void)gpu::potrf_seconds<T>(uplo, n, H.data(), 1), tessera::Error);
            EXPECT_THROW((void)gpu::posv_seconds<T>(uplo, n, 2, H.data(), B.data(), 1),
                         tessera::Error);
        }
        Dense<T> S = random_dense<T>(n, n, 6);  // singular: column 7 is zero
        for (int64_t i = 0; i < n; ++i) S(i, 7) = T(0);
        EXPECT_THROW((void)gpu::getrf_seconds<T>(n, n, S.data(), 1), tessera::Error);
        EXPECT_THROW((void)gpu::gesv_seconds<T>(n, 2, S.data(), B.data(), 1), tessera::Error);
    });
}

TESSERA_INSTANTIATE_PRECISIONS(GpuPeers);

}  // namespace
}  // namespace tessera::test
