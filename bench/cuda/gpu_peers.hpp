// The GPU peers of `tessera-bench gemm`, `potrf`, `potrs`, `posv`, `potri`, `getrf`, `getrs`,
// `gesv`, `dsgesv` and `fft2d`: the cuBLAS / cuSOLVER / cuFFT calls of the same size, the best a single GPU does
// with the whole matrix in its memory. Built only in CUDA builds (gpu_peers.cpp is under
// cuda/); this header includes no CUDA header.
#pragma once

#include <tessera/la/enums.hpp>
#include <tessera/la/scalar.hpp>

#include <complex>
#include <cstdint>

namespace tessera::bench::gpu {

/// Median seconds of `reps` calls of cublas<t>gemm, C = A B + C with the n x n column-major a,
/// b and c copied to the current device once: one warm-up call first, C restored from its
/// device copy before each call, only the call timed (CUDA events on the peer's own stream).
template <la::Scalar T>
double gemm_seconds(int64_t n, T const* a, T const* b, T const* c, int64_t reps);

/// The same for cusolverDn<t>potrf(uplo) of the n x n Hermitian positive definite a, restored
/// from its device copy before each call; throws tessera::Error if its info is not 0.
template <la::Scalar T> double potrf_seconds(la::Uplo uplo, int64_t n, T const* a, int64_t reps);

/// cusolverDn<t>potrs(uplo) with the n x n factor l on the n x nrhs b (restored).
template <la::Scalar T>
double potrs_seconds(la::Uplo uplo, int64_t n, int64_t nrhs, T const* l, T const* b, int64_t reps);

/// cuSOLVER has no posv: cusolverDn<t>potrf(uplo) of a, then <t>potrs on b, timed together,
/// as a cuSOLVER user solves (both restored).
template <la::Scalar T>
double posv_seconds(la::Uplo uplo, int64_t n, int64_t nrhs, T const* a, T const* b, int64_t reps);

/// cusolverDn<t>potri(uplo) from the n x n factor l (restored).
template <la::Scalar T> double potri_seconds(la::Uplo uplo, int64_t n, T const* l, int64_t reps);

/// cusolverDn<t>getrf (partial pivoting) of the m x n a (restored); throws tessera::Error if
/// its info is not 0.
template <la::Scalar T> double getrf_seconds(int64_t m, int64_t n, T const* a, int64_t reps);

/// cusolverDn<t>geqrf of the m x n a (restored); throws tessera::Error if its info is not 0.
template <la::Scalar T> double geqrf_seconds(int64_t m, int64_t n, T const* a, int64_t reps);

/// cusolverDn<t>getrs (no transpose) with the n x n factors lu and their pivots ipiv (LAPACK's,
/// from 1) on the n x nrhs b (restored).
template <la::Scalar T>
double getrs_seconds(int64_t n, int64_t nrhs, T const* lu, int const* ipiv, T const* b,
                     int64_t reps);

/// cuSOLVER has no gesv in its classic API: cusolverDn<t>getrf of a, then <t>getrs on b, timed
/// together (both restored).
template <la::Scalar T>
double gesv_seconds(int64_t n, int64_t nrhs, T const* a, T const* b, int64_t reps);

/// cusolverDnDSgesv (T double) or cusolverDnZCgesv (complex<double>): factored in single,
/// refined in double, as LAPACK's dsgesv, A restored before each call (a fall-back to double
/// leaves its factors there); `iter` receives the last call's iterations (negative: it fell
/// back to double).
template <la::Scalar T>
double mixed_gesv_seconds(int64_t n, int64_t nrhs, T const* a, T const* b, int64_t reps, int* iter);

/// Median seconds of `reps` forward cufftExecC2C / Z2Z of the n0 x n1 row-major x (complex
/// float or double), out of place on the device, plan made once before the timing.
template <class R>
double fft2d_seconds(int64_t n0, int64_t n1, std::complex<R> const* x, int64_t reps);

}  // namespace tessera::bench::gpu
